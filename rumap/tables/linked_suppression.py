"""Secondary cell suppression of linked tables: tables sharing cells protected by one MILP.

Cells named alike (same row label and column label) in several 2-D tables
are one cell: the same value, suppressed in all the tables or in none. The
attacker knows every table's equations at once, so one set of attacker
subproblems over the union of the equations (seed 004's model over linked
tables, as tau-Argus protects them) decides the pattern, and the audit is the
LP bounds over the union.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
import pandas as pd

from rumap._validation import InstanceOf, ListOf, StrOptions, assumes_valid, validate_params
from rumap.budget import DEFAULT_BUDGET, WorkBudget
from rumap.errors import InputError
from rumap.result import json_safe
from rumap.tables._attacker import AttackerModel, SolveLimit, protect
from rumap.tables.bounds import _margin_equations
from rumap.tables.published import PublishedTable
from rumap.tables.secondary import (
    COSTS,
    SUPPRESSION_METHODS,
    SecondarySuppression,
    _labels,
    audit,
    build_result,
    cell_index,
    check_budget,
    check_complete_additive,
    cost_weights,
)

__all__ = ["LinkedSuppression", "suppress_secondary_linked", "linked_example_tables"]


@dataclass(frozen=True)
class LinkedSuppression:
    """Linked tables protected together: one :class:`SecondarySuppression` per table, one pattern.

    Parameters
    ----------
    tables : tuple of SecondarySuppression
        Each table's cells with their status and audit interval (the audit
        uses every table's equations); ``cost`` in each is the linked total.
    cost : float
        Total cost of the secondary suppressions, each shared cell counted once.
    optimal : bool
    method : str
    gap : float
    """

    tables: tuple[SecondarySuppression, ...]
    cost: float
    optimal: bool
    method: str
    gap: float
    config: Mapping[str, Any] = field(default_factory=dict)

    @property
    def all_protected(self) -> bool:
        """Whether every primary of every table clears its protection levels."""
        return all(t.all_protected for t in self.tables)

    def to_frame(self) -> pd.DataFrame:
        """Every table's cells, with a ``table`` column (0, 1, ...)."""
        frames = [t.to_frame().assign(table=i) for i, t in enumerate(self.tables)]
        frame = pd.concat(frames, ignore_index=True)
        return frame[["table", *[c for c in frame.columns if c != "table"]]]

    def to_dict(self) -> dict[str, Any]:
        """``{"tables": [...], "cost", "optimal", "method", "gap", "protected"}``."""
        return json_safe({"tables": [t.to_dict() for t in self.tables], "cost": self.cost, "optimal": self.optimal,
                          "method": self.method, "gap": self.gap, "protected": self.all_protected})


@assumes_valid
def linked_example_tables() -> tuple[PublishedTable, PublishedTable]:
    """Two tables of the same regions by size class and by activity: they share the regions' totals.

    Parameters
    ----------
    None

    Returns
    -------
    tuple of PublishedTable
    """
    by_size = PublishedTable.from_cells([[5, 40, 30], [20, 25, 35], [30, 10, 45]], ["North", "South", "East"],
                                        ["small", "medium", "large"])
    by_activity = PublishedTable.from_cells([[50, 25], [45, 35], [60, 25]], ["North", "South", "East"],
                                            ["industry", "services"])
    return by_size, by_activity


@validate_params({"tables": ListOf(PublishedTable, "a list of PublishedTable", min_items=1),
                  "primary": InstanceOf((list, tuple), "one list of (row, column) label pairs per table"),
                  "protection": "protection",
                  "cost": StrOptions(COSTS), "method": StrOptions(SUPPRESSION_METHODS),
                  "time_limit": "time_limit",
                  "budget": InstanceOf(WorkBudget)},
                 example=lambda: {"tables": list(linked_example_tables()),
                                  "primary": [[("North", "small")], []]})
