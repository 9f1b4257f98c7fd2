"""Secondary cell suppression of n-dimensional hierarchical tables, alone or linked, audited before it is returned.

The primaries of an :class:`~rumap.tables.ndtable.NDTable` are protected over
all its additivity equations at once, every level of every dimension: the
attacker knows every published cell, every equation and that cells are
non-negative, and for each primary k his LPs min / max y_k must reach
a_k - LPL_k and a_k + UPL_k (seed 004's model; Fischetti & Salazar 2001).

A solution method is one entry of :data:`TABLE_SUPPRESSION_METHODS`: a function of a
:class:`SuppressionProblem` returning a :class:`rumap.tables._attacker.Pattern`.
``optimal`` is the Fischetti-Salazar cutting-plane MILP on HiGHS
(:func:`rumap.tables._attacker.protect`): the attacker's LPs are solved for
the master's pattern, each unmet one adds the capacity cut of its dual, until
the master's pattern protects every primary (proven optimal) or the work
limit is spent (then the best protecting pattern found and the master's
bound: the gap). The solve limit (rounds of cuts, branch-and-bound nodes,
:class:`rumap.tables._attacker.SolveLimit`) is derived from ``time_limit``
and decides when the solve stops, never the clock: the same table gives the
same pattern on any machine, from Python, the command line or the page.

Whatever the method, the pattern is audited before it is returned: each
primary's attacker interval by LP over the published cells and every equation
(the LPs of many primaries stacked into one block-diagonal LP per batch), and a
primary short of its levels is repaired by the cheapest deviation that
protects it, then audited again; a pattern that still falls short is an error,
never a result.

Empty cells (no record) are known zeros: published, never suppressed, and left
out of the attacker's model.

Singletons, as tau-Argus's modular options SingleSingle, SingleMultiple and
MinFreq (batch command ``MOD(table, time, SingleSingle, SingleMultiple,
MinFreq)``) are written out in sdcTable (its "tau-argus strategy":
``detect_singletons`` in ``R/helper_functions.r``, ``supp_constraint`` in
``src/suppConstraints.cpp``). A singleton, a primary of one contributor, is
known to that contributor, who can subtract it from each line (a total and the
cells adding up to it) it is in. In a line holding a singleton and a
non-empty cell not primary, one more cell is suppressed when the line's only
primaries are (1) two singletons, (2) a singleton and a primary of several
contributors, or (3) its total and two other cells (minimum frequency: the
three would protect only each other). tau-Argus and sdcTable make the least
frequent such cell primary beforehand; here each rule is a cover constraint
of the pattern (one of the line's non-primary, non-empty cells suppressed)
that the method meets (the repair only adds cells), so the cheapest cell is
chosen with the rest of the pattern.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
from scipy import sparse

from rumap._validation import Boolean, InstanceOf, ListOf, StrOptions, validate_params
from rumap.budget import DEFAULT_BUDGET, WorkBudget
from rumap.errors import InputError
from rumap.result import json_safe
from rumap.tables._attacker import LEVEL_TOL, Pattern, Requirement, SolveLimit, protect
from rumap.tables.hierarchy import TOTAL
from rumap.tables.ndtable import NDTable, example_table
from rumap.tables.pattern_audit import audit_pattern, pattern_gap
from rumap.tables.rules import freeze_array_fields
from rumap.tables.secondary import COSTS
from rumap.tables.suppression_problem import SuppressionProblem

__all__ = ["TABLE_SUPPRESSION_METHODS", "HEURISTIC_ABOVE", "LinkedTableSuppression", "SuppressionProblem", "TableSuppression",
           "audit_pattern", "pattern_gap", "suppress_linked_tables", "suppress_table"]

#: Work units per nonzero of the equations x attacker subproblem.
_WORK_PER_SUBPROBLEM = 10.0



def _optimal(problem: SuppressionProblem) -> Pattern:
    """The Fischetti-Salazar cutting-plane MILP (HiGHS) until proven optimal or out of time."""
    problem.budget.check_work(_WORK_PER_SUBPROBLEM * max(problem.equations.nnz, 1) * 2 * problem.primaries.size,
                              f"{problem.equations.nnz} equation terms x {2 * problem.primaries.size} attacker "
                              "subproblems")
    return protect(problem.attacker(), problem.primaries, problem.upper, problem.lower, method="milp",
                   time_limit=problem.time_limit, extra_cuts=list(problem.covers), accelerate=True)


def _heuristic(problem: SuppressionProblem) -> Pattern:
    """HiTaS' top-down pass over the subtables (:mod:`rumap.tables.subtables`), for large tables."""
    from rumap.tables.subtables import subtable_pattern

    return subtable_pattern(problem)


