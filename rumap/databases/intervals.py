"""What answered queries imply about each record: the LP range of every value under the answers.

An intruder who has the answers [r_q^-, r_q^+] of linear queries (SUM, MEAN)
knows r_q^- <= c_q . x <= r_q^+ for the true values x, plus any bounds known
a priori (values are non-negative, say); the smallest and largest x_i under
these constraints are two linear programs per record (scipy's HiGHS), as the
table audit does for suppressed cells (:mod:`rumap.tables.bounds`). Answers of
MIN and MAX queries add per-record bounds: MIN over T >= r^- means every x_i,
i in T, is at least r^-; MAX over T <= r^+ means every x_i is at most r^+.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
from scipy.optimize import linprog

from rumap._validation import assumes_valid
from rumap.databases.queries import Query
from rumap.errors import InputError

__all__ = ["query_row", "record_ranges", "implied_ranges"]


@assumes_valid
def query_row(query: Query, n: int) -> np.ndarray:
    """The coefficients c of a linear query (SUM: 1 on T; MEAN: 1/|T| on T) over n records.

    Parameters
    ----------
    query : Query
        A SUM or MEAN query.
    n : int
        The number of records.

    Returns
    -------
    ndarray, shape (n,)

    Examples
    --------
    >>> from rumap.databases.queries import parse_query
    >>> query_row(parse_query("MEAN:1,2", 3), 3).tolist()
    [0.5, 0.5, 0.0]
    """
    row = np.zeros(n)
    row[query.index] = 1.0 / len(query.records) if query.kind == "MEAN" else 1.0
    return row


@assumes_valid
def record_ranges(rows: np.ndarray, low: np.ndarray, high: np.ndarray, lower: np.ndarray, upper: np.ndarray,
                  records: Sequence[int] | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Min and max of each chosen x_i subject to low <= rows @ x <= high and lower <= x <= upper (2 LPs each).

    Parameters
    ----------
    rows : ndarray, shape (m, n)
        The linear queries' coefficients.
    low, high : ndarray, shape (m,)
        Their answers' ends (equal for an exact answer: an equation).
    lower, upper : ndarray, shape (n,)
        Bounds known a priori (``-inf`` / ``inf`` for none).
    records : sequence of int, optional
        0-based records to bound (default all).

    Returns
    -------
    mins, maxs : ndarray, shape (len(records),)
        ``-inf`` / ``inf`` where unbounded.

    Raises
    ------
    InputError
        When no values meet the answers (inconsistent answers).

    Examples
    --------
    >>> rows = np.array([[1.0, 1.0, 1.0], [1.0, 1.0, 0.0]])
    >>> record_ranges(rows, np.array([9.0, 4.0]), np.array([9.0, 4.0]), np.zeros(3), np.full(3, np.inf))
    (array([0., 0., 5.]), array([4., 4., 5.]))
    """
    n = rows.shape[1] if rows.size else lower.size
    chosen = list(range(n)) if records is None else list(records)
    bounds = [(None if math.isinf(lo) else float(lo), None if math.isinf(hi) else float(hi))
              for lo, hi in zip(lower, upper, strict=True)]
    exact = np.isclose(low, high, rtol=0.0, atol=0.0)
    a_eq = rows[exact] if exact.any() else None
    b_eq = low[exact] if exact.any() else None
    loose = ~exact
    a_ub = np.vstack([rows[loose], -rows[loose]]) if loose.any() else None
    b_ub = np.concatenate([high[loose], -low[loose]]) if loose.any() else None
    mins, maxs = np.empty(len(chosen)), np.empty(len(chosen))
    feasible: bool | None = None
    for position, i in enumerate(chosen):  # one LP pair per record: the intruder's bounds on its value
        objective = np.zeros(n)
        objective[i] = 1.0
        for sign, out in ((1.0, mins), (-1.0, maxs)):
            result = linprog(sign * objective, A_ub=a_ub, b_ub=b_ub, A_eq=a_eq, b_eq=b_eq, bounds=bounds,
                             method="highs")
            if result.status == 2 and feasible is None:  # HiGHS may call an unbounded problem infeasible
                check = linprog(np.zeros(n), A_ub=a_ub, b_ub=b_ub, A_eq=a_eq, b_eq=b_eq, bounds=bounds,
                                method="highs")
                feasible = check.status == 0
            if result.status == 2 and not feasible:
                raise InputError("the answers are inconsistent: no values meet them all")
            if result.status in (2, 3):
                out[position] = -sign * math.inf
            elif result.status != 0:
                raise InputError(f"the linear program failed: {result.message}")
            else:
                out[position] = sign * result.fun
    return mins, maxs


@assumes_valid
def implied_ranges(queries: Sequence[Query], low: np.ndarray, high: np.ndarray, n: int,
                   lower: np.ndarray | None = None, upper: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """The range of every record's value implied by answered queries [low_q, high_q].

    Parameters
    ----------
    queries : sequence of Query
        The answered queries; SUM and MEAN give linear constraints, MIN and
        MAX per-record bounds, COUNT nothing.
    low, high : ndarray, shape (q,)
        Their answer intervals.
    n : int
        The number of records.
    lower, upper : ndarray, shape (n,), optional
        Bounds known a priori (default none).

    Returns
    -------
    mins, maxs : ndarray, shape (n,)

    Examples
    --------
    >>> from rumap.databases.queries import parse_queries
    >>> qs = parse_queries(["SUM:1,2", "MIN:1,2"], 2)
    >>> implied_ranges(qs, np.array([10.0, 3.0]), np.array([12.0, 4.0]), 2)
    (array([3., 3.]), array([9., 9.]))
    """
    lo = np.full(n, -math.inf) if lower is None else np.asarray(lower, dtype=float).copy()
    hi = np.full(n, math.inf) if upper is None else np.asarray(upper, dtype=float).copy()
    linear = [j for j, q in enumerate(queries) if q.kind in ("SUM", "MEAN")]
    for j, q in enumerate(queries):
        if q.kind == "MIN":
            lo[q.index] = np.maximum(lo[q.index], low[j])
        elif q.kind == "MAX":
            hi[q.index] = np.minimum(hi[q.index], high[j])
    rows = np.array([query_row(queries[j], n) for j in linear]).reshape(len(linear), n)
    return record_ranges(rows, np.asarray(low, dtype=float)[linear], np.asarray(high, dtype=float)[linear], lo, hi)
