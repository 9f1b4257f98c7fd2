"""Granularity: the seed's four hyper-rows, hand-checked 2-D and 3-D tables, and the key-variable procedure."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from rumap.errors import InputError
from rumap.tables.granularity import granularity, granularity_analysis, long_table, seed_hyper_rows


@pytest.mark.parametrize(("pattern", "index", "safe"), [("normal", 20.0, True), ("proportional", 60.0, False),
                                                        ("odd", 75.0, False), ("dispersed", 60.0, False)])
def test_the_seeds_types_of_granularity(pattern, index, safe):
    """Seed 004: normal 1 unit cell of 5 (20%); proportional 3 of 5; odd 3 of 4 non-empty; dispersed 3 of 5."""
    rows = seed_hyper_rows()
    result = granularity(rows[rows["pattern"] == pattern].drop(columns="pattern"))
    assert result.max_index == pytest.approx(index)
    assert result.safe is safe


def test_hand_checked_two_dimensional_table():
    wide = pd.DataFrame({"region": ["north", "south", "Total"], "a": [1, 5, 6], "b": [1, 0, 1], "c": [2, 1, 3],
                         "total": [4, 6, 10]})
    result = granularity(wide, threshold=50)
    frame = result.to_frame().set_index("fixed")
    # row north: cells 1, 1, 2 -> 2 of 3; row south: 5, 1 -> 1 of 2; columns a: 1, 5 -> 1/2, b: 1 -> 1/1, c: 2, 1 -> 1/2
    assert frame.loc["region=north", "index"] == pytest.approx(200 / 3)
    assert frame.loc["region=south", "index"] == 50.0
    assert frame.loc["column=b", "index"] == 100.0 and frame.loc["column=b", "cells"] == 1
    assert frame.loc["column=a", "unit_cells"] == 1
    assert len(frame) == 5 and result.unsafe_rows == 5 and not result.safe
    assert granularity(wide, threshold=100).unsafe_rows == 1
    assert len(result.unit_cells) == 3  # (north, a), (north, b), (south, c)
    assert result.to_dict()["max_index"] == 100.0


def test_hand_checked_three_dimensional_table():
    cells = pd.DataFrame([(s, o, a, c) for s, o, a, c in [("f", "stat", "young", 1), ("f", "stat", "old", 5),
                                                           ("f", "law", "young", 2), ("m", "stat", "young", 1),
                                                           ("m", "law", "old", 0)]],
                         columns=["sex", "occupation", "age", "count"])
    result = granularity(cells)
    frame = result.to_frame()
    assert set(frame["along"]) == {"occupation x age", "sex x age", "sex x occupation", "age", "occupation", "sex"}
    line = frame[frame["fixed"] == "sex=f, occupation=stat"].iloc[0]
    assert (line["cells"], line["unit_cells"], line["index"]) == (2, 1, 50.0)
    assert frame[frame["fixed"] == "sex=m"].iloc[0]["index"] == 100.0  # the empty (m, law, old) has no value
    # every unit cell is counted once per kind of hyper-row it lies in
    assert frame.groupby("along")["unit_cells"].sum().eq(2).all()


def test_bad_tables_are_refused():
    for bad in (pd.DataFrame({"a": ["x"], "count": [-1]}), pd.DataFrame({"a": ["x"], "count": ["many"]}),
                pd.DataFrame({"count": [1]}), pd.DataFrame({"a": ["x"]})):
        with pytest.raises(InputError):
            granularity(bad)
    with pytest.raises(InputError):
        granularity(pd.DataFrame({"a": ["x"], "count": [1]}), threshold=0)


def test_long_table_from_a_2d_table():
    wide = pd.DataFrame({"sex": ["f", "m"], "young": [1, None], "old": [2, 3]})
    assert long_table(wide)["count"].tolist() == [1.0, 0.0, 2.0, 3.0]


def test_combined_procedure_flags_unit_cells_and_judges_2_and_3_way_tables():
    frame = pd.DataFrame({"sex": ["f", "f", "m", "m", "m", "f", "f"], "region": ["a", "a", "a", "b", "b", "b", "a"],
                          "age": ["y", "o", "o", "o", "y", "y", "y"]})
    result = granularity_analysis(frame, ["sex", "region", "age"])
    tables = result.tables.set_index("variables")
    assert set(tables.index) == {"sex x region", "sex x age", "region x age", "sex x region x age"}
    assert (tables["dimension"] >= 2).all()
    # sex x region: (f,a)=3, (m,a)=1, (m,b)=2, (f,b)=1 -> unit cells (m,a) and (f,b)
    assert tables.loc["sex x region", "unit_cells"] == 2
    assert set(result.unit_cells[result.unit_cells["variables"] == "sex x region"]["cell"]) == \
        {"sex=m, region=a", "sex=f, region=b"}
    # record by record: a record is flagged when alone in a cell of some 2- or 3-way table
    brute = np.zeros(len(frame), dtype=bool)
    for cols in (["sex", "region"], ["sex", "age"], ["region", "age"], ["sex", "region", "age"]):
        brute |= frame.groupby(cols)["sex"].transform("size").to_numpy() == 1
    np.testing.assert_array_equal(result.records_in_unit_cells, brute)
    assert not result.safe and result.to_dict()["records_in_unit_cells"] == int(brute.sum())
    with pytest.raises(InputError):
        granularity_analysis(frame, ["sex"])


@pytest.mark.parametrize("counts, message", [([1, 3, 2, 1.5], "row 4 has 1.5"), ([1, 3, float("nan"), 1], "row 3 is missing"),
                                             ([1, 3, -2, 1], "from 0 to 1e15")])
def test_counts_must_be_whole_non_negative_numbers(counts, message):
    table = pd.DataFrame({"sex": ["f", "f", "m", "m"], "age": ["y", "o", "y", "o"], "count": counts})
    with pytest.raises(InputError, match=message):
        granularity(table)


def test_a_cell_given_twice_is_refused():
    table = pd.DataFrame({"sex": ["f", "f", "f"], "age": ["y", "o", "y"], "count": [1, 2, 3]})
    with pytest.raises(InputError, match="the cell sex=f, age=y appears more than once"):
        granularity(table)
