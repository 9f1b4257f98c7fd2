"""R-U maps of protected tables: over a sensitivity rule's parameter, the protection level, or the rounding base.

For each parameter value the table is protected as tau-Argus would (Mas,
seed 004): primaries marked by the rule, secondary suppressions chosen by the
MILP (:func:`rumap.tables.secondary.suppress_secondary`) and audited by LP
bounds; or the table rounded by controlled rounding
(:func:`rumap.tables.controlled_rounding.controlled_round`). R comes from the
audit, U from what the protection loses (one registry each,
:data:`TABLE_RISKS` and :data:`TABLE_UTILITIES`); the map is a
:class:`rumap.result.RUMap` like every other map of rumap.

What an intruder knows of a cell: its audit interval when suppressed, the
value itself when published, and (rounded - b, rounded + b) after controlled
rounding. m is the number of values in that interval on the grid of
``resolution``, and the cell's risk is 1 / log2 m (Domingo-Ferrer, Oganian &
Torra, Eq 3).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from rumap._validation import (
    PARAMETERS,
    Grid,
    InstanceOf,
    NumberArray,
    StrOptions,
    validate_params,
)
from rumap.budget import DEFAULT_BUDGET, WorkBudget
from rumap.errors import InputError
from rumap.maps.table_common import common_columns, table_common_stats
from rumap.result import RUMap
from rumap.tables.controlled_rounding import controlled_round
from rumap.tables.entropy import count_values_kernel, uniform_risk_kernel
from rumap.tables.microdata import MicrodataTable, example_microdata, table_from_microdata
from rumap.tables.published import TOTAL_LABEL, PublishedTable
from rumap.tables.rules import RULES
from rumap.tables.secondary import COSTS, suppress_secondary_kernel

__all__ = ["TableOutcome", "TableMeasure", "TABLE_RISKS", "TABLE_UTILITIES", "TABLE_SWEEPS", "table_outcome", "rule_map",
           "protection_map", "rounding_base_map", "RequirementMet", "meeting_requirement", "default_rounding_base"]

#: What a map of a table built from microdata runs over: the rule's first parameter (:func:`rule_map`), the
#: protection level of secondary suppression (:func:`protection_map`) or the base of controlled rounding
#: (:func:`rounding_base_map`).
TABLE_SWEEPS = ("rule", "protection", "base")


# relative slack when comparing an audit interval with the required one
_LEVEL_TOL = 1e-9


@dataclass(frozen=True)
class TableOutcome:
    """What an intruder sees of every entry of a protected table (totals included, row-major).

    Parameters
    ----------
    values : ndarray
        The original entries.
    low, high : ndarray
        What the intruder can narrow each entry to (equal to the value where
        it is published exactly).
    hidden : ndarray of bool
        Entries the intruder does not know exactly (suppressed; every entry
        of a rounded table).
    changed : ndarray of bool
        Entries not published as they are (suppressed, or moved by rounding).
    lost : ndarray
        What each inner cell loses: its value when suppressed, |rounded - value|
        when rounded, 0 when published (0 for the totals).
    required_low, required_high : ndarray
        The intervals the reference primaries need.
    reference : ndarray of int
        Positions of the reference primaries.
    resolution : float
        Step between possible values.
    published : ndarray, optional
        The published entries (NaN where suppressed).
    """

    values: np.ndarray
    low: np.ndarray
    high: np.ndarray
    hidden: np.ndarray
    changed: np.ndarray
    lost: np.ndarray
    required_low: np.ndarray
    required_high: np.ndarray
    reference: np.ndarray
    resolution: float
    published: np.ndarray | None = None

    @property
    def possible(self) -> np.ndarray:
        """m: the number of values each entry can take (1 where published)."""
        return np.where(self.hidden, np.maximum(count_values_kernel(self.low, self.high, self.resolution), 1.0), 1.0)

    @property
    def grand_total(self) -> float:
        """The table's grand total (its last entry)."""
        return float(self.values[-1])


@dataclass(frozen=True)
class TableMeasure:
    """A risk or utility of a protected table: what it measures, and how from a :class:`TableOutcome`.

    Parameters
    ----------
    label : str
        For axis titles, e.g. ``"R = largest 1/log2 m of a hidden cell"``.
    compute : callable
        :class:`TableOutcome` -> float.
    """

    label: str
    compute: Callable[[TableOutcome], float]


