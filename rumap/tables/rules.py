"""A priori sensitivity rules for table cells: threshold, (n,k)-dominance, p% and pq.

A magnitude table cell is the sum of its respondents' contributions. A
sensitivity rule looks at those contributions *before* the table is protected
and says whether the cell may be published as it stands. Each rule here is
applied to every cell at once (numpy over the contributions, no loop over
respondents) and says for each cell whether it is sensitive and why.

The input is microdata: one contribution per row with the cell it falls in
(:func:`rumap.tables.table_files.contributions_from_frame` reads a table with columns ``cell`` and
``value``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, fields
from typing import Any

import numpy as np
import pandas as pd

from rumap._validation import MAX_MAGNITUDE, PARAMETERS, StrOptions, assumes_valid, check_scalar, validate_params
from rumap.errors import InputError
from rumap.result import json_safe
from rumap.tables.published import code_order

__all__ = [
    "RULES",
    "Contributions",
    "SensitivityResult",
    "apply_rule",
    "check_rule_parameters",
    "example_contributions",
]


def freeze_array_fields(result: Any) -> None:
    """Make every numpy array field of a frozen result dataclass a read-only copy."""
    for f in fields(result):
        value = getattr(result, f.name)
        if isinstance(value, np.ndarray):
            value = np.array(value, copy=True)
            value.setflags(write=False)
            object.__setattr__(result, f.name, value)


@dataclass(frozen=True)
class Contributions:
    """Respondents' contributions to the cells of a magnitude table.

    Parameters
    ----------
    cells : ndarray of str, shape (N,)
        The cell each contribution falls in.
    values : ndarray of float, shape (N,)
        The contributions (non-negative).
    """

    cells: np.ndarray
    values: np.ndarray

    def __post_init__(self) -> None:
        cells, values = _check_contributions(self.cells, self.values)
        cells.setflags(write=False)
        values.setflags(write=False)
        object.__setattr__(self, "cells", cells)
        object.__setattr__(self, "values", values)

    def to_frame(self) -> pd.DataFrame:
        """The contributions as a table with columns ``cell`` and ``value``."""
        return pd.DataFrame({"cell": self.cells, "value": self.values})

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dictionary."""
        return json_safe({"cell": self.cells.tolist(), "value": self.values})


def _check_contributions(cells: Any, values: Any) -> tuple[np.ndarray, np.ndarray]:
    cell_arr = np.asarray(cells, dtype=object).reshape(-1)
    try:
        value_arr = np.asarray(values, dtype=float).reshape(-1)
    except (TypeError, ValueError):
        raise InputError("contribution values must be numbers") from None
    if cell_arr.size == 0:
        raise InputError("there are no contributions")
    if cell_arr.size != value_arr.size:
        raise InputError(f"{cell_arr.size} cell labels but {value_arr.size} contribution values")
    missing = pd.isna(cell_arr)
    if missing.any():
        raise InputError(f"contribution {int(np.argmax(missing)) + 1} has no cell label")
    bad = ~np.isfinite(value_arr)
    if bad.any():
        raise InputError(f"contribution {int(np.argmax(bad)) + 1} is not a finite number ({value_arr[bad][0]!r})")
    big = np.abs(value_arr) > MAX_MAGNITUDE
    if big.any():
        raise InputError(f"contribution {int(np.argmax(big)) + 1} has magnitude {abs(value_arr[big][0]):.3g}, beyond "
                         f"{MAX_MAGNITUDE:.0e}: cell totals would overflow; rescale the contributions")
    negative = value_arr < 0
    if negative.any():
        raise InputError(f"contribution {int(np.argmax(negative)) + 1} is negative ({value_arr[negative][0]:g}); "
                         "the rules are for non-negative magnitudes")
    return cell_arr.astype(str).astype(object), value_arr


