"""Consecutive groups on the first principal component, placed optimally: a sorted variant for large files."""

from __future__ import annotations

import numpy as np

from rumap._compile import compiled
from rumap.masking.microaggregation.optimal import _optimal_sorted, _runs_from_back
from rumap.masking.microaggregation.partition import _labels_from_runs
from rumap.masking.microaggregation.ranking import _first_principal_component
from rumap.masking.ranks import stable_order


def _optimal_pc1(space: np.ndarray, k: int) -> np.ndarray:
    """The least-SSE partition into runs of k .. 2k-1 records consecutive on the first principal component.

    The records are sorted by their first principal component score (ties in
    the records' order), and the sorted sequence is cut into runs of k .. 2k-1
    records minimizing the within-group sum of squares of all variables: the
    dynamic programme of optimal univariate microaggregation (Hansen & Mukherjee
    2003) with the multivariate SSE of a run as its cost (compiled
    :func:`_optimal_runs_multivariate`), as in microaggregation along an
    ordering of the records followed by an optimal partition of that ordering
    (Domingo-Ferrer, Martinez-Balleste, Mateo-Sanz & Sebe 2006). Fixed-size
    groups on the same ordering ("fixed" with the criterion "pc1") are one of
    the partitions it chooses from, so its loss is never above theirs. Work
    ``O(n p^2)`` for the projection, a radix sort, ``O(n k p)`` for the
    programme. With one variable it is "optimal".
    """
    if space.shape[1] == 1:
        order = stable_order(space[:, 0])
        return _labels_from_runs(order, _optimal_sorted(space[order, 0], k))
    order = stable_order(_first_principal_component(space))
    ordered = space[order]
    ordered -= ordered.mean(axis=0)
    back = compiled(_optimal_runs_multivariate)(ordered, int(k))
    return _labels_from_runs(order, compiled(_runs_from_back)(back))


def _optimal_runs_multivariate(x: np.ndarray, k: int) -> np.ndarray:
    """``back`` of the least-SSE partition of the rows of ``x`` (n, p) into runs of k .. 2k-1 (compiled):
    ``back[j]`` is the length of the last run of the first j rows.

    ``best[j]`` is the least SSE of the first j rows; once ``best[b]`` is
    final, the runs starting at b update ``best[b + L]`` for L = k .. 2k-1.
    A run's SSE is ``sum_j (S2_j - S1_j^2 / L)`` with sums of the values minus
    the run's first row. A tie goes to the later begin, i.e. the shorter last run.
    """
    n, p = x.shape
    best = np.full(n + 1, np.inf)
    best[0] = 0.0
    back = np.zeros(n + 1, dtype=np.int64)
    s1 = np.empty(p)
    s2 = np.empty(p)
    for b in range(n - k + 1):
        base = best[b]
        if base == np.inf:
            continue
        s1[:] = 0.0
        s2[:] = 0.0
        for offset in range(min(2 * k - 1, n - b)):
            length = offset + 1
            cost = 0.0
            for j in range(p):
                d = x[b + offset, j] - x[b, j]
                s1[j] += d
                s2[j] += d * d
                term = s2[j] - s1[j] * s1[j] / length
                cost += term if term > 0.0 else 0.0
            if length >= k:
                total = base + cost
                if total <= best[b + length]:
                    best[b + length] = total
                    back[b + length] = length
    return back
