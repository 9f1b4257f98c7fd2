"""Secondary suppression stops on its solve limit (work), not on the clock: the same pattern whatever the machine's
speed; empty cells are never secondaries."""

from __future__ import annotations

import itertools
import time

import numpy as np
import pandas as pd
import pytest

from rumap.tables.hierarchy import from_prefixes
from rumap.tables.microdata import table_from_microdata
from rumap.tables.ndtable import build_table
from rumap.tables.published import PublishedTable
from rumap.tables.secondary import suppress_secondary
from rumap.tables.table_suppression import suppress_table


@pytest.fixture(scope="module")
def hierarchical():
    rng = np.random.default_rng(3)
    frame = pd.DataFrame({"region": [f"{'NS'[r]}{p}" for r, p in zip(rng.integers(0, 2, 60), rng.integers(1, 4, 60),
                                                                       strict=True)],
                          "activity": rng.choice(["a", "b", "c", "d"], 60), "v": rng.lognormal(3, 1, 60).round(1)})
    return build_table(frame, ["region", "activity"], {"region": from_prefixes(sorted(frame["region"].unique()),
                                                                               [1, 2])}, "v")


def _racing_clock(monkeypatch) -> None:
    """Every reading of the clock 100 s after the last: a slow machine, on which any wall-time limit is spent."""
    clock = itertools.count(0.0, 100.0)
    for name in ("monotonic", "perf_counter", "time"):
        monkeypatch.setattr(time, name, lambda: float(next(clock)))


def test_a_hierarchical_table_gets_the_same_pattern_however_slow_the_machine(hierarchical, monkeypatch):
    mask = hierarchical.primary_mask("threshold", threshold=3)
    calm = suppress_table(hierarchical, mask, protection=15, time_limit=5).to_dict()
    _racing_clock(monkeypatch)
    slow = suppress_table(hierarchical, mask, protection=15, time_limit=5).to_dict()
    assert slow == calm
    assert calm["status"] == "optimal" and calm["stopped_on"] is None
    assert calm["config"]["solve_limit"] == {"fractional": 30, "rounds": 20, "nodes": 10000, "prunes": 150}


def test_a_two_dimensional_table_gets_the_same_pattern_however_slow_the_machine(monkeypatch):
    cells = np.round(np.exp(np.random.default_rng(7).normal(3, 1, (5, 5))))
    table = PublishedTable.from_cells(cells)
    primary = [table.label(r, c) for r, c in ((0, 0), (2, 3), (4, 1))]
    calm = suppress_secondary(table, primary, protection=30, time_limit=2).to_dict()
    _racing_clock(monkeypatch)
    assert suppress_secondary(table, primary, protection=30, time_limit=2).to_dict() == calm
    assert calm["optimal"] and calm["config"]["stopped_on"] is None


def test_out_of_work_the_result_says_it_stopped_on_the_solve_limit(hierarchical):
    mask = hierarchical.primary_mask("threshold", threshold=3)
    result = suppress_table(hierarchical, mask, protection=15, time_limit=0.01)  # no master round
    assert result.config["solve_limit"]["rounds"] == 0 and result.config["iterations"] == 0
    assert result.all_protected
    assert result.stopped_on == (None if result.optimal else "solve_limit")


def test_an_empty_cell_of_a_table_from_microdata_is_never_a_secondary():
    # r2 x b is empty: free to suppress by value, it would hide nothing
    frame = pd.DataFrame({"region": ["r1", "r1", "r1", "r2", "r2", "r3", "r3", "r3"],
                          "size": ["a", "b", "b", "a", "a", "a", "b", "b"],
                          "v": [5.0, 40.0, 30.0, 20.0, 25.0, 60.0, 10.0, 12.0]})
    table = table_from_microdata(frame, "region", "size", response="v")
    frequencies = table.frequencies()
    assert frequencies[("r2", "b")] == 0 and frequencies[("Total", "Total")] == 8
    primary = [("r1", "a")]
    blind = suppress_secondary(table.published(), primary, protection=20)
    assert ("r2", "b") in blind.secondary  # without the counts, the free empty cell is chosen
    result = suppress_secondary(table.published(), primary, protection=20, frequencies=frequencies)
    assert ("r2", "b") not in result.secondary and result.all_protected and result.optimal