#: The default method is ``heuristic`` above this many non-empty cells (of every linked table), else ``optimal``.
HEURISTIC_ABOVE = 5000

#: Secondary suppression methods: name -> function of a :class:`SuppressionProblem` returning a pattern.
TABLE_SUPPRESSION_METHODS: dict[str, Callable[[SuppressionProblem], Pattern]] = {
    "optimal": _optimal,
    "heuristic": _heuristic,
}


@dataclass(frozen=True)
class TableSuppression:
    """A protected n-dimensional table: each cell's status, the cost, what proves it, and the audit.

    Parameters
    ----------
    table : NDTable
        The table.
    cell_status : tuple of str
        Each cell's status: ``"primary"``, ``"secondary"`` or ``"published"``.
    cost : float
        The cost of the secondary suppressions (of every linked table, a shared cell once).
    lower_bound : float
        A proven lower bound on the least cost.
    gap : float
        (cost - lower_bound) / cost; 0 when proven optimal.
    optimal : bool
    method : str
        The method registered in :data:`TABLE_SUPPRESSION_METHODS`, with how the pattern was
        found (``optimal``, ``optimal+heuristic``: the repair's pattern
        proven optimal, ``optimal/heuristic``: the repair's, not proven).
    status : str
        ``"optimal"`` (proven) or ``"feasible"`` (protecting, with a gap).
    protection : float
        The protection level, percent of each primary's value.
    audit_cells : ndarray of int
        The primaries' cell positions.
    audit_min, audit_max : ndarray
        Each primary's attacker interval (LP over every equation; inf when unbounded).
    required_min, required_max : ndarray
        a - LPL and a + UPL.
    protected : ndarray of bool
        Whether each primary's interval covers [a - LPL, a + UPL].
    config : mapping
        The options, with ``solve_limit``: the limits that decided when the solve stopped.
    stopped_on : str, optional
        None when the method completed (``status`` says whether proven
        optimal); ``"solve_limit"`` when it stopped on its solve limit, the
        pattern found by then returned with its gap; ``"time_limit"`` when
        HiGHS's safety net on wall time cut a master short (see
        :mod:`rumap.tables._attacker`; not reached in normal runs).
    """

    table: NDTable
    cell_status: tuple[str, ...]
    cost: float
    lower_bound: float
    gap: float
    optimal: bool
    method: str
    status: str
    protection: float
    audit_cells: np.ndarray
    audit_min: np.ndarray
    audit_max: np.ndarray
    required_min: np.ndarray
    required_max: np.ndarray
    protected: np.ndarray
    config: Mapping[str, Any] = field(default_factory=dict)
    stopped_on: str | None = None

    def __post_init__(self) -> None:
        freeze_array_fields(self)

    @property
    def all_protected(self) -> bool:
        """Whether every primary's interval clears its levels."""
        return bool(self.protected.all())

    @property
    def suppressed(self) -> np.ndarray:
        """Whether each cell is suppressed (primary or secondary)."""
        return np.array(self.cell_status) != "published"

    def counts(self) -> dict[str, int]:
        """How many cells have each status."""
        statuses = np.array(self.cell_status)
        return {s: int((statuses == s).sum()) for s in ("primary", "secondary", "published")}

    def to_frame(self) -> pd.DataFrame:
        """One row per cell: the codes, value, frequency and status."""
        frame = self.table.cells[[*self.table.dims, "value", "frequency"]].copy()
        frame["status"] = list(self.cell_status)
        return frame

    def published(self) -> pd.DataFrame:
        """The protected table as released: the codes and the value, empty (NaN) where suppressed."""
        frame = self.table.cells[[*self.table.dims, "value"]].copy()
        frame.loc[self.suppressed, "value"] = np.nan
        return frame

    def audit_frame(self) -> pd.DataFrame:
        """One row per primary: codes, value, the required and the attacker's interval, protected."""
        frame = self.table.cells.loc[self.audit_cells, [*self.table.dims, "value"]].reset_index(drop=True)
        return frame.assign(required_min=self.required_min, required_max=self.required_max, min=self.audit_min,
                            max=self.audit_max, protected=self.protected)

    def to_dict(self) -> dict[str, Any]:
        """``{"cells": [{"codes", "value", "status"}], "cost", "gap", "method", "status", "optimal", "lower_bound",
        "protection", "protected", "counts", "audit", "config", "stopped_on"}``."""
        dims = self.table.dims
        codes = self.table.cells[list(dims)].to_numpy(dtype=object)
        values = self.table.values
        cells = [{"codes": dict(zip(dims, row, strict=True)), "value": float(v), "status": s}
                 for row, v, s in zip(codes, values, self.cell_status, strict=True)]
        audit = [{"codes": dict(zip(dims, codes[i], strict=True)), "value": float(values[i]), "required_min": lo,
                  "required_max": hi, "min": a, "max": b, "protected": bool(ok)}
                 for i, lo, hi, a, b, ok in zip(self.audit_cells, self.required_min, self.required_max,
                                                self.audit_min, self.audit_max, self.protected, strict=True)]
        return json_safe({"cells": cells, "cost": self.cost, "gap": self.gap, "method": self.method,
                          "status": self.status, "optimal": self.optimal, "lower_bound": self.lower_bound,
                          "protection": self.protection, "protected": self.all_protected, "counts": self.counts(),
                          "audit": audit, "config": dict(self.config), "stopped_on": self.stopped_on})


