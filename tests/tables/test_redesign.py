"""Table redesign: merged rows or columns (rumap/tables/redesign.py), Section 4.3, Eq 4, Table 2."""

from __future__ import annotations

import numpy as np
import pytest
from table_helpers import TABLE1_COMPLETE, TABLE2

from rumap.errors import InputError
from rumap.tables.published import PublishedTable, paper_table1
from rumap.tables.redesign import merge_categories, redesign_bounds
from rumap.tables.table_files import read_published_table


def test_merge_rows_gives_paper_table2():
    original = PublishedTable.from_cells(TABLE1_COMPLETE, paper_table1().row_labels, paper_table1().column_labels)
    merged = merge_categories(original, ["5", "6"])
    table2 = read_published_table(str(TABLE2))
    assert merged.row_labels == table2.row_labels == ("2,3", "4", "5,6", "7")
    np.testing.assert_array_equal(merged.values, table2.values)


def test_redesign_bounds_on_table2():
    """Section 4.3: with rows 5 and 6 merged, each original cell lies between 0 and the merged value."""
    table2 = read_published_table(str(TABLE2))
    bounds = redesign_bounds(table2, "5,6", ["5", "6"])
    merged = [649, 406, 1275, 2382, 3467, 8179]
    assert len(bounds.labels) == 12 and bounds.labels[5] == ("5", "Total")
    assert bounds.min.tolist() == [0] * 12
    assert bounds.max.tolist() == merged * 2
    assert bounds.cell("5", "5")["risk"] == pytest.approx(0.115, abs=5e-4)  # as with suppression


def test_redesign_bounds_brute_force_and_columns():
    cells = np.array([[1, 2, 0], [2, 0, 1], [3, 1, 1]], dtype=float)
    table = PublishedTable.from_cells(cells)
    merged = merge_categories(table, ["1", "2"], axis="columns")
    assert merged.column_labels == ("1,2", "3")
    bounds = redesign_bounds(merged, "1,2", ["1", "2"], axis="columns")
    # brute force: each row r splits its merged value m into (a, m - a), a = 0..m; nothing else links them
    expected = {}
    for r, label in enumerate(table.row_labels):
        m = cells[r, 0] + cells[r, 1]
        expected[(label, "1")] = (0, m)
        expected[(label, "2")] = (0, m)
    for key, (lo, hi) in expected.items():
        got = bounds.cell(*key)
        assert (got["min"], got["max"]) == (lo, hi)
    with pytest.raises(InputError, match="no row"):
        redesign_bounds(merged, "9", ["1", "2"])
