"""Linked tables: shared cells suppressed in all tables or none, protected against an intruder reading all."""

from __future__ import annotations

import numpy as np
import pytest

from rumap.errors import InputError
from rumap.tables.bounds import _bounds_from_equations, _margin_equations, lp_bounds
from rumap.tables.linked_suppression import linked_example_tables, suppress_secondary_linked
from rumap.tables.published import PublishedTable
from rumap.tables.secondary import suppress_secondary

#: Cheap region totals tempt the first table to hide them; the second table publishes them.
WEIGHTS = {("North", "Total"): 0.1, ("South", "Total"): 0.1}


def _status(result) -> dict[tuple[str, str], str]:
    return {(r, c): s for r, c, s in zip(result.rows, result.columns, result.status, strict=True)}


def _union_interval(tables, statuses, cell):
    """The primary's interval for an intruder reading both tables (LP over the union of their equations)."""
    keys, values, blocks = {}, [], []
    for table, status in zip(tables, statuses, strict=True):
        eq, _ = _margin_equations(table)
        local = []
        for r in range(table.values.shape[0]):
            for c in range(table.values.shape[1]):
                label = table.label(r, c)
                if label not in keys:
                    keys[label] = len(values)
                    values.append(table.values[r, c])
                local.append(keys[label])
        blocks.append((eq, local, status))
    union = np.vstack([_spread(eq, local, len(values)) for eq, local, _ in blocks])
    hidden = np.zeros(len(values), dtype=bool)
    for _, local, status in blocks:
        for i, label in zip(local, status, strict=True):  # statuses are in the table's row-major order
            hidden[i] |= status[label] != "published"
    matrix, rhs = _bounds_from_equations(union, np.array(values), hidden, ["eq"] * union.shape[0])
    low, high = lp_bounds(matrix, rhs, np.zeros(int(hidden.sum())))
    position = int(np.flatnonzero(hidden).tolist().index(keys[cell]))
    return low[position], high[position]


def _spread(eq, local, n):
    out = np.zeros((eq.shape[0], n))
    out[:, local] = eq
    return out


def test_independent_protection_is_inconsistent_linked_is_not():
    by_size, by_activity = linked_example_tables()
    primary = ("North", "small")
    alone = suppress_secondary(by_size, [primary], protection=50, weights=WEIGHTS)
    other = suppress_secondary(by_activity, [], protection=50, weights=WEIGHTS)
    status_alone, status_other = _status(alone), _status(other)
    shared = set(status_alone) & set(status_other)
    assert shared == {("North", "Total"), ("South", "Total"), ("East", "Total"), ("Total", "Total")}
    assert any(status_alone[c] != status_other[c] for c in shared)  # (North, Total) hidden in one, shown in other
    low, high = _union_interval([by_size, by_activity], [status_alone, status_other], primary)
    assert high - low < 5  # read together, the independent patterns disclose the primary (5 +- 2.5 needed)

    linked = suppress_secondary_linked([by_size, by_activity], [[primary], []], protection=50, weights=WEIGHTS)
    first, second = (_status(t) for t in linked.tables)
    assert all(first[c] == second[c] for c in shared)
    assert linked.all_protected and linked.optimal
    low, high = _union_interval([by_size, by_activity], [first, second], primary)
    assert low <= 2.5 and high >= 7.5
    assert linked.cost == 80 and linked.cost > alone.cost
    assert set(linked.to_frame()["table"]) == {0, 1} and set(linked.to_dict()) >= {"tables", "cost", "optimal"}


def test_shared_cells_must_agree():
    by_size, by_activity = linked_example_tables()
    values = np.array(by_activity.values)
    values[0, 0] += 1
    values[0, -1] += 1
    values[-1, 0] += 1
    values[-1, -1] += 1
    changed = PublishedTable(by_activity.row_labels, by_activity.column_labels, values)
    with pytest.raises(InputError, match="shared cells must agree"):
        suppress_secondary_linked([by_size, changed], [[("North", "small")], []])
    with pytest.raises(InputError, match="one list of primary cells per table"):
        suppress_secondary_linked([by_size, by_activity], [[("North", "small")]])