@dataclass(frozen=True)
class LinkedTableSuppression:
    """Linked tables protected together: one :class:`TableSuppression` per table, one pattern.

    Parameters
    ----------
    tables : tuple of TableSuppression
        Each table's cells and audit (the audit over every table's equations).
    cost, lower_bound, gap : float
        Of the one pattern, a shared cell counted once.
    optimal : bool
    method, status : str
    stopped_on : str, optional
        As in :class:`TableSuppression`.
    """

    tables: tuple[TableSuppression, ...]
    cost: float
    lower_bound: float
    gap: float
    optimal: bool
    method: str
    status: str
    stopped_on: str | None = None

    @property
    def all_protected(self) -> bool:
        """Whether every primary of every table clears its levels."""
        return all(t.all_protected for t in self.tables)

    def counts(self) -> dict[str, int]:
        """How many cells of all the tables have each status (a shared cell once per table it is in)."""
        return {s: sum(t.counts()[s] for t in self.tables) for s in ("primary", "secondary", "published")}

    def to_frame(self) -> pd.DataFrame:
        """One row per cell of each table: ``table`` (1, 2, ... in the order given), the codes, value, frequency
        and status; a dimension a table does not have is empty in its rows."""
        frame = pd.concat([t.to_frame().assign(table=i) for i, t in enumerate(self.tables, start=1)],
                          ignore_index=True)
        return frame[["table", *(c for c in frame.columns if c != "table")]]

    def to_dict(self) -> dict[str, Any]:
        """``{"tables": [{"dims", "cells", ...}], "cost", "gap", "method", "status", "optimal", "lower_bound",
        "protected", "stopped_on"}``: each table's object is :meth:`TableSuppression.to_dict` with its ``dims`` first."""
        return json_safe({"tables": [{"dims": list(t.table.dims), **t.to_dict()} for t in self.tables],
                          "cost": self.cost, "gap": self.gap, "method": self.method, "status": self.status,
                          "optimal": self.optimal, "lower_bound": self.lower_bound, "protected": self.all_protected,
                          "stopped_on": self.stopped_on})


