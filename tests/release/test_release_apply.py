"""Applying release plans: each step is the masking function it names, and a plan is its steps one at a time."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from test_release_plan import STEPS

from rumap.errors import InputError
from rumap.io.data import BUNDLED_DATA, read_table, read_table_bytes, table_bytes
from rumap.masking.categorical import local_suppression, pram
from rumap.masking.microaggregation import ALGORITHMS, microaggregate
from rumap.masking.noise import NoiseSpec, add_noise
from rumap.masking.optimal_suppression import optimal_suppression
from rumap.masking.swapping import rank_swap
from rumap.release.apply import STEP_METHODS, apply_plan, apply_step
from rumap.release.plan import ReleasePlan, Step

SURVEY = read_table(BUNDLED_DATA["survey (synthetic, households and weights)"])


@pytest.fixture(scope="module")
def survey() -> pd.DataFrame:
    return SURVEY.copy()


@pytest.mark.parametrize("step", STEPS, ids=[f"{i}-{s.method}" for i, s in enumerate(STEPS)])
def test_every_method_applies_and_leaves_the_other_columns_as_they_were(survey, step):
    data, outcome = apply_step(survey, step)
    assert list(data.columns) == list(survey.columns) and len(data) == len(survey)
    # a column a parameter lists may change too (swapping's geography)
    named = {c for value in step.parameters.values() if isinstance(value, list) for c in value if isinstance(c, str)}
    for column in survey.columns:
        if column not in {*step.names, *named}:
            pd.testing.assert_series_equal(data[column], survey[column])
    assert outcome.step == step
    assert {m for m, r in STEP_METHODS.items() if r.stage == "microdata"} == {s.method for s in STEPS}


def _noise_specs():
    return [({"lambda2": 2500.0}, NoiseSpec()),
            ({"lambda2_frac": 0.2, "correlated": True}, NoiseSpec(relative=True, correlated=True)),
            ({"lambda2": 2500.0, "truncate_below": 700.0, "truncate_above": 1200.0},
             NoiseSpec(truncate_below=700.0, truncate_above=1200.0)),
            ({"lambda2_frac": 0.1, "unequal_above": 1000.0, "unequal_factor": 3.0, "unequal_column": "weight"},
             NoiseSpec(relative=True, unequal_above=1000.0, unequal_factor=3.0, unequal_column=1))]


@pytest.mark.parametrize(("parameters", "spec"), _noise_specs(), ids=["plain", "correlated", "truncated", "unequal"])
def test_noise_steps_are_add_noise_with_the_steps_seed(survey, parameters, spec):
    step = Step("noise", parameters, columns=["hh_size", "weight"], seed=11)
    data, _ = apply_step(survey, step)
    x = np.ascontiguousarray(survey[["hh_size", "weight"]].to_numpy(dtype=float))  # a step masks C-ordered data
    size = parameters.get("lambda2", parameters.get("lambda2_frac"))
    np.testing.assert_array_equal(data[["hh_size", "weight"]].to_numpy(), add_noise(x, size, spec, seed=11))
    if spec.truncated:
        assert data["weight"].between(700.0, 1200.0).all()


@pytest.mark.parametrize("algorithm", list(ALGORITHMS))
def test_every_microaggregation_algorithm_is_a_step(survey, algorithm):
    columns = ["weight"] if algorithm == "optimal" else ["weight", "age"]
    data, outcome = apply_step(survey, Step("microaggregation", {"k": 4, "algorithm": algorithm}, columns=columns))
    expected = microaggregate(np.ascontiguousarray(survey[columns].to_numpy(dtype=float)), 4, algorithm)
    np.testing.assert_array_equal(data[columns].to_numpy(), expected.masked)
    assert outcome.summary["information_loss"] == expected.information_loss
    assert outcome.summary["groups"] == expected.group_sizes.size


def test_rankswap_suppress_and_pram_steps_are_their_functions(survey):
    data, _ = apply_step(survey, Step("rankswap", {"swap_percent": 10}, columns=["age", "weight"], seed=5))
    expected = rank_swap(np.ascontiguousarray(survey[["age", "weight"]].to_numpy(dtype=float)), 10.0, seed=5)
    np.testing.assert_array_equal(data[["age", "weight"]].to_numpy(), expected)
    keys = ["age_band", "sex", "region"]
    data, outcome = apply_step(survey, Step("suppress", {"k": 3}, keys=keys))
    expected = local_suppression(survey, keys, k=3)
    pd.testing.assert_frame_equal(data, expected.data)
    assert outcome.summary["per_variable"] == expected.to_dict()["per_variable"]
    data, _ = apply_step(survey, Step("suppress", {"k": 2, "optimal": True}, keys=keys[:2] + ["marital"]))
    pd.testing.assert_frame_equal(data, optimal_suppression(survey, keys[:2] + ["marital"], 2).data)
    data, outcome = apply_step(survey, Step("pram", {"theta": 0.7}, keys=["sex", "region"], seed=9))
    expected = pram(survey, ["sex", "region"], 0.7, seed=9)
    pd.testing.assert_frame_equal(data, expected.data)
    assert outcome.summary["changed"] == {"sex": int(expected.changed[:, 0].sum()),
                                          "region": int(expected.changed[:, 1].sum())}


def test_recode_and_top_bottom_steps(survey):
    data, outcome = apply_step(survey, Step("recode", {"band_width": 10, "variable": "age",
                                                       "merge": {"region": {"R01": "north", "R02": "north"}}},
                                            keys=["age", "region"]))
    assert set(data["age"]) <= {f"{lo}-{lo + 9}" for lo in range(0, 110, 10)}
    assert (data["region"] == "north").sum() == survey["region"].isin(["R01", "R02"]).sum()
    assert outcome.summary["categories"]["region"] == {"before": 12, "after": 11}
    data, outcome = apply_step(survey, Step("top_bottom", {"variable": "age", "above": 80, "below": 20},
                                            keys=["age"]))
    assert (data["age"] == ">80").sum() == (survey["age"] > 80).sum() == outcome.summary["coded"]["above"]
    assert (data["age"] == "<20").sum() == (survey["age"] < 20).sum() == outcome.summary["coded"]["below"]


def test_merge_matches_numbers_read_from_a_file_by_their_text():
    frame = pd.DataFrame({"code": [1.0, 2.0, np.nan, 3.0]})
    data, _ = apply_step(frame, Step("recode", {"merge": {"code": {"1": "1-2", "2": "1-2"}}}, keys=["code"]))
    assert data["code"].tolist()[:2] == ["1-2", "1-2"] and pd.isna(data["code"].iloc[2]) and data["code"].iloc[3] == "3"


def test_a_suppressed_value_is_missing_in_the_written_file(survey):
    result = apply_plan(survey, ReleasePlan((Step("suppress", {"k": 5}, keys=["age_band", "sex", "region"]),)))
    written = read_table_bytes(table_bytes(result.data, "out.csv"), "out.csv")
    suppressed = result.data[["age_band", "sex", "region"]].isna()
    assert suppressed.to_numpy().any() and written[["age_band", "sex", "region"]].isna().equals(suppressed)


def test_a_plan_is_its_steps_in_order_and_twice_the_same(survey):
    plan = ReleasePlan(STEPS)
    first = apply_plan(survey, plan)
    current = survey
    for step in STEPS:
        current, _ = apply_step(current, step)
    pd.testing.assert_frame_equal(first.data, current)
    assert table_bytes(apply_plan(survey, plan).data, "x.parquet") == table_bytes(first.data, "x.parquet")
    assert len(first.outcomes) == len(STEPS) and first.inputs[0] is survey


@pytest.mark.parametrize("name", ["out.csv", "out.tsv", "out.parquet", "out.xlsx", "out.dta", "out.sav"])
def test_plan_gives_the_bytes_of_its_steps_released_one_at_a_time(name):
    frame = SURVEY.iloc[:300].copy()
    plan = ReleasePlan((Step("noise", {"lambda2_frac": 0.1}, columns=["weight"], seed=3),
                        Step("suppress", {"k": 2}, keys=["age_band", "sex"]),
                        Step("pram", {"theta": 0.9}, keys=["marital"], seed=8),
                        Step("microaggregation", {"k": 3}, columns=["weight", "hh_size"])))
    whole = table_bytes(apply_plan(frame, plan, between=name).data, name)
    released = frame
    for step in plan.steps:  # each step a release: its file, read back by the next
        content = table_bytes(apply_plan(released, ReleasePlan((step,))).data, name)
        released = read_table_bytes(content, name)
    assert whole == content
    assert table_bytes(apply_plan(frame, plan, between=name).data, name) == whole


def test_a_step_on_a_column_the_data_lacks_is_refused_naming_the_step(survey):
    plan = ReleasePlan((Step("pram", {"theta": 0.5}, keys=["sex"]), Step("rankswap", {"swap_percent": 5},
                                                                         columns=["income"])))
    with pytest.raises(InputError, match="step 2 \\(rankswap\\): .*no column 'income'"):
        apply_plan(survey, plan)
    with pytest.raises(InputError, match="is not numeric"):
        apply_step(survey, Step("microaggregation", {"k": 2}, columns=["sex"]))


@pytest.fixture
def generic_steps():
    """noise, microaggregation and rankswap registered again as ``<name>_generic`` without their own parameters
    and check: their steps' are then made from the records' grids and options."""
    from dataclasses import replace

    from rumap.maps.methods import METHODS, register_method

    names = ("noise", "microaggregation", "rankswap")
    for name in names:
        record = METHODS[name]
        register_method(f"{name}_generic", replace(record, release=replace(record.release, parameters=None,
                                                                           check=None)))
    try:
        yield
    finally:
        for name in names:
            METHODS.pop(f"{name}_generic", None)


@pytest.mark.parametrize("method, parameters", [
    ("noise", {"lambda2_frac": 0.2, "unequal_above": 8.0, "unequal_column": "b", "correlated": True,
               "truncate_below": 0.0}),
    ("noise", {"lambda2": 4.0}),
    ("microaggregation", {"k": 3, "algorithm": "mwa", "standardize": True}),
    ("rankswap", {"swap_percent": 15.0}),
])
def test_a_step_from_a_records_grid_and_options_is_the_written_one(generic_steps, method, parameters):
    frame = pd.DataFrame({"a": np.arange(1.0, 21.0), "b": np.arange(20.0, 0.0, -1.0) ** 1.5, "c": list("xy") * 10})
    written = Step(method, parameters, columns=("a", "b"), seed=4)
    generic = Step(f"{method}_generic", parameters, columns=("a", "b"), seed=4)
    release_only = {"decimals": None}  # the written step's rounding of its release, no option of the map
    assert {**dict(generic.parameters), **release_only} == {**dict(written.parameters), **release_only}
    assert STEP_METHODS[f"{method}_generic"].random == STEP_METHODS[method].random
    (data, outcome), (expected, expected_outcome) = apply_step(frame, generic), apply_step(frame, written)
    pd.testing.assert_frame_equal(data, expected)
    assert outcome.summary == expected_outcome.summary


def test_a_step_from_a_records_grid_and_options_is_checked(generic_steps):
    with pytest.raises(InputError, match="noise_generic needs one of the parameters lambda2 or lambda2_frac"):
        Step("noise_generic", {"lambda2": 1.0, "lambda2_frac": 0.1}, columns=("a",))
    with pytest.raises(InputError, match="parameter lambda2_frac must be a number >= 0, got -1.0"):
        Step("noise_generic", {"lambda2_frac": -1.0}, columns=("a",))
    with pytest.raises(InputError, match=r"parameter unequal_column must be one of the step's columns \(a\)"):
        Step("noise_generic", {"lambda2": 1.0, "unequal_column": "zz"}, columns=("a",))
    with pytest.raises(InputError, match=r"parameter k must be an integer >= 1, got 0"):
        Step("microaggregation_generic", {"k": 0}, columns=("a",))
    with pytest.raises(InputError, match="parameter algorithm must be one of"):
        Step("microaggregation_generic", {"k": 2, "algorithm": "nosuch"}, columns=("a",))