def _max_cell_risk(outcome: TableOutcome) -> float:
    if not outcome.hidden.any():
        return 0.0
    return float(uniform_risk_kernel(outcome.possible[outcome.hidden]).max())


def _underprotected(outcome: TableOutcome) -> float:
    if outcome.reference.size == 0:
        return 0.0
    k = outcome.reference
    scale = np.maximum(1.0, np.abs(outcome.values[k]))
    narrow = (outcome.low[k] > outcome.required_low + _LEVEL_TOL * scale) | \
        (outcome.high[k] < outcome.required_high - _LEVEL_TOL * scale)
    return float(narrow.mean())


def _total_kept(outcome: TableOutcome) -> float:
    total = outcome.grand_total
    return 1.0 if total <= 0 else float(1.0 - min(1.0, outcome.lost.sum() / total))


def _cells_kept(outcome: TableOutcome) -> float:
    return float(1.0 - outcome.changed.mean())


def _entropy_kept(outcome: TableOutcome) -> float:
    widest = math.log2(outcome.grand_total / outcome.resolution + 1.0)
    if widest <= 0:
        return 1.0
    bits = np.log2(outcome.possible)
    bits = np.where(np.isfinite(bits), bits, widest)
    return float(1.0 - min(1.0, bits.sum() / (widest * outcome.values.size)))


#: R of a protected table, by name.
TABLE_RISKS: dict[str, TableMeasure] = {
    "max_cell_risk": TableMeasure("R = largest 1/log2 m of a hidden cell", _max_cell_risk),
    "underprotected": TableMeasure("R = share of primaries narrower than required", _underprotected),
}

#: U of a protected table, by name.
TABLE_UTILITIES: dict[str, TableMeasure] = {
    "total_kept": TableMeasure("U = 1 - share of the total suppressed or moved", _total_kept),
    "cells_kept": TableMeasure("U = 1 - share of cells suppressed or moved", _cells_kept),
    "entropy_kept": TableMeasure("U = 1 - bits of uncertainty / bits of a table with nothing known", _entropy_kept),
}


def _positions(table: PublishedTable, cells: Sequence[tuple[str, str]]) -> np.ndarray:
    rows, columns = [*table.row_labels, TOTAL_LABEL], [*table.column_labels, TOTAL_LABEL]
    out = []
    for cell in cells:
        try:
            row, column = (str(part) for part in cell)
        except (TypeError, ValueError):
            raise InputError(f"a primary cell must be a (row, column) pair, got {cell!r}") from None
        if row not in rows or column not in columns:
            raise InputError(f"no cell ({row!r}, {column!r}) in the table")
        out.append(rows.index(row) * len(columns) + columns.index(column))
    return np.array(sorted(set(out)), dtype=np.int64)


def _required(values: np.ndarray, reference: np.ndarray, protection: float) -> tuple[np.ndarray, np.ndarray]:
    level = values[reference] * protection / 100.0
    return values[reference] - level, values[reference] + level


@validate_params({"table": InstanceOf(PublishedTable, "a PublishedTable"),
                  "low": NumberArray(PARAMETERS["value"], ndim=(1,)),
                  "high": NumberArray(PARAMETERS["value"], ndim=(1,),
                                      infinite=True),
                  "reference": InstanceOf((list, tuple), "a list of (row, column) label pairs"),
                  "protection": "protection",
                  "resolution": "resolution"},
                 example=lambda: {"table": PublishedTable.from_cells([[1.0, 2.0], [3.0, 4.0]]),
                                  "low": [0.0] * 9, "high": [1.0, 3.0, 4.0, 3.0, 4.0, 7.0, 4.0, 6.0, 10.0],
                                  "reference": [("1", "1")]})