def _cell_keys(table: NDTable) -> list[frozenset]:
    """Each cell's identity across tables: its (dimension, code) pairs off the totals."""
    codes = table.cells[list(table.dims)].to_numpy(dtype=object)
    return [frozenset((d, c) for d, c in zip(table.dims, row, strict=True) if c != TOTAL) for row in codes]


def _singleton_covers(equations: sparse.csr_matrix, primaries: np.ndarray,
                      singletons: np.ndarray) -> list[tuple[sparse.csr_matrix, float]]:
    """The singleton rules (module notes): in each line they apply to, one of its non-primary cells suppressed.

    ``equations`` has one row per line over the non-empty cells, -1 on the line's total and +1 on the cells
    adding up to it.
    """
    n = equations.shape[1]
    is_primary = np.zeros(n, dtype=bool)
    is_primary[primaries] = True
    covers: dict[bytes, tuple[sparse.csr_matrix, float]] = {}
    for row in range(equations.shape[0]):
        start, end = equations.indptr[row], equations.indptr[row + 1]
        members, coefficients = equations.indices[start:end], equations.data[start:end]
        primary = members[is_primary[members]]
        rest = np.sort(members[~is_primary[members]])
        if rest.size == 0 or not singletons[primary].any():
            continue
        total_primary = bool((is_primary[members] & (coefficients < 0)).any())
        if primary.size == 2 or (primary.size == 3 and total_primary):  # rules 1 and 2; rule 3
            covers.setdefault(rest.tobytes(), (sparse.csr_matrix((np.ones(rest.size), rest, [0, rest.size]),
                                                                 shape=(1, n)), 1.0))
    return list(covers.values())


def _problem(tables: Sequence[NDTable], masks: Sequence[np.ndarray], protection: float, cost: str,
             time_limit: float, singletons: bool, budget: WorkBudget) -> SuppressionProblem:
    keys: dict[frozenset, int] = {}
    values: list[float] = []
    frequencies: list[float] = []
    positions, blocks = [], []
    primary: set[int] = set()
    for t, (table, mask) in enumerate(zip(tables, masks, strict=True)):
        mask = np.asarray(mask, dtype=bool).ravel()
        if mask.size != table.size:
            raise InputError(f"the primary mask of table {t + 1} has {mask.size} entries, the table {table.size} cells")
        table_values, table_freq = table.values, table.frequencies
        if (mask & (table_freq == 0)).any():
            raise InputError(f"table {t + 1} marks the empty cell {table.codes(int(np.argmax(mask & (table_freq == 0))))}"
                             " primary: empty cells are known zeros")
        local = np.full(table.size, -1, dtype=np.int64)
        for i, key in enumerate(_cell_keys(table)):
            if table_freq[i] == 0:
                continue
            if key not in keys:
                keys[key] = len(values)
                values.append(float(table_values[i]))
                frequencies.append(float(table_freq[i]))
            elif abs(values[keys[key]] - table_values[i]) > 1e-9 * max(1.0, abs(table_values[i])):
                raise InputError(f"the cell {table.codes(i)} is {table_values[i]:g} in table {t + 1} and "
                                 f"{values[keys[key]]:g} in another: linked tables must come from one file")
            local[i] = keys[key]
        primary.update(int(p) for p in local[mask])
        blocks.append((table.equations(), local))
        positions.append(local)
    n = len(values)
    parts = []
    for equations, local in blocks:
        coo = equations.tocoo()
        keep = local[coo.col] >= 0
        remapped = sparse.csr_matrix((coo.data[keep], (coo.row[keep], local[coo.col[keep]])),
                                     shape=(equations.shape[0], n))
        parts.append(remapped[np.diff(remapped.indptr) > 1])
    equations = sparse.vstack(parts).tocsr() if parts else sparse.csr_matrix((0, n))
    value_array, freq_array = np.array(values), np.array(frequencies)
    primaries = np.array(sorted(primary), dtype=np.int64)
    weights = COSTS[cost](value_array, freq_array)
    levels = value_array[primaries] * protection / 100.0
    covers = _singleton_covers(equations, primaries, freq_array == 1) if singletons else []
    return SuppressionProblem(value_array, equations, weights, primaries, levels, levels.copy(), tuple(covers),
                              float(time_limit), tuple(tables), tuple(positions), budget=budget)


