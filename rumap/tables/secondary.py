"""Secondary cell suppression of a 2-D table with its totals: the Fischetti-Salazar MILP, audited by LP bounds.

Given the primary (sensitive) cells, choose further cells to suppress at least
cost so that, for every primary, the attacker's minimum and maximum over the
suppressed table clear its lower and upper protection levels (seed 004's
"mixed integer linear programming model for secondary cell suppression";
Fischetti & Salazar 2001). Solved by cutting planes with scipy.optimize.milp
and linprog (HiGHS), see :mod:`rumap.tables._attacker`; every pattern is then
audited by the LP bounds of :mod:`rumap.tables.bounds`.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from numbers import Real
from typing import Any

import numpy as np
import pandas as pd
from scipy.optimize import linprog

from rumap._validation import PARAMETERS, InstanceOf, StrOptions, assumes_valid, check_scalar, validate_params
from rumap._validation.constraints import shown
from rumap.budget import DEFAULT_BUDGET, WorkBudget
from rumap.errors import InputError
from rumap.result import json_safe
from rumap.tables._attacker import LEVEL_TOL, AttackerModel, SolveLimit, protect
from rumap.tables.bounds import _bounds_from_equations, _margin_equations, lp_bounds
from rumap.tables.published import TOTAL_LABEL, PublishedTable
from rumap.tables.rules import freeze_array_fields

__all__ = ["SecondarySuppression", "suppress_secondary", "COSTS", "SUPPRESSION_METHODS", "METHODS", "STATUSES",
           "worked_example_table"]

#: Cost of suppressing a cell, by name: (values, frequencies or None) -> cost per cell.
#: ``value``: the cell's value (tau-Argus "cell value"); ``cells``: the number of contributors when the
#: frequencies are known (tau-Argus "frequency"), else 1; ``unity``: 1 per cell (tau-Argus "unity"),
#: which minimises the number of cells suppressed.
COSTS = {
    "value": lambda values, frequencies: np.asarray(values, dtype=float),
    "cells": lambda values, frequencies: (np.ones(np.size(values)) if frequencies is None
                                          else np.maximum(np.asarray(frequencies, dtype=float), 1.0)),
    "unity": lambda values, frequencies: np.ones(np.size(values)),
}

#: Solution methods: ``milp`` cutting planes until proven optimal (out of time, the last master solution repaired
#: by the heuristic, with the master's bound), ``heuristic`` the sequential cheapest-deviation heuristic alone,
#: ``auto`` the MILP for four fifths of the time, then the repair and pruning.
SUPPRESSION_METHODS = ("auto", "milp", "heuristic")
#: The former name of :data:`SUPPRESSION_METHODS`, kept for callers (``rumap.METHODS`` is the masking methods).
METHODS = SUPPRESSION_METHODS

#: Status of a cell in the protected table.
STATUSES = ("primary", "secondary", "published")

#: External bounds, percent of a cell's value.

#: Work units per cell x attacker subproblem (an LP solve over the table's equations).
_WORK_PER_SUBPROBLEM = 10.0


@dataclass(frozen=True)
class SecondarySuppression:
    """A protected table: every cell's status and audit interval, the cost and what proves it.

    Parameters
    ----------
    rows, columns : tuple of str, length (R + 1)(C + 1)
        Each cell's labels, row-major, totals labelled ``"Total"``.
    values : ndarray
        The cells' values.
    status : tuple of str
        ``"primary"``, ``"secondary"`` or ``"published"``.
    min, max : ndarray
        The audit interval (LP bounds of :mod:`rumap.tables.bounds`) of a
        suppressed cell; the value itself for a published one.
    primary, secondary : tuple of (str, str)
    cost : float
        Total cost of the secondary suppressions.
    optimal : bool
        Whether HiGHS proved the pattern of least cost.
    method : str
        ``"milp"``, ``"milp+heuristic"`` (the heuristic's pattern proved optimal by the MILP's bound) or
        ``"heuristic"``.
    gap : float
        (cost - lower bound) / cost, 0 when optimal.
    lower_bound : float
        A proven lower bound on the least cost.
    protection : float
        The protection level in percent of each primary's value.
    required_min, required_max : ndarray, one per primary
        a - LPL and a + UPL.
    protected : ndarray of bool, one per primary
        Whether the audit interval of each primary contains [a - LPL, a + UPL].
    """

    rows: tuple[str, ...]
    columns: tuple[str, ...]
    values: np.ndarray
    status: tuple[str, ...]
    min: np.ndarray
    max: np.ndarray
    primary: tuple[tuple[str, str], ...]
    secondary: tuple[tuple[str, str], ...]
    cost: float
    optimal: bool
    method: str
    gap: float
    lower_bound: float
    protection: float
    required_min: np.ndarray
    required_max: np.ndarray
    protected: np.ndarray
    config: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        freeze_array_fields(self)

    @property
    def all_protected(self) -> bool:
        """Whether every primary's audit interval clears its protection levels."""
        return bool(self.protected.all())

    @property
    def suppressed_count(self) -> int:
        """Cells suppressed (primaries and secondaries)."""
        return len(self.primary) + len(self.secondary)

    def table(self, row_labels: Sequence[str], column_labels: Sequence[str]) -> PublishedTable:
        """The published table: suppressed cells as NaN (labels of the inner rows and columns in order)."""
        shape = (len(row_labels) + 1, len(column_labels) + 1)
        values = np.where(np.array(self.status) == "published", self.values, np.nan).reshape(shape)
        return PublishedTable(tuple(row_labels), tuple(column_labels), values)

    def to_frame(self) -> pd.DataFrame:
        """One row per cell: row, column, value, status, min, max."""
        return pd.DataFrame({"row": list(self.rows), "column": list(self.columns), "value": self.values,
                             "status": list(self.status), "min": self.min, "max": self.max})

    def audit_frame(self) -> pd.DataFrame:
        """One row per primary: its value, required and achieved interval, and whether it is protected."""
        index = {(r, c): i for i, (r, c) in enumerate(zip(self.rows, self.columns, strict=True))}
        cells = [index[p] for p in self.primary]
        return pd.DataFrame({"row": [p[0] for p in self.primary], "column": [p[1] for p in self.primary],
                             "value": self.values[cells], "required_min": self.required_min,
                             "required_max": self.required_max, "min": self.min[cells], "max": self.max[cells],
                             "protected": self.protected})

    def to_dict(self) -> dict[str, Any]:
        """``{"cells", "primary", "secondary", "cost", "optimal", "method", "gap", "lower_bound", "protection",
        "protected", "audit"}``."""
        return json_safe({"cells": self.to_frame().to_dict(orient="records"),
                          "primary": [list(p) for p in self.primary],
                          "secondary": [list(s) for s in self.secondary], "cost": self.cost,
                          "optimal": self.optimal, "method": self.method, "gap": self.gap,
                          "lower_bound": self.lower_bound, "protection": self.protection,
                          "protected": self.all_protected, "audit": self.audit_frame().to_dict(orient="records"),
                          "config": dict(self.config)})