def table_outcome(table: PublishedTable, low: np.ndarray, high: np.ndarray, reference: Sequence[tuple[str, str]],
                  protection: float = 10.0, resolution: float = 1.0, rounded: np.ndarray | None = None,
                  hidden: np.ndarray | None = None) -> TableOutcome:
    """What an intruder knows of every entry of a protected table, for the measures of the maps.

    Parameters
    ----------
    table : PublishedTable
        The original, complete table.
    low, high : array_like, one per entry with the totals (row-major)
        The interval each entry lies in for the intruder (the value itself
        where published exactly).
    reference : sequence of (str, str)
        The primaries whose protection R checks.
    protection : float, default 10
        The protection they need, in percent of their values.
    resolution : float, default 1
    rounded : array_like, optional
        The published entries after rounding (then ``lost`` is the deviation).
    hidden : array_like of bool, optional
        The suppressed entries; by default those whose interval is wider than
        their value. Give it so that a suppressed entry the margins disclose
        exactly counts (m = 1, risk ``inf``).

    Returns
    -------
    TableOutcome

    Examples
    --------
    >>> from rumap.maps.tables import TABLE_RISKS, table_outcome
    >>> from rumap.tables.published import PublishedTable
    >>> table = PublishedTable.from_cells([[1.0, 2.0], [3.0, 4.0]])
    >>> values = table.values.ravel()
    >>> low, high = values.copy(), values.copy()
    >>> low[[0, 1, 3, 4]], high[[0, 1, 3, 4]] = [0, 1, 1, 2], [3, 3, 4, 4]
    >>> outcome = table_outcome(table, low, high, [("1", "1")])
    >>> outcome.possible.reshape(3, 3)[0].tolist()  # cell (1, 1) lies in 0..3
    [4.0, 3.0, 1.0]
    >>> round(TABLE_RISKS["max_cell_risk"].compute(outcome), 4)  # 1 / log2 3
    0.6309
    """
    return _table_outcome(table, low, high, reference, protection, resolution, rounded, hidden)


def _table_outcome(table: PublishedTable, low: np.ndarray, high: np.ndarray, reference: Sequence[tuple[str, str]],
                   protection: float = 10.0, resolution: float = 1.0, rounded: np.ndarray | None = None,
                   hidden: np.ndarray | None = None) -> TableOutcome:
    """:func:`table_outcome` of checked arguments (its kernel: the maps call it once per grid value)."""
    values = table.values.ravel().astype(float)
    if np.isnan(values).any():
        raise InputError("the table must be complete (no suppressed entry)")
    if low.shape != values.shape or high.shape != values.shape:
        raise InputError(f"low and high need one entry per cell with the totals ({values.size}), "
                         f"got {low.size} and {high.size}")
    reference_positions = _positions(table, reference)
    scale = np.maximum(1.0, np.abs(values))
    if hidden is None:
        hidden = (np.abs(low - values) > _LEVEL_TOL * scale) | (np.abs(high - values) > _LEVEL_TOL * scale)
    else:
        hidden = np.asarray(hidden, dtype=bool).reshape(-1)
        if hidden.shape != values.shape:
            raise InputError(f"hidden needs one entry per cell with the totals ({values.size}), got {hidden.size}")
    inner = np.zeros(table.values.shape, dtype=bool)
    inner[:-1, :-1] = True
    inner = inner.ravel()
    if rounded is not None:
        published = np.asarray(rounded, dtype=float).ravel()
        deviation = np.abs(published - values)
        changed = deviation > _LEVEL_TOL * scale
        lost = np.where(inner, deviation, 0.0)
        hidden = np.ones_like(hidden)
    else:
        changed = hidden
        lost = np.where(inner & hidden, values, 0.0)
        published = np.where(hidden, np.nan, values)
    required_low, required_high = _required(values, reference_positions, protection)
    return TableOutcome(values, low, high, hidden, changed, lost, required_low, required_high, reference_positions,
                        resolution, published)


def _suppression_outcome(table: PublishedTable, primary: Sequence[tuple[str, str]], reference: Sequence[tuple[str, str]],
                         protection: float, required: float, options: Mapping[str, Any],
                         resolution: float) -> tuple[TableOutcome, dict[str, Any]]:
    values = table.values.ravel().astype(float)
    if not primary:
        outcome = _table_outcome(table, values, values, list(reference), required, resolution)
        return outcome, {"primaries": 0, "secondaries": 0, "suppression_cost": 0.0, "optimal": True, "gap": 0.0,
                         "meets_requirement": _underprotected(outcome) == 0.0}
    result = suppress_secondary_kernel(table, list(primary), protection=protection, **options)
    suppressed = np.array(result.status) != "published"
    low = np.where(suppressed, result.min, values)
    high = np.where(suppressed, result.max, values)
    outcome = _table_outcome(table, low, high, list(reference), required, resolution, hidden=suppressed)
    return outcome, {"primaries": len(result.primary), "secondaries": len(result.secondary),
                     "suppression_cost": result.cost, "optimal": result.optimal, "gap": result.gap,
                     "meets_requirement": _underprotected(outcome) == 0.0}