def _audited(problem: SuppressionProblem, pattern: Pattern) -> tuple[Pattern, np.ndarray, np.ndarray, np.ndarray]:
    """Audit the pattern; repair a primary short of its levels by its cheapest deviation, audit again."""
    suppressed = pattern.suppressed.copy()
    suppressed[problem.primaries] = True
    model = None
    for attempt in range(3):
        low, high = audit_pattern(problem.values, problem.equations, suppressed, problem.primaries, problem.rhs,
                                  problem.lower_bounds, problem.upper_bounds)
        a = problem.values[problem.primaries]
        slack = LEVEL_TOL * np.maximum(1.0, a) + 1e-9
        ok = (low <= a - problem.lower + slack) & (high >= a + problem.upper - slack)
        if ok.all():
            break
        if attempt == 2:
            raise InputError("no protecting pattern was found for every primary: lower the protection")
        model = model or problem.attacker()
        for j in np.flatnonzero(~ok):
            k = int(problem.primaries[j])
            for sign, level, bad in ((1, problem.upper[j], high[j] < a[j] + problem.upper[j] - slack[j]),
                                     (-1, problem.lower[j], low[j] > a[j] - problem.lower[j] + slack[j])):
                if bad:
                    suppressed |= model.deviation_path(Requirement(k, sign, float(level)), suppressed)
    if not np.array_equal(suppressed, pattern.suppressed):
        cost = float(problem.weights @ (suppressed & ~np.isin(np.arange(suppressed.size), problem.primaries)))
        pattern = Pattern(suppressed, cost, pattern.lower_bound, cost <= pattern.lower_bound * (1 + 1e-9) + 1e-9,
                          pattern.method + "+repair", pattern.iterations, pattern.cuts, pattern.stopped_on)
    return pattern, low, high, ok


def _solve(tables: Sequence[NDTable], masks: Sequence[np.ndarray], protection: float, cost: str, method: str,
           time_limit: float, singletons: bool | None, budget: WorkBudget) -> tuple[list[TableSuppression], Pattern, str]:
    if singletons is None:  # a singleton's own value is the cell's only in a magnitude table
        singletons = all(table.response is not None for table in tables)
    problem = _problem(tables, masks, protection, cost, time_limit, singletons, budget)
    if method is None:
        method = "heuristic" if problem.values.size > HEURISTIC_ABOVE else "optimal"
    if problem.primaries.size == 0:
        pattern = Pattern(np.zeros(problem.values.size, dtype=bool), 0.0, 0.0, True, "milp", 0, 0)
    else:
        pattern = TABLE_SUPPRESSION_METHODS[method](problem)
    pattern, low, high, ok = _audited(problem, pattern)
    name = {"milp": method, "milp+heuristic": f"{method}+heuristic"}.get(
        pattern.method, pattern.method if pattern.method.startswith(method) else f"{method}/{pattern.method}")
    gap = pattern_gap(pattern)
    status = "optimal" if pattern.optimal else "feasible"
    is_primary = np.zeros(problem.values.size, dtype=bool)
    is_primary[problem.primaries] = True
    results = []
    for table, local in zip(tables, problem.positions, strict=True):
        inside = local >= 0
        cell_status = np.full(table.size, "published", dtype=object)
        cell_status[inside & pattern.suppressed[np.maximum(local, 0)]] = "secondary"
        cell_status[inside & is_primary[np.maximum(local, 0)]] = "primary"
        audit_cells = np.flatnonzero(cell_status == "primary")
        j = np.searchsorted(problem.primaries, local[audit_cells])
        a = problem.values[problem.primaries[j]]
        results.append(TableSuppression(
            table=table, cell_status=tuple(str(s) for s in cell_status), cost=pattern.cost,
            lower_bound=float(pattern.lower_bound), gap=float(gap), optimal=bool(pattern.optimal), method=name,
            status=status, protection=float(protection), audit_cells=audit_cells, audit_min=low[j],
            audit_max=high[j], required_min=a - problem.lower[j], required_max=a + problem.upper[j], protected=ok[j],
            config={"cost": cost, "method": method, "time_limit": time_limit,
                    "solve_limit": SolveLimit.of_seconds(time_limit).to_dict(), "singletons": singletons,
                    "iterations": pattern.iterations, "cuts": pattern.cuts, "linked": len(tables)},
            stopped_on=None if pattern.optimal else pattern.stopped_on))
    return results, pattern, status


