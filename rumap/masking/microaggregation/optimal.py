"""Optimal univariate microaggregation (Hansen & Mukherjee 2003): the least-SSE partition of sorted values."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from rumap.errors import InputError
from rumap.masking.microaggregation.partition import _labels_from_runs

# Largest number of entries of one dynamic-programming block of the optimal algorithm.
_BLOCK_ENTRIES = 1 << 20


def _optimal_sorted(sorted_values: np.ndarray, k: int) -> np.ndarray:
    """Group lengths of the least-SSE partition of sorted values into runs of k .. 2k-1.

    Dynamic programming (Hansen & Mukherjee 2003): with ``best[j]`` the least
    SSE of the first j values,
    ``best[j] = min_{k <= L <= 2k-1} best[j-L] + SSE(values[j-L:j])``. The
    positions of a block of k consecutive j depend only on ``best`` before the
    block, so each block is one vectorized step: O(n/k) steps of O(k^2) work.
    The SSE of a run is computed from cumulative sums of the values minus the
    run's first value (:func:`_run_costs_anchored`), so that tight runs far from
    the mean keep their precision; for k > 512 from global prefix sums in
    extended precision (:func:`_run_costs_prefix`), to bound memory.
    """
    n = sorted_values.size
    sd = sorted_values.std()
    x = (sorted_values - sorted_values.mean()) / (sd if sd > 0 else 1.0)
    best = np.full(n + 1, np.inf)
    best[0] = 0.0
    back = np.zeros(n + 1, dtype=np.int64)
    lengths = np.arange(k, 2 * k)
    if k <= 512:
        run_costs, step = _run_costs_anchored(x, k), k
    else:
        run_costs, step = _run_costs_prefix(x, k), max(1, min(k, _BLOCK_ENTRIES // k))
    for start in range(k, n + 1, step):
        ends = np.arange(start, min(start + step, n + 1))
        begins = ends[:, None] - lengths[None, :]
        valid = begins >= 0
        begins_c = np.where(valid, begins, 0)
        total = np.where(valid, best[begins_c] + run_costs(ends, begins_c), np.inf)
        choice = np.argmin(total, axis=1)
        best[ends] = total[np.arange(ends.size), choice]
        back[ends] = lengths[choice]
    runs = []
    j = n
    while j > 0:
        runs.append(back[j])
        j -= back[j]
    return np.array(runs[::-1], dtype=np.int64)


def _run_costs_anchored(x: np.ndarray, k: int) -> Callable[[np.ndarray, np.ndarray], np.ndarray]:
    """SSE of the runs ``x[b:e]`` (``ends`` e, ``begins`` b, shape (m, k)) from sums of ``x - x[b]``.

    The cumulative sums over each begin's window of 2k-1 values are computed
    for a span of about 2^20 / (2k) begins at a time and reused by the blocks
    that fall in it.
    """
    n = x.size
    offsets = np.arange(2 * k - 1)
    span = max(4 * k, _BLOCK_ENTRIES // (2 * k - 1))
    cache: dict[str, Any] = {"first": 0, "last": -1}

    def fill(first: int) -> None:
        anchors = np.arange(first, min(first + span, n))
        window = x[np.minimum(anchors[:, None] + offsets[None, :], n - 1)] - x[anchors][:, None]
        cache.update(first=first, last=int(anchors[-1]), sums=np.cumsum(window, axis=1),
                     squares=np.cumsum(window * window, axis=1))

    def costs(ends: np.ndarray, begins: np.ndarray) -> np.ndarray:
        if begins.min() < cache["first"] or begins.max() > cache["last"]:
            fill(int(begins.min()))
        length = ends[:, None] - begins
        row, col = begins - cache["first"], length - 1
        s1 = cache["sums"][row, col]
        return np.maximum(cache["squares"][row, col] - s1 * s1 / length, 0.0)

    return costs


def _run_costs_prefix(x: np.ndarray, k: int) -> Callable[[np.ndarray, np.ndarray], np.ndarray]:
    """SSE of the runs ``x[b:e]`` from global prefix sums (extended precision)."""
    wide = x.astype(np.longdouble)
    s1 = np.concatenate(([0.0], np.cumsum(wide))).astype(np.longdouble)
    s2 = np.concatenate(([0.0], np.cumsum(wide * wide))).astype(np.longdouble)

    def costs(ends: np.ndarray, begins: np.ndarray) -> np.ndarray:
        length = ends[:, None] - begins
        sums = s1[ends][:, None] - s1[begins]
        return np.maximum(s2[ends][:, None] - s2[begins] - sums * sums / length, 0.0).astype(float)

    return costs


def _optimal(space: np.ndarray, k: int) -> np.ndarray:
    """Optimal univariate microaggregation (Hansen & Mukherjee 2003)."""
    if space.shape[1] != 1:
        raise InputError(f"algorithm 'optimal' is univariate: it needs one column, got {space.shape[1]}; "
                         "use 'mdav' or 'mwa' for several variables, or 'individual'")
    order = np.argsort(space[:, 0], kind="stable")
    return _labels_from_runs(order, _optimal_sorted(space[order, 0], k))
