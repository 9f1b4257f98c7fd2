"""Release plans: steps checked once, defaults filled in, and the plan file read back to the same bytes."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rumap.errors import InputError
from rumap.release.apply import STEP_METHODS
from rumap.release.plan import PLAN_FORMAT, ReleasePlan, Step, read_plan

#: One step of every method, with parameters as a user writes them (defaults left out).
STEPS = (
    Step("swap", {"hierarchy": ["region"], "household": "hh", "similar": [["hh_size"]], "swaprate": 0.05},
         keys=["age_band", "sex"], seed=6),  # first: its geography is one per household in the original only
    Step("noise", {"lambda2_frac": 0.1}, columns=["weight", "hh_size"], seed=1),
    Step("noise", {"lambda2": 4.0, "correlated": True, "truncate_below": 0.0, "unequal_above": 1000.0,
                   "unequal_column": "weight"}, columns=["hh_size", "weight"], seed=2),
    Step("microaggregation", {"k": 3, "algorithm": "mwa"}, columns=["weight"]),
    Step("rankswap", {"swap_percent": 5}, columns=["hh_size"], seed=3),
    Step("recode", {"band_width": 10, "variable": "age"}, keys=["age", "sex"]),
    Step("recode", {"merge": {"region": {"R01": "R01-02", "R02": "R01-02"}}}, keys=["region", "sex"]),
    Step("top_bottom", {"variable": "hh_size", "above": 5}, keys=["hh_size"]),
    Step("suppress", {"k": 3}, keys=["age_band", "sex", "region"]),
    Step("suppress", {"k": 2, "optimal": True, "importance": {"sex": 2}}, keys=["marital", "sex"]),
    Step("pram", {"theta": 0.8}, keys=["occupation"], seed=4),
    Step("granularity", {"level": 40.0, "types": ["proportional", "odd"]}, keys=["sex", "marital", "region"]),
    Step("synthesize", {"generator": "copula"}, columns=["weight", "hh", "region", "hh_size", "age", "age_band", "sex",
                                                         "marital", "occupation", "health"], seed=5),
)


def test_every_step_method_on_microdata_has_a_step_here():
    assert {s.method for s in STEPS} == {m for m, r in STEP_METHODS.items() if r.stage == "microdata"}
    assert set(STEP_METHODS) == {s.method for s in STEPS} | {"table", "primary", "secondary_suppression",
                                                             "controlled_rounding", "cell_key"}  # the tables' steps


def test_plan_round_trips_to_the_same_bytes():
    text = ReleasePlan(STEPS).to_json()
    again = read_plan(text)
    assert again == ReleasePlan(STEPS)
    assert again.to_json() == text
    assert read_plan(text.encode("utf-8")).to_json() == text
    data = json.loads(text)
    assert data["format"] == PLAN_FORMAT and len(data["steps"]) == len(STEPS)
    for entry in data["steps"]:  # the keys of the steps of `release --json`, and no other
        assert set(entry) in ({"method", "parameters", "columns", "seed"}, {"method", "parameters", "keys", "seed"})


def test_defaults_are_filled_in_and_seeds_default_to_zero_for_methods_that_draw():
    micro = Step("microaggregation", {"k": 5}, columns=["a"])
    assert micro.parameters == {"k": 5, "algorithm": "mdav", "standardize": False, "criterion": "pc1"}
    assert micro.seed is None
    assert Step("pram", {"theta": 0.5}, keys=["s"]).seed == 0
    noise = Step("noise", {"lambda2": 1}, columns=["a", "b"])
    assert noise.parameters["unequal_column"] == "a" and noise.parameters["lambda2"] == 1.0
    assert "lambda2_frac" not in noise.parameters


def test_the_json_of_a_release_is_a_plan():
    output = {"out": "x.csv", "rows": 3, "steps": [STEPS[0].to_dict()], "risk": {}, "rumap_version": "0"}
    assert read_plan(json.dumps(output)).steps == (STEPS[0],)


@pytest.mark.parametrize(("make", "fragment"), [
    (lambda: Step("blur", {}, columns=["a"]), "method must be one of"),
    (lambda: Step("microaggregation", {}, columns=["a"]), "needs the parameter(s) k"),
    (lambda: Step("microaggregation", {"k": 0}, columns=["a"]), "parameter k must be"),
    (lambda: Step("microaggregation", {"k": 2, "size": 3}, columns=["a"]), "unknown parameter(s) 'size'"),
    (lambda: Step("microaggregation", {"k": 2, "algorithm": "best"}, columns=["a"]), "parameter algorithm"),
    (lambda: Step("microaggregation", {"k": 2}, keys=["a"]), "protects columns, not keys"),
    (lambda: Step("pram", {"theta": 0.5}, columns=["a"]), "protects keys, not columns"),
    (lambda: Step("pram", {"theta": 1.5}, keys=["a"]), "parameter theta"),
    (lambda: Step("pram", {"theta": 0.5}, keys=["a", "a"]), "names a column twice"),
    (lambda: Step("pram", {"theta": 0.5}, keys=[]), "non-empty list"),
    (lambda: Step("pram", {"theta": 0.5}, keys=["a"], seed=-1), "seed"),
    (lambda: Step("noise", {"lambda2": 1, "lambda2_frac": 0.1}, columns=["a"]), "one of the parameters"),
    (lambda: Step("noise", {"lambda2": -1}, columns=["a"]), "parameter lambda2"),
    (lambda: Step("noise", {"lambda2": 1, "truncate_below": 2, "truncate_above": 1}, columns=["a"]), "truncate_below"),
    (lambda: Step("noise", {"lambda2": 1, "unequal_column": "z"}, columns=["a"]), "unequal_column"),
    (lambda: Step("noise", {"lambda2": 1, "correlated": "yes"}, columns=["a"]), "true or false"),
    (lambda: Step("rankswap", {"swap_percent": 101}, columns=["a"]), "swap_percent"),
    (lambda: Step("recode", {}, keys=["a"]), "recode needs"),
    (lambda: Step("recode", {"band_width": 5}, keys=["a"]), "needs variable"),
    (lambda: Step("recode", {"band_width": 5, "variable": "b"}, keys=["a"]), "parameter variable"),
    (lambda: Step("recode", {"merge": {"a": {"x": 1}}}, keys=["a"]), "parameter merge"),
    (lambda: Step("top_bottom", {"variable": "a"}, keys=["a"]), "above, below or both"),
    (lambda: Step("top_bottom", {"variable": "a", "above": 1, "below": 2}, keys=["a"]), "must not exceed"),
    (lambda: Step("suppress", {"k": 2, "importance": {"a": "high"}}, keys=["a"]), "importance"),
    (lambda: ReleasePlan(()), "at least one step"),
    (lambda: ReleasePlan((Step("pram", {"theta": 0.5}, keys=["a"]),) * 101),
     "steps: a release plan holds at most 100 steps, got 101"),
    (lambda: read_plan(json.dumps({"steps": [{"method": "pram", "parameters": {"theta": 0.5}, "keys": ["a"]}] * 1000})),
     "steps: a release plan holds at most 100 steps, got 1000"),
    (lambda: read_plan('{"steps": [{"method": "pram", "parameters": {"theta": 0.5}, "keys": ["a"]}, '
                       '{"method": "microaggregation", "parameters": {"k": 0}, "columns": ["b"]}]}'),
     "step 2: steps[1].parameters.k must be an integer >= 1, got 0"),
    (lambda: read_plan("{"), "the plan"),
    (lambda: read_plan('{"steps": {}}'), "steps"),
    (lambda: read_plan('{"format": "rumap-config/1", "steps": []}'), "not a release plan"),
    (lambda: read_plan('{"steps": [{"method": "pram", "parameters": {"theta": 0.5}, "keys": ["a"], "sed": 1}]}'),
     "step 1: unknown key(s) 'sed'"),
    (lambda: read_plan('{"steps": [{"parameters": {}}]}'), "step 1: no method"),
    (lambda: read_plan('{"steps": [{"method": "pram", "parameters": {"theta": 2}, "keys": ["a"]}]}'),
     "step 1: steps[0].parameters.theta must be a number in [0, 1], got 2.0"),
])
def test_bad_steps_and_plans_raise_input_error(make, fragment):
    with pytest.raises(InputError) as caught:
        make()
    assert fragment in str(caught.value)


NAMES = st.lists(st.text(alphabet="abcxyz_ ", min_size=1, max_size=6).filter(str.strip), min_size=1, max_size=3,
                 unique_by=str.strip)


@st.composite
def steps(draw) -> Step:
    kind = draw(st.sampled_from(["noise", "microaggregation", "rankswap", "pram", "suppress"]))
    names = draw(NAMES)
    seed = draw(st.one_of(st.none(), st.integers(0, 2**32)))
    if kind == "noise":
        size = draw(st.sampled_from(["lambda2", "lambda2_frac"]))
        return Step(kind, {size: draw(st.floats(0, 1e6)), "correlated": draw(st.booleans())}, columns=names,
                    seed=seed)
    if kind == "microaggregation":
        return Step(kind, {"k": draw(st.integers(1, 50)), "algorithm": draw(st.sampled_from(["mdav", "mwa"]))},
                    columns=names, seed=seed)
    if kind == "rankswap":
        return Step(kind, {"swap_percent": draw(st.floats(0, 100))}, columns=names, seed=seed)
    if kind == "pram":
        return Step(kind, {"theta": draw(st.floats(0, 1))}, keys=names, seed=seed)
    return Step(kind, {"k": draw(st.integers(1, 9)), "optimal": draw(st.booleans())}, keys=names, seed=seed)


@given(st.lists(steps(), min_size=1, max_size=5))
def test_any_plan_round_trips_to_the_same_bytes(drawn):
    text = ReleasePlan(drawn).to_json()
    assert read_plan(text).to_json() == text
    assert read_plan(text) == ReleasePlan(drawn)