@assumes_valid
def example_contributions() -> Contributions:
    """A small magnitude table for demonstrations.

    Cells ``A`` (59, 40, 1) and ``B`` (61, 20, 19) are Example 1 of
    Domingo-Ferrer & Torra (2004) (Robertson & Ethier 2002); the others show
    each rule at work: ``C`` has many small contributors, ``D`` two, ``E`` one
    dominant respondent with a long tail.
    """
    cells = ["A"] * 3 + ["B"] * 3 + ["C"] * 8 + ["D"] * 2 + ["E"] * 6
    values = [59, 40, 1, 61, 20, 19, 14, 13, 13, 12, 12, 12, 12, 12, 70, 30, 80, 6, 5, 4, 3, 2]
    return Contributions(np.array(cells, dtype=object), np.array(values, dtype=float))


class _Grouped:
    """Contributions grouped by cell and sorted largest first within each cell."""

    def __init__(self, contributions: Contributions) -> None:
        codes, labels = pd.factorize(pd.Series(contributions.cells))
        order = sorted(range(len(labels)), key=lambda j: code_order(str(labels[j])))  # cells 1, 2, 10 in that order
        rank = np.empty(len(order), dtype=np.int64)
        rank[order] = np.arange(len(order))
        labels = np.asarray(labels, dtype=object)[order]
        codes = rank[codes]
        values = contributions.values
        order = np.lexsort((-values, codes))
        self.labels = np.asarray(labels, dtype=object)
        self.n_cells = self.labels.size
        self.sorted_codes = codes[order]
        self.sorted_values = values[order]
        starts = np.searchsorted(self.sorted_codes, np.arange(self.n_cells))
        self.rank = np.arange(values.size) - starts[self.sorted_codes]
        self.count = np.bincount(codes, minlength=self.n_cells)
        self.total = np.bincount(codes, weights=values, minlength=self.n_cells)
        self.largest = self.top_sum(1)
        self.second = self.top_sum(2) - self.largest

    def top_sum(self, n: int) -> np.ndarray:
        """Sum of the ``n`` largest contributions of each cell, shape (cells,)."""
        weights = np.where(self.rank < n, self.sorted_values, 0.0)
        return np.bincount(self.sorted_codes, weights=weights, minlength=self.n_cells)


@dataclass(frozen=True)
class _RuleOutcome:
    statistic: np.ndarray
    limit: float
    sensitive: np.ndarray
    reasons: list[str]


def _pct(x: float) -> str:
    return f"{100 * x:.4g}%"


def _threshold_rule(g: _Grouped, threshold: int) -> _RuleOutcome:
    sensitive = g.count < threshold
    reasons = [f"{c} contributor{'s' if c != 1 else ''} ({'<' if s else '>='} threshold {threshold})"
               for c, s in zip(g.count, sensitive, strict=True)]
    return _RuleOutcome(g.count.astype(float), float(threshold), sensitive, reasons)


def _dominance_rule(g: _Grouped, n: int, k: float) -> _RuleOutcome:
    top = g.top_sum(n)
    share = np.divide(top, g.total, out=np.ones_like(top), where=g.total > 0)
    sensitive = top >= k * g.total
    what = "largest contribution makes" if n == 1 else f"{n} largest contributions make"
    reasons = [f"the {what} {_pct(s)} of the total {t:g} ({'>=' if flag else '<'} k = {_pct(k)})"
               for s, t, flag in zip(share, g.total, sensitive, strict=True)]
    return _RuleOutcome(share, float(k), sensitive, reasons)


def _prior_posterior(g: _Grouped, p: float, q: float, rule: str) -> _RuleOutcome:
    remainder = g.total - g.largest - g.second
    ratio = np.divide(remainder, g.largest, out=np.full_like(remainder, np.inf), where=g.largest > 0)
    sensitive = q * remainder < p * g.largest
    limit = p / q
    reasons = []
    for c, r, flag in zip(g.count, ratio, sensitive, strict=True):
        if c == 1:
            reasons.append("a single contributor: the cell total is its contribution")
            continue
        bound = (f"the second largest contributor bounds the largest to within {_pct(r)}" if np.isfinite(r)
                 else "the cell total is 0")
        side = "<" if flag else ">="
        reasons.append(f"{bound} ({side} p = {p:g}%)" if rule == "p-percent"
                       else f"{bound} ({side} p/q = {_pct(limit)})")
    return _RuleOutcome(ratio, limit, sensitive, reasons)


