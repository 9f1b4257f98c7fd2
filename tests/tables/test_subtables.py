"""HiTaS subtables and the fast method: every equation in a subtable, every primary protected (independent LPs)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy.optimize import linprog

from rumap.tables.hierarchy import from_prefixes
from rumap.tables.ndtable import build_table
from rumap.tables.subtables import hitas_subtables, line_bound, table_subtables
from rumap.tables.table_suppression import suppress_linked_tables, suppress_table


def _microdata(seed: int, records: int, dims: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    region = [f"{a}{b}" for a in "NS" for b in "12"]
    activity = [f"{a}{b}" for a in "ABC" for b in "12"]
    columns = {"region": rng.choice(region, records, p=[0.4, 0.3, 0.2, 0.1]),
               "activity": rng.choice(activity, records)}
    if dims == 3:
        columns["size"] = rng.choice(["small", "large"], records, p=[0.7, 0.3])
    columns["turnover"] = np.round(rng.lognormal(3.0, 1.0, records))
    return pd.DataFrame(columns)


def _hierarchies(frame: pd.DataFrame) -> dict:
    return {"region": from_prefixes(sorted(frame["region"].unique()), [1, 2]),
            "activity": from_prefixes(sorted(frame["activity"].unique()), [1, 2])}


@pytest.fixture(scope="module")
def two_d():
    frame = _microdata(3, 100, 2)
    return build_table(frame, ["region", "activity"], _hierarchies(frame), "turnover")


@pytest.fixture(scope="module")
def three_d():
    frame = _microdata(5, 500, 3)
    return build_table(frame, ["region", "activity", "size"], _hierarchies(frame), "turnover")


def _interval(values: np.ndarray, matrix: np.ndarray, suppressed: np.ndarray, k: int) -> tuple[float, float]:
    """min and max of cell k over every cell y >= 0 with matrix @ y = 0 and y = a where published (dense LP)."""
    bounds = [(0.0, None) if s else (float(v), float(v)) for v, s in zip(values, suppressed, strict=True)]
    c = np.zeros(values.size)
    c[k] = 1.0
    low = linprog(c, A_eq=matrix, b_eq=np.zeros(matrix.shape[0]), bounds=bounds, method="highs")
    high = linprog(-c, A_eq=matrix, b_eq=np.zeros(matrix.shape[0]), bounds=bounds, method="highs")
    assert low.status == 0 and high.status in (0, 3)
    return float(low.fun), (np.inf if high.status == 3 else float(-high.fun))


def _check_protected(table, result, protection: float) -> None:
    matrix = table.equations().toarray()
    values = table.values
    suppressed = result.suppressed
    assert result.all_protected
    for k in np.flatnonzero(np.array(result.cell_status) == "primary"):
        low, high = _interval(values, matrix, suppressed, int(k))
        level = values[k] * protection / 100
        assert low <= values[k] - level + 1e-6 and high >= values[k] + level - 1e-6


def test_every_equation_and_cell_lies_in_a_subtable(two_d, three_d):
    for table in (two_d, three_d):
        grids, levels = table_subtables(table)
        assert levels[0] == 0 and np.all(np.diff(levels) >= 0)
        member = np.zeros((len(grids), table.size), dtype=bool)
        for t, grid in enumerate(grids):
            member[t, grid.ravel()] = True
        assert member.any(axis=0).all()
        equations = table.equations().tocsr()
        for row in range(equations.shape[0]):
            cells = equations.indices[equations.indptr[row]:equations.indptr[row + 1]]
            assert member[:, cells].all(axis=1).any()


def test_subtables_of_two_hierarchies():
    # rows Total > A, B; A > A1, A2 and columns Total > x, y; x > x1, x2: four subtables, the margins shared
    grids, levels = hitas_subtables([np.array([-1, 0, 0, 1, 1]), np.array([-1, 0, 0, 1, 1])])
    index = np.arange(25).reshape(5, 5)
    expected = [index[np.ix_([0, 1, 2], [0, 1, 2])], index[np.ix_([0, 1, 2], [1, 3, 4])],
                index[np.ix_([1, 3, 4], [0, 1, 2])], index[np.ix_([1, 3, 4], [1, 3, 4])]]
    assert levels.tolist() == [0, 1, 1, 2]
    assert [g.tolist() for g in grids] == [e.tolist() for e in expected]


def test_heuristic_protects_every_primary_of_a_hierarchical_table(two_d):
    mask = two_d.primary_mask("threshold", threshold=3)
    result = suppress_table(two_d, mask, protection=15, method="heuristic", time_limit=1)
    assert mask.sum() >= 3
    _check_protected(two_d, result, 15)
    optimal = suppress_table(two_d, mask, protection=15, method="optimal")
    assert optimal.optimal
    assert result.lower_bound <= optimal.cost + 1e-9 <= result.cost + 1e-9
    assert result.method.startswith("heuristic") and result.status in ("optimal", "feasible")


def test_heuristic_protects_a_three_dimensional_table(three_d):
    mask = three_d.primary_mask("threshold", threshold=3)
    result = suppress_table(three_d, mask, protection=10, method="heuristic", time_limit=1)
    assert mask.sum() >= 3
    _check_protected(three_d, result, 10)


def test_heuristic_on_linked_tables_shares_one_pattern():
    frame = _microdata(8, 100, 3)
    hierarchies = _hierarchies(frame)
    tables = [build_table(frame, ["region", "activity"], hierarchies, "turnover"),
              build_table(frame, ["region", "size"], {"region": hierarchies["region"]}, "turnover")]
    masks = [t.primary_mask("threshold", threshold=3) for t in tables]
    assert all(m.sum() >= 1 for m in masks)
    result = suppress_linked_tables(tables, masks, protection=10, method="heuristic", time_limit=1)
    assert result.all_protected
    shared = [{(r, a): s for r, a, s in zip(t.table.cells["region"], t.table.cells[t.table.dims[1]],
                                            t.cell_status, strict=True) if a == "Total"} for t in result.tables]
    for key in shared[0]:
        assert (shared[0][key] == "published") == (shared[1][key] == "published")


def test_line_bound_is_a_lower_bound_of_the_brute_force_optimum():
    # one row 2 + 3 + 5 = 10 and a column 2 + 4 = 6: the primary 2 needs a second cell in each
    from scipy import sparse

    matrix = sparse.csr_matrix(np.array([[1.0, 1.0, 1.0, -1.0, 0.0, 0.0], [1.0, 0.0, 0.0, 0.0, 1.0, -1.0]]))
    weights = np.array([2.0, 3.0, 5.0, 10.0, 4.0, 6.0])
    assert line_bound(matrix, weights, np.array([0])) == pytest.approx(3.0 + 4.0)


def test_default_method_is_the_heuristic_above_a_size(monkeypatch):
    from rumap.tables import table_suppression
    from rumap.tables.ndtable import example_table

    table = example_table()
    mask = table.primary_mask("threshold", threshold=2)
    assert suppress_table(table, mask).method.startswith("optimal")
    monkeypatch.setattr(table_suppression, "HEURISTIC_ABOVE", int((table.frequencies > 0).sum()) - 1)
    assert suppress_table(table, mask).method.startswith("heuristic")


@pytest.mark.parametrize("dims", [2, 3])
def test_the_cheapest_hypercube_lets_the_attacker_move_the_cell(dims):
    from rumap.tables.subtables import _cube

    rng = np.random.default_rng(dims)
    names = ["a", "b", "c"][:dims]
    labels = [["x", "y", "z"], ["p", "q"], ["s", "t"]][:dims]
    grid_codes = np.array(np.meshgrid(*labels, indexing="ij")).reshape(dims, -1).T
    frame = pd.DataFrame(grid_codes, columns=names).assign(v=rng.integers(5, 20, len(grid_codes)).astype(float))
    table = build_table(frame, names, value_column="v")
    values, matrix = table.values, table.equations().toarray()
    grid = np.arange(table.size).reshape(table.shape)
    for position in list(map(tuple, np.argwhere(grid >= 0)))[::dims - 1]:  # a 3-D table: every other cell
        for sign in (1, -1):
            cube = _cube(grid, position, sign, 2.0, values, values)
            assert cube is not None and cube.size == 2 ** dims and grid[position] in cube
            suppressed = np.zeros(table.size, dtype=bool)
            suppressed[cube] = True
            low, high = _interval(values, matrix, suppressed, int(grid[position]))
            assert (high >= values[grid[position]] + 2 - 1e-9) if sign > 0 else (low <= values[grid[position]] - 2 + 1e-9)
