"""Auditing a sequence of SUM, MEAN and COUNT queries: refuse any answer that would disclose a value.

An auditor answers the queries of an on-line database one by one and refuses a
query whose exact answer, with the answers already given, would let a user
pin down a confidential value (seed 004, Mas, "Audits for Databases", after
Malvestuto & Moscarini). The answered SUM and MEAN queries are a linear
system M x = t over the values; a value x_i is disclosed

- exactly when it is an invariant of the system: the unit vector e_i lies in
  the row space of M (every null-space vector of M is zero at i), and
- within its protection interval when the LP range [min x_i, max x_i] under
  M x = t and the bounds known a priori (non-negative values, say) does not
  contain [a_i - w |a_i|, a_i + w |a_i|] (as the table audit does for
  suppressed cells, :mod:`rumap.tables.bounds`).

The seed's answerability test is followed: Step 1, the sensitivity test of the
new query alone (the threshold rule on the size of its query set, the (n, k)
dominance rule on its values); Steps 3-4, the safety test of the new query
diagram, here the disclosure of every record and, with a dominance rule, of
every class of the partition pi whose sum becomes an invariant. A refusal
names the earlier queries that, with the new one, make it unsafe: a minimal
subset (none can be left out), found by leaving out one query at a time; for
exact disclosure the combination of their equations that isolates the value is
given too. COUNT without a condition reveals only |T| and is answered unless
the threshold rule refuses it.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
from scipy.linalg import null_space

from rumap._validation import (
    PARAMETERS,
    Boolean,
    InstanceOf,
    NumberArray,
    assumes_valid,
    check_magnitude,
    validate_params,
)
from rumap.budget import DEFAULT_BUDGET, WorkBudget
from rumap.databases.intervals import query_row, record_ranges
from rumap.databases.queries import Query, parse_queries
from rumap.errors import InputError
from rumap.result import json_safe

__all__ = ["AuditDecision", "AuditLog", "audit_queries", "audit_work", "dominated", "emp_salaries"]

VALUES = NumberArray(PARAMETERS["value"], ndim=(1,))
AUDITED = ("SUM", "MEAN", "COUNT")


@dataclass(frozen=True)
class AuditDecision:
    """The auditor's decision on one query.

    Parameters
    ----------
    number : int
        The query's position in the sequence, from 1.
    query : str
        The query in text form.
    answered : bool
        Whether it was answered.
    answer : float or None
        The exact answer, when answered.
    reason : str
        ``"safe"``, ``"sensitive"`` (Step 1), ``"exact disclosure"``,
        ``"interval disclosure"`` or ``"sensitive inferred sum"``.
    record : int or None
        The record (from 1) the query would disclose.
    interval : tuple of float or None
        That record's range if the query were answered.
    culprits : tuple of int
        Numbers of the earlier answered queries that, with this one, disclose
        it (a minimal set).
    explanation : str
        One sentence for people.
    """

    number: int
    query: str
    answered: bool
    answer: float | None
    reason: str
    record: int | None = None
    interval: tuple[float, float] | None = None
    culprits: tuple[int, ...] = ()
    explanation: str = ""

    def to_dict(self) -> dict[str, Any]:
        """The fields as a JSON-ready dictionary."""
        return json_safe({"number": self.number, "query": self.query, "answered": self.answered,
                          "answer": self.answer, "reason": self.reason, "record": self.record,
                          "interval": None if self.interval is None else list(self.interval),
                          "culprits": list(self.culprits), "explanation": self.explanation})


@dataclass(frozen=True)
class AuditLog:
    """The decisions on a sequence of queries and what the answered ones imply about every record.

    Parameters
    ----------
    decisions : tuple of AuditDecision
        One per query, in order.
    values : ndarray, shape (n,)
        The confidential values.
    low, high : ndarray, shape (n,)
        Each record's range implied by the answered queries and the known
        bounds (``-inf`` / ``inf`` where unbounded).
    config : mapping
        Protection, known bounds and sensitivity rules.
    """

    decisions: tuple[AuditDecision, ...]
    values: np.ndarray
    low: np.ndarray
    high: np.ndarray
    config: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for name in ("values", "low", "high"):
            arr = np.array(getattr(self, name), dtype=float, copy=True)
            arr.setflags(write=False)
            object.__setattr__(self, name, arr)
        object.__setattr__(self, "config", dict(self.config))

    @property
    def answered(self) -> int:
        """The number of answered queries."""
        return sum(d.answered for d in self.decisions)

    @property
    def share_answered(self) -> float:
        """The share of the queries answered."""
        return self.answered / len(self.decisions) if self.decisions else 0.0

    def to_frame(self) -> pd.DataFrame:
        """One row per query: ``number``, ``query``, ``answered``, ``answer``, ``reason``, ``record``, ``culprits``,
        ``explanation``."""
        rows = [d.to_dict() for d in self.decisions]
        frame = pd.DataFrame(rows, columns=["number", "query", "answered", "answer", "reason", "record", "interval",
                                            "culprits", "explanation"])
        return frame.drop(columns="interval")

    def records_frame(self) -> pd.DataFrame:
        """One row per record: ``record`` (from 1), ``value``, ``low``, ``high`` (the range the answers imply)."""
        return pd.DataFrame({"record": np.arange(1, self.values.size + 1), "value": self.values, "low": self.low,
                             "high": self.high})

    def to_dict(self) -> dict[str, Any]:
        """``{"decisions": [...], "answered", "refused", "records": [...], "config"}``."""
        return json_safe({"decisions": [d.to_dict() for d in self.decisions], "answered": self.answered,
                          "refused": len(self.decisions) - self.answered,
                          "records": self.records_frame().to_dict(orient="records"), "config": dict(self.config)})


@validate_params({"values": VALUES, "n": "dominance_n", "k": "dominance_k"},
                 example=lambda: {"values": [85.0, 3.0, 2.0], "n": 2, "k": 0.85})
def dominated(values: Any, n: int, k: float) -> bool:
    """The (n, k) dominance rule: do the n largest values make more than k of the total?

    Parameters
    ----------
    values : array_like, shape (m,)
        The non-negative contributions.
    n : int
        Number of largest contributions.
    k : float
        Fraction of the total, in (0, 1].

    Returns
    -------
    bool

    Examples
    --------
    >>> dominated([85.0, 3.0, 2.0], 2, 0.85)  # the seed's q4: 88 of 90
    True
    >>> dominated([4.0, 3.0, 3.0], 2, 0.85)
    False
    """
    v = np.sort(np.abs(np.asarray(values, dtype=float)))[::-1]
    total = float(v.sum())
    return bool(total > 0 and v[:n].sum() > k * total)


def _names(numbers: Sequence[int]) -> str:
    return ", ".join(f"q{m}" for m in numbers)


class _Auditor:
    """The state of an audit: answered equations, known bounds, rules; checks one query at a time."""

    def __init__(self, values: np.ndarray, protection: float, lower: np.ndarray, upper: np.ndarray,
                 threshold: int, dominance: tuple[int, float] | None, explain: bool = True) -> None:
        self.values = values
        self.n = values.size
        self.width = protection / 100.0 * np.abs(values)
        self.lower, self.upper = lower, upper
        self.threshold, self.dominance = threshold, dominance
        self.explain = explain
        self.rows: list[np.ndarray] = []
        self.rhs: list[float] = []
        self.numbers: list[int] = []
        self.scale = max(1.0, float(np.abs(values).max()))
        self.tol = 1e-7 * self.scale

    # --- disclosure tests ---------------------------------------------------------------------------------
    def _determined(self, rows: np.ndarray, vector: np.ndarray, basis: np.ndarray | None = None) -> bool:
        """Whether vector . x is an invariant of rows x = t: vector lies in the row space (is orthogonal to the
        null space, whose basis may be given)."""
        if not rows.size:
            return False
        basis = null_space(rows) if basis is None else basis
        return bool(np.abs(vector @ basis).max(initial=0.0) < 1e-9 * max(1.0, np.abs(vector).sum()))

    def _moves_freely(self, basis: np.ndarray, i: int) -> bool:
        """A certificate of safety without an LP: moving the values along the null-space direction of record i
        shifts a_i by its whole protection width both ways and keeps every value within the known bounds."""
        direction = basis @ basis[i]
        reach = float(direction[i])
        if reach <= 1e-12:
            return False
        step = self.width[i] / reach * direction
        slack = self.tol
        return all(bool(((x >= self.lower - slack) & (x <= self.upper + slack)).all())
                   for x in (self.values + step, self.values - step))

    def _range(self, rows: np.ndarray, rhs: np.ndarray, i: int) -> tuple[float, float]:
        mins, maxs = record_ranges(rows, rhs, rhs, self.lower, self.upper, [i])
        return float(mins[0]), float(maxs[0])

    def _unsafe_record(self, rows: np.ndarray, rhs: np.ndarray, i: int,
                       basis: np.ndarray | None = None) -> tuple[str, tuple[float, float]] | None:
        unit = np.zeros(self.n)
        unit[i] = 1.0
        if self._determined(rows, unit, basis):
            return "exact disclosure", (float(self.values[i]), float(self.values[i]))
        if not self.width[i] > 0:
            return None
        if basis is not None and self._moves_freely(basis, i):
            return None
        lo, hi = self._range(rows, rhs, i)
        if hi - lo <= self.tol or lo > self.values[i] - self.width[i] + self.tol or \
                hi < self.values[i] + self.width[i] - self.tol:
            return "interval disclosure", (lo, hi)
        return None

    def _component(self, rows: np.ndarray) -> np.ndarray:
        """Records linked to the last row through chains of rows sharing records."""
        reached = rows[-1] != 0
        used = np.zeros(len(rows), dtype=bool)
        used[-1] = True
        grew = True
        while grew:
            touching = ~used & ((rows[:, reached] != 0).any(axis=1))
            grew = bool(touching.any())
            used |= touching
            for r in np.flatnonzero(touching):
                reached |= rows[r] != 0
        return np.flatnonzero(reached)

    def _classes(self, rows: np.ndarray) -> list[np.ndarray]:
        """The classes of the partition pi: records in the same set of query sets (records in none left out)."""
        membership = (rows != 0).T
        covered = membership.any(axis=1)
        groups: dict[bytes, list[int]] = {}
        for i in np.flatnonzero(covered):
            groups.setdefault(membership[i].tobytes(), []).append(int(i))
        return [np.array(g) for g in groups.values()]

    def _minimal(self, unsafe: Callable[[np.ndarray, np.ndarray], bool], rows: np.ndarray,
                 rhs: np.ndarray) -> list[int]:
        """Positions of earlier rows that, with the last one, stay unsafe with none left out.

        The new query alone, then with each earlier one alone, then a deletion
        filter from the latest earlier query back (the result is irreducible).
        """
        last = len(rows) - 1
        if not self.explain:
            return list(range(last))
        if unsafe(rows[[last]], rhs[[last]]):
            return []
        for position in range(last):
            if unsafe(rows[[position, last]], rhs[[position, last]]):
                return [position]
        keep = list(range(last))
        for position in reversed(range(last)):  # deletion filter
            trial = [p for p in keep if p != position] + [last]
            if unsafe(rows[trial], rhs[trial]):
                keep.remove(position)
        return keep

    # --- one query ------------------------------------------------------------------------------------------
    def check(self, number: int, query: Query) -> AuditDecision:
        text = query.text
        chosen = self.values[query.index]
        size = len(query.records)
        if size < self.threshold:
            return AuditDecision(number, text, False, None, "sensitive",
                                 explanation=f"its query set has {size} record{'s' if size != 1 else ''}, fewer than "
                                             f"the threshold {self.threshold}")
        if query.kind == "COUNT":
            return AuditDecision(number, text, True, float(size), "safe",
                                 explanation="a COUNT without a condition reveals only the size of the query set")
        if self.dominance is not None and dominated(chosen, *self.dominance):
            n, k = self.dominance
            return AuditDecision(number, text, False, None, "sensitive",
                                 explanation=f"its {n} largest value{'s' if n > 1 else ''} make more than {k:.0%} of "
                                             f"its total (({n}, {k:g}) dominance rule)")
        row = query_row(query, self.n)
        answer = float(row @ self.values)
        rows = np.array([*self.rows, row])
        rhs = np.array([*self.rhs, answer])
        refusal = self._disclosure(rows, rhs)
        if refusal is not None:
            return AuditDecision(number, text, False, None, *refusal)
        self.rows.append(row)
        self.rhs.append(answer)
        self.numbers.append(number)
        return AuditDecision(number, text, True, answer, "safe",
                             explanation="no value can be pinned down with the answers given so far")

    def _disclosure(self, rows: np.ndarray, rhs: np.ndarray) -> tuple[Any, ...] | None:
        found = None
        basis = null_space(rows)
        for i in self._component(rows):
            verdict = self._unsafe_record(rows, rhs, int(i), basis)
            if verdict is not None:
                found = (int(i), *verdict)
                if verdict[0] == "exact disclosure":
                    break
        if found is not None:
            i, reason, interval = found
            keep = self._minimal(lambda r, t: self._unsafe_record(r, t, i, null_space(r)) is not None, rows, rhs)
            culprits = tuple(self.numbers[p] for p in keep)
            return reason, i + 1, interval, culprits, self._explain(reason, i, interval, culprits, rows, rhs, keep)
        if self.dominance is None:
            return None
        for members in self._classes(rows):
            indicator = np.zeros(self.n)
            indicator[members] = 1.0
            if len(members) < len(self.values) and self._determined(rows, indicator, basis) and \
                    dominated(self.values[members], *self.dominance):
                keep = self._minimal(lambda r, t, v=indicator: self._determined(r, v), rows, rhs)
                culprits = tuple(self.numbers[p] for p in keep)
                total = float(self.values[members].sum())
                n, k = self.dominance
                records = ", ".join(str(m + 1) for m in members)
                earlier = f" with {_names(culprits)}" if culprits else ""
                return ("sensitive inferred sum", None, (total, total), culprits,
                        f"{earlier[6:] + ' and this query make' if culprits else 'this query makes'} the sum of records "
                        f"{{{records}}} known ({total:g}), and its {n} largest values make more than {k:.0%} of it")
        return None

    def _explain(self, reason: str, i: int, interval: tuple[float, float], culprits: tuple[int, ...],
                 rows: np.ndarray, rhs: np.ndarray, keep: list[int]) -> str:
        who = f"{_names(culprits)} and this query" if culprits else "this query"
        isolate, confine = ("isolate", "confine") if culprits else ("isolates", "confines")
        if reason == "exact disclosure":
            subset = rows[[*keep, len(rows) - 1]]
            unit = np.zeros(self.n)
            unit[i] = 1.0
            weights = np.linalg.lstsq(subset.T, unit, rcond=None)[0]
            labels = [f"q{m}" for m in culprits] + ["this query"]
            terms = " ".join(f"{'-' if w < 0 else '+'} {'' if math.isclose(abs(w), 1) else f'{abs(w):g} '}{label}"
                             for w, label in zip(weights, labels, strict=True) if abs(w) > 1e-9)
            return f"{who} {isolate} record {i + 1}: record {i + 1} = {terms.lstrip('+ ')}"
        lo, hi = interval
        return (f"{who} {confine} record {i + 1} to [{lo:g}, {hi:g}], short of its protection interval "
                f"[{self.values[i] - self.width[i]:g}, {self.values[i] + self.width[i]:g}]")

    def bounds(self) -> tuple[np.ndarray, np.ndarray]:
        """Every record's range under the answered queries and the known bounds."""
        if not self.rows:
            return self.lower.copy(), self.upper.copy()
        rows, rhs = np.array(self.rows), np.array(self.rhs)
        return record_ranges(rows, rhs, rhs, self.lower, self.upper)