def suppress_secondary_linked(tables: Sequence[PublishedTable], primary: Sequence[Sequence[tuple[str, str]]],
                              protection: float = 10.0, cost: str = "value", weights: Any = None,
                              method: str = "auto", time_limit: float = 30.0,
                              budget: WorkBudget = DEFAULT_BUDGET) -> LinkedSuppression:
    """Secondary suppression of tables sharing cells, consistent across them (one MILP).

    Parameters
    ----------
    tables : sequence of PublishedTable
        Complete, additive tables with their totals. Cells with the same
        (row label, column label) in two tables are the same cell and must
        have the same value (e.g. the regions' totals of two tables of regions).
    primary : sequence of sequences of (str, str)
        The primary cells of each table (one list per table). A shared cell
        primary in one table is primary in all.
    protection : float, default 10
        Upper and lower protection levels in percent of each primary's value.
    cost : {"value", "cells", "unity"}, default "value"
        As in :func:`rumap.tables.secondary.suppress_secondary`.
    weights : mapping, optional
        ``{(row, column): cost}`` overriding ``cost`` for those cells.
    method : {"auto", "milp", "heuristic"}, default "auto"
    time_limit : float, default 30
        Nominal seconds, turned into the solve limit that decides when the solve stops
        (:class:`rumap.tables._attacker.SolveLimit`, in the result's ``config``).
    budget : WorkBudget

    Returns
    -------
    LinkedSuppression

    Raises
    ------
    InputError
        A shared cell with different values, a table that does not add up,
        an unknown primary cell.

    Notes
    -----
    One binary x per distinct cell; the attacker's subproblems of every
    primary run over the union of all tables' equations, so the pattern is
    safe against an intruder who reads every table (Fischetti & Salazar 2001
    over linked tables; seed 004).

    References
    ----------
    Seed 004 (Mas, EUSTAT), tau-Argus: linked tables; Fischetti & Salazar
    (2001), Management Science 47(7).

    Examples
    --------
    >>> from rumap.tables.linked_suppression import linked_example_tables, suppress_secondary_linked
    >>> by_size, by_activity = linked_example_tables()
    >>> result = suppress_secondary_linked([by_size, by_activity], [[("North", "small")], []], protection=50)
    >>> result.all_protected, result.optimal
    (True, True)
    """
    tables = list(tables)
    primary = list(primary)
    if len(primary) != len(tables):
        raise InputError(f"give one list of primary cells per table: {len(tables)} tables, {len(primary)} lists")
    keys: dict[tuple[str, str], int] = {}
    values: list[float] = []
    positions, blocks, names = [], [], []
    for t, table in enumerate(tables):
        equations = check_complete_additive(table)
        _, table_names = _margin_equations(table)
        local = []
        for label, value in zip(_labels(table), table.values.ravel(), strict=True):
            if label not in keys:
                keys[label] = len(values)
                values.append(float(value))
            elif abs(values[keys[label]] - value) > 1e-9 * max(1.0, abs(value)):
                raise InputError(f"row {label[0]!r}, column {label[1]!r} is {values[keys[label]]:g} in one table "
                                 f"and {value:g} in table {t + 1}: shared cells must agree")
            local.append(keys[label])
        positions.append(np.array(local))
        blocks.append((equations, np.array(local)))
        names.extend(f"table {t + 1} {name}" for name in table_names)
    n = len(values)
    union = np.zeros((sum(eq.shape[0] for eq, _ in blocks), n))
    row = 0
    for equations, local in blocks:
        union[row:row + equations.shape[0], local] = equations
        row += equations.shape[0]
    primary_sets = [positions[t][cell_index(table, primary[t])] for t, table in enumerate(tables)]
    primaries = np.unique(np.concatenate([np.zeros(0, dtype=int), *primary_sets])).astype(int)
    value_array = np.array(values)
    check_budget(budget, n, union.shape[0], primaries.size)
    labels = list(keys)
    w = cost_weights(labels, value_array, cost, dict(weights) if isinstance(weights, Mapping) else weights, None)
    levels = value_array[primaries] * protection / 100.0
    model = AttackerModel(value_array, union, w, network=False)
    pattern = protect(model, primaries, levels, levels, method=method, time_limit=time_limit)
    low, high = audit(union, names, value_array, pattern.suppressed)
    results = []
    for local, table in zip(positions, tables, strict=True):
        local_primaries = np.flatnonzero(np.isin(local, primaries))
        local_pattern = replace(pattern, suppressed=pattern.suppressed[local])
        results.append(build_result(_labels(table), value_array[local], local_primaries, local_pattern,
                                    low[local], high[local], protection,
                                    {"cost": "weights" if weights is not None else cost, "linked": len(tables)}))
    gap = results[0].gap
    return LinkedSuppression(tuple(results), pattern.cost, pattern.optimal, pattern.method, gap,
                             {"iterations": pattern.iterations, "cuts": pattern.cuts, "time_limit": time_limit,
                              "solve_limit": SolveLimit.of_seconds(time_limit).to_dict(),
                              "stopped_on": None if pattern.optimal else pattern.stopped_on})
