"""``python -m rumap release``: the contract of its JSON, the formats of --out, plans, the report, bad input."""

from __future__ import annotations

import hashlib
import json

import pandas as pd
import pytest
from cli_helpers import ROOT, assert_bad_input, run_cli

from rumap.cli import main
from rumap.io.data import read_table
from rumap.release.plan import read_plan

SURVEY = ROOT / "data" / "survey.csv"
CONTRACT = {"out", "rows", "sha256_in", "sha256_out", "steps", "risk", "utility", "rumap_version"}


def release(capsys, *args: str) -> dict:
    """Run ``release ... --json`` in this process; its JSON."""
    code = main(["release", "--data", str(SURVEY), *map(str, args), "--json"])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    return json.loads(captured.out)


def bad(capsys, *args: str) -> str:
    """Run ``release`` with bad input: exit 2 and one line on stderr, which is returned."""
    code = main(["release", *map(str, args)])
    captured = capsys.readouterr()
    lines = captured.err.strip().splitlines()
    assert code == 2 and len(lines) == 1 and "Traceback" not in captured.err, captured.err
    return lines[0]


def sha256(path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.mark.parametrize("args", [
    ("--method", "microaggregation", "--columns", "weight,hh_size", "--k", "5", "--seed", "1"),
    ("--method", "noise", "--columns", "weight", "--lambda2-frac", "0.1"),
    ("--method", "noise", "--columns", "weight,age", "--lambda2", "100", "--correlated", "--truncate-below", "0",
     "--unequal-above", "1000", "--target-column", "weight"),
    ("--method", "rankswap", "--columns", "weight", "--swap-percent", "5"),
    ("--method", "suppress", "--keys", "age_band,sex,region", "--k", "3"),
    ("--method", "suppress", "--keys", "age_band,sex", "--k", "2", "--optimal", "--importance", "sex:2"),
    ("--method", "pram", "--keys", "sex,region", "--theta", "0.8"),
    ("--method", "recode", "--keys", "age,sex", "--band-width", "10", "--band-variable", "age"),
    ("--method", "recode", "--keys", "region", "--merge", "region:R01,R02=R01-02"),
    ("--method", "top_bottom", "--keys", "hh_size", "--top", "hh_size:5", "--bottom", "hh_size:2"),
    ("--method", "microaggregation", "--columns", "weight", "--k", "3", "--algorithm", "optimal"),
], ids=["microaggregation", "noise", "noise-options", "rankswap", "suppress", "suppress-optimal", "pram",
        "recode-band", "recode-merge", "top_bottom", "microaggregation-optimal"])
def test_every_method_as_one_step_keeps_the_json_contract(tmp_path, capsys, args):
    out = tmp_path / "out.csv"
    summary = release(capsys, *args, "--out", out, "--replicates", "4")
    assert CONTRACT <= set(summary)
    assert summary["out"] == str(out) and summary["rows"] == len(read_table(SURVEY))
    assert summary["sha256_in"] == sha256(SURVEY) and summary["sha256_out"] == sha256(out)
    assert len(summary["steps"]) == 1 and summary["steps"][0]["method"] == args[1]
    assert {"method", "parameters", "seed"} <= set(summary["steps"][0])
    assert ("columns" in summary["steps"][0]) != ("keys" in summary["steps"][0])
    original, released = pd.read_csv(SURVEY), pd.read_csv(out)
    assert list(released.columns) == list(original.columns)
    step = summary["steps"][0]
    for column in original.columns:  # the other columns pass through unchanged
        if column not in step.get("columns", step.get("keys")):
            pd.testing.assert_series_equal(released[column], original[column])
    # the steps are a plan: rerunning them gives the same bytes
    plan = tmp_path / "plan.json"
    plan.write_text(json.dumps(summary))
    again = release(capsys, "--plan", plan, "--out", tmp_path / "again.csv", "--no-prediction")
    assert again["sha256_out"] == summary["sha256_out"] and again["steps"] == summary["steps"]


@pytest.mark.parametrize("extension", ["csv", "tsv", "parquet", "xlsx", "dta", "sav"])
def test_the_format_follows_the_extension_of_out(tmp_path, capsys, extension):
    out = tmp_path / f"protected.{extension}"
    summary = release(capsys, "--method", "suppress", "--keys", "age_band,sex,region", "--k", "5", "--out", out)
    back = read_table(out)
    assert list(back.columns) == list(pd.read_csv(SURVEY).columns) and len(back) == summary["rows"]
    suppressed = summary["utility"]["categorical"]["suppressed"]
    missing = {k: int((back[k].isna() | (back[k].astype(str) == "")).sum()) for k in suppressed}
    assert missing == suppressed and sum(missing.values()) > 0  # a suppressed value is missing
    assert summary["sha256_out"] == sha256(out)


def test_a_plan_gives_the_bytes_of_its_steps_released_one_at_a_time_and_twice_the_same(tmp_path, capsys):
    steps = [{"method": "noise", "parameters": {"lambda2_frac": 0.05}, "columns": ["weight"], "seed": 7},
             {"method": "suppress", "parameters": {"k": 3}, "keys": ["age_band", "sex", "region"]},
             {"method": "pram", "parameters": {"theta": 0.9}, "keys": ["marital"], "seed": 2},
             {"method": "microaggregation", "parameters": {"k": 4}, "columns": ["weight", "hh_size"]}]
    plan = tmp_path / "plan.json"
    plan.write_text(json.dumps({"steps": steps}))
    whole = release(capsys, "--plan", plan, "--out", tmp_path / "whole.csv", "--no-prediction")
    twice = release(capsys, "--plan", plan, "--out", tmp_path / "twice.csv", "--no-prediction")
    assert (tmp_path / "whole.csv").read_bytes() == (tmp_path / "twice.csv").read_bytes()
    data = SURVEY
    for i, step in enumerate(steps):
        one = tmp_path / f"step{i}.json"
        one.write_text(json.dumps({"steps": [step]}))
        code = main(["release", "--data", str(data), "--plan", str(one), "--out", str(tmp_path / f"step{i}.csv"),
                     "--no-prediction"])
        capsys.readouterr()
        assert code == 0
        data = tmp_path / f"step{i}.csv"
    assert data.read_bytes() == (tmp_path / "whole.csv").read_bytes()
    assert whole["sha256_out"] == twice["sha256_out"] == sha256(data)
    assert read_plan(json.dumps(whole)).to_json() == read_plan(plan.read_text()).to_json()


def test_the_report_as_json_and_html_and_no_other_file_written(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    steps = [{"method": "rankswap", "parameters": {"swap_percent": 5}, "columns": ["weight", "age"], "seed": 1},
             {"method": "suppress", "parameters": {"k": 3}, "keys": ["age_band", "sex", "region"]}]
    (tmp_path / "plan.json").write_text(json.dumps({"steps": steps}))
    summary = release(capsys, "--plan", "plan.json", "--out", "out.parquet", "--report", "report.json",
                      "--weight", "weight", "--replicates", "5")
    report = json.loads((tmp_path / "report.json").read_text())
    assert report["rows"] == summary["rows"] and report["risk"] == json.loads(json.dumps(summary["risk"]))
    # linkage, interval disclosure, the snooper by index (by position the snooper of a permutation is exact)
    assert [len(s["checks"]) for s in report["steps"]] == [3, 0]
    assert set(summary["risk"]) == {"numeric", "categorical"}
    assert summary["report"] == "report.json"
    code = main(["release", "--data", str(SURVEY), "--plan", "plan.json", "--out", "out.csv", "--report",
                 "report.html", "--no-prediction"])
    text = capsys.readouterr().out
    assert code == 0 and "report written: report.html" in text
    page = (tmp_path / "report.html").read_text()
    assert page.startswith("<!DOCTYPE html>") and "Categorical keys" in page
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.csv", "out.parquet", "plan.json", "report.html",
                                                         "report.json"]


@pytest.mark.parametrize(("args", "fragment"), [
    (("--data", SURVEY, "--out", "x.csv"), "give --plan PLAN.json or --method METHOD"),
    (("--data", SURVEY, "--out", "x.doc", "--method", "pram", "--keys", "sex", "--theta", "0.5"), "unknown format"),
    (("--data", SURVEY, "--out", "x.csv", "--report", "r.pdf", "--method", "pram", "--keys", "sex", "--theta", "0.5"),
     "--report r.pdf: unknown format"),
    (("--data", SURVEY, "--out", "x.csv", "--method", "pram", "--columns", "sex", "--theta", "0.5"),
     "give --keys, not --columns"),
    (("--data", SURVEY, "--out", "x.csv", "--method", "pram", "--keys", "sex"), "needs the parameter(s) theta"),
    (("--data", SURVEY, "--out", "x.csv", "--method", "pram", "--keys", "sex", "--theta", "1.5"), "--theta"),
    (("--data", SURVEY, "--out", "x.csv", "--method", "pram", "--keys", "sex", "--theta", "0.5", "--k", "3"),
     "--k does not apply to --method pram"),
    (("--data", SURVEY, "--out", "x.csv", "--method", "noise", "--columns", "weight"), "lambda2"),
    (("--data", SURVEY, "--out", "x.csv", "--method", "microaggregation", "--columns", "weight", "--k", "0"),
     "--k must be"),
    (("--data", SURVEY, "--out", "x.csv", "--method", "microaggregation", "--columns", "income", "--k", "3"),
     "no column 'income'"),
    (("--data", SURVEY, "--out", "x.csv", "--method", "microaggregation", "--columns", "sex", "--k", "3"),
     "is not numeric"),
    (("--data", SURVEY, "--out", "x.csv", "--method", "microaggregation", "--columns", "weight", "--k", "99999"),
     "at most the number of records"),
    (("--data", SURVEY, "--out", "x.csv", "--method", "recode", "--keys", "age", "--top", "age:5"),
     "--top applies to --method top_bottom"),
    (("--data", SURVEY, "--out", "x.csv", "--method", "top_bottom", "--keys", "age", "--top", "age"),
     "--top must be VAR:NUMBER"),
    (("--data", SURVEY, "--out", "x.csv", "--method", "top_bottom", "--keys", "age", "--top", "age:\u0661"),
     "a finite number in ASCII digits"),
    (("--data", SURVEY, "--out", "x.csv", "--method", "pram", "--keys", "sex", "--theta", "0.5", "--seed", "-1"),
     "--seed"),
    (("--data", SURVEY, "--out", "x.csv", "--plan", "missing.json"), "--plan missing.json: no such file"),
    (("--data", "missing.csv", "--out", "x.csv", "--method", "pram", "--keys", "sex", "--theta", "0.5"),
     "no such file"),
    (("--data", SURVEY, "--out", "x.csv", "--method", "pram", "--keys", "sex", "--theta", "0.5", "--weight", "w"),
     "no column 'w'"),
    (("--data", SURVEY, "--out", "x.csv", "--method", "pram", "--keys", "sex", "--theta", "0.5", "--replicates",
      "1"), "--replicates"),
    (("--data", SURVEY, "--out", "x.csv", "--method", "blur"), "invalid choice"),
    (("--data", SURVEY, "--out", "x.csv", "--method", "noise", "--columns", "age", "--lambda2-frac", "0.1",
      "--no-prediction", "--replicates", "-1"), "--replicates and --target shape the maps' predictions"),
    (("--data", SURVEY, "--out", "x.csv", "--method", "noise", "--columns", "age", "--lambda2-frac", "0.1",
      "--no-prediction", "--target", "row:99999"), "--replicates and --target shape the maps' predictions"),
    (("--data", SURVEY, "--out", "x.csv", "--method", "noise", "--columns", "age", "--lambda2-frac", "0.1",
      "--weight", "weight"), "no step of the plan has keys"),
    (("--data", SURVEY, "--out", "x.csv", "--method", "pram", "--keys", "sex", "--theta", "0.5", "--weight",
      "region"), "weight 'region' must be a number >= 1"),
])
def test_bad_input_exits_2_with_one_line(tmp_path, capsys, monkeypatch, args, fragment):
    monkeypatch.chdir(tmp_path)
    line = bad(capsys, *args)
    assert fragment in line, line
    assert not (tmp_path / "x.csv").exists()


def test_a_bad_plan_names_the_file_and_the_step(tmp_path, capsys):
    plan = tmp_path / "plan.json"
    plan.write_text(json.dumps({"steps": [{"method": "pram", "parameters": {"theta": 0.5}, "keys": ["sex"]},
                                          {"method": "rankswap", "parameters": {}, "columns": ["weight"]}]}))
    line = bad(capsys, "--data", SURVEY, "--plan", plan, "--out", tmp_path / "x.csv")
    assert f"--plan {plan}: step 2: method rankswap needs the parameter(s) swap_percent" in line
    plan.write_text("not json")
    assert "--plan" in bad(capsys, "--data", SURVEY, "--plan", plan, "--out", tmp_path / "x.csv")
    plan.write_text(json.dumps({"steps": [{"method": "pram", "parameters": {"theta": 0.5}, "keys": ["sex"]}]}))
    assert "go" in bad(capsys, "--data", SURVEY, "--plan", plan, "--keys", "sex", "--out", tmp_path / "x.csv")


def test_a_zero_is_a_value(tmp_path, capsys):
    summary = release(capsys, "--method", "noise", "--columns", "weight", "--lambda2", "0", "--out",
                      tmp_path / "same.csv", "--no-prediction")
    assert summary["steps"][0]["parameters"]["lambda2"] == 0.0
    pd.testing.assert_series_equal(pd.read_csv(tmp_path / "same.csv")["weight"], pd.read_csv(SURVEY)["weight"],
                                   check_dtype=False)


def test_release_as_a_subprocess(tmp_path):
    out = tmp_path / "out.tsv"
    proc, summary = run_cli("release", "--data", SURVEY, "--method", "microaggregation", "--columns", "weight",
                            "--k", "3", "--out", out, "--json", "--no-prediction", check_json=True)
    assert summary["sha256_out"] == sha256(out) and summary["utility"]["numeric"]["sse_sst"] < 0.01
    assert_bad_input(run_cli("release", "--data", SURVEY, "--out", out), "--plan")


BAD_VALUES = ["abc", "", "nan", "inf", "-inf", "1e400", "-1", "2.5", ",", "x:nan", "x:1e400"]
FUZZ_BASES = {
    "--lambda2-frac": ["--method", "noise", "--columns", "weight,age", "--lambda2-frac", "0.1"],
    "--unequal-factor": ["--method", "noise", "--columns", "weight", "--lambda2", "1", "--unequal-above", "900",
                         "--unequal-factor", "2"],
    "--truncate-below": ["--method", "noise", "--columns", "weight", "--lambda2", "1", "--truncate-below", "0"],
    "--k": ["--method", "microaggregation", "--columns", "weight", "--k", "3"],
    "--swap-percent": ["--method", "rankswap", "--columns", "weight", "--swap-percent", "3"],
    "--theta": ["--method", "pram", "--keys", "sex", "--theta", "0.5"],
    "--importance": ["--method", "suppress", "--keys", "sex,region", "--k", "2", "--importance", "sex:1"],
    "--band-width": ["--method", "recode", "--keys", "age", "--band-width", "10", "--band-variable", "age"],
    "--top": ["--method", "top_bottom", "--keys", "age", "--top", "age:80"],
    "--columns": ["--method", "rankswap", "--columns", "weight", "--swap-percent", "3"],
}


@pytest.mark.parametrize("flag", list(FUZZ_BASES))
def test_malformed_values_exit_2_with_one_line_or_are_valid(tmp_path, capsys, flag):
    for value in BAD_VALUES:
        argv = list(FUZZ_BASES[flag])
        argv[argv.index(flag) + 1] = value
        code = main(["release", "--data", str(SURVEY), "--out", str(tmp_path / "x.csv"), "--no-prediction", *argv])
        captured = capsys.readouterr()
        if value in ("nan", "inf", "-inf", "1e400", "x:nan", "x:1e400", "abc", ""):
            assert code == 2, (flag, value)
        if code == 2:
            assert len(captured.err.strip().splitlines()) == 1 and "Traceback" not in captured.err, (flag, value)
        else:
            assert code == 0, (flag, value, captured.err)


def test_a_table_plan_writes_the_protected_table(tmp_path, capsys):
    from rumap.tables.microdata import example_microdata

    data = tmp_path / "firms.csv"
    example_microdata().to_csv(data, index=False)
    plan = tmp_path / "plan.json"
    plan.write_text(json.dumps({"steps": [
        {"method": "table", "parameters": {"response": "turnover"}, "keys": ["region", "size"]},
        {"method": "primary", "parameters": {"rule": "p-percent", "p": 10}},
        {"method": "secondary_suppression", "parameters": {"protection": 10}}]}))
    code = main(["release", "--data", str(data), "--plan", str(plan), "--out", str(tmp_path / "table.csv"), "--json",
                 "--report", str(tmp_path / "report.html")])
    summary = json.loads(capsys.readouterr().out)
    assert code == 0 and summary["rows"] == 3 and summary["risk"]["table"]["suppressed"] == 4
    table = pd.read_csv(tmp_path / "table.csv")
    assert list(table.columns) == ["region", "large", "medium", "small", "Total"]
    assert int(table.isna().sum().sum()) == 4 and summary["utility"]["table"]["cost"] > 0
    assert "--method" in bad(capsys, "--data", data, "--method", "primary", "--out", tmp_path / "x.csv")
    for step, expected in (({"method": "controlled_rounding", "parameters": {"base": 5}}, "rounded to base 5"),
                           ({"method": "secondary_suppression", "parameters": {}}, "4 cells suppressed")):
        text = json.loads(plan.read_text())
        text["steps"][2] = step
        plan.write_text(json.dumps(text))
        assert main(["release", "--data", str(data), "--plan", str(plan), "--out", str(tmp_path / "t.csv"),
                     "--no-prediction", "--overwrite"]) == 0
        assert expected in capsys.readouterr().out


def test_the_snooper_targets_of_the_report(tmp_path, capsys):
    summary = release(capsys, "--method", "noise", "--columns", "weight,age", "--lambda2-frac", "0.1", "--target",
                      "p90", "--target", "min", "--replicates", "5", "--out", tmp_path / "o.csv")
    measures = [c["measure"] for c in summary["predictions"][0]["checks"]]
    assert measures == ["record-linkage", "interval-disclosure", "snooper p90/index", "snooper p90/position",
                        "snooper min/index", "snooper min/position"]
    assert "--target" in bad(capsys, "--data", SURVEY, "--method", "noise", "--columns", "weight", "--lambda2", "1",
                             "--target", "nobody", "--out", tmp_path / "x.csv")


@pytest.mark.parametrize("flag", [("--lambda2-frac", "0.1"), ("--k", "3"), ("--theta", "0.5"), ("--optimal",),
                                  ("--top", "age:60"), ("--merge", "region:R01,R02=R"), ("--seed", "1")])
def test_a_one_step_flag_beside_a_plan_is_refused_not_ignored(tmp_path, capsys, flag):
    plan = tmp_path / "plan.json"
    plan.write_text('{"steps": [{"method": "noise", "columns": ["weight"], "parameters": {"lambda2_frac": 0.1}}]}')
    line = bad(capsys, "--data", SURVEY, "--plan", plan, "--out", tmp_path / "o.csv", *flag)
    assert f"{flag[0]} goes with --method" in line


def test_a_plan_on_a_device_is_refused_unread(tmp_path, capsys):
    assert "not a regular file" in bad(capsys, "--data", SURVEY, "--plan", "/dev/zero", "--out", tmp_path / "o.csv")


@pytest.mark.parametrize("step", [
    ("--method", "noise", "--columns", "weight,age", "--lambda2", "100", "--truncate-below", "0", "--seed", "3"),
    ("--method", "pram", "--keys", "sex,region", "--theta", "0.5", "--seed", "4"),
    ("--method", "microaggregation", "--columns", "weight,age", "--k", "3", "--algorithm", "optimal_pc1"),
    ("--method", "rankswap", "--columns", "weight", "--swap-percent", "5", "--seed", "2"),
    ("--method", "suppress", "--keys", "sex,region,age", "--k", "3"),
])
def test_chunk_by_chunk_gives_the_in_memory_release_and_its_keys(tmp_path, capsys, step):
    data = tmp_path / "survey.parquet"
    read_table(SURVEY).to_parquet(data, index=False)
    whole = json.loads(_run(capsys, "--data", data, *step, "--out", tmp_path / "whole.parquet", "--no-prediction"))
    chunked = json.loads(_run(capsys, "--data", data, *step, "--out", tmp_path / "chunked.parquet",
                              "--chunk-size", "500"))
    assert set(chunked) == set(whole) and chunked["steps"] == whole["steps"] and chunked["rows"] == whole["rows"]
    assert chunked["sha256_in"] == whole["sha256_in"] == sha256(data)
    assert chunked["sha256_out"] == sha256(tmp_path / "chunked.parquet")
    pd.testing.assert_frame_equal(pd.read_parquet(tmp_path / "chunked.parquet"),
                                  pd.read_parquet(tmp_path / "whole.parquet"))
    assert "chunk by chunk" in chunked["notes"][0]
    assert chunked["step_summaries"] == whole["step_summaries"]  # the same kernel on the same numbers: exact


@pytest.mark.parametrize(("args", "fragment"), [
    (("--method", "microaggregation", "--columns", "weight", "--k", "3", "--work-limit", "1e6"),
     "step 1 (microaggregation): the run needs"),
    (("--plan", "TABLE_PLAN"), "step 1 (table) cannot be applied chunk by chunk"),
    (("--method", "noise", "--columns", "weight", "--lambda2", "1", "--report", "r.html"), "--report"),
    (("--method", "noise", "--columns", "weight", "--lambda2", "1", "--chunk-size", "0"), "--chunk-size must be"),
])
def test_chunk_by_chunk_refusals(tmp_path, capsys, args, fragment):
    data = tmp_path / "survey.parquet"
    read_table(SURVEY).to_parquet(data, index=False)
    extra = () if "--chunk-size" in args else ("--chunk-size", "10")
    table_plan = tmp_path / "table.json"
    table_plan.write_text('{"steps": [{"method": "table", "keys": ["sex", "region"]}]}')
    args = tuple(str(table_plan) if a == "TABLE_PLAN" else a for a in args)
    assert fragment in bad(capsys, "--data", data, "--out", tmp_path / "o.parquet", *args, *extra)
    assert "reads a .parquet --data" in bad(capsys, "--data", SURVEY, "--out", tmp_path / "o.csv", "--method", "noise",
                                            "--columns", "weight", "--lambda2", "1", "--chunk-size", "10")


def _run(capsys, *args) -> str:
    code = main(["release", *map(str, args), "--json"])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    return captured.out


def test_a_plan_over_the_work_limit_is_refused_before_the_file_is_read_with_what_would_fit(tmp_path, capsys,
                                                                                           monkeypatch):
    import rumap.io.parquet

    data = tmp_path / "survey.parquet"
    read_table(SURVEY).to_parquet(data, index=False)  # 2,329 records x 10 columns
    step = ("--method", "pram", "--keys", "sex,region", "--theta", "0.5", "--seed", "4", "--work-limit", "3e5")

    def unread(*args, **kwargs):
        raise AssertionError("the file was read")

    monkeypatch.setattr(rumap.io.parquet, "read_parquet_frame", unread)
    message = bad(capsys, "--data", data, "--out", tmp_path / "o.parquet", *step, "--replicates", "60")
    # 2,329 x 10 for the step, 2,329 x 2 for each simulated release: 59 fit under 3e5 (60 do not)
    assert message.endswith("give --replicates 59 or --no-prediction, or --engine scale (the plan applied chunk by "
                            "chunk, without the report) (--work-limit raises the limit on the command line)"), message
    assert 2329 * 10 + 59 * 2329 * 2 <= 3e5 < 2329 * 10 + 60 * 2329 * 2
    message = bad(capsys, "--data", data, "--out", tmp_path / "o.csv", *step, "--replicates", "60")
    assert message.endswith("give --replicates 59 or --no-prediction (--work-limit raises the limit on the command "
                            "line)"), message  # a CSV --out: no chunks
    monkeypatch.undo()
    assert json.loads(_run(capsys, "--data", data, "--out", tmp_path / "o.parquet", *step, "--replicates", "59"))