def _known_bound(name: str, value: Any, n: int, default: float) -> np.ndarray:
    if value is None:
        return np.full(n, default)
    arr = np.asarray(value, dtype=float)
    return np.broadcast_to(arr, (n,)).copy() if arr.ndim == 0 else arr


#: One small linear program of the audit in the budget's elementary steps (HiGHS's set-up dominates: ~5 ms).
LP_STEPS = 2e5


def _audit_programs(queries: int, n: int) -> float:
    """Linear programs an audit may solve: each query's records, then the deletion filter over the answered ones.

    At most ``n`` queries can be answered before the values are determined,
    so the filter goes over at most ``min(queries, n)`` earlier answers.
    """
    return float(queries) * (n + min(queries, n))


@assumes_valid
def audit_work(queries: int, n: int) -> float:
    """The work of auditing ``queries`` queries over ``n`` records, in the budget's elementary steps.

    The larger of the linear programs' cost (:data:`LP_STEPS` each, plus
    their size) and the null-space factorisations' (``n^2`` per answered row
    for each query).

    Parameters
    ----------
    queries : int
    n : int

    Returns
    -------
    float

    Examples
    --------
    >>> f"{audit_work(500, 20):.2g}"
    '4e+09'
    """
    answered = min(queries, n)
    programs = _audit_programs(queries, n) * (LP_STEPS + float(n) * answered)
    factorisations = float(queries) * n * n * (answered + 2)
    return max(programs, factorisations)


