"""The grids of the maps of a protected table (rumap/maps/table_grids.py), as the Tables page drew them."""

from __future__ import annotations

import numpy as np
import pytest

from rumap.errors import InputError
from rumap.maps.table_grids import PROTECTION_GRID, RULE_GRIDS, rounding_base_grid, rule_grid
from rumap.tables.published import PublishedTable
from rumap.tables.rules import RULES


def _previous_rounding_grid(published) -> list[float]:
    # the Tables page's own computation before the grids were in the core
    largest = float(np.nanmax(published.cells)) if published.cells.size else 1.0
    top = max(1, min(6, int(np.floor(np.log10(max(largest, 10.0))))))
    return [float(10 ** k) for k in range(1, top + 1)]


def test_the_grids_are_the_pages_previous_values():
    assert {k: list(v) for k, v in RULE_GRIDS.items()} == {
        "p": [1.0, 5.0, 10.0, 20.0, 40.0], "n": [1.0, 2.0, 3.0], "k": [0.5, 0.6, 0.7, 0.8, 0.9],
        "threshold": [2.0, 3.0, 5.0, 10.0]}
    assert list(PROTECTION_GRID) == [5.0, 10.0, 20.0, 40.0]
    for rule, spec in RULES.items():
        parameter, values = rule_grid(rule)
        assert parameter == next(iter(spec.parameters)) and values == list(RULE_GRIDS[parameter])
        assert isinstance(values, list)  # a new list each time: the caller may keep it
    with pytest.raises(InputError, match="rule"):
        rule_grid("nosuch")


@pytest.mark.parametrize("largest", [0.0, 3.0, 10.0, 99.0, 100.0, 7100.0, 1e6, 2.5e9])
def test_rounding_bases_are_the_pages_previous_ones(largest):
    table = PublishedTable.from_cells([[largest, 1.0], [2.0, 0.0]])
    assert rounding_base_grid(table) == _previous_rounding_grid(table)
    grid = rounding_base_grid(table)
    assert grid[0] == 10.0 and len(grid) <= 6 and (largest < 100 or grid[-1] <= largest)


def test_a_suppressed_cell_does_not_count_toward_the_largest():
    table = PublishedTable.from_cells([[5000.0, 20.0], [30.0, 40.0]], suppressed=[[True, False], [False, False]])
    assert rounding_base_grid(table) == _previous_rounding_grid(table) == [10.0]
