"""Least costly local suppression to k-anonymity: a covering model solved by HiGHS, then improved.

The cost is the number of suppressed key values, each weighted by its
variable's cost ``c_j`` (1 by default, so the cost is the count
``suppressed`` reports). The target is the one :func:`rumap.risk.individual.individual_risk`
checks: every record's ``f_k >= k``, where a missing value matches any
category (sdcMicro's and mu-Argus's rule).

1. **The covering model** (mu-Argus's model of local suppression, in the
   style of de Waal & Willenborg): a record is protected when each of its
   *unsafe combinations* loses at least one value. A combination is unsafe
   for a record when fewer than k records of the *original* file share the
   record's values on it (records missing one of its variables are not
   counted). With binary ``s_ij`` (suppress variable j of record i),

       minimise  sum_ij c_j s_ij
       subject to  sum_{j in C} s_ij >= 1   for every record i and unsafe combination C of i,

   solved by ``scipy.optimize.milp`` (HiGHS), which proves a lower bound (its
   dual bound) and the relative gap to it. The values a record keeps then
   form a combination safe in the original file, so the output is
   k-anonymous. The model is a sufficient condition only: it ignores that
   values suppressed in other records match the record too, so its optimum
   can exceed what the target needs.
2. **Restoration.** Every suppressed value whose return keeps every record's
   ``f_k >= k`` (missing values matching any category) is put back, the
   costliest first; no single suppressed value of the result can be restored.
3. **Never worse than the heuristic.** The heuristic of
   :func:`rumap.masking.categorical.local_suppression`, restored the same
   way, is also computed; the cheaper of the two is returned. Its cost is
   therefore at most the covering model's optimum and at most the
   heuristic's.

The bound HiGHS proves holds for the covering model; no lower bound is proven
for the target itself, whose minimum can be lower than the model's.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import combinations
from typing import Any

import numpy as np
import pandas as pd
from scipy.optimize import Bounds, LinearConstraint, milp
from scipy.sparse import csr_matrix

from rumap._validation import InstanceOf, validate_params
from rumap.budget import DEFAULT_BUDGET, WorkBudget
from rumap.errors import InputError
from rumap.masking.categorical import SuppressionResult, k_out_of_reach, key_importance, local_suppression
from rumap.risk.cells import cell_frequencies, key_codes, wildcard_matches
from rumap.risk.individual import key_frequencies_with_missing
from rumap.risk.paired import as_frame, select_columns

__all__ = ["OptimalSuppressionResult", "optimal_suppression"]

#: What the optimisation minimises.
COST = "suppressed key values, each weighted by its variable's cost (1 each by default: the count suppressed)"
#: The rule the target and the restoration count with; the covering model's own counting.
MATCHING_RULE = ("k-anonymity with a missing value matching any category (every record's f_k >= k); the covering "
                 "model counts each combination in the original file among the records that have all its values")

#: Largest number of key variables (every one of their 2^p - 1 combinations is checked).
MAX_KEYS = 12


@dataclass(frozen=True, kw_only=True)
class OptimalSuppressionResult(SuppressionResult):
    """A file after the least costly suppression found, with the covering model's proven bound.

    Attributes
    ----------
    objective : float
        The cost of the suppression returned (see :data:`COST`).
    model_objective : float
        The covering model's best cost found by HiGHS (its optimum when
        ``model_gap`` is 0).
    model_bound : float
        HiGHS's dual bound: no solution of the covering model costs less.
    model_gap : float
        ``(model_objective - model_bound) / model_objective`` (0 when proven optimal).
    heuristic_objective : float
        The cost of :func:`rumap.masking.categorical.local_suppression` on the
        same file; ``objective`` never exceeds it.
    start : str
        ``"model"`` or ``"heuristic"``: the solution the returned one was restored from.
    restored : int
        Suppressed values put back by the restoration.
    """

    objective: float
    model_objective: float
    model_bound: float
    model_gap: float
    heuristic_objective: float
    start: str
    restored: int

    def to_dict(self) -> dict[str, Any]:
        """The counts of :meth:`SuppressionResult.to_dict`, the cost minimised, its matching rule and bounds."""
        return {**super().to_dict(), "objective": self.objective, "cost": COST, "matching_rule": MATCHING_RULE,
                "model_objective": self.model_objective, "model_bound": self.model_bound,
                "model_gap": self.model_gap, "heuristic_objective": self.heuristic_objective, "start": self.start,
                "restored": self.restored}


def _restore(codes: np.ndarray, suppressed: np.ndarray, k: int, cost: np.ndarray) -> np.ndarray:
    """Put back, costliest first, each suppressed value whose return keeps every record's ``f_k >= k``."""
    current = np.where(suppressed, -1, codes)
    fk = key_frequencies_with_missing(pd.DataFrame(np.where(current >= 0, current, np.nan)),
                                      list(range(codes.shape[1])))[0]
    fk = np.asarray(fk, dtype=np.int64)
    out = suppressed.copy()
    rows, cols = np.nonzero(suppressed & (codes >= 0))
    order = np.lexsort((cols, rows, -cost[cols]))
    for i, j in zip(rows[order], cols[order], strict=True):
        before = wildcard_matches(current, i)
        current[i, j] = codes[i, j]
        after = wildcard_matches(current, i)  # a value put back can only lose matches
        lost = before & ~after
        if after.sum() >= k and (fk[lost] > k).all():
            fk[lost] -= 1
            fk[i] = after.sum()
            out[i, j] = False
        else:
            current[i, j] = -1
    return out