def _p_percent_rule(g: _Grouped, p: float) -> _RuleOutcome:
    return _prior_posterior(g, p, 100.0, "p-percent")


def _pq_rule(g: _Grouped, p: float, q: float) -> _RuleOutcome:
    if not p < q:
        raise InputError(f"the pq rule needs p < q, got p = {p:g} and q = {q:g}")
    return _prior_posterior(g, p, q, "pq")


@dataclass(frozen=True)
class _RuleSpec:
    kernel: Callable[..., _RuleOutcome]
    parameters: Mapping[str, str]  # argument name -> PARAMETERS key
    statistic: str
    description: str


#: The sensitivity rules by name: kernel, parameters, the statistic it compares.
RULES: dict[str, _RuleSpec] = {
    "threshold": _RuleSpec(_threshold_rule, {"threshold": "threshold"}, "contributors",
                           "sensitive if the cell has fewer than `threshold` contributors"),
    "dominance": _RuleSpec(_dominance_rule, {"n": "dominance_n", "k": "dominance_k"}, "share of the n largest",
                           "sensitive if the n largest contributions make a fraction k or more of the total"),
    "p-percent": _RuleSpec(_p_percent_rule, {"p": "rule_percent"}, "remainder / largest",
                           "sensitive if the second largest contributor can bound the largest to within p%"),
    "pq": _RuleSpec(_pq_rule, {"p": "rule_percent", "q": "rule_percent"}, "remainder / largest",
                    "sensitive if, knowing the others to within q%, one can bound the largest to within p%"),
}