def _ru_map(parameter: str, grid: np.ndarray, outcomes: list[TableOutcome], details: list[dict[str, Any]],
            risk: str, utility: str, method: str, target: str, config: Mapping[str, Any], counts: bool = False) -> RUMap:
    r, u = TABLE_RISKS[risk], TABLE_UTILITIES[utility]
    columns = {key: [d[key] for d in details] for key in details[0]} if details else {}
    if counts:  # the measures every protection of a count table shares: recovered when one count is possible
        columns.update(common_columns([np.array([table_common_stats(o.values, o.possible == 1,
                                                                    np.abs(o.published - o.values))])
                                       for o in outcomes]))
    return RUMap(parameter=parameter, values=grid, risk=[r.compute(o) for o in outcomes],
                 utility=[u.compute(o) for o in outcomes], risk_label=r.label, utility_label=u.label,
                 method=method, knowledge="outsider", target=target,
                 config={**config, "risk": risk, "utility": utility, **columns,
                         "hidden": [int(o.hidden.sum()) for o in outcomes]})


_SUPPRESSION_CHECKS = {"protection": "protection",
                       "cost": StrOptions(COSTS), "risk": StrOptions(TABLE_RISKS),
                       "utility": StrOptions(TABLE_UTILITIES),
                       "time_limit": "time_limit",
                       "resolution": "resolution", "budget": InstanceOf(WorkBudget)}


def _rule_example() -> dict[str, Any]:
    table = table_from_microdata(example_microdata(), "region", "size", response="turnover")
    return {"table": table, "rule": "p-percent", "values": [5.0, 20.0]}


@validate_params({"table": InstanceOf(MicrodataTable, "a MicrodataTable (see rumap.tables.microdata)"),
                  "rule": StrOptions(RULES), "parameter": [None, InstanceOf(str, "a parameter of the rule")],
                  "values": NumberArray(PARAMETERS["rule_parameter"],
                                        ndim=(1,)),
                  **_SUPPRESSION_CHECKS},
                 example=_rule_example)
