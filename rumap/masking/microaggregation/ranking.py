"""Fixed-size groups on a sorting criterion, and individual ranking (Mas, "Unidimensional fixed-size methods")."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from rumap.masking.microaggregation.partition import _consecutive_labels, _standardize

__all__ = ["CRITERIA"]


def _first_principal_component(space: np.ndarray) -> np.ndarray:
    """Scores on the first principal component, oriented so its largest loading is positive."""
    centered = space - space.mean(axis=0)
    if centered.shape[1] == 1:
        return centered[:, 0]
    _, vectors = np.linalg.eigh(centered.T @ centered)
    loading = vectors[:, -1]
    loading = loading * np.sign(loading[np.argmax(np.abs(loading))])
    return centered @ loading


#: Sorting criteria of fixed-size microaggregation (Mas, "Unidimensional fixed-size methods").
CRITERIA: dict[str, Callable[[np.ndarray], np.ndarray]] = {
    "pc1": _first_principal_component,
    "variable": lambda space: space[:, 0],
    "zsum": lambda space: _standardize(space).sum(axis=1),
}


def _fixed(space: np.ndarray, k: int, criterion: str) -> np.ndarray:
    """Sort by the criterion; groups of k consecutive records, the last one takes the remainder."""
    score = CRITERIA[criterion](space)
    order = np.argsort(score, kind="stable")
    labels = np.empty(space.shape[0], dtype=np.int64)
    labels[order] = _consecutive_labels(space.shape[0], k)
    return labels


def _individual(space: np.ndarray, k: int) -> np.ndarray:
    """Individual ranking: every column sorted and cut into groups of k on its own; labels (n, p)."""
    n, p = space.shape
    order = np.argsort(space, axis=0, kind="stable")
    labels = np.empty((n, p), dtype=np.int64)
    np.put_along_axis(labels, order, _consecutive_labels(n, k)[:, None].repeat(p, axis=1), axis=0)
    return labels