_COMMON = {"protection": "protection",
           "cost": StrOptions(COSTS), "method": [None, StrOptions(TABLE_SUPPRESSION_METHODS)],
           "time_limit": "time_limit",
           "singletons": [None, Boolean()], "budget": InstanceOf(WorkBudget)}


def _example() -> dict[str, Any]:
    table = example_table()
    return {"table": table, "primary_mask": table.primary_mask("threshold", threshold=2)}


@validate_params({"table": InstanceOf(NDTable, "an NDTable (see rumap.tables.ndtable.build_table)"),
                  "primary_mask": InstanceOf((np.ndarray, list, tuple), "one boolean per cell"), **_COMMON},
                 example=_example)
def suppress_table(table: NDTable, primary_mask: Any, *, protection: float = 10.0, cost: str = "value",
                   method: str | None = None, time_limit: float = 30.0, singletons: bool | None = None,
                   budget: WorkBudget = DEFAULT_BUDGET) -> TableSuppression:
    """Secondary suppression of an n-dimensional hierarchical table over every equation at every level.

    Parameters
    ----------
    table : NDTable
        The table (:func:`rumap.tables.ndtable.build_table`).
    primary_mask : array_like of bool
        One per cell (C order), e.g. :meth:`NDTable.primary_mask` of a rule.
    protection : float, default 10
        P: the upper and lower protection levels of each primary are P% of its value.
    cost : {"value", "cells", "unity"}, default "value"
        The cost of a suppression: the cell's value, its number of records,
        or 1 per cell (fewest cells).
    method : str, optional
        A key of :data:`TABLE_SUPPRESSION_METHODS`: ``optimal`` is the Fischetti-Salazar
        cutting-plane MILP on HiGHS, ``heuristic`` HiTaS' top-down pass over
        the subtables (:mod:`rumap.tables.subtables`). Default: ``optimal``
        up to :data:`HEURISTIC_ABOVE` non-empty cells, ``heuristic`` above.
    time_limit : float, default 30
        Nominal seconds for the method (the audit comes after), turned into a
        solve limit (master rounds, branch-and-bound nodes:
        :class:`rumap.tables._attacker.SolveLimit`) that decides when it stops,
        so the pattern is the same on any machine; out of work the best
        protecting pattern found is returned with its proven gap
        (``stopped_on`` ``"solve_limit"``).
    singletons : bool, optional
        Apply tau-Argus's singleton rules, singleton-singleton,
        singleton-multiple and minimum frequency (module notes). Default:
        for magnitude tables (a value column), whose one contributor knows
        a singleton's value exactly; not for frequency tables, where a
        respondent knows only that its cell counts at least one.
    budget : WorkBudget
        Refuses problems too large.

    Returns
    -------
    TableSuppression
        Each cell's status, the cost, gap, method, status and the audit of every primary.

    Raises
    ------
    InputError
        A mask of the wrong size or marking an empty cell, or protection no pattern can give.

    References
    ----------
    Seed 004 (Mas, EUSTAT), "A Mixed Integer Linear Programming Model for
    Secondary Cell Suppression"; Fischetti & Salazar (2001), *Solving the
    cell suppression problem on tabular data with linear constraints*,
    Management Science 47(7); tau-Argus's modular singleton options as
    sdcTable implements them (``detect_singletons``, ``supp_constraint``).

    Examples
    --------
    >>> from rumap.tables.ndtable import example_table
    >>> table = example_table()
    >>> result = suppress_table(table, table.primary_mask("threshold", threshold=2), protection=20, cost="unity")
    >>> result.status, result.all_protected, result.counts()["primary"]
    ('optimal', True, 8)
    """
    results, _, _ = _solve([table], [primary_mask], protection, cost, method, time_limit, singletons, budget)
    return results[0]


