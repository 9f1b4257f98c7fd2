"""Hostile inputs named where they are: the column, the 1-based row or line, the value, the flag or plan key.

Each case runs in this process on a tiny file (``rumap.cli.main`` through
:func:`cli_helpers.run_cli`, or the Python function), and the in-memory and
the out-of-core readers must refuse the same files with the same message.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_helpers import assert_bad_input, run_cli

pytest.importorskip("polars")

WIDE = 1600  # columns of a header of about 80 KB: longer than the 64 KB a reader sniffs
LONG_NAME = "a_variable_with_a_long_descriptive_name_{:05d}"

#: name -> (file's text, the message both readers give, after "FILE: ").
READING = {
    "short row": ("sex,region\nf,a\nm\nf,b\n", "line 3 has 1 field(s) but the header has 2 (line 1 is the header)"),
    "long row": ("sex,region\nf,a\nm,b,c\n", "line 3 has 3 field(s) but the header has 2 (line 1 is the header)"),
    "long and short rows": ("sex,region\nf,a\nm\nf,b,c\n",
                            "line 3 has 1 field(s) but the header has 2 (line 1 is the header)"),
    "first row long": ("sex,region\nf,a,b\nm\nf,b\n",
                       "line 2 has 3 field(s) but the header has 2 (line 1 is the header)"),
    "quoted short row": ('sex,region\n"f","a"\n"m"\n', "line 3 has 1 field(s) but the header has 2 (line 1 is the header)"),
    "duplicated header": ("sex,region,sex\nf,a,b\nm,b,a\n",
                          "the header names a column more than once: 'sex' (columns 1 and 3)"),
    "wide duplicated header": (",".join(["sex", "region", *map(LONG_NAME.format, range(WIDE)), "sex"]) + "\n"
                               + ",".join(["f"] * (WIDE + 3)) + "\n" + ",".join(["m"] * (WIDE + 3)) + "\n",
                               f"the header names a column more than once: 'sex' (columns 1 and {WIDE + 3})"),
}


#: name -> (file's text, the message, after "FILE: "): a value that is no weight, wherever it is.
WEIGHTS = {
    "text deep in the column": ("sex,w\n" + "".join(f"{'fm'[i % 2]},{10 + i}\n" for i in range(150)) + "m,abc\n",
                                "weight 'w' must be a number >= 1 in every record, got abc in row 151"),
    "below 1": ("sex,w\nf,10\nm,0.5\nf,2\n", "weight 'w' must be a number >= 1 in every record, got 0.5 in row 2"),
}
#: name -> (file's text, the flags after --data FILE, the message after "FILE: ").
FILES = {**{f"reading: {name}": (text, ["--keys", "sex,region"], message) for name, (text, message) in READING.items()},
         **{f"weight: {name}": (text, ["--keys", "sex", "--weight", "w"], message)
            for name, (text, message) in WEIGHTS.items()}}


@pytest.mark.parametrize("case", FILES)
@pytest.mark.parametrize("engine", ["memory", "scale"])
def test_both_readers_refuse_a_file_with_one_message(tmp_path, case, engine):
    text, flags, message = FILES[case]
    path = tmp_path / "data.csv"
    path.write_text(text)
    assert_bad_input(run_cli("risk", "individual", "--data", path, *flags, "--engine", engine),
                     f"error: {path}: {message}")


def _cut_header() -> list[str]:
    """Names whose header's first 64 KB end in the middle of a name, right after a name given before."""
    names, size = ["sex", "region"], len("sex,region,")
    while size < 65536 - 200:
        names.append(f"variable_{len(names):05d}_with_a_long_descriptive_name")
        size += len(names[-1]) + 1
    names.append("f" * (65536 - size - 1 - len(names[2])))  # then the name crosses byte 65536 just after names[2]
    return [*names, names[2] + "_and_more", "last"]


def test_a_header_longer_than_the_sniffed_bytes_is_read_whole(tmp_path):
    from rumap.io.data import read_table
    from rumap.scale import scan

    names = _cut_header()
    path = tmp_path / "wide.csv"
    path.write_text(",".join(names) + "\n" + ",".join(["f"] * len(names)) + "\n")
    assert list(read_table(path).columns) == names
    assert scan(path).columns == tuple(names)


def test_text_past_the_rows_that_set_a_column_type_is_named(tmp_path, monkeypatch):
    import rumap.io.formats as formats

    monkeypatch.setattr(formats, "CSV_SCHEMA_ROWS", 5)
    path = tmp_path / "data.csv"
    path.write_text("sex,w\n" + "".join(f"f,{10 + i}\n" for i in range(20)) + "m,abc\n")
    assert_bad_input(run_cli("risk", "individual", "--data", path, "--keys", "sex", "--weight", "w",
                             "--engine", "scale"), f"error: {path}: column 'w' is not numeric (e.g. 'abc' in row 21)")


# --- flags: every integer flag bounded, an option that does nothing alone refused -----------------

BIG = str(10**30)