def _labels(table: PublishedTable) -> list[tuple[str, str]]:
    n_rows, n_cols = table.values.shape
    return [table.label(r, c) for r in range(n_rows) for c in range(n_cols)]


@assumes_valid
def cell_index(table: PublishedTable, cells: Sequence[Any], what: str = "primary") -> np.ndarray:
    """Flat indices (row-major over the table with totals) of cells named ``(row, column)``."""
    labels = {label: i for i, label in enumerate(_labels(table))}
    out = []
    for cell in cells:
        if isinstance(cell, str) or not isinstance(cell, (tuple, list)) or len(cell) != 2:
            raise InputError(f"each {what} cell must be a (row, column) pair of labels, got {cell!r}")
        key = (str(cell[0]), str(cell[1]))
        if key not in labels:
            raise InputError(f"{what} cell row {key[0]!r}, column {key[1]!r} is not in the table (rows "
                             f"{[*table.row_labels, TOTAL_LABEL]}, columns {[*table.column_labels, TOTAL_LABEL]})")
        out.append(labels[key])
    return np.array(sorted(set(out)), dtype=int)


def check_complete_additive(table: PublishedTable, scale_tol: float = 1e-9) -> np.ndarray:
    """The table's margin equations, after checking it has no suppressed cell and adds up."""
    if table.suppressed.any():
        r, c = np.argwhere(table.suppressed)[0]
        row, column = table.label(int(r), int(c))
        raise InputError(f"the table must be complete: row {row!r}, column {column!r} is suppressed")
    equations, names = _margin_equations(table)
    _bounds_from_equations(equations, table.values.ravel(), np.zeros(table.values.size, dtype=bool), names)
    return equations


