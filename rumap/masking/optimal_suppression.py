"""Optimal local suppression to k-anonymity, as a mixed integer linear programme (HiGHS).

mu-Argus's model of local suppression (seed 004, Mas): a record is protected
when each of its *unsafe combinations* (combinations of key variables whose
cell holds fewer than k records) loses at least one of its values. With
binary ``s_ij`` (suppress variable j of record i) and a cost ``c_j`` per
suppressed value, the least costly protection solves

    minimise  sum_ij c_j s_ij
    subject to  sum_{j in C} s_ij >= 1   for every record i and unsafe combination C of i,

a covering problem solved exactly by ``scipy.optimize.milp`` (HiGHS). When
every combination of the keys is considered, the values a record keeps form
a safe combination, so the file is k-anonymous (a suppressed value matching
any category only raises frequencies). The heuristic of
:func:`rumap.masking.categorical.local_suppression` re-counts after each pass
and can need fewer or more suppressions; this one is optimal for the model.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from itertools import combinations
from typing import Any

import numpy as np
import pandas as pd
from scipy.optimize import Bounds, LinearConstraint, milp
from scipy.sparse import csr_matrix

from rumap._validation import InstanceOf, Interval, validate_params
from rumap.budget import DEFAULT_BUDGET, WorkBudget
from rumap.errors import InputError
from rumap.masking.categorical import SuppressionResult
from rumap.risk._paired import as_frame, select_columns
from rumap.risk.cells import cell_frequencies, key_codes

__all__ = ["optimal_suppression"]

#: Largest number of key variables (every one of their 2^p - 1 combinations is checked).
MAX_KEYS = 12


def _example() -> dict[str, Any]:
    return {"data": pd.DataFrame({"sex": ["f", "f", "m", "m", "m", "f"], "region": ["a", "a", "a", "b", "b", "c"]}),
            "keys": ["sex", "region"], "k": 2}


@validate_params({"k": "k", "importance": [None, InstanceOf(Mapping, "a mapping of variable -> cost")],
                  "time_limit": Interval("float", 0.0, None, "neither", "seconds for the solver"),
                  "source": InstanceOf(str, "a name for messages"), "budget": InstanceOf(WorkBudget)},
                 example=_example)
def optimal_suppression(data: Any, keys: Sequence[str | int], k: int, importance: Mapping[str, float] | None = None,
                        time_limit: float = 60.0, source: str = "the data",
                        budget: WorkBudget = DEFAULT_BUDGET) -> SuppressionResult:
    """Suppress the least costly set of key values that leaves no record in an unsafe combination.

    Parameters
    ----------
    data : DataFrame or array_like
    keys : sequence of str or int
        The key variables (at most :data:`MAX_KEYS`).
    k : int
        A cell with fewer than k records is unsafe.
    importance : mapping, optional
        ``{variable: cost}`` of suppressing one of its values (default 1 each;
        costs must be > 0).
    time_limit : float, default 60
        Seconds HiGHS may take; without a proven optimum by then it is an error.
    source : str
    budget : WorkBudget
        Records x combinations, checked first.

    Returns
    -------
    SuppressionResult

    References
    ----------
    Seed 004 (Mas, EUSTAT), mu-Argus "local suppression" (minimum information
    loss); de Waal & Willenborg (1998), optimal local suppression.

    Examples
    --------
    >>> from rumap.masking.optimal_suppression import _example, optimal_suppression
    >>> result = optimal_suppression(**_example())
    >>> int(result.suppressed.sum()), result.data["region"].isna().sum()
    (2, np.int64(2))
    """
    frame = as_frame(data, source).copy()
    names = select_columns(frame, keys, source, what="key")
    p = len(names)
    if p > MAX_KEYS:
        raise InputError(f"optimal suppression takes at most {MAX_KEYS} key variables, got {p}")
    cost = np.array([float((importance or {}).get(name, 1.0)) for name in names])
    if not (np.isfinite(cost).all() and (cost > 0).all()):
        raise InputError("importance costs must be finite numbers > 0")
    n = frame.shape[0]
    budget.check_work(float(n) * (2**p - 1) * p, f"{n} records x {2**p - 1} combinations of {p} keys")
    codes = key_codes(frame, names)
    rows: list[np.ndarray] = []
    cols: list[np.ndarray] = []
    count = 0
    for d in range(1, p + 1):
        for combo in combinations(range(p), d):
            _group, frequency, known = cell_frequencies(codes, combo)
            unsafe_records = np.flatnonzero(known & (frequency < k))
            # one covering constraint per unsafe record: suppress at least one value of the combination
            rows.append(np.repeat(np.arange(count, count + unsafe_records.size), d))
            cols.append((unsafe_records[:, None] * p + np.array(combo)[None, :]).ravel())
            count += unsafe_records.size
    suppressed = np.zeros((n, p), dtype=bool)
    if count:
        row_index, col_index = np.concatenate(rows), np.concatenate(cols)
        matrix = csr_matrix((np.ones(row_index.size), (row_index, col_index)), shape=(count, n * p))
        result = milp(c=np.tile(cost, n), constraints=LinearConstraint(matrix, lb=1.0, ub=np.inf),
                      integrality=np.ones(n * p), bounds=Bounds(0.0, 1.0),
                      options={"time_limit": float(time_limit)})
        if result.status != 0 or result.x is None:
            raise InputError(f"optimal suppression found no proven optimum within {time_limit:g} s "
                             f"({result.message}); use the heuristic local suppression")
        suppressed = result.x.reshape(n, p) > 0.5
    for j, name in enumerate(names):
        frame[name] = frame[name].astype(object)
        frame.loc[suppressed[:, j], name] = np.nan
    return SuppressionResult(data=frame, keys=tuple(names), suppressed=suppressed, k=k, max_risk=None, rounds=1)
