"""Controlled rounding: additivity, adjacency to the original, the optimum against brute force."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rumap.errors import InputError
from rumap.tables.controlled_rounding import controlled_round, round_table
from rumap.tables.hierarchy import from_prefixes
from rumap.tables.ndtable import build_table
from rumap.tables.published import PublishedTable
from rumap.tables.secondary import worked_example_table


def _additive(values: np.ndarray) -> bool:
    inner = values[:-1, :-1]
    return (np.allclose(inner.sum(axis=1), values[:-1, -1]) and np.allclose(inner.sum(axis=0), values[-1, :-1])
            and np.isclose(values[-1, :-1].sum(), values[-1, -1]) and np.isclose(values[:-1, -1].sum(),
                                                                                   values[-1, -1]))


def _brute_force(values: np.ndarray, base: float) -> float:
    """Least total absolute deviation over every choice of floor or ceiling per entry that adds up."""
    flat = values.ravel()
    options = [[v] if v % base == 0 else [np.floor(v / base) * base, np.ceil(v / base) * base] for v in flat]
    best = np.inf
    for choice in itertools.product(*options):
        rounded = np.array(choice).reshape(values.shape)
        if _additive(rounded):
            best = min(best, float(np.abs(rounded - values).sum()))
    return best


def test_worked_example():
    result = controlled_round(worked_example_table(), 5)
    rounded = result.table().values
    assert _additive(rounded) and result.optimal
    assert np.all(rounded % 5 == 0)
    assert result.total_absolute_deviation == 16 == _brute_force(worked_example_table().values, 5)
    assert set(result.to_dict()) >= {"cells", "base", "total_absolute_deviation", "optimal"}


@pytest.mark.parametrize("seed", range(5))
def test_optimum_equals_brute_force(seed):
    rng = np.random.default_rng(seed)
    cells = rng.integers(0, 30, (2, 3) if seed % 2 else (3, 2)).astype(float)
    table = PublishedTable.from_cells(cells)
    base = float(rng.choice([3, 5, 10]))
    result = controlled_round(table, base)
    assert result.total_absolute_deviation == pytest.approx(_brute_force(table.values, base))


@settings(max_examples=30, deadline=None)
@given(st.integers(1, 5), st.integers(1, 5), st.integers(0, 2**32 - 1), st.sampled_from([2.0, 5.0, 10.0, 0.5]))
def test_additive_adjacent_zero_restricted(n_rows, n_cols, seed, base):
    rng = np.random.default_rng(seed)
    cells = rng.integers(0, 60, (n_rows, n_cols)).astype(float)
    table = PublishedTable.from_cells(cells)
    result = controlled_round(table, base)
    rounded, values = result.table().values, table.values
    assert _additive(rounded)
    assert np.all(np.abs(rounded - values) < base)
    assert np.allclose(rounded / base, np.round(rounded / base))
    multiples = np.isclose(values / base, np.round(values / base))
    assert np.array_equal(rounded[multiples], values[multiples])


def test_bad_input():
    table = worked_example_table()
    with pytest.raises(InputError, match="base must be"):
        controlled_round(table, 0)
    values = np.array(table.values)
    values[0, 0] = np.nan
    with pytest.raises(InputError, match="complete"):
        controlled_round(PublishedTable(table.row_labels, table.column_labels, values), 5)


def test_ranges_and_risk_of_the_rounded_entries():
    table = PublishedTable.from_cells(np.array([[0.0, 12.0], [3.0, 8.0]]))
    result = controlled_round(table, 5)
    frame = result.to_frame()
    for _, cell in frame.iterrows():  # integers strictly within 5 of the rounded value, not below 0
        expected = [v for v in range(int(cell.rounded) - 4, int(cell.rounded) + 5) if v >= 0]
        assert (cell["min"], cell["max"], cell["values"]) == (expected[0], expected[-1], len(expected))
        assert cell["min"] <= cell["value"] <= cell["max"]
        assert cell["risk"] == pytest.approx(1 / np.log2(len(expected)))
    assert result.max_risk == pytest.approx(frame["risk"].max())


def _hierarchical_table(leaf_values, dims):
    """A magnitude table with one record per leaf cell: dims maps each dimension to (leaves, prefix lengths)."""
    names = list(dims)
    grid = list(itertools.product(*[dims[d][0] for d in names]))
    frame = pd.DataFrame(grid, columns=names).assign(turnover=np.asarray(leaf_values, dtype=float))
    hierarchies = {d: from_prefixes(leaves, lengths) for d, (leaves, lengths) in dims.items() if lengths}
    return build_table(frame, names, hierarchies, "turnover")


def _brute_force_table(table, base: float) -> float:
    """Least total absolute deviation over every floor / ceiling choice of the leaf cells whose sums, at every
    level, are adjacent multiples of the base (inf when none is): the leaves determine every subtotal."""
    codes = table.cells[list(table.dims)].to_numpy(dtype=object)
    leaf_codes = [set(h.leaves) for h in table.hierarchies]
    leaves = [i for i, row in enumerate(codes) if all(c in leaf_codes[d] for d, c in enumerate(row))]

    def covers(cell, leaf):
        return all(c == "Total" or c == code or c in table.hierarchies[d].ancestors(code)
                   for d, (c, code) in enumerate(zip(codes[cell], codes[leaf], strict=True)))

    membership = np.array([[covers(i, j) for j in leaves] for i in range(table.size)], dtype=float)
    values = table.values
    assert np.allclose(membership @ values[leaves], values)
    low = np.floor(values[leaves] / base) * base
    free = values[leaves] % base != 0
    choices = np.array(list(itertools.product((0.0, 1.0), repeat=int(free.sum()))))
    rounded_leaves = np.tile(low, (choices.shape[0], 1))
    rounded_leaves[:, free] += base * choices
    deviation = rounded_leaves @ membership.T - values
    multiple = values % base == 0
    ok = (np.abs(deviation) < base - 1e-9).all(axis=1) & (deviation[:, multiple] == 0).all(axis=1)
    return float(np.abs(deviation[ok]).sum(axis=1).min()) if ok.any() else np.inf


_TWO_LEVELS = {"region": (["A1", "A2", "B1"], [1, 2]), "activity": (["X1", "X2", "Y1"], [1, 2])}


@pytest.mark.parametrize("seed", range(4))
def test_hierarchical_rounding_equals_brute_force(seed):
    rng = np.random.default_rng(seed)
    table = _hierarchical_table(rng.integers(1, 15, 9), _TWO_LEVELS)
    base = float(rng.choice([2, 3, 5]))
    result = round_table(table, base)
    assert result.status == "optimal"
    assert np.abs(table.equations() @ result.rounded).max() == 0
    assert result.total_absolute_deviation == pytest.approx(_brute_force_table(table, base))


def test_three_dimensional_rounding_equals_brute_force():
    dims = {"region": (["A1", "A2", "B1"], [1, 2]), "activity": (["X", "Y"], None), "size": (["s", "l"], None)}
    table = _hierarchical_table([7, 3, 8, 1, 4, 6, 2, 9, 5, 5, 3, 7], dims)
    result = round_table(table, 4)
    expected = _brute_force_table(table, 4)
    assert expected < np.inf
    assert result.status == "optimal" and result.total_absolute_deviation == pytest.approx(expected)


def test_no_zero_restricted_rounding_is_a_status():
    # subtotals in both dimensions, base 2: no choice of floors and ceilings adds up at every level
    dims = {"region": (["A1", "A2", "B1", "B2"], [1, 2]), "activity": (["X1", "X2", "Y1", "Y2"], [1, 2])}
    leaves = [4, 3, 2, 7, 10, 3, 4, 4, 5, 3, 9, 2, 3, 2, 10, 3]
    table = _hierarchical_table(leaves, dims)
    assert _brute_force_table(table, 2) == np.inf
    result = round_table(table, 2)
    assert result.status == "infeasible" and not result.found
    out = result.to_dict()
    assert out["status"] == "infeasible" and out["optimal"] is False
    assert all(cell["rounded"] is None for cell in out["cells"])
    assert round_table(table, 1).status == "optimal"  # base 1 keeps the integers