def cost_weights(labels: Sequence[tuple[str, str]], values: np.ndarray, cost: str, weights: Any,
                 frequencies: Mapping[tuple[str, str], float] | None) -> np.ndarray:
    """The cost of suppressing each cell: a registry cost, or user weights (a mapping or an array)."""
    if weights is not None:
        if isinstance(weights, Mapping):
            index = {label: i for i, label in enumerate(labels)}
            w = COSTS[cost](values, None).copy()
            for key, value in weights.items():
                key = (str(key[0]), str(key[1])) if isinstance(key, (tuple, list)) and len(key) == 2 else key
                if key not in index:
                    raise InputError(f"weights name the cell {key!r}, which is not in the table")
                w[index[key]] = float(value)
        else:
            try:
                w = np.asarray(weights, dtype=float).ravel()
            except (TypeError, ValueError):
                raise InputError("weights must be a mapping {(row, column): cost} or an array of costs") from None
            if w.size != len(labels):
                raise InputError(f"weights must give {len(labels)} costs (every cell with the totals), got {w.size}")
        if not np.all(np.isfinite(w)) or (w < 0).any():
            raise InputError("weights must be finite and non-negative")
        return w
    freq = None
    if frequencies is not None:
        index = {label: i for i, label in enumerate(labels)}
        freq = np.ones(len(labels))
        for key, count in frequencies.items():
            label = (str(key[0]), str(key[1])) if isinstance(key, (tuple, list)) and len(key) == 2 else key
            if label not in index:
                raise InputError(f"frequencies name the cell {shown(key)}, which is not in the table")
            if isinstance(count, (bool, np.bool_)) or not isinstance(count, (Real, np.integer, np.floating)) \
                    or not math.isfinite(count) or count < 0:
                raise InputError(f"frequencies: the cell {shown(label)} has {shown(count)} contributors; a count is "
                                 "a finite number >= 0")
            freq[index[label]] = float(count)
    return COSTS[cost](values, freq)


def check_budget(budget: WorkBudget, n_cells: int, n_equations: int, n_primaries: int) -> None:
    """Refuse tables whose attacker subproblems would exceed the work budget."""
    budget.check_work(_WORK_PER_SUBPROBLEM * n_cells * n_equations * 2 * max(n_primaries, 1),
                      f"{n_cells} cells x {n_equations} equations x {2 * n_primaries} attacker subproblems")


def audit(equations: np.ndarray, names: list[str], values: np.ndarray, suppressed: np.ndarray,
          external: float | None = None) -> tuple[np.ndarray, np.ndarray]:
    """The LP bounds (min, max) of every cell given the suppression mask (the value itself when published).

    Without external bounds: :func:`rumap.tables.bounds.lp_bounds` (y >= 0). With them, each suppressed
    cell is known to lie within ``external`` times its value of it (and y >= 0).
    """
    low, high = values.astype(float).copy(), values.astype(float).copy()
    if suppressed.any():
        matrix, rhs = _bounds_from_equations(equations, values, suppressed, names)
        if external is None:
            lo, hi = lp_bounds(matrix, rhs, np.zeros(int(suppressed.sum())))
        else:
            lo, hi = _box_bounds(matrix, rhs, values[suppressed] * max(0.0, 1 - external),
                                 values[suppressed] * (1 + external))
        low[suppressed], high[suppressed] = lo, hi
    return low, high