def _linked_example() -> dict[str, Any]:
    from rumap.tables.microdata import example_microdata
    from rumap.tables.ndtable import build_table

    frame = example_microdata()
    tables = [build_table(frame, ["region", "size"], value_column="turnover"),
              build_table(frame, ["region", "sector"], value_column="turnover")]
    return {"tables": tables, "primary_masks": [t.primary_mask("threshold", threshold=2) for t in tables]}


@validate_params({"tables": ListOf(NDTable, "a list of NDTable", min_items=1),
                  "primary_masks": InstanceOf((list, tuple), "one boolean mask per table"), **_COMMON},
                 example=_linked_example)
def suppress_linked_tables(tables: Sequence[NDTable], primary_masks: Sequence[Any], *, protection: float = 10.0,
                           cost: str = "value", method: str | None = None, time_limit: float = 30.0,
                           singletons: bool | None = None, budget: WorkBudget = DEFAULT_BUDGET) -> LinkedTableSuppression:
    """Secondary suppression of tables from one microdata file that share cells, as one problem.

    Parameters
    ----------
    tables : sequence of NDTable
        Tables built from the same records (region x activity, region x
        size ...). A cell whose codes off the totals are the same in two
        tables (region North with every other dimension at its total) is one
        cell, suppressed in all of them or in none.
    primary_masks : sequence of array_like of bool
        One mask per table; a shared cell primary in one is primary in all.
    protection, cost, method, time_limit, singletons, budget
        As in :func:`suppress_table`.

    Returns
    -------
    LinkedTableSuppression

    Raises
    ------
    InputError
        A shared cell with different values (tables not from one file),
        masks of the wrong size, or protection no pattern can give.

    Notes
    -----
    One binary variable per distinct cell; every primary's attacker LPs run
    over the union of all the tables' equations, so the pattern is safe
    against an intruder who reads them all.

    Examples
    --------
    >>> from rumap.tables.microdata import example_microdata
    >>> from rumap.tables.ndtable import build_table
    >>> frame = example_microdata()
    >>> tables = [build_table(frame, ["region", "size"], value_column="turnover"),
    ...           build_table(frame, ["region", "sector"], value_column="turnover")]
    >>> masks = [t.primary_mask("threshold", threshold=2) for t in tables]
    >>> result = suppress_linked_tables(tables, masks, protection=20)
    >>> result.status, result.all_protected
    ('optimal', True)
    """
    tables = list(tables)
    masks = list(primary_masks)
    if len(masks) != len(tables):
        raise InputError(f"give one primary mask per table: {len(tables)} tables, {len(masks)} masks")
    results, pattern, status = _solve(tables, masks, protection, cost, method, time_limit, singletons, budget)
    first = results[0]
    return LinkedTableSuppression(tuple(results), first.cost, first.lower_bound, first.gap, first.optimal,
                                  first.method, status, first.stopped_on)