@pytest.fixture(scope="module")
def small(tmp_path_factory) -> dict[str, str]:
    """Forty records with two numeric columns and two keys, as CSV and Parquet, and plans."""
    import numpy as np
    import pandas as pd

    d = tmp_path_factory.mktemp("inputs")
    rng = np.random.default_rng(3)
    frame = pd.DataFrame({"income": np.round(rng.normal(100, 10, 40), 2), "spend": np.round(rng.normal(50, 5, 40), 2),
                          "sex": list("fm" * 20), "region": list("abcd" * 10)})
    frame.to_csv(d / "data.csv", index=False)
    frame.to_parquet(d / "data.parquet")
    out = {"csv": str(d / "data.csv"), "parquet": str(d / "data.parquet"), "dir": str(d)}
    plans = {"infeasible_k": [{"method": "suppress", "parameters": {"k": 100}, "keys": ["sex", "region"]}],
             "huge_noise": [{"method": "pram", "parameters": {"theta": 0.9}, "keys": ["sex"]},
                            {"method": "noise", "parameters": {"lambda2_frac": 1e308}, "columns": ["spend"]}],
             "bad_theta": [{"method": "noise", "parameters": {"lambda2_frac": 0.1}, "columns": ["spend"]},
                           {"method": "pram", "parameters": {"theta": 2}, "keys": ["sex"]}],
             "too_long": [{"method": "pram", "parameters": {"theta": 0.9}, "keys": ["sex"]}] * 101}
    for name, steps in plans.items():
        (d / f"{name}.json").write_text(json.dumps({"steps": steps}))
        out[name] = str(d / f"{name}.json")
    return out


#: name -> (argv with {csv}, {parquet}, {dir} and BIG filled in, the fragments of the one line on stderr).
FLAGS = {
    "chunk size of the scale engine": (["risk", "individual", "--data", "{csv}", "--keys", "sex,region",
                                        "--engine", "scale", "--chunk-size", BIG],
                                       ["--chunk-size must be an integer >= 1 and at most 1e+12, got " + BIG]),
    "chunk size of local suppression out of core": (
        ["protect", "suppress", "--data", "{csv}", "--keys", "sex,region", "--k", "2", "--engine", "scale",
         "--chunk-size", BIG, "--out", "{dir}/out.csv"], ["--chunk-size must be an integer >= 1 and at most 1e+12"]),
    "chunk size of a release in chunks": (
        ["release", "--data", "{parquet}", "--out", "{dir}/out.parquet", "--method", "pram", "--keys", "sex",
         "--theta", "0.5", "--chunk-size", BIG], ["--chunk-size must be an integer >= 1 and at most 1e+12"]),
    "chunk size in exponent form": (["risk", "individual", "--data", "{csv}", "--keys", "sex", "--engine", "scale",
                                     "--chunk-size", "1e30"], ["--chunk-size", "'1e30'"]),
    "seed of a simulation": (["simulate", "--data", "{csv}", "--columns", "spend", "--method", "noise",
                              "--lambda2-frac", "0.1:0.5:3", "--replicates", "5", "--target", "max", "--seed", BIG],
                             ["--seed must be an integer >= 0 and at most 1.84467e+19"]),
    "replicates per chunk of a simulation": (
        ["simulate", "--data", "{csv}", "--columns", "spend", "--method", "noise", "--lambda2-frac", "0.1:0.5:3",
         "--replicates", "5", "--target", "max", "--chunk-size", BIG], ["--chunk-size must be an integer >= 1 and at most 1e+07"]),
    "k of local suppression": (["protect", "suppress", "--data", "{csv}", "--keys", "sex,region", "--k", BIG,
                                "--out", "{dir}/out.csv"], ["--k must be an integer >= 1 and at most 1e+12"]),
    "seed of PRAM": (["protect", "pram", "--data", "{csv}", "--keys", "sex", "--theta", "0.5", "--seed", BIG,
                      "--out", "{dir}/out.csv"], ["seed must be an integer >= 0 and at most"]),
    "unequal factor alone": (["release", "--data", "{csv}", "--out", "{dir}/out.csv", "--method", "noise",
                              "--columns", "spend", "--lambda2-frac", "0.1", "--unequal-factor", "3"],
                             ["--unequal-factor does nothing without --unequal-above or --unequal-below"]),
    "target column alone": (["release", "--data", "{csv}", "--out", "{dir}/out.csv", "--method", "noise",
                             "--columns", "spend,income", "--lambda2-frac", "0.1", "--target-column", "income"],
                            ["--target-column does nothing without --unequal-above or --unequal-below"]),
    "noise past the largest magnitude": (["release", "--data", "{csv}", "--out", "{dir}/out.csv", "--method",
                                          "noise", "--columns", "spend", "--lambda2", "1e308"],
                                         ["step 1 (noise): --lambda2 = 1e+308 gives column 'spend' noise"]),
    "noise past the largest magnitude in chunks": (
        ["release", "--data", "{parquet}", "--out", "{dir}/out.parquet", "--method", "noise", "--columns", "spend",
         "--lambda2-frac", "1e308", "--chunk-size", "7"],
        ["--chunk-size: step 1 (noise): --lambda2-frac = 1e+308 gives column 'spend' noise"]),
    "bands of 1e308 by 10": (["protect", "recode", "--data", "{dir}/big.csv", "--keys", "x,sex", "--band", "x:10",
                              "--out", "{dir}/out.csv"],
                             ["column 'x' has the value 1e+308 in row 2, out of reach of bands of width 10"]),
    "plan: noise past the largest magnitude": (
        ["release", "--data", "{csv}", "--out", "{dir}/out.csv", "--plan", "{huge_noise}"],
        ["step 2 (noise): steps[1].parameters.lambda2_frac = 1e+308 gives column 'spend' noise"]),
    "plan: a parameter out of its range": (
        ["release", "--data", "{csv}", "--out", "{dir}/out.csv", "--plan", "{bad_theta}"],
        ["step 2: steps[1].parameters.theta must be a number in [0, 1], got 2.0"]),
    "plan: too many steps": (["release", "--data", "{csv}", "--out", "{dir}/out.csv", "--plan", "{too_long}"],
                             ["steps: a release plan holds at most 100 steps, got 101"]),
}


