"""The seed's three types of granularity: its hyper-rows and hand-made tables for each type."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from rumap.errors import InputError
from rumap.tables.granularity import seed_hyper_rows
from rumap.tables.granularity_types import granularity_types, key_granularity_types


def _line(pattern: str) -> pd.DataFrame:
    rows = seed_hyper_rows()
    return rows[rows["pattern"] == pattern].drop(columns="pattern")


def _line_of(counts, name="x", labels=None) -> pd.DataFrame:
    return pd.DataFrame({name: labels or [f"c{i}" for i in range(len(counts))], "count": counts})


@pytest.mark.parametrize(("pattern", "proportional", "dispersed"),
                         [("normal", 0, 0), ("proportional", 1, 0), ("dispersed", 1, 1), ("odd", 1, 0)])
def test_the_seeds_hyper_rows(pattern, proportional, dispersed):
    """1 3 4 1 1 is proportional (60%), 1 30 18 9 2 is normal; in 1 30 1 9 1 the middle unit cell alone lies
    between two cells of at least 5 (the ends are not between two cells)."""
    found = granularity_types(_line(pattern)).to_frame().iloc[0]
    assert (int(found["proportional"]), int(found["dispersed"]), int(found["odd"])) == (proportional, dispersed, 0)
    assert bool(found["unsafe"]) is (pattern != "normal")


def test_odd_by_a_population_distribution_and_by_the_tables_independence():
    """0 1 1 21 1 against ages distributed as the normal row: 24 x 30/60 = 12 and 24 x 18/60 = 7.2 expected in the
    unit cells 20-34 and 35-50 (odd at 5), 24 x 2/60 = 0.8 in 66+ (not)."""
    population = {"age": dict(zip(_line("normal")["age"], _line("normal")["count"], strict=True))}
    found = granularity_types(_line("odd"), population=population, types=["odd"]).to_frame().iloc[0]
    assert found["odd"] == 2 and found["unsafe"]
    assert granularity_types(_line("odd"), population=population, types=["odd"], odd_expected=7.3).counts()["odd"] == 1
    assert granularity_types(_line("odd"), population=population, types=["odd"], odd_expected=12.1).safe
    # a 2-D table whose other row makes 20-34 and 35-50 common: the table's margins expect them
    table = pd.concat([_line("odd").assign(job="statistician"), _line("normal").assign(job="clerk")])
    rows = granularity_types(table[["job", "age", "count"]], types=["odd"]).to_frame().set_index("fixed")
    assert rows.loc["job=statistician", "odd"] == 2 and rows.loc["job=clerk", "odd"] == 0


@pytest.mark.parametrize(("counts", "ordered", "dispersed"), [
    ([9, 1, 8], True, 1), ([9, 1, 4], True, 0), ([1, 9, 8], True, 0),  # ordered: between two cells of >= 5
    ([1, 9, 8], False, 1), ([1, 9, 4], False, 0), ([1, 9], False, 0),  # nominal: every other cell, two at least
])
def test_dispersed_unit_cells(counts, ordered, dispersed):
    found = granularity_types(_line_of(counts), types=["dispersed"], ordered=["x"] if ordered else []).to_frame()
    assert int(found["dispersed"].iloc[0]) == dispersed


def test_each_rule_is_stated_with_its_parameters():
    rules = granularity_types(_line("normal"), level=40, dispersed_frequency=7, odd_expected=3).to_dict()["rules"]
    assert rules["level"] == 40 and rules["ordered"] == ["age"]
    assert ">= 40" in rules["rules"]["proportional"] and ">= 3" in rules["rules"]["odd"]
    assert ">= 7" in rules["rules"]["dispersed"] and "age" in rules["rules"]["dispersed"]


def test_a_file_s_tables_leave_out_records_with_a_missing_value():
    frame = pd.DataFrame({"a": ["x", "x", "y", "y", None], "b": ["p", "p", "p", "p", "q"], "c": list("uuvvw")})
    result = key_granularity_types(frame, ["a", "b", "c"])
    assert list(result.max_index()) == ["a x b", "a x c", "b x c", "a x b x c"]
    # the fifth record, alone in b=q and c=w, is in b x c only: a unit cell there, none in the tables with a
    assert result.max_index()["a x b"] == 0.0 and result.max_index()["b x c"] == 100.0


@pytest.mark.parametrize("bad", [{"types": ["odd", "nobody"]}, {"types": []}, {"types": "odd"},
                                 {"ordered": ["nope"]}, {"population": {"nope": {"a": 1}}},
                                 {"population": {"age": {"5-19": -1}}}, {"population": {"age": {"5-19": 1}}}])
def test_bad_arguments_are_refused(bad):
    with pytest.raises(InputError):
        granularity_types(_line("normal"), **bad)


def test_detection_is_deterministic():
    rng = np.random.default_rng(5)
    frame = pd.DataFrame({"a": rng.choice(list("abcd"), 80), "b": rng.choice(["1", "2", "3"], 80),
                          "c": rng.choice(list("xy"), 80)})
    first, second = (key_granularity_types(frame, ["a", "b", "c"]).to_frame() for _ in range(2))
    pd.testing.assert_frame_equal(first, second)