def rule_map(table: MicrodataTable, rule: str, values: Sequence[float] | np.ndarray, parameter: str | None = None,
             rule_parameters: Mapping[str, float] | None = None, layer: str | None = None, protection: float = 10.0,
             cost: str = "value", risk: str = "underprotected", utility: str = "total_kept",
             time_limit: float = 10.0, resolution: float = 1.0, budget: WorkBudget = DEFAULT_BUDGET) -> RUMap:
    """R-U map of cell suppression over a sensitivity rule's parameter (p of the p% rule, n or k, the threshold).

    Parameters
    ----------
    table : MicrodataTable
        The table with its contributions (:func:`rumap.tables.microdata.table_from_microdata`).
    rule : str
        A key of :data:`rumap.tables.rules.RULES`.
    values : array_like, shape (m,)
        The values of the swept parameter.
    parameter : str, optional
        Which of the rule's parameters is swept (default its first: ``p``,
        ``n``, ``threshold``).
    rule_parameters : mapping, optional
        The rule's other parameters, e.g. ``{"k": 0.8}`` when sweeping ``n``.
    layer : str, optional
        The layer protected (default the layer total).
    protection : float, default 10
        Protection level of each primary, percent of its value.
    cost : {"value", "cells", "unity"}, default "value"
        As in :func:`rumap.tables.secondary.suppress_secondary`.
    risk : str, default "underprotected"
        A key of :data:`TABLE_RISKS`.
    utility : str, default "total_kept"
        A key of :data:`TABLE_UTILITIES`.
    time_limit : float, default 10
        Seconds per suppression.
    resolution : float, default 1
        Step between possible cell values.
    budget : WorkBudget
        Limits the grid and each suppression.

    Returns
    -------
    RUMap
        Parameter named after the swept one. The reference primaries, whose
        protection ``"underprotected"`` checks, are the cells sensitive at any
        value of the grid; ``config`` holds per value the number of primaries
        and secondaries, the cost, optimality and gap.

    Notes
    -----
    A stricter rule marks more primaries, so the table loses more: with
    patterns of least cost the cost of suppression cannot fall as p grows
    (every pattern protecting more primaries protects fewer).

    References
    ----------
    Seed 004 (Mas, EUSTAT): sensitivity rules, secondary suppression by MILP;
    Domingo-Ferrer, Oganian & Torra, Eq (3); Duncan, Keller-McNulty & Stokes
    (2001) for the R-U map.

    Examples
    --------
    >>> from rumap.maps.tables import rule_map
    >>> from rumap.tables.microdata import example_microdata, table_from_microdata
    >>> table = table_from_microdata(example_microdata(), "region", "size", response="turnover")
    >>> m = rule_map(table, "p-percent", [10.0, 90.0], utility="cells_kept")
    >>> m.config["primaries"], m.config["secondaries"], m.risk.tolist()  # 2 of 5 reference primaries exposed at p = 10
    ([2, 5], [2, 1], [0.4, 0.0])
    """
    spec = RULES[rule]
    names = list(spec.parameters)
    swept = names[0] if parameter is None else parameter
    if swept not in names:
        raise InputError(f"parameter must be one of {', '.join(names)} for the {rule} rule, got {swept!r}")
    budget.check_grid(values.size, swept)
    fixed = dict(rule_parameters or {})
    if swept in fixed:
        raise InputError(f"rule_parameters gives {swept!r}, the swept parameter")
    published = table.published(layer)
    primaries = [table.primary(rule, layer, **{**fixed, swept: float(v)}) for v in values]
    union = sorted({cell for cells in primaries for cell in cells})
    options = {"cost": cost, "time_limit": time_limit, "budget": budget,
               "frequencies": table.frequencies(layer)}  # its empty cells are known zeros, never secondaries
    pairs = [_suppression_outcome(published, cells, union, protection, protection, options, resolution)
             for cells in primaries]
    return _ru_map(swept, values, [p[0] for p in pairs], [p[1] for p in pairs], risk, utility, "suppression",
                   rule, {"rule": rule, "rule_parameters": fixed, "layer": layer, "protection": protection,
                          "cost": cost, "reference": [list(c) for c in union]}, counts=table.response is None)


def _protection_example() -> dict[str, Any]:
    table = table_from_microdata(example_microdata(), "region", "size", response="turnover")
    return {"table": table.published(), "primary": [("South", "large")], "protections": [5.0, 50.0]}


_PROTECTION_CHECKS = {**{key: value for key, value in _SUPPRESSION_CHECKS.items() if key != "protection"},
                      "counts": InstanceOf(bool, "True or False")}


@validate_params({"table": InstanceOf(PublishedTable, "a PublishedTable"),
                  "primary": InstanceOf((list, tuple), "a list of (row, column) label pairs"),
                  "protections": NumberArray(PARAMETERS["protection"], ndim=(1,)),
                  "required": [None, "protection"],
                  **_PROTECTION_CHECKS},
                 example=_protection_example)