@pytest.mark.parametrize("case", FLAGS)
def test_a_bad_flag_or_plan_is_refused_in_one_line_naming_it(small, case):
    argv, fragments = FLAGS[case]
    (Path(small["dir"]) / "big.csv").write_text("x,sex\n5,f\n1e308,m\n3,f\n")
    out = Path(small["dir"]) / "out.csv"
    out.unlink(missing_ok=True)
    proc = run_cli(*(a.format(**small) for a in argv))
    assert_bad_input(proc, *fragments)
    assert not out.exists()


def test_a_plan_over_the_work_limit_is_refused_before_any_step(small):
    plan = Path(small["dir"]) / "long.json"
    plan.write_text(json.dumps({"steps": [{"method": "noise", "parameters": {"lambda2_frac": 0.1},
                                           "columns": ["spend"], "seed": i} for i in range(20)]}))
    proc = run_cli("release", "--data", small["csv"], "--out", Path(small["dir"]) / "out.csv", "--plan", plan,
                   "--work-limit", "30000")
    assert_bad_input(proc, "the run needs 4.32e+04 steps (20 step(s) x 40 records x 4 columns, and 50 simulated "
                           "releases of each step's columns), over the work limit of 3e+04")


# --- an infeasible goal is a status --------------------------------------------------------------

def test_a_release_step_that_cannot_reach_its_k_says_so(small):
    from rumap.io.data import read_table
    from rumap.release.apply import apply_plan
    from rumap.release.plan import read_plan
    from rumap.release.report import release_report

    out = Path(small["dir"]) / "released.csv"
    proc = run_cli("release", "--data", small["csv"], "--out", out, "--plan", small["infeasible_k"], "--json",
                   "--no-prediction")
    assert proc.returncode == 0, proc.stderr
    summary = json.loads(proc.stdout)
    assert summary["step_summaries"][0]["k_reached"] is False
    assert "k = 100 is more than the 40 records" in summary["step_summaries"][0]["reason"]
    assert summary["unreached"] == [f"step 1 (suppress) did not reach k-anonymity: {summary['step_summaries'][0]['reason']}"]
    lines = run_cli("release", "--data", small["csv"], "--out", out, "--plan", small["infeasible_k"],
                    "--no-prediction", "--overwrite").stdout
    assert "NOT REACHED: step 1 (suppress) did not reach k-anonymity: k = 100" in lines
    plan = read_plan(Path(small["infeasible_k"]).read_text())
    frame = read_table(small["csv"])
    report = release_report(frame, apply_plan(frame, plan, source=small["csv"]), replicates=None)
    assert report.unreached == tuple(summary["unreached"]) and report.to_dict()["unreached"] == summary["unreached"]
    reached = apply_plan(frame, read_plan(json.dumps({"steps": [{"method": "suppress", "parameters": {"k": 2},
                                                                  "keys": ["sex", "region"]}]})))
    assert reached.outcomes[0].summary["k_reached"] is True and reached.outcomes[0].summary["reason"] is None


@pytest.mark.parametrize("optimal", [False, True])
def test_a_release_in_chunks_that_cannot_reach_its_k_says_so(small, optimal):
    plan = Path(small["dir"]) / f"k_{optimal}.json"
    plan.write_text(json.dumps({"steps": [{"method": "suppress", "parameters": {"k": 100, "optimal": optimal},
                                           "keys": ["sex", "region"]}]}))
    proc = run_cli("release", "--data", small["parquet"], "--out", Path(small["dir"]) / f"out_{optimal}.parquet",
                   "--plan", plan, "--chunk-size", "7", "--json")
    assert proc.returncode == 0, proc.stderr
    summary = json.loads(proc.stdout)
    assert summary["step_summaries"][0]["k_reached"] is False
    assert summary["unreached"][0].startswith("step 1 (suppress) did not reach k-anonymity: k = 100 is more than")
