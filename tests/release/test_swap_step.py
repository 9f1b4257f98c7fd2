"""Targeted record swapping as a step of a release plan: the file ``protect swap`` writes, to the byte."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest
from cli_helpers import assert_bad_input, run_cli

from rumap.errors import InputError
from rumap.maps.swap_map import swap_map
from rumap.masking.targeted_swap import targeted_swap
from rumap.present.release_report import release_report_html
from rumap.release.apply import STEP_METHODS, apply_plan
from rumap.release.from_map import KEY_MAP_STEPS, step_from_key_map
from rumap.release.plan import ReleasePlan, Step
from rumap.release.report import ReleaseReport, StepReport, predict_step, release_report

DATA = Path(__file__).resolve().parent.parent / "data" / "swap"
PERSONS = pd.read_csv(DATA / "persons.csv").query("hid < 120")  # 120 households in 2 regions, 6 districts
PARAMETERS = {"hierarchy": ["region", "district"], "household": "hid", "similar": [["hsize", "region"], ["hsize"]],
              "k": 3, "swaprate": 0.1}


def test_a_plans_swap_step_writes_the_bytes_protect_swap_writes(tmp_path):
    persons = tmp_path / "persons.csv"
    PERSONS.to_csv(persons, index=False)
    plan = tmp_path / "plan.json"
    plan.write_text(ReleasePlan((Step("swap", PARAMETERS, keys=["sex", "age"], seed=4),)).to_json())
    released, swapped = tmp_path / "released.csv", tmp_path / "swapped.csv"
    _, doc = run_cli("release", "--data", persons, "--plan", plan, "--out", released, "--json",
                     "--no-prediction", check_json=True)
    _, alone = run_cli("protect", "swap", "--data", persons, "--hierarchy", "region,district",
                       "--keys", "sex,age", "--household", "hid", "--similar", "hsize+region,hsize", "--k", "3",
                       "--swaprate", "0.1", "--seed", "4", "--out", swapped, "--json", check_json=True)
    assert released.read_bytes() == swapped.read_bytes()
    assert not pd.read_csv(released).equals(PERSONS)  # households did move
    summary = doc["step_summaries"][0]
    assert {k: summary[k] for k in ("swapped_households", "records_swapped", "levels", "unswapped_at_risk")} == \
        {k: alone[k] for k in ("swapped_households", "records_swapped", "levels", "unswapped_at_risk")}
    # one step from the flags of `release` is the same step
    flags = run_cli("release", "--data", persons, "--method", "swap", "--keys", "sex,age",
                    "--hierarchy", "region,district", "--household", "hid", "--similar", "hsize+region,hsize",
                    "--k", "3", "--swaprate", "0.1", "--seed", "4", "--out", tmp_path / "flags.csv", "--json",
                    "--no-prediction", check_json=True)[1]
    assert flags["steps"] == doc["steps"] and (tmp_path / "flags.csv").read_bytes() == swapped.read_bytes()


def test_the_step_is_targeted_swap_and_its_summary_counts():
    step = Step("swap", {**PARAMETERS, "carry_along": []}, keys=("sex", "age"), seed=2)
    result = apply_plan(PERSONS, ReleasePlan((step,)))
    direct = targeted_swap(PERSONS, ["region", "district"], ["sex", "age"], "hid", [["hsize", "region"], ["hsize"]],
                           k=3, swaprate=0.1, seed=2)
    pd.testing.assert_frame_equal(result.data, direct.data)
    summary = result.outcomes[0].summary
    assert "config" not in summary and summary["swapped_households"] == direct.swapped_households
    json.dumps(summary)
    levels = summary["levels"]
    words = StepReport(step, summary).what_it_did  # in words on the Release page and in the report
    assert words.startswith(f"swapped the geography of {direct.swapped_households} of 120 households "
                            f"({direct.swapped_households / 120:.1%}, {summary['records_swapped']} records): ")
    assert f": {levels['region']['households']} to another region, {levels['district']['households']} to another " \
           "district; households holding a record at risk: " \
           f"{levels['region']['households_at_risk']} in their region, " \
           f"{levels['district']['households_at_risk']} in their district." in words
    html = release_report_html(ReleaseReport(rows=len(PERSONS), steps=(StepReport(step, summary),)))
    assert f"What it did: {words}" in html and "What it did, counted: <code>" in html
    assert Step.from_dict(step.to_dict()) == step
    assert step.parameters["carry_along"] == [] and Step("swap", PARAMETERS, keys=["sex"]).seed == 0


@pytest.mark.parametrize(("change", "fragment"), [
    ({"hierarchy": []}, r"parameter hierarchy must be a list of column names \(at least 1\)"),
    ({"hierarchy": "region"}, "parameter hierarchy must be a list of column names"),
    ({"household": ""}, "parameter household must be a column name"),
    ({"similar": ["hsize"]}, "parameter similar must be a list of lists of column names; item 1 is 'hsize'"),
    ({"similar": [["hsize", "hsize"]]}, r"parameter similar\[0\] names a column twice"),
    ({"k": 0}, "parameter k must be"),
    ({"swaprate": 1.5}, "parameter swaprate must be"),
])
def test_bad_parameters_are_refused_by_name(change, fragment):
    with pytest.raises(InputError, match=fragment):
        Step("swap", {**PARAMETERS, **change}, keys=["sex"])


def test_a_missing_column_and_the_flags_of_other_methods_are_refused(tmp_path):
    step = Step("swap", {**PARAMETERS, "carry_along": ["office"]}, keys=["sex"])
    with pytest.raises(InputError, match=r"step 1 \(swap\): steps\[0\]\.parameters\.carry_along: no column 'office' "
                                         r"in the data"):
        apply_plan(PERSONS, ReleasePlan((step,)))
    base = ("release", "--data", DATA / "persons.csv", "--out", tmp_path / "x.csv", "--no-prediction")
    assert_bad_input(run_cli(*base, "--method", "pram", "--theta", "0.5", "--keys", "sex", "--hierarchy", "region"),
                     "--hierarchy applies to --method swap, not pram")
    assert_bad_input(run_cli(*base, "--method", "swap", "--keys", "sex", "--hierarchy", "region", "--household",
                             "hid", "--similar", "hsize", "--swaprate", "2"), "--swaprate")


def test_apply_on_the_swap_map_gives_the_step_and_the_report_predicts_it():
    curve = swap_map(PERSONS, ["sex", "age"], [0.05, 0.1], hierarchy=["region", "district"], household="hid",
                     similar=[["hsize"]], k=3, replicates=2, seed=0)
    assert KEY_MAP_STEPS[curve.method] == ("swap", "swaprate")
    step = step_from_key_map(curve, ["sex", "age"], 0.1, seed=0)
    assert step == Step("swap", {"hierarchy": ["region", "district"], "household": "hid", "similar": [["hsize"]],
                                 "swaprate": 0.1}, keys=["sex", "age"], seed=0)
    result = apply_plan(PERSONS, ReleasePlan((step,)))
    (check,), note = predict_step(step, PERSONS, result.data, replicates=2)
    assert check.measure == "key_matching" and 0 < check.value <= 1 and "swap rate" in note
    # the report measures the keys with the geography, as the map does: what the swap changed is the geography
    categorical = release_report(PERSONS, result, replicates=None).categorical
    moved = result.data[["region", "district"]].ne(PERSONS[["region", "district"]])
    assert categorical["keys"] == ["region", "district", "sex", "age"]
    assert categorical["changed"] == {"region": int(moved["region"].sum()), "district": int(moved["district"].sum()),
                                      "sex": 0, "age": 0} and moved.any(axis=None)
    assert categorical["after"]["global_risk"] != categorical["before"]["global_risk"]
    assert STEP_METHODS["swap"].stream is None and "household" in STEP_METHODS["swap"].not_streamed
