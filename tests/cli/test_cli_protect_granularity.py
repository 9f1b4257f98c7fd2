"""``protect granularity`` and the ``granularity`` release step: flags, JSON keys, exit codes, the file written."""

from __future__ import annotations

import json

import pandas as pd
import pytest
from cli_helpers import assert_bad_input, run_cli

from rumap.io.data import read_table
from rumap.release.apply import apply_plan
from rumap.release.plan import ReleasePlan, Step, read_plan
from rumap.tables.granularity import granularity_analysis


@pytest.fixture
def survey(tmp_path):
    rows = [("f", "20-29", "a"), ("f", "20-29", "a"), ("m", "20-29", "a"), ("m", "20-29", "b"), ("f", "30-39", "b"),
            ("f", "30-39", "b"), ("m", "30-39", "b"), ("m", "40-49", "c"), ("f", "40-49", "a"), ("m", "40-49", "c"),
            ("f", "20-29", "c"), ("m", "30-39", "a")] * 2 + [("f", "50-59", "c"), ("m", "20-29", "d")]
    path = tmp_path / "survey.csv"
    pd.DataFrame(rows, columns=["sex", "age", "region"]).assign(id=range(len(rows))).to_csv(path, index=False)
    return path


def test_json_moves_and_the_written_file(survey, tmp_path):
    out = tmp_path / "safe.csv"
    proc, result = run_cli("protect", "granularity", "--data", survey, "--keys", "sex,age,region", "--level", "40",
                           "--out", out, "--json", check_json=True)
    assert {"moves", "index_before", "index_after", "suppressed", "merged", "rules", "risk_before", "risk_after",
            "reached", "out", "detected"} <= set(result)
    assert len(result["detected"]) == result["flagged_before"]["unsafe"] > 0
    assert all(row["unsafe"] and {"table", "fixed", "index", "proportional", "odd", "dispersed"} <= set(row)
               for row in result["detected"])
    assert result["method"] == "granularity" and result["reached"] is True and result["moves"]
    assert set(result["rules"]["rules"]) == {"proportional", "odd", "dispersed"}
    assert max(result["index_before"].values()) >= 40 > max(result["index_after"].values())
    written = read_table(str(out))
    analysis = granularity_analysis(written, ["sex", "age", "region"], threshold=40.0)
    assert (analysis.tables["max_index"] < 40).all()
    assert int(written[["sex", "age", "region"]].isna().sum().sum()) == result["suppressed"]
    _, again = run_cli("protect", "granularity", "--data", survey, "--keys", "sex,age,region", "--level", "40",
                       "--json", check_json=True)
    assert again["moves"] == result["moves"]  # no seed, the same moves


def test_merge_only_with_a_hierarchy_file_and_text_output(survey, tmp_path):
    tree = tmp_path / "region.csv"
    tree.write_text("parent,child\nwest,a\nwest,b\neast,c\neast,d\n")
    proc, result = run_cli("protect", "granularity", "--data", survey, "--keys", "sex,age,region", "--merge-only",
                           "--hierarchy", f"region={tree}", "--types", "proportional", "--json", check_json=True)
    assert result["suppressed"] == 0 and list(result["rules"]["rules"]) == ["proportional"]
    for mapping in result["merged"].get("region", {}).values():
        assert mapping in ("west", "east") or {m for m in mapping.split(" + ")} <= {"a", "b"} or \
            {m for m in mapping.split(" + ")} <= {"c", "d"}
    proc = run_cli("protect", "granularity", "--data", survey, "--keys", "sex,age,region", "--suppress-only")
    assert proc.returncode == 0 and "suppress" in proc.stdout and "largest index per table" in proc.stdout


def test_odd_cells_by_a_population_file(survey, tmp_path):
    """A population where people of 50-59 are common: the one 50-59 record (f, c) is an odd unit cell."""
    population = tmp_path / "ages.csv"
    population.write_text("age,people\n20-29,10\n30-39,10\n40-49,10\n50-59,1000\n")
    argv = ["protect", "granularity", "--data", survey, "--keys", "sex,age,region", "--types", "odd", "--json"]
    _, plain = run_cli(*argv, check_json=True)
    _, judged = run_cli(*argv, "--population", f"age={population}", check_json=True)
    assert plain["flagged_before"]["odd"] == 0 < judged["flagged_before"]["odd"]
    assert judged["rules"]["population"] == ["age"] and judged["reached"]
    assert_bad_input(run_cli(*argv, "--population", f"nope={population}"), "--population")


@pytest.mark.parametrize(("args", "fragment"), [
    (["--level", "0"], "--level"), (["--types", "odd,nobody"], "--types"), (["--keys", "sex"], "2 key"),
    (["--merge-only", "--suppress-only"], "not allowed"), (["--hierarchy", "nope=x.csv"], "--keys"),
    (["--dispersed-frequency", "0"], "--dispersed-frequency"), (["--odd-expected", "nan"], "--odd-expected"),
    (["--ordered", "income"], "--ordered"),
])
def test_bad_input_exits_2_with_one_line(survey, args, fragment):
    argv = ["protect", "granularity", "--data", str(survey), "--keys", "sex,age,region"]
    if "--keys" in args:
        argv = argv[:-2]
    assert_bad_input(run_cli(*argv, *args), fragment)


def test_the_release_step_in_a_plan_and_by_release_method(survey, tmp_path):
    frame = read_table(str(survey))
    step = Step("granularity", {"level": 40.0, "moves": "suppress"}, keys=["sex", "age", "region"])
    assert read_plan(json.dumps({"steps": [step.to_dict()]}).encode()).steps[0] == step
    result = apply_plan(frame, ReleasePlan((step,)))
    summary = result.outcomes[0].summary
    assert summary["reached"] and summary["merges"] == 0 and summary["suppressed"] > 0
    assert granularity_analysis(result.data, ["sex", "age", "region"], threshold=40.0).safe
    out = tmp_path / "released.csv"
    _, released = run_cli("release", "--data", survey, "--method", "granularity", "--keys", "sex,age,region",
                          "--level", "40", "--out", out, "--no-prediction", "--json", check_json=True)
    assert released["step_summaries"][0]["reached"] is True
    for bad, fragment in (({"types": ["nobody"]}, "types"), ({"moves": "x"}, "moves"),
                          ({"hierarchy": {"nope": {"a": "b"}}}, "hierarchy"), ({"level": 101}, "level")):
        with pytest.raises(Exception, match=fragment):
            Step("granularity", bad, keys=["sex", "age", "region"])
