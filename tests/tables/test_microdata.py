"""Tables from microdata: cell values against pandas, hierarchies by hand, the rules on the contributions."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rumap.budget import WorkBudget
from rumap.errors import InputError
from rumap.tables.bounds import suppression_bounds
from rumap.tables.microdata import example_microdata, table_from_microdata
from rumap.tables.rules import apply_rule


def _pivot(frame, rows, columns, values, aggfunc):
    return pd.pivot_table(frame, index=rows, columns=columns, values=values, aggfunc=aggfunc, fill_value=0,
                          margins=True, margins_name="Total")


def test_magnitude_table_equals_pandas_pivot_table_with_margins():
    frame = example_microdata()
    table = table_from_microdata(frame, "region", "size", response="turnover")
    expected = _pivot(frame, "region", "size", "turnover", "sum")
    got = table.to_frame()
    pd.testing.assert_frame_equal(got, expected.loc[got.index, got.columns].astype(float), check_names=False)
    assert table.kind == "magnitude"
    assert table.published().values[-1, -1] == frame["turnover"].sum() == 750.0


def test_numeric_codes_are_in_numeric_order_and_text_codes_in_natural_order():
    rng = np.random.default_rng(4)
    frame = pd.DataFrame({"size": rng.integers(1, 13, 400), "zone": rng.choice(["Z1", "Z2", "Z10", "Z9"], 400),
                          "value": rng.integers(1, 100, 400)})
    frame.loc[:11, "size"] = np.arange(1, 13)  # every code present
    table = table_from_microdata(frame, "size", "zone", response="value")
    assert table.row_labels == tuple(str(k) for k in range(1, 13))  # 1, 2, ..., 10, not 1, 10, 11, 12, 2
    assert table.column_labels == ("Z1", "Z2", "Z9", "Z10")
    expected = _pivot(frame.astype({"size": str}), "size", "zone", "value", "sum")
    got = table.to_frame()
    assert list(got.index[:-1]) == list(table.row_labels)
    for row in table.row_labels:
        for column in table.column_labels:
            assert got.loc[row, column] == expected.loc[row, column]


def test_frequency_table_counts_records_and_contributors_match():
    frame = example_microdata()
    table = table_from_microdata(frame, "sector", "region")
    expected = _pivot(frame.assign(one=1), "sector", "region", "one", "count")
    got = table.to_frame()
    np.testing.assert_array_equal(got.to_numpy(), expected.loc[got.index, got.columns].to_numpy())
    np.testing.assert_array_equal(table.contributors[0], got.to_numpy())
    assert table.kind == "frequency"


def test_one_way_table_has_one_column_and_its_total():
    frame = example_microdata()
    table = table_from_microdata(frame, "size", response="employees")
    expected = frame.groupby("size")["employees"].sum()
    got = table.to_frame()
    assert list(got.columns) == ["employees", "Total"]
    np.testing.assert_array_equal(got.loc[list(expected.index), "employees"], expected.to_numpy())
    assert got.loc["Total", "Total"] == frame["employees"].sum()


def test_layers_give_one_table_per_layer_and_their_total():
    frame = example_microdata()
    table = table_from_microdata(frame, "region", "size", "sector", response="turnover")
    assert table.layer_labels == ("A", "B", "Total")
    for layer in ("A", "B"):
        part = frame[frame["sector"] == layer]
        expected = part.groupby(["region", "size"])["turnover"].sum()
        got = table.published(layer).to_frame()
        for (region, size), value in expected.items():
            assert got.loc[region, size] == value
        assert got.loc["Total", "Total"] == part["turnover"].sum()
    np.testing.assert_allclose(table.values[0] + table.values[1], table.values[2])
    np.testing.assert_array_equal(table.published().values, table_from_microdata(
        frame, "region", "size", response="turnover").published().values)
    with pytest.raises(InputError, match="no layer 'C'"):
        table.published("C")


def test_hierarchy_adds_subtotals_checked_by_hand():
    frame = example_microdata()
    table = table_from_microdata(frame, "size", "region", response="turnover",
                                 hierarchies={"size": {"small": "SME", "medium": "SME"}})
    # large sorts before SME; the subtotal comes before its codes
    assert table.row_labels == ("SME", "medium", "small", "large")
    assert table.rows.leaves == (False, True, True, True)
    got = table.to_frame()
    # North: small 20+20+20, medium 40+35+30; South: small 15+10+25, medium 45+50+40
    assert got.loc["SME", "North"] == 165.0 and got.loc["SME", "South"] == 185.0
    assert got.loc["SME", "Total"] == 350.0
    assert got.loc["Total", "Total"] == 750.0
    published = table.published()
    assert published.row_labels == ("medium", "small", "large")  # subtotals left out: rows add up
    np.testing.assert_allclose(published.values[:-1, :-1].sum(axis=0), published.values[-1, :-1])
    assert suppression_bounds(published).labels == ()


def test_two_level_hierarchy_and_codes_absent_from_the_hierarchy():
    frame = pd.DataFrame({"nace": ["1011", "1012", "1020", "2010", "3000"], "v": [1.0, 2.0, 4.0, 8.0, 16.0]})
    hierarchy = {"1011": "101", "1012": "101", "101": "10", "1020": "10", "2010": "20"}
    table = table_from_microdata(frame, "nace", response="v", hierarchies={"nace": hierarchy})
    assert table.row_labels == ("10", "101", "1011", "1012", "1020", "20", "2010", "3000")
    got = table.to_frame()["v"]
    assert got["10"] == 7.0 and got["101"] == 3.0 and got["20"] == 8.0 and got["3000"] == 16.0
    assert got["Total"] == 31.0
    labels = set(table.contributions().cells)
    assert {"10:v", "101:Total", "Total:Total"} <= labels
    assert sum(c == "10:v" for c in table.contributions().cells) == 3


def test_contributions_name_table_cells_and_sum_to_them():
    frame = example_microdata()
    table = table_from_microdata(frame, "region", "size", response="turnover")
    contributions = table.contributions().to_frame()
    sums = contributions.groupby("cell")["value"].sum()
    full = table.to_frame()
    for label, value in sums.items():
        row, column = label.split(":")
        assert full.loc[row, column] == value
    assert len(sums) == full.size  # every cell has records here
    assert len(contributions) == 4 * len(frame)


def test_rules_on_the_table_agree_with_apply_rule_on_hand_made_contributions():
    frame = example_microdata()
    table = table_from_microdata(frame, "region", "size", response="turnover")
    hand = apply_rule(frame["region"] + ":" + frame["size"], frame["turnover"], rule="p-percent", p=10)
    ours = table.sensitivity("p-percent", p=10)
    inner = [c for c in ours.cells if "Total" not in c]
    assert inner == list(hand.cells)
    assert [c for c in ours.sensitive_cells if "Total" not in c] == hand.sensitive_cells
    # North/large has one firm; South/large 90 and 10 (remainder 0 < 10% of 90)
    assert table.primary("p-percent", p=10) == [("North", "large"), ("South", "large")]
    # the large column's total: 300, 90, 10: remainder 10 < 30, sensitive as a total
    assert "Total:large" in ours.sensitive_cells
    assert table.primary("threshold", threshold=3) == [("North", "large"), ("South", "large")]
    assert table.primary("threshold", threshold=4) == [(r, c) for r in ("North", "South")
                                                         for c in ("large", "medium", "small")]
    # (1, 0.6)-dominance: North/large (1 firm), South/large (90%); medium and small are below 60%
    assert table.primary("dominance", n=1, k=0.6) == [("North", "large"), ("South", "large")]
    # (2, 0.7): North/medium 75/105 = 0.714, South/medium 95/135 = 0.704, South/small 40/50 = 0.8 are
    # sensitive; North/small 40/60 = 0.667 is not
    assert table.primary("dominance", n=2, k=0.7) == [("North", "large"), ("North", "medium"), ("South", "large"),
                                                        ("South", "medium"), ("South", "small")]


def test_shadow_drives_the_rules_while_the_table_shows_the_response():
    frame = pd.DataFrame({"r": ["a"] * 3 + ["b"] * 3, "c": ["x"] * 6, "shown": [10.0, 10.0, 10.0, 10.0, 10.0, 10.0],
                          "shadow": [1.0, 1.0, 1.0, 100.0, 1.0, 1.0]})
    plain = table_from_microdata(frame, "r", "c", response="shown")
    shadowed = table_from_microdata(frame, "r", "c", response="shown", shadow="shadow")
    np.testing.assert_array_equal(plain.values, shadowed.values)
    assert plain.primary("dominance", n=1, k=0.6) == []
    assert shadowed.primary("dominance", n=1, k=0.6) == [("b", "x")]
    counts = table_from_microdata(frame, "r", "c", shadow="shadow")
    assert counts.kind == "frequency" and counts.primary("dominance", n=1, k=0.6) == [("b", "x")]


@settings(max_examples=30, deadline=None)
@given(st.lists(st.tuples(st.sampled_from("abc"), st.sampled_from("xyz"), st.sampled_from("PQ"),
                          st.integers(0, 1000)), min_size=1, max_size=40))
def test_any_microdata_agrees_with_groupby(records):
    frame = pd.DataFrame(records, columns=["r", "c", "l", "v"])
    table = table_from_microdata(frame, "r", "c", "l", response="v")
    for k, layer in enumerate(table.layer_labels):
        part = frame if layer == "Total" else frame[frame["l"] == layer]
        got = table.to_frame(layer)
        for (row, column), value in part.groupby(["r", "c"])["v"].sum().items():
            assert got.loc[row, column] == value
        assert got.loc["Total", "Total"] == part["v"].sum()
        assert table.contributors[k, -1, -1] == len(part)
    assert table.contributions().to_frame()["value"].sum() == 4 * frame["v"].sum()


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"rows": "nope"}, "rows: no column 'nope'"),
    ({"rows": "region", "columns": "region"}, "different variables"),
    ({"rows": "region", "layers": "sector"}, "layers need columns"),
    ({"rows": "region", "columns": "size", "response": "sector"}, "response 'sector' must be numeric"),
    ({"rows": "region", "columns": "size", "response": "size"}, "also a spanning variable"),
    ({"rows": "region", "hierarchies": {"size": {}}}, "not a spanning variable"),
    ({"rows": "region", "hierarchies": {"region": {"North": "N", "N": "M", "M": "N"}}}, "cycle"),
    ({"rows": "region", "hierarchies": {"region": {"North": "South"}}}, "subtotal of other codes"),
])
def test_bad_arguments_are_refused_with_one_clear_message(kwargs, message):
    with pytest.raises(InputError, match=message):
        table_from_microdata(example_microdata(), **kwargs)


def test_bad_codes_and_values_are_refused():
    frame = example_microdata()
    with pytest.raises(InputError, match="negative"):
        table_from_microdata(frame.assign(turnover=-frame["turnover"]), "region", response="turnover")
    with pytest.raises(InputError, match="missing in record 2"):
        table_from_microdata(frame.assign(region=[None if i == 1 else r for i, r in enumerate(frame["region"])]),
                             "region")
    with pytest.raises(InputError, match="'Total'"):
        table_from_microdata(frame.assign(region="Total"), "region")
    with pytest.raises(InputError, match="':'"):
        table_from_microdata(frame.assign(region="a:b"), "region")
    with pytest.raises(InputError, match="missing in record 1"):
        table_from_microdata(frame.assign(turnover=np.nan), "region", response="turnover")


def test_cardinality_and_size_are_bounded_by_the_budget():
    frame = pd.DataFrame({"id": np.arange(50), "g": ["a", "b"] * 25})
    with pytest.raises(InputError, match="grid has 50 values"):
        table_from_microdata(frame, "id", "g", budget=WorkBudget(grid=20))
    with pytest.raises(InputError, match="work limit"):
        table_from_microdata(frame, "g", budget=WorkBudget(work=10.0))
    assert table_from_microdata(frame, "id", "g").published().values.shape == (51, 3)


def test_numeric_codes_are_read_as_text():
    frame = pd.DataFrame({"year": [2020.0, 2021.0, 2020.0], "v": [1, 2, 3]})
    table = table_from_microdata(frame, "year", response="v")
    assert table.row_labels == ("2020", "2021")
    assert table.to_dict()["values"][0][0] == [4.0, 4.0]