def _example() -> dict[str, Any]:
    return {"data": pd.DataFrame({"sex": ["f", "f", "m", "m", "m", "f"], "region": ["a", "a", "a", "b", "b", "c"]}),
            "keys": ["sex", "region"], "k": 2}


@validate_params({"k": "k", "importance": [None, InstanceOf(Mapping, "a mapping of variable -> cost")],
                  "time_limit": "time_limit",
                  "source": InstanceOf(str, "a name for messages"), "budget": InstanceOf(WorkBudget)},
                 example=_example)
def optimal_suppression(data: Any, keys: Sequence[str | int], k: int, importance: Mapping[str, float] | None = None,
                        time_limit: float = 60.0, source: str = "the data",
                        budget: WorkBudget = DEFAULT_BUDGET) -> OptimalSuppressionResult:
    """The least costly suppression found that makes every record's ``f_k >= k``, with the model's proven bound.

    The covering model's optimum (HiGHS), then the restoration of every value
    that can return, compared with the heuristic restored the same way: the
    cheaper is returned, so its cost (see :data:`COST`) never exceeds the
    covering model's optimum nor the heuristic's. A missing value matches any
    category (see :data:`MATCHING_RULE`).

    Parameters
    ----------
    data : DataFrame or array_like
    keys : sequence of str or int
        The key variables (at most :data:`MAX_KEYS`).
    k : int
        A record is safe when at least k records (itself included) share its key value.
    importance : mapping, optional
        ``{variable: cost}`` of suppressing one of its values (default 1 each;
        costs must be > 0).
    time_limit : float, default 60
        Seconds HiGHS may take on the covering model; by then without a
        solution it is an error, with one its gap is reported.
    source : str
    budget : WorkBudget
        Records x combinations, then the restoration's suppressed values x
        records x keys, checked first.

    Returns
    -------
    OptimalSuppressionResult

    References
    ----------
    Hundepool et al., mu-Argus manual, "local suppression" (minimum
    information loss); de Waal & Willenborg (1998), optimal local suppression.

    Examples
    --------
    >>> from rumap.masking.optimal_suppression import _example, optimal_suppression
    >>> result = optimal_suppression(**_example())
    >>> int(result.suppressed.sum()), result.data["region"].isna().sum()
    (2, np.int64(2))
    >>> result.model_objective, result.model_bound, result.model_gap, result.objective <= result.heuristic_objective
    (2.0, 2.0, 0.0, True)
    """
    frame = as_frame(data, source).copy()
    names = select_columns(frame, keys, source, what="key")
    p = len(names)
    if p > MAX_KEYS:
        raise InputError(f"optimal suppression takes at most {MAX_KEYS} key variables, got {p}")
    cost = key_importance(importance, names, 1.0)
    if not (cost > 0).all():
        raise InputError("importance costs must be finite numbers > 0")
    n = frame.shape[0]
    reason = k_out_of_reach(k, n, source)
    if reason is not None:
        return OptimalSuppressionResult(
            data=frame, keys=tuple(names), suppressed=np.zeros((n, p), dtype=bool), k=k, max_risk=None, rounds=0,
            feasible=False, reason=reason,
            objective=0.0, model_objective=math.nan, model_bound=math.nan, model_gap=math.nan,
            heuristic_objective=math.nan, start="none", restored=0)
    budget.check_work(float(n) * (2**p - 1) * p, f"{n} records x {2**p - 1} combinations of {p} keys")
    codes = key_codes(frame, names)
    model, model_objective, model_bound, model_gap = _covering_model(codes, k, cost, time_limit)
    heuristic = local_suppression(frame, names, k=k, importance=dict(zip(names, cost, strict=True)), source=source,
                                  budget=budget).suppressed
    for start in (model, heuristic):
        budget.check_work(float(start.sum()) * n * p, f"{int(start.sum())} suppressed values x {n} records x "
                                                      f"{p} keys to restore")
    candidates = {"model": _restore(codes, model, k, cost), "heuristic": _restore(codes, heuristic, k, cost)}
    start = min(candidates, key=lambda name: float((candidates[name] * cost).sum()))  # ties: the model's
    suppressed = candidates[start]
    chosen = model if start == "model" else heuristic
    for j, name in enumerate(names):
        frame[name] = frame[name].astype(object)
        frame.loc[suppressed[:, j], name] = np.nan
    return OptimalSuppressionResult(
        data=frame, keys=tuple(names), suppressed=suppressed, k=k, max_risk=None, rounds=1,
        objective=float((suppressed * cost).sum()), model_objective=model_objective, model_bound=model_bound,
        model_gap=model_gap, heuristic_objective=float((heuristic * cost).sum()), start=start,
        restored=int(chosen.sum() - suppressed.sum()))


