"""Cell suppression: LP bounds of suppressed cells (rumap/tables/bounds.py), Domingo-Ferrer, Oganian & Torra, Section 4.1."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from table_helpers import TABLE1, TABLE1_COMPLETE

from rumap.errors import InputError
from rumap.tables.bounds import suppression_bounds
from rumap.tables.published import PublishedTable, paper_table1
from rumap.tables.table_files import read_published_table


def test_paper_table1_bounds_and_risk():
    """Table 1: 0 <= x1 <= 406, 1131 <= x2 <= 1537, 0 <= x3 <= 406, 845 <= x4 <= 1251, DR = 1/log2 407 = 0.115."""
    bounds = suppression_bounds(read_published_table(str(TABLE1)))
    assert bounds.labels == (("5", "5"), ("5", "7"), ("6", "5"), ("6", "7"))
    assert bounds.min.tolist() == [0, 1131, 0, 845]
    assert bounds.max.tolist() == [406, 1537, 406, 1251]
    assert bounds.values.tolist() == [407] * 4
    assert bounds.risk == pytest.approx([0.115] * 4, abs=5e-4)
    assert bounds.risk[0] == pytest.approx(1 / math.log2(407))
    assert bounds.max_risk == pytest.approx(bounds.mean_risk)


def test_fixture_is_paper_table1():
    fixture = read_published_table(str(TABLE1))
    reference = paper_table1()
    assert fixture.row_labels == reference.row_labels and fixture.column_labels == reference.column_labels
    np.testing.assert_array_equal(fixture.values, reference.values)
    complete = PublishedTable.from_cells(TABLE1_COMPLETE, reference.row_labels, reference.column_labels)
    np.testing.assert_array_equal(complete.values[~reference.suppressed], reference.values[~reference.suppressed])


def test_inconsistent_totals_are_named():
    """The paper prints 1148 for the total of size class 4; its cells add up to 1448."""
    values = np.array(paper_table1().values)
    values[-1, 0] = 1148
    table = PublishedTable(paper_table1().row_labels, paper_table1().column_labels, values)
    with pytest.raises(InputError, match="column '4' does not add up: its entries sum to 1448 but its total is 1148"):
        suppression_bounds(table)


def test_infeasible_table():
    # one suppressed cell whose row needs -5 but non-negativity forbids it
    table = PublishedTable(("a", "b"), ("c", "d"), np.array([[10, np.nan, 5], [1, 1, 2], [11, 1, 7]]))
    with pytest.raises(InputError):
        suppression_bounds(table)


def test_unbounded_cell_has_zero_risk():
    cells = np.array([[3.0, 4.0], [5.0, 6.0]])
    mask = np.zeros((3, 3), dtype=bool)
    mask[0, 0] = mask[0, 2] = mask[2, 0] = mask[2, 2] = True  # the cell, its row, column and grand total
    bounds = suppression_bounds(PublishedTable.from_cells(cells, suppressed=mask))
    row = bounds.cell("1", "1")
    assert row["max"] == math.inf and row["values"] == math.inf and row["risk"] == 0.0
    assert bounds.to_dict()["cells"][0]["max"] is None  # JSON: null


def test_decimal_cells_with_resolution():
    scaled = PublishedTable(paper_table1().row_labels, paper_table1().column_labels, paper_table1().values / 10)
    bounds = suppression_bounds(scaled, resolution=0.1)
    assert bounds.values.tolist() == [407] * 4
    assert bounds.max == pytest.approx([40.6, 153.7, 40.6, 125.1])


def test_no_suppressed_cells():
    bounds = suppression_bounds(PublishedTable.from_cells(np.ones((2, 2))))
    assert bounds.labels == () and bounds.max_risk == 0.0 and bounds.to_frame().empty


def _brute_force(cells: np.ndarray, mask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Min and max of each suppressed cell over every non-negative integer completion with the same margins."""
    positions = np.argwhere(mask)
    limit = int(cells.sum())
    grids = np.array(list(itertools.product(range(limit + 1), repeat=len(positions))), dtype=float)
    candidates = np.repeat(cells[None], len(grids), axis=0)
    candidates[:, positions[:, 0], positions[:, 1]] = grids
    ok = np.all(candidates.sum(axis=2) == cells.sum(axis=1), axis=1) & \
        np.all(candidates.sum(axis=1) == cells.sum(axis=0), axis=1)
    feasible = grids[ok]
    return feasible.min(axis=0), feasible.max(axis=0)


@settings(max_examples=40, deadline=None)
@given(st.integers(2, 3), st.integers(2, 3), st.data())
def test_lp_bounds_equal_brute_force(n_rows, n_cols, data):
    cells = np.array(data.draw(st.lists(st.integers(0, 3), min_size=n_rows * n_cols, max_size=n_rows * n_cols)),
                     dtype=float).reshape(n_rows, n_cols)
    flat = data.draw(st.lists(st.booleans(), min_size=n_rows * n_cols, max_size=n_rows * n_cols))
    mask = np.array(flat).reshape(n_rows, n_cols)
    if not mask.any() or mask.sum() > 4:
        return
    bounds = suppression_bounds(PublishedTable.from_cells(cells, suppressed=mask))
    low, high = _brute_force(cells, mask)
    np.testing.assert_array_equal(bounds.min, low)
    np.testing.assert_array_equal(bounds.max, high)
    np.testing.assert_array_equal(bounds.values, high - low + 1)


def test_suppressed_total_is_bounded_too():
    cells = np.array([[1.0, 2.0], [3.0, 4.0]])
    mask = np.zeros((3, 3), dtype=bool)
    mask[0, 0] = mask[0, 1] = mask[0, 2] = True  # a whole row with its total
    bounds = suppression_bounds(PublishedTable.from_cells(cells, suppressed=mask))
    assert bounds.cell("1", "Total") == {"min": 3.0, "max": 3.0, "values": 1.0, "risk": math.inf}


# --- risk measures ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("cells, message", [([["a", "b"], ["c", "d"]], "cells must be a 2-D array of numbers"),
                                            ([[1.0, float("nan")], [3.0, 4.0]], "row 1, column 2 is nan"),
                                            ([[1.0, float("inf")], [3.0, 4.0]], "row 1, column 2 is inf")])
def test_cells_that_are_not_finite_numbers_are_refused(cells, message):
    with pytest.raises(InputError, match=message):
        PublishedTable.from_cells(cells)
