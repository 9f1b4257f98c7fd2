"""Brute force over cell suppression patterns, shared by the tests of n-D tables and of JJ instances.

A second computation, independent of rumap's solver: every pattern is enumerated, those where a primary is
determined by the equations alone are dropped (a suppressed cell that is the only unknown of an equation is known
exactly, repeatedly), and the rest are tried by increasing cost with scipy's ``linprog`` on every equation until
one protects every primary.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable

import numpy as np
from scipy.optimize import linprog


def interval(a: np.ndarray, rhs: np.ndarray, bounds: list[tuple[float, float | None]],
             k: int) -> tuple[float, float]:
    """min and max of y_k subject to a @ y = rhs and the bounds (inf when unbounded)."""
    c = np.zeros(a.shape[1])
    c[k] = 1.0
    low = linprog(c, A_eq=a, b_eq=rhs, bounds=bounds, method="highs")
    high = linprog(-c, A_eq=a, b_eq=rhs, bounds=bounds, method="highs")
    assert low.status == 0 and high.status in (0, 3)
    return float(low.fun), (np.inf if high.status == 3 else float(-high.fun))


def least_cost(a: np.ndarray, free: np.ndarray, primaries: np.ndarray, costs: np.ndarray,
               protects: Callable[[np.ndarray], bool]) -> float:
    """The least cost of a pattern (the primaries and a subset of ``free``) that ``protects`` accepts."""
    n = a.shape[1]
    bits = np.array(list(itertools.product([False, True], repeat=free.size)), dtype=bool)
    patterns = np.zeros((bits.shape[0], n), dtype=bool)
    patterns[:, free] = bits
    patterns[:, primaries] = True
    members = [np.flatnonzero(row) for row in a]
    known = ~patterns
    for _ in range(n):
        before = known.sum()
        for m in members:
            unknown = ~known[:, m]
            alone = unknown.sum(axis=1) == 1
            known[np.flatnonzero(alone), m[np.argmax(unknown[alone], axis=1)]] = True
        if known.sum() == before:
            break
    ok = ~known[:, primaries].any(axis=1)
    total = bits.astype(float) @ costs[free]
    for j in np.flatnonzero(ok)[np.argsort(total[ok], kind="stable")]:
        if protects(patterns[j]):
            return float(total[j])
    raise AssertionError("no protecting pattern")