def _example() -> dict[str, Any]:
    return {"values": [85.0, 3, 2, 4, 3, 3, 4, 3, 3], "queries": ["SUM:4-6", "SUM:7-9", "SUM:*"],
            "protection": 10.0, "lower": 0.0}


@validate_params({"values": VALUES, "protection": "audit_protection",
                  "lower": [None, "known_bound"],
                  "upper": [None, "known_bound"],
                  "threshold": "threshold", "dominance_n": [None, "dominance_n"],
                  "dominance_k": [None, "dominance_k"], "explain": Boolean(), "budget": InstanceOf(WorkBudget)},
                 example=_example)
def audit_queries(values: Any, queries: Sequence[str | Query], protection: float = 10.0, lower: float | None = 0.0,
                  upper: float | None = None, threshold: int = 1, dominance_n: int | None = None,
                  dominance_k: float | None = None, explain: bool = True,
                  budget: WorkBudget = DEFAULT_BUDGET) -> AuditLog:
    """Audit a sequence of SUM, MEAN and COUNT queries: answer each unless it would disclose a value.

    Parameters
    ----------
    values : array_like, shape (n,)
        The confidential field.
    queries : sequence of str or Query
        In the order they arrive: ``SUM:1,2,3``, ``MEAN:4-9``, ``COUNT:1-5``
        (records numbered from 1; see :func:`rumap.databases.queries.parse_query`).
    protection : float, default 10
        A value is disclosed when the answers confine it inside
        [a_i - w |a_i|, a_i + w |a_i|], w = protection / 100; 0 refuses exact
        disclosure only (exact disclosure is always refused).
    lower, upper : float, optional
        Bounds every value is known to keep (default: non-negative values,
        no upper bound); the values must lie within them.
    threshold : int, default 1
        Threshold rule: a query set of fewer records is sensitive.
    dominance_n, dominance_k : optional
        The (n, k) dominance rule: a SUM or MEAN whose n largest values make
        more than k of its total is sensitive, and so is any answer that makes
        such a sum known (the seed's safety test of the partition classes).
    explain : bool, default True
        Find a minimal set of culprit queries for each refusal (False: every
        earlier answered query is listed; faster, for maps).
    budget : WorkBudget
        Queries x records^2 (the linear programs), checked first.

    Returns
    -------
    AuditLog

    References
    ----------
    Seed 004 (Mas, EUSTAT), "Audits for Databases": sensitivity rules,
    inferability, the answerability test, and the EMP example; Malvestuto &
    Moscarini (1990).

    Examples
    --------
    >>> log = audit_queries([10.0, 20.0, 30.0], ["SUM:1,2,3", "SUM:1,2"], protection=0)
    >>> [d.answered for d in log.decisions]
    [True, False]
    >>> log.decisions[1].explanation
    'q1 and this query isolate record 3: record 3 = q1 - this query'
    """
    a = np.asarray(values, dtype=float)
    check_magnitude(a, "values")
    n = a.size
    parsed = parse_queries(queries, n)
    for q in parsed:
        if q.kind not in AUDITED or q.operator is not None:
            raise InputError(f"queries: the auditor takes SUM, MEAN and COUNT without a condition, got {q.text!r}")
    if (dominance_n is None) != (dominance_k is None):
        raise InputError("dominance_n and dominance_k go together (the (n, k) dominance rule)")
    lo = _known_bound("lower", lower, n, -math.inf)
    hi = _known_bound("upper", upper, n, math.inf)
    if lower is not None and upper is not None and lower > upper:
        raise InputError(f"lower ({lower:g}) is above upper ({upper:g})")
    outside = (a < lo) | (a > hi)
    if outside.any():
        i = int(np.argmax(outside))
        raise InputError(f"values: record {i + 1} ({a[i]:g}) lies outside the known bounds lower={lower}, "
                         f"upper={upper}")
    budget.check_work(audit_work(len(parsed), n), f"{len(parsed)} queries over {n} records: about "
                      f"{_audit_programs(len(parsed), n):.3g} linear programs")
    dominance = None if dominance_n is None else (int(dominance_n), float(dominance_k))
    auditor = _Auditor(a, float(protection), lo, hi, int(threshold), dominance, explain)
    decisions = tuple(auditor.check(number, q) for number, q in enumerate(parsed, start=1))
    low, high = auditor.bounds()
    return AuditLog(decisions, a, low, high,
                    config={"protection": protection, "lower": lower, "upper": upper, "threshold": threshold,
                            "dominance_n": dominance_n, "dominance_k": dominance_k})


@assumes_valid
def emp_salaries() -> np.ndarray:
    """SALARY of the seed's EMP database: records 1-3 Management, 4-6 Administration, 7-9 Services.

    Returns
    -------
    ndarray, shape (9,)

    Examples
    --------
    >>> float(emp_salaries().sum())  # the seed's q3
    110.0
    """
    return np.array([85.0, 3, 2, 4, 3, 3, 4, 3, 3])
