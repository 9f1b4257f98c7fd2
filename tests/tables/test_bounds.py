"""A posteriori risk of protected tables (rumap/tables/bounds.py): Domingo-Ferrer, Oganian & Torra, Section 4."""

from __future__ import annotations

import itertools
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rumap.errors import InputError
from rumap.result import RUMap
from rumap.tables.bounds import (
    PublishedTable,
    count_values,
    entropy_risk,
    insider_bounds,
    insider_view,
    linked_bounds,
    merge_categories,
    paper_table1,
    published_table_from_frame,
    read_published_table,
    redesign_bounds,
    round_table,
    rounding_risk,
    rounding_ru_map,
    suppression_bounds,
    uniform_risk,
)

DATA = Path(__file__).resolve().parents[1] / "data"
TABLE1 = DATA / "paper_table1_suppressed.csv"
TABLE2 = DATA / "paper_table2_redesign.csv"

# one completion of Table 1 (x1 = 100, x2 = 1437, x3 = 306, x4 = 945) consistent with every published total
TABLE1_COMPLETE = np.array([
    [80, 253, 54, 0, 0],
    [641, 3694, 2062, 746, 0],
    [592, 100, 329, 1437, 1440],
    [57, 306, 946, 945, 2027],
    [78, 0, 890, 1719, 1743],
], dtype=float)


# --- Table 1: cell suppression ------------------------------------------------------------------------------------

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

def test_uniform_and_entropy_risk():
    assert uniform_risk(407) == pytest.approx(0.11535, abs=1e-5)
    assert uniform_risk(1) == math.inf and uniform_risk(math.inf) == 0.0
    assert entropy_risk(np.ones(407)) == pytest.approx(uniform_risk(407))
    assert entropy_risk([0.5, 0.5]) == pytest.approx(1.0)
    assert entropy_risk([0, 3, 0]) == math.inf
    with pytest.raises(InputError):
        entropy_risk([-1, 2])
    with pytest.raises(InputError):
        uniform_risk(0.5)


@given(st.floats(1.0, 1e9), st.floats(1.0, 1e9))
def test_dr_decreasing_in_m(m1, m2):
    lo, hi = sorted((m1, m2))
    assert uniform_risk(hi) <= uniform_risk(lo)


def test_given_distribution_changes_risk():
    table = paper_table1()
    uniform = suppression_bounds(table)
    flat = suppression_bounds(table, distribution=lambda v: np.ones_like(v))
    np.testing.assert_allclose(flat.risk, uniform.risk)
    peaked = suppression_bounds(table, distribution=lambda v: np.exp(-0.05 * (v - v.mean()) ** 2))
    assert np.all(peaked.risk > uniform.risk)
    with pytest.raises(InputError, match="weights for 407 possible values"):
        suppression_bounds(table, distribution=lambda v: np.ones(3))
    with pytest.raises(InputError, match="distribution must be a function"):
        suppression_bounds(table, distribution=[1, 2])


def test_count_values():
    assert count_values(0, 406).item() == 407
    assert count_values(0.5, 2.5).item() == 2
    assert count_values(-1e-9, 405.9999999).item() == 407


# --- rounding -----------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("base", [2, 3, 4, 5, 10, 25])
def test_rounding_interior_risk_is_one_over_log2_b(base):
    cells = np.array([[37, 120, 64], [250, 99, 1001]], dtype=float)
    result = rounding_risk(cells, base)
    assert np.all(result.rounded % base == 0)
    assert np.all((result.min <= cells) & (cells <= result.max))
    assert result.values.tolist() == [[base] * 3] * 2
    assert result.risk == pytest.approx(np.full((2, 3), 1 / math.log2(base)))
    assert result.mse == pytest.approx(np.mean((result.rounded - cells) ** 2))


@given(st.integers(0, 300), st.integers(1, 40))
def test_rounding_interval_is_the_preimage(x, base):
    """Every integer that rounds to the same value lies in [min, max], and m counts exactly them."""
    result = rounding_risk(np.array([float(x)]), base)
    rounded = result.rounded[0]
    preimage = [v for v in range(0, x + 2 * base) if round_table(np.array([float(v)]), base)[0] == rounded]
    assert result.min[0] == min(preimage) and result.max[0] == max(preimage)
    assert result.values[0] == len(preimage)


def test_rounding_zero_cells_use_nonnegativity():
    result = rounding_risk(np.array([0.0, 1.0, 2.0]), 5)
    assert result.values.tolist() == [3, 3, 3]  # [0, 2.5): 0, 1, 2
    assert rounding_risk(np.array([0.0]), 5, nonnegative=False).values.tolist() == [5]
    with pytest.raises(InputError, match="multiple of the resolution"):
        rounding_risk(np.array([1.0]), 2.5)
    with pytest.raises(InputError, match="suppressed"):
        rounding_risk(paper_table1(), 5)


def test_rounding_ru_map():
    cells = TABLE1_COMPLETE
    bases = [1, 5, 10, 50, 100, 500]
    ru = rounding_ru_map(cells, bases, statistic="mean")
    assert isinstance(ru, RUMap) and ru.parameter == "b" and ru.method == "rounding" and ru.target == "mean"
    assert ru.risk[0] == math.inf and ru.utility[0] == math.inf  # b = 1 publishes the table
    for b, risk, utility in zip(bases[1:], ru.risk[1:], ru.utility[1:], strict=True):
        rr = rounding_risk(cells, b)
        assert risk == pytest.approx(rr.mean_risk)
        assert utility == pytest.approx(1 / np.mean((rr.rounded - cells) ** 2))
    assert np.all(np.diff(ru.risk[1:]) < 0)  # coarser rounding, less risk
    top = rounding_ru_map(cells, bases, statistic="max")
    assert np.all(top.risk >= ru.risk)
    assert RUMap.from_dict(top.to_dict()).values.tolist() == bases
    with pytest.raises(InputError, match="unknown statistic"):
        rounding_ru_map(cells, bases, statistic="median")