def _box_bounds(matrix: np.ndarray, rhs: np.ndarray, lower: np.ndarray,
                upper: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Minimum and maximum of every variable subject to matrix @ x = rhs, lower <= x <= upper (2 LPs each)."""
    n = lower.size
    bounds = np.column_stack([lower, upper])
    mins, maxs = np.empty(n), np.empty(n)
    for j in range(n):
        objective = np.zeros(n)
        objective[j] = 1.0
        low = linprog(objective, A_eq=matrix if matrix.size else None, b_eq=rhs if matrix.size else None,
                      bounds=bounds, method="highs")
        high = linprog(-objective, A_eq=matrix if matrix.size else None, b_eq=rhs if matrix.size else None,
                       bounds=bounds, method="highs")
        if low.status != 0 or high.status != 0:
            raise InputError(f"the audit's linear program failed: {low.message}")
        mins[j], maxs[j] = low.fun, -high.fun
    return mins, maxs


def build_result(labels: Sequence[tuple[str, str]], values: np.ndarray, primaries: np.ndarray,
                 pattern: Any, low: np.ndarray, high: np.ndarray, protection: float,
                 config: Mapping[str, Any]) -> SecondarySuppression:
    """Assemble a :class:`SecondarySuppression` from a pattern and its audit."""
    status = np.full(values.size, "published", dtype=object)
    status[pattern.suppressed] = "secondary"
    status[primaries] = "primary"
    share = protection / 100.0
    required_min = values[primaries] * (1 - share)
    required_max = values[primaries] * (1 + share)
    slack = LEVEL_TOL * np.maximum(1.0, values[primaries]) + 1e-9
    protected = (low[primaries] <= required_min + slack) & (high[primaries] >= required_max - slack)
    gap = 0.0 if pattern.optimal or pattern.cost <= 0 else max(0.0, (pattern.cost - pattern.lower_bound) /
                                                                 pattern.cost)
    return SecondarySuppression(
        rows=tuple(label[0] for label in labels), columns=tuple(label[1] for label in labels), values=values,
        status=tuple(str(s) for s in status), min=low, max=high,
        primary=tuple(labels[i] for i in primaries),
        secondary=tuple(labels[i] for i in np.flatnonzero(status == "secondary")),
        cost=pattern.cost, optimal=bool(pattern.optimal), method=pattern.method, gap=float(gap),
        lower_bound=float(pattern.lower_bound), protection=float(protection), required_min=required_min,
        required_max=required_max, protected=protected, config=dict(config))


@assumes_valid
def worked_example_table() -> PublishedTable:
    """Seed 004's worked example (Willenborg & de Waal): activity x A, B, C, with its totals."""
    cells = np.array([[20, 50, 10], [8, 19, 22], [17, 32, 12]], dtype=float)
    return PublishedTable.from_cells(cells, ["Activity I", "Activity II", "Activity III"], ["A", "B", "C"])


@validate_params({"table": InstanceOf(PublishedTable, "a PublishedTable (see rumap.tables.table_files.read_published_table)"),
                  "primary": InstanceOf((list, tuple), "a list of (row, column) label pairs"),
                  "protection": "protection",
                  "cost": StrOptions(COSTS), "method": StrOptions(SUPPRESSION_METHODS),
                  "time_limit": "time_limit",
                  "budget": InstanceOf(WorkBudget),
                  "frequencies": [None, InstanceOf(Mapping, "a mapping {(row, column): count}")]},
                 example=lambda: {"table": worked_example_table(), "primary": [("Activity II", "C")]})
def suppress_secondary(table: PublishedTable, primary: Sequence[tuple[str, str]], protection: float = 10.0,
                       cost: str = "value", weights: Any = None, method: str = "auto", time_limit: float = 30.0,
                       budget: WorkBudget = DEFAULT_BUDGET,
                       frequencies: Mapping[tuple[str, str], float] | None = None,
                       external: float | None = None) -> SecondarySuppression:
    """Secondary cell suppression of a 2-D table with its totals at least cost (Fischetti-Salazar MILP).

    Parameters
    ----------
    table : PublishedTable
        The complete table (no suppressed entry) with its totals; it must add up.
    primary : sequence of (str, str)
        The primary cells by (row label, column label); totals are labelled
        ``"Total"`` and may be primaries.
    protection : float, default 10
        P: the upper and lower protection levels of each primary are P% of its value.
    cost : {"value", "cells", "unity"}, default "value"
        Cost of suppressing a cell: its value (tau-Argus "cell value"), its
        number of contributors when ``frequencies`` are given, else 1 (tau-Argus
        "frequency"), or 1 per cell (tau-Argus "unity": fewest cells).
    weights : mapping or array_like, optional
        User costs: ``{(row, column): cost}`` overriding ``cost`` for those
        cells, or one cost per cell (row-major, with the totals).
    method : {"auto", "milp", "heuristic"}, default "auto"
        ``milp``: cutting planes until HiGHS proves optimality or time runs
        out (then the last master solution is repaired by cheapest deviations
        and its gap to the master's bound reported); ``heuristic``: the
        sequential cheapest-deviation heuristic alone; ``auto``: ``milp`` with
        four fifths of the time, the rest for the repair's pruning.
    time_limit : float, default 30
        Nominal seconds for the optimisation (the audit comes after), turned
        into a solve limit that decides when it stops
        (:class:`rumap.tables._attacker.SolveLimit`, recorded in the result's
        ``config``), so the pattern does not depend on the machine's speed.
    budget : WorkBudget
        Refuses tables whose subproblems would be too large.
    frequencies : mapping, optional
        Number of contributors per cell ``{(row, column): count}`` for
        ``cost="cells"``. A cell of count 0 and value 0 is empty: a known
        zero, published, never a secondary (it would hide nothing).
    external : float, optional
        External bounds known to the attacker, in percent of each cell's value:
        every cell lies within ``external`` % of its value (seed 004's
        a_i - lb_i <= y_i <= a_i + ub_i). Default: only y >= 0.

    Returns
    -------
    SecondarySuppression
        Every cell's status and audit interval, the cost, optimality and gap.

    Raises
    ------
    InputError
        An incomplete or non-additive table, an unknown primary cell, bad
        weights, or protection no pattern can give.

    Notes
    -----
    Binary x_i per cell (x_k = 1 for primaries), minimise sum_i w_i x_i so that
    for every primary k the attacker's LPs min / max y_k subject to the table's
    equations A y = 0, y >= 0 and y_i = a_i for published cells reach
    a_k - LPL_k and a_k + UPL_k (LPL_k = UPL_k = P a_k / 100). The attacker's
    subproblems enter as Benders-type cuts from their LP duals; the master is
    solved by HiGHS. The returned pattern is audited by two LPs per suppressed
    cell (:func:`rumap.tables.bounds.lp_bounds`).

    References
    ----------
    Seed 004 (Mas, EUSTAT), tau-Argus, "A Mixed Integer Linear Programming
    Model for Secondary Cell Suppression"; Fischetti & Salazar (2001),
    *Solving the cell suppression problem on tabular data with linear
    constraints*, Management Science 47(7).

    Examples
    --------
    >>> from rumap.tables.secondary import suppress_secondary, worked_example_table
    >>> result = suppress_secondary(worked_example_table(), [("Activity II", "C")], protection=20)
    >>> result.secondary  # the cheapest rectangle by cell value: 8 + 17 + 12
    (('Activity II', 'A'), ('Activity III', 'A'), ('Activity III', 'C'))
    >>> result.cost, result.optimal, result.all_protected
    (37.0, True, True)
    >>> float(result.min[6]), float(result.max[6])  # the seed's y_23 in [5, 30]
    (5.0, 30.0)
    >>> bounded = suppress_secondary(worked_example_table(), [("Activity II", "C")], external=50)
    >>> float(bounded.min[6]), float(bounded.max[6])  # every cell within 50%: the seed's [18, 26]
    (18.0, 26.0)
    """
    return suppress_secondary_kernel(table, primary, protection, cost, weights, method, time_limit, budget, frequencies,
                                     external)


def suppress_secondary_kernel(table: PublishedTable, primary: Sequence[tuple[str, str]], protection: float = 10.0,
                              cost: str = "value", weights: Any = None, method: str = "auto", time_limit: float = 30.0,
                              budget: WorkBudget = DEFAULT_BUDGET,
                              frequencies: Mapping[tuple[str, str], float] | None = None,
                              external: float | None = None) -> SecondarySuppression:
    """:func:`suppress_secondary` of checked arguments (its kernel: the maps call it once per grid value)."""
    labels = _labels(table)
    equations = check_complete_additive(table)
    _, names = _margin_equations(table)
    primaries = cell_index(table, primary)
    values = table.values.ravel().astype(float)
    check_budget(budget, values.size, equations.shape[0], primaries.size)
    w = cost_weights(labels, values, cost, weights, frequencies)
    empty = empty_cells(labels, values, frequencies)
    if empty[primaries].any():
        row, column = labels[int(primaries[np.argmax(empty[primaries])])]
        raise InputError(f"primary cell row {row!r}, column {column!r} is empty (no contributor): empty cells are "
                         "known zeros")
    levels = values[primaries] * protection / 100.0
    share = None if external is None else check_scalar("external", external, PARAMETERS["external_bound"]) / 100.0
    model = AttackerModel(values, equations, w, network=True, external=share, empty=empty)
    pattern = protect(model, primaries, levels, levels, method=method, time_limit=time_limit)
    low, high = audit(equations, names, values, pattern.suppressed, share)
    return build_result(labels, values, primaries, pattern, low, high, protection,
                        {"cost": "weights" if weights is not None else cost, "time_limit": time_limit,
                         "solve_limit": SolveLimit.of_seconds(time_limit).to_dict(),
                         "stopped_on": None if pattern.optimal else pattern.stopped_on,
                         "iterations": pattern.iterations, "cuts": pattern.cuts, "external": external})


def empty_cells(labels: Sequence[tuple[str, str]], values: np.ndarray,
                frequencies: Mapping[tuple[str, str], float] | None) -> np.ndarray:
    """The cells ``frequencies`` gives no contributor and whose value is 0: known zeros, never suppressed."""
    if frequencies is None:
        return np.zeros(values.size, dtype=bool)
    return np.array([frequencies.get(label, 1.0) == 0 for label in labels], dtype=bool) & (values == 0)
