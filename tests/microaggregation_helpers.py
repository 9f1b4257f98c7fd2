"""Shared by the microaggregation tests: the univariate heuristics and a comparison of partitions."""

from __future__ import annotations

import numpy as np

UNIVARIATE_HEURISTICS = ["mdav", "mwa", "fixed", "individual"]


def same_partition(a: np.ndarray, b: np.ndarray) -> bool:
    """Whether two label vectors describe the same partition."""
    pairs = set(zip(a.tolist(), b.tolist(), strict=True))
    return len(pairs) == len(set(a.tolist())) == len(set(b.tolist()))
