"""Eliminating granularity (seed 004, Steps 3-5): the output's tables checked independently, the moves, the modes."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from rumap.errors import InputError
from rumap.maps.categorical_measures import entropy_information_loss
from rumap.masking.granularity import eliminate_granularity
from rumap.tables.granularity import granularity_analysis
from rumap.tables.granularity_types import key_granularity_types

KEYS = ["sex", "age", "region"]


@pytest.fixture(scope="module")
def survey() -> pd.DataFrame:
    rng = np.random.default_rng(11)
    n = 150
    return pd.DataFrame({"sex": rng.choice(["f", "m"], n), "age": rng.choice(["20-29", "30-39", "40-49", "50-59",
                                                                            "60-69"], n, p=[.3, .3, .2, .15, .05]),
                         "region": rng.choice(list("abcdef"), n, p=[.3, .25, .2, .1, .1, .05]),
                         "income": rng.uniform(0, 1, n)})


@pytest.mark.parametrize(("moves", "level"), [("both", 50.0), ("merge", 50.0), ("suppress", 30.0)])
def test_no_table_of_the_output_reaches_the_level(survey, moves, level):
    """The check is independent of the elimination: the index of every hyper-row of every 2- and 3-key table
    (rumap.tables.granularity, records with a missing key value in no cell of its tables) is under the level."""
    result = eliminate_granularity(survey, KEYS, level=level, moves=moves)
    analysis = granularity_analysis(result.data, KEYS, threshold=level)
    assert len(analysis.tables) == 4 and analysis.safe and (analysis.tables["max_index"] < level).all()
    assert result.reached and key_granularity_types(result.data, KEYS, level=level).safe
    assert max(result.index_before.values()) >= level  # there was granularity to eliminate
    assert result.data["income"].equals(survey["income"])  # the other columns as they were
    assert {m["move"] for m in result.moves} <= ({"merge", "suppress"} if moves == "both" else {moves})
    if moves == "merge":
        assert sum(result.suppressed.values()) == 0 and result.data[KEYS].notna().all().all()
    if moves == "suppress":
        assert not result.merged and all(c["before"] == c["after"] for c in result.categories.values())
    # the cost each move states sums to mu-Argus's entropy information loss of the whole release
    loss, largest = entropy_information_loss(survey, result.data, KEYS)
    assert result.information_loss == pytest.approx(loss) == pytest.approx(sum(m["cost"] for m in result.moves))
    assert result.largest_loss == pytest.approx(largest)


def test_the_seeds_proportional_hyper_row_is_eliminated_and_its_normal_one_kept():
    """A statistician x age table of female records: the seed's proportional row (1 3 4 1 1) beside its normal
    one (1 30 18 9 2); ages are ordered, so a merge joins adjacent ages."""
    ages = ["5-19", "20-34", "35-50", "50-65", "66+"]
    rows = [("statistician", a) for a, c in zip(ages, [1, 3, 4, 1, 1], strict=True) for _ in range(c)]
    rows += [("clerk", a) for a, c in zip(ages, [1, 30, 18, 9, 2], strict=True) for _ in range(c)]
    frame = pd.DataFrame(rows, columns=["job", "age"])
    result = eliminate_granularity(frame, ["job", "age"], moves="merge", types=["proportional"])
    before = result.before.hyper_rows.set_index("fixed")
    assert before.loc["job=statistician", "index"] == 60.0 and before.loc["job=statistician", "proportional"]
    assert before.loc["job=clerk", "index"] == 20.0 and not before.loc["job=clerk", "unsafe"]
    assert result.reached and granularity_analysis(result.data, ["job", "age"]).safe
    for merge in result.moves:  # ages are ordered: each merge joins two adjacent groups of ages
        assert merge["variable"] == "age"
        first, second = merge["categories"]
        assert ages.index(second.split(" + ")[0]) == ages.index(first.split(" + ")[-1]) + 1
    assert set(result.data["age"]) <= {" + ".join(ages[i:j]) if j - i > 1 else ages[i] for i in range(5)
                                       for j in range(i + 1, 6)}


def test_a_hierarchy_allows_merges_under_one_parent_only():
    """Regions a and b hold one record each: without a hierarchy the two merge (the least frequent nominal
    categories); when a is under north with c and b under south with d, each merges with its sibling, and a group
    that fills its parent is named by it."""
    frame = pd.DataFrame({"sex": ["f", "f"] + ["f", "m"] * 20, "region": ["a", "b"] + ["c"] * 20 + ["d"] * 20})
    free = eliminate_granularity(frame, ["sex", "region"], moves="merge")
    assert free.merged == {"region": {"a": "a + b", "b": "a + b"}}
    parents = {"a": "north", "c": "north", "b": "south", "d": "south"}
    tree = eliminate_granularity(frame, ["sex", "region"], moves="merge", hierarchy={"region": parents})
    assert tree.merged == {"region": {"a": "north", "c": "north", "b": "south", "d": "south"}}
    assert tree.reached and granularity_analysis(tree.data, ["sex", "region"]).safe


def test_the_run_is_deterministic(survey):
    first, second = (eliminate_granularity(survey, KEYS, level=40.0) for _ in range(2))
    assert first.moves == second.moves and first.data.equals(second.data)
    assert first.to_dict() == second.to_dict()


def test_odd_and_dispersed_alone_are_eliminated():
    frame = pd.DataFrame({"job": ["s"] * 11 + ["c"] * 40,
                          "age": ["1"] * 5 + ["2"] + ["3"] * 5 + ["1"] * 10 + ["2"] * 20 + ["3"] * 10})
    result = eliminate_granularity(frame, ["job", "age"], types=["dispersed"])
    assert result.before.counts()["dispersed"] >= 1 and result.after.counts()["dispersed"] == 0
    assert result.moves[0]["hyper_row"]["types"] == ["dispersed"]


@pytest.mark.parametrize("bad", [{"keys": ["sex"]}, {"keys": ["sex", "nope"]}, {"moves": "neither"},
                                 {"level": 0}, {"hierarchy": {"region": {"a": "north"}}},
                                 {"hierarchy": {"nope": {"a": "north"}}}, {"types": ["nobody"]}])
def test_bad_arguments_are_refused(survey, bad):
    with pytest.raises(InputError):
        eliminate_granularity(survey, **{"keys": KEYS, **bad})