@dataclass(frozen=True)
class SensitivityResult:
    """A sensitivity rule applied to every cell.

    Parameters
    ----------
    rule : str
        The rule's name (a key of :data:`RULES`).
    parameters : mapping
        Its parameters, e.g. ``{"n": 1, "k": 0.6}``.
    cells : tuple of str, length c
        Cell labels, sorted (numbers in numeric order: 1, 2, 10).
    total, largest, second : ndarray, shape (c,)
        Cell total and its largest and second largest contributions (0 when absent).
    contributors : ndarray of int, shape (c,)
        Number of contributions to each cell.
    statistic : ndarray, shape (c,)
        What the rule compares with ``limit``: the number of contributors
        (threshold), the share of the n largest contributions (dominance), or
        the remainder after the two largest divided by the largest (p%, pq).
    limit : float
        The threshold, k, p/100 or p/q.
    sensitive : ndarray of bool, shape (c,)
    reasons : tuple of str, length c
        Why each cell is or is not sensitive, in words.
    """

    rule: str
    parameters: Mapping[str, float]
    cells: tuple[str, ...]
    total: np.ndarray
    contributors: np.ndarray
    largest: np.ndarray
    second: np.ndarray
    statistic: np.ndarray
    limit: float
    sensitive: np.ndarray
    reasons: tuple[str, ...]
    statistic_label: str = ""
    config: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        freeze_array_fields(self)

    @property
    def sensitive_cells(self) -> list[str]:
        """Labels of the sensitive cells."""
        return [c for c, s in zip(self.cells, self.sensitive, strict=True) if s]

    def to_frame(self) -> pd.DataFrame:
        """One row per cell: total, contributors, largest, second, statistic, limit, sensitive, reason."""
        return pd.DataFrame({
            "cell": list(self.cells), "total": self.total, "contributors": self.contributors,
            "largest": self.largest, "second": self.second, "statistic": self.statistic,
            "limit": self.limit, "sensitive": self.sensitive, "reason": list(self.reasons)})

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dictionary: rule, parameters, cells (as records), sensitive cell labels."""
        return json_safe({
            "rule": self.rule, "parameters": dict(self.parameters), "statistic": self.statistic_label,
            "cells": self.to_frame().to_dict(orient="records"), "sensitive_cells": self.sensitive_cells})


@assumes_valid
def check_rule_parameters(rule: str, parameters: Mapping[str, Any]) -> dict[str, float | int]:
    """A rule's parameters checked: none missing, none extra, each within its bound in :data:`PARAMETERS`.

    Parameters
    ----------
    rule : str
        A key of :data:`RULES`.
    parameters : mapping
        The parameters given.

    Returns
    -------
    dict
        The checked values.

    Examples
    --------
    >>> check_rule_parameters("dominance", {"n": 1, "k": 0.6})
    {'n': 1, 'k': 0.6}
    """
    spec = RULES[rule]
    extra = sorted(set(parameters) - set(spec.parameters))
    if extra:
        raise InputError(f"the {rule} rule takes {', '.join(spec.parameters)}, not {', '.join(extra)}")
    missing = [name for name in spec.parameters if parameters.get(name) is None]
    if missing:
        raise InputError(f"the {rule} rule needs {' and '.join(missing)}")
    return {name: check_scalar(name, parameters[name], PARAMETERS[key]) for name, key in spec.parameters.items()}


def _example() -> dict[str, Any]:
    return {"cells": ["A"] * 3 + ["B"] * 3, "values": [59.0, 40.0, 1.0, 61.0, 20.0, 19.0], "rule": "dominance",
            "n": 1, "k": 0.6}


@validate_params({"rule": StrOptions(RULES)}, example=_example)
def apply_rule(cells: Sequence[Any] | np.ndarray | Contributions, values: Sequence[float] | np.ndarray | None = None,
               rule: str = "dominance", **parameters: float) -> SensitivityResult:
    """Apply a sensitivity rule to every cell of a magnitude (or frequency) table.

    Parameters
    ----------
    cells : array_like, shape (N,), or Contributions
        The cell of each contribution (or a :class:`Contributions`, then
        ``values`` is omitted).
    values : array_like, shape (N,)
        The contributions, non-negative.
    rule : {"threshold", "dominance", "p-percent", "pq"}
        The rule (:data:`RULES`).
    **parameters
        ``threshold`` (int >= 1) for the threshold rule; ``n`` (int >= 1) and
        ``k`` (fraction in (0, 1]) for dominance; ``p`` (percent) for the p%
        rule; ``p`` and ``q`` (percent, p < q) for the pq rule.

    Returns
    -------
    SensitivityResult

    Raises
    ------
    InputError
        An unknown rule, a missing, extra or out-of-range parameter, or bad
        contributions.

    Notes
    -----
    With the contributions of a cell sorted, x_1 >= x_2 >= ... >= x_N, and
    total X:

    - threshold: sensitive if N < threshold;
    - (n,k)-dominance: sensitive if x_1 + ... + x_n >= k X (a cell with n or
      fewer contributors is always sensitive);
    - p%: sensitive if X - x_1 - x_2 < (p/100) x_1: the second largest
      contributor, subtracting its own value from the total, bounds the
      largest to within p%;
    - pq: sensitive if X - x_1 - x_2 < (p/q) x_1 (q = 100 gives the p% rule).

    References
    ----------
    Domingo-Ferrer & Torra (2004), *Disclosure risk assessment in statistical
    data protection*, Section 3.1; Domingo-Ferrer, Oganian & Torra,
    *Information-theoretic disclosure risk measures in statistical disclosure
    control of tabular data*, Section 2. The dominance rule uses "k or more"
    as in the former.
    """
    spec = RULES[rule]
    checked = check_rule_parameters(rule, parameters)
    contributions = cells if isinstance(cells, Contributions) else Contributions(cells, values)
    grouped = _Grouped(contributions)
    outcome = spec.kernel(grouped, **checked)
    return SensitivityResult(
        rule=rule, parameters=checked, cells=tuple(grouped.labels), total=grouped.total,
        contributors=grouped.count, largest=grouped.largest, second=grouped.second,
        statistic=outcome.statistic, limit=outcome.limit, sensitive=outcome.sensitive,
        reasons=tuple(outcome.reasons), statistic_label=spec.statistic,
        config={"rule": rule, **checked})