def protection_map(table: PublishedTable, primary: Sequence[tuple[str, str]], protections: Sequence[float] | np.ndarray,
                   cost: str = "value", risk: str = "underprotected", utility: str = "total_kept",
                   time_limit: float = 10.0, resolution: float = 1.0, budget: WorkBudget = DEFAULT_BUDGET,
                   required: float | None = None, counts: bool = False) -> RUMap:
    """R-U map of cell suppression over the protection level P of fixed primaries.

    Parameters
    ----------
    table : PublishedTable
        The complete table with its totals.
    primary : sequence of (str, str)
        The primary cells.
    protections : array_like, shape (m,)
        Protection levels, percent of each primary's value (both directions).
    cost, risk, utility, time_limit, resolution, budget
        As in :func:`rule_map`.
    required : float, optional
        The protection level the primaries need, percent of their values:
        ``"underprotected"`` and ``config["meets_requirement"]`` check every
        pattern against it (default the largest P of the grid).
    counts : bool, default False
        The entries are counts of records: ``config`` then also holds the measures every protection of a
        count table shares (:mod:`rumap.maps.table_common`).

    Returns
    -------
    RUMap
        Parameter ``P``. ``config`` holds per value the number of primaries
        and secondaries, the cost, optimality, gap and ``meets_requirement``
        (every primary at least as wide as ``required`` needs), and
        ``reference_protection`` (``required``); :func:`meeting_requirement`
        reads the smallest value that meets it, or none.

    Notes
    -----
    A pattern that protects at level P protects at every lower level, so the
    least cost (and, with ``cost="unity"``, the number of suppressions) of
    optimal patterns cannot fall as P grows.

    References
    ----------
    Seed 004 (Mas, EUSTAT): protection levels of the Fischetti-Salazar model.

    Examples
    --------
    >>> from rumap.maps.tables import protection_map
    >>> from rumap.tables.microdata import example_microdata, table_from_microdata
    >>> table = table_from_microdata(example_microdata(), "region", "size", response="turnover").published()
    >>> m = protection_map(table, [("South", "large")], [50.0, 100.0])
    >>> m.config["suppression_cost"], m.risk.tolist()  # at P = 50 its interval is narrower than P = 100 needs
    ([410.0, 540.0], [1.0, 0.0])
    >>> protection_map(table, [("South", "large")], [50.0, 100.0], required=50.0).risk.tolist()
    [0.0, 0.0]
    """
    if not primary:
        raise InputError("give at least one primary cell")
    budget.check_grid(protections.size, "P")
    reference = sorted({(str(r), str(c)) for r, c in primary})
    required = float(protections.max()) if required is None else float(required)
    options = {"cost": cost, "time_limit": time_limit, "budget": budget}
    pairs = [_suppression_outcome(table, reference, reference, float(p), required, options, resolution)
             for p in protections]
    return _ru_map("P", protections, [p[0] for p in pairs], [p[1] for p in pairs], risk, utility, "suppression",
                   "protection", {"primary": [list(c) for c in reference], "cost": cost,
                                  "reference_protection": required}, counts=counts)


@validate_params({"table": InstanceOf(PublishedTable, "a PublishedTable"), "bases": Grid("rounding_base"),
                  "primary": [None, InstanceOf((list, tuple), "a list of (row, column) label pairs")],
                  "protection": "protection",
                  "risk": StrOptions(TABLE_RISKS), "utility": StrOptions(TABLE_UTILITIES),
                  "time_limit": "time_limit",
                  "resolution": "resolution", "budget": InstanceOf(WorkBudget),
                  "counts": InstanceOf(bool, "True or False")},
                 example=lambda: {"table": PublishedTable.from_cells([[3.0, 7.0], [12.0, 1.0]]), "bases": [2.0, 5.0]})
def rounding_base_map(table: PublishedTable, bases: Sequence[float] | np.ndarray,
                      primary: Sequence[tuple[str, str]] | None = None, protection: float = 10.0,
                      risk: str = "max_cell_risk", utility: str = "total_kept", time_limit: float = 10.0,
                      resolution: float = 1.0, budget: WorkBudget = DEFAULT_BUDGET, counts: bool = False) -> RUMap:
    """R-U map of controlled rounding over the rounding base b.

    Parameters
    ----------
    table : PublishedTable
        The complete table with its totals.
    bases : array_like, shape (m,)
        Rounding bases.
    primary : sequence of (str, str), optional
        Cells whose protection ``"underprotected"`` checks (the interval
        (rounded - b, rounded + b) against P% of the value).
    protection : float, default 10
    risk : str, default "max_cell_risk"
    utility : str, default "total_kept"
        ``"total_kept"`` is 1 - sum |rounded - value| over the cells / grand total.
    time_limit, resolution, budget
        As in :func:`rule_map`.
    counts : bool, default False
        As in :func:`protection_map`.

    Returns
    -------
    RUMap
        Parameter ``b``; ``config`` holds each rounding's total absolute
        deviation and optimality.

    References
    ----------
    Seed 004 (Mas, EUSTAT): controlled rounding in tau-Argus; Domingo-Ferrer,
    Oganian & Torra, Section 4.2 and Eq (3).

    Examples
    --------
    >>> from rumap.maps.tables import rounding_base_map
    >>> from rumap.tables.published import PublishedTable
    >>> m = rounding_base_map(PublishedTable.from_cells([[3.0, 7.0], [12.0, 1.0]]), [1.0, 5.0])
    >>> m.risk.tolist()[0], round(m.risk.tolist()[1], 4)  # b = 1 publishes every cell; b = 5: 1/log2 5 at a 0
    (inf, 0.4307)
    """
    budget.check_grid(bases.size, "b")
    reference = [] if primary is None else sorted({(str(r), str(c)) for r, c in primary})
    outcomes, details = [], []
    for base in bases:
        result = controlled_round(table, float(base), time_limit=time_limit, budget=budget)
        rounded = result.rounded
        low = np.maximum(rounded - base + resolution, 0.0)
        high = rounded + base - resolution
        outcome = _table_outcome(table, np.minimum(low, high), np.maximum(low, high), reference, protection,
                                 resolution, rounded=rounded)
        outcomes.append(outcome)
        details.append({"total_absolute_deviation": result.total_absolute_deviation, "optimal": result.optimal,
                        "gap": result.gap, "meets_requirement": _underprotected(outcome) == 0.0})
    return _ru_map("b", bases, outcomes, details, risk, utility, "controlled rounding", "rounding",
                   {"primary": [list(c) for c in reference], "protection": protection}, counts=counts)