# --- table redesign -----------------------------------------------------------------------------------------------

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


# --- linked tables ------------------------------------------------------------------------------------------------

def _cube_brute_force(z: np.ndarray, pairs: list[tuple[int, int]]) -> tuple[np.ndarray, np.ndarray]:
    limit = int(z.sum())
    grids = np.array(list(itertools.product(range(limit + 1), repeat=z.size)), dtype=float)
    cubes = grids.reshape(-1, *z.shape)
    ok = np.ones(len(grids), dtype=bool)
    for pair in pairs:
        summed = ({0, 1, 2} - set(pair)).pop()
        ok &= np.all((cubes.sum(axis=summed + 1) == z.sum(axis=summed)).reshape(len(grids), -1), axis=1)
    feasible = grids[ok]
    return feasible.min(axis=0), feasible.max(axis=0)


def test_linked_one_projection_bounds_by_its_cell():
    z = np.arange(12, dtype=float).reshape(2, 3, 2)
    bounds = linked_bounds(z, ["AS"])
    assert bounds.axes == ("A", "S", "R")
    np.testing.assert_array_equal(bounds.min, 0)
    np.testing.assert_array_equal(bounds.max, np.repeat(z.sum(axis=2).reshape(-1), 2))


@pytest.mark.parametrize("released", [["AS"], ["AS", "AR"], [(0, 1), (1, 2)]])
def test_linked_bounds_equal_brute_force(released):
    z = np.array([[[1, 0], [1, 1]], [[0, 1], [0, 0]]], dtype=float)  # total 4: 5^8 candidate cubes
    bounds = linked_bounds(z, released)
    pairs = [tuple(sorted("ASR".index(ch) for ch in p)) if isinstance(p, str) else tuple(sorted(p))
             for p in released]
    low, high = _cube_brute_force(z, pairs)
    np.testing.assert_array_equal(bounds.min, low)
    np.testing.assert_array_equal(bounds.max, high)


def test_linked_three_projections_contain_every_integer_table():
    z = np.array([[[1, 0], [1, 1]], [[0, 1], [0, 0]]], dtype=float)
    bounds = linked_bounds(z, ["AS", "AR", "SR"])
    low, high = _cube_brute_force(z, [(0, 1), (0, 2), (1, 2)])
    assert np.all(bounds.min <= low) and np.all(bounds.max >= high)
    assert np.all(bounds.min <= z.reshape(-1)) and np.all(z.reshape(-1) <= bounds.max)
    # releasing more never lowers risk
    fewer = linked_bounds(z, ["AS", "AR"])
    assert np.all(bounds.risk >= fewer.risk)


def test_linked_bad_inputs():
    with pytest.raises(InputError, match="3-D"):
        linked_bounds(np.ones((2, 2)), ["AS"])
    with pytest.raises(InputError, match="projection 'AX'"):
        linked_bounds(np.ones((2, 2, 2)), ["AX"])
    with pytest.raises(InputError, match="labels"):
        linked_bounds(np.ones((2, 2, 2)), ["AS"], labels=[["a"], ["b"], ["c"]])


# --- insiders -----------------------------------------------------------------------------------------------------

def test_insider_view_paper_example():
    """Section 4.4: 995 <= z <= 1004 and A contributes 400: A knows B is in [595, 604]; an outsider (0, 1004]."""
    view = insider_view(995, 1004, 400)
    assert (view.insider_min, view.insider_max) == (595, 604)
    assert view.insider_values == 10 and view.insider_risk == pytest.approx(1 / math.log2(10))
    assert view.outsider_max == 1004 and view.outsider_risk < view.insider_risk
    assert view.insider_relative_width < 0.02  # "within 1%" of B's turnover, either side
    assert view.outsider_relative_width == pytest.approx(1.67, abs=0.01)  # "almost 170%"
    with pytest.raises(InputError, match="exceeds"):
        insider_view(995, 1004, 2000)


def test_insider_tightens_the_table():
    result = insider_bounds(paper_table1(), "5", "5", 300)
    assert result.insider.cell("5", "5") == {"min": 300, "max": 406, "values": 107,
                                            "risk": pytest.approx(1 / math.log2(107))}
    assert result.insider.cell("6", "5")["max"] == 106
    assert result.insider.cell("6", "7")["min"] == 1145
    assert (result.view.insider_min, result.view.insider_max) == (0, 106)
    assert np.all(result.insider.risk >= result.outsider.risk)
    frame = result.to_frame()
    assert {"insider_min", "insider_max", "insider_values", "insider_risk"} <= set(frame.columns)
    with pytest.raises(InputError, match="no unknown cell"):
        insider_bounds(paper_table1(), "4", "5", 10)


# --- reading tables -----------------------------------------------------------------------------------------------

def test_reading_errors_name_row_and_column():
    frame = pd.read_csv(TABLE1, dtype=str)
    frame.iloc[2, 3] = "lots"
    with pytest.raises(InputError, match=r"t.csv: row '5', column '6' is 'lots'"):
        published_table_from_frame(frame, source="t.csv")
    frame.iloc[2, 3] = None
    with pytest.raises(InputError, match="is empty"):
        published_table_from_frame(frame, source="t.csv")
    frame.iloc[2, 3] = "-4"
    with pytest.raises(InputError, match="negative"):
        published_table_from_frame(frame, source="t.csv")
    with pytest.raises(InputError, match="needs a label column"):
        published_table_from_frame(frame.iloc[:, :2], source="t.csv")