def _covering_model(codes: np.ndarray, k: int, cost: np.ndarray, time_limit: float
                    ) -> tuple[np.ndarray, float, float, float]:
    """The covering model's solution by HiGHS: suppressions, objective, dual bound and relative gap."""
    n, p = codes.shape
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
    if not count:
        return np.zeros((n, p), dtype=bool), 0.0, 0.0, 0.0
    row_index, col_index = np.concatenate(rows), np.concatenate(cols)
    matrix = csr_matrix((np.ones(row_index.size), (row_index, col_index)), shape=(count, n * p))
    result = milp(c=np.tile(cost, n), constraints=LinearConstraint(matrix, lb=1.0, ub=np.inf),
                  integrality=np.ones(n * p), bounds=Bounds(0.0, 1.0), options={"time_limit": float(time_limit)})
    if result.x is None:
        raise InputError(f"optimal suppression found no solution of the covering model within {time_limit:g} s "
                         f"({result.message}); use the heuristic local suppression")
    objective = float(result.fun)
    bound = float(result.mip_dual_bound) if result.status == 0 or np.isfinite(result.mip_dual_bound) else 0.0
    bound = min(bound, objective)
    gap = (objective - bound) / objective if objective > 0 else 0.0
    return result.x.reshape(n, p) > 0.5, objective, bound, float(max(gap, 0.0))
