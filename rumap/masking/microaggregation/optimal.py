"""Optimal univariate microaggregation (Hansen & Mukherjee 2003): the least-SSE partition of sorted values."""

from __future__ import annotations

import numpy as np

from rumap._compile import compiled
from rumap.errors import InputError
from rumap.masking.microaggregation.partition import _labels_from_runs


def _optimal_sorted(sorted_values: np.ndarray, k: int) -> np.ndarray:
    """Group lengths of the least-SSE partition of sorted values into runs of k .. 2k-1.

    Dynamic programming (Hansen & Mukherjee 2003): with ``best[j]`` the least
    SSE of the first j values,
    ``best[j] = min_{k <= L <= 2k-1} best[j-L] + SSE(values[j-L:j])``, ties to
    the shortest last run. Compiled (:func:`_optimal_runs`): O(n k) work and
    O(n) memory. The SSE of a run is computed from sums of the values minus the
    run's first value, so that tight runs far from the mean keep their precision.
    """
    sd = sorted_values.std()
    x = np.ascontiguousarray((sorted_values - sorted_values.mean()) / (sd if sd > 0 else 1.0), dtype=float)
    return compiled(_runs_from_back)(compiled(_optimal_runs)(x, int(k)))


def _optimal_runs(x: np.ndarray, k: int) -> np.ndarray:
    """``back`` of the least-SSE partition of ``x`` into runs of k .. 2k-1 (compiled kernel): ``back[j]`` is the
    length of the last run of the first j values (:func:`_runs_from_back` gives the runs).

    Forward form of the dynamic programme: once ``best[b]`` is final, the runs
    starting at b (lengths k .. 2k-1) update ``best[b + L]``; sums are anchored
    at ``x[b]``. A tie goes to the later begin, i.e. the shorter last run.
    """
    n = x.size
    best = np.full(n + 1, np.inf)
    best[0] = 0.0
    back = np.zeros(n + 1, dtype=np.int64)
    for b in range(n - k + 1):
        base = best[b]
        if base == np.inf:
            continue
        anchor = x[b]
        s1 = 0.0
        s2 = 0.0
        for offset in range(min(2 * k - 1, n - b)):
            d = x[b + offset] - anchor
            s1 += d
            s2 += d * d
            length = offset + 1
            if length >= k:
                cost = s2 - s1 * s1 / length
                total = base + (cost if cost > 0.0 else 0.0)
                if total <= best[b + length]:
                    best[b + length] = total
                    back[b + length] = length
    return back


def _runs_from_back(back: np.ndarray) -> np.ndarray:
    """The run lengths of a partition of n values from ``back[j]``, the length of the last run of the
    first j values (compiled; shared by the optimal programmes)."""
    n = back.size - 1
    n_runs = 0
    j = n
    while j > 0:
        n_runs += 1
        j -= back[j]
    runs = np.empty(n_runs, dtype=np.int64)
    j = n
    for r in range(n_runs - 1, -1, -1):
        runs[r] = back[j]
        j -= back[j]
    return runs


def _optimal(space: np.ndarray, k: int) -> np.ndarray:
    """Optimal univariate microaggregation (Hansen & Mukherjee 2003)."""
    if space.shape[1] != 1:
        raise InputError(f"algorithm 'optimal' is univariate: it needs one column, got {space.shape[1]}; "
                         "use 'mdav' or 'mwa' for several variables, or 'individual'")
    order = np.argsort(space[:, 0], kind="stable")
    return _labels_from_runs(order, _optimal_sorted(space[order, 0], k))