@dataclass(frozen=True)
class RequirementMet:
    """Which values of a table map's grid meet the protection required of the primaries.

    Attributes
    ----------
    parameter : str
    required : float
        The protection level required, percent of each primary's value.
    values : ndarray
        The grid's values whose protection leaves no primary narrower than required.
    first : float or None
        The first of them in the grid's order; ``None`` when none does (infeasible on this grid).
    """

    parameter: str
    required: float
    values: np.ndarray
    first: float | None

    @property
    def feasible(self) -> bool:
        """Whether some value of the grid meets the requirement."""
        return self.first is not None


@validate_params({"m": InstanceOf(RUMap, "an RUMap of rumap.maps.tables")},
                 example=lambda: {"m": protection_map(**_protection_example(), required=5.0)})
def meeting_requirement(m: RUMap) -> RequirementMet:
    """The values of a table map whose protection meets the requirement, and the first one (or none).

    Parameters
    ----------
    m : RUMap
        A map of :func:`rule_map`, :func:`protection_map` or :func:`rounding_base_map`.

    Returns
    -------
    RequirementMet

    Examples
    --------
    >>> from rumap.maps.tables import meeting_requirement, protection_map
    >>> from rumap.tables.microdata import example_microdata, table_from_microdata
    >>> table = table_from_microdata(example_microdata(), "region", "size", response="turnover").published()
    >>> met = meeting_requirement(protection_map(table, [("South", "large")], [50.0, 100.0], required=100.0))
    >>> met.values.tolist(), met.first, met.feasible
    ([100.0], 100.0, True)
    """
    flags = m.config.get("meets_requirement")
    if flags is None:
        raise InputError("this map does not say which values meet the protection required (a table map does)")
    required = m.config.get("reference_protection", m.config.get("protection"))
    values = np.asarray(m.values, dtype=float)[np.asarray(flags, dtype=bool)]
    return RequirementMet(parameter=m.parameter, required=float(required), values=values,
                          first=float(values[0]) if values.size else None)


@validate_params({"table": InstanceOf(PublishedTable, "a PublishedTable")},
                 example=lambda: {"table": PublishedTable.from_cells([[3.0, 7.0], [12.0, 1.0]])})
def default_rounding_base(table: PublishedTable) -> float:
    """A rounding base on the table's own scale: a tenth of the typical inner cell's power of ten, at least 3.

    With the median positive inner cell ``c``, ``b = 10^(floor(log10 c) - 1)``,
    so a typical cell keeps its first two digits (counts in the tens round to
    base 3, as the count tables of statistical offices often do).

    Parameters
    ----------
    table : PublishedTable

    Returns
    -------
    float

    Examples
    --------
    >>> from rumap.maps.tables import default_rounding_base
    >>> from rumap.tables.published import PublishedTable
    >>> default_rounding_base(PublishedTable.from_cells([[25000.0, 71000.0], [12000.0, 48000.0]]))
    1000.0
    >>> default_rounding_base(PublishedTable.from_cells([[3.0, 7.0], [12.0, 41.0]]))
    3.0
    """
    cells = np.asarray(table.values, dtype=float)[:-1, :-1].ravel()
    cells = cells[np.isfinite(cells) & (cells > 0)]
    if not cells.size:
        return 3.0
    return float(max(3.0, 10.0 ** (math.floor(math.log10(float(np.median(cells)))) - 1)))
