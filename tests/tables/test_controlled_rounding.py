"""Controlled rounding: additivity, adjacency to the original, the optimum against brute force."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rumap.errors import InputError
from rumap.tables.controlled_rounding import controlled_round
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
