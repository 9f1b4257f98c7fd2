"""The ``python -m rumap analytic`` contract (JSON keys, exit codes)."""

from __future__ import annotations

import json

import numpy as np
import pytest
from cli_helpers import assert_bad_input, run_cli, run_cli_subprocess

PAPER = ["analytic", "--n", "200", "--sigma2", "1", "--lambda2", "0:1:11"]


def test_json_contract_paper_example():
    # through the real entry point, ``python -m rumap`` in a subprocess
    proc, out = run_cli_subprocess(*PAPER, "--state", "record", "--state", "population", "--state", "percentile",
                                   "--state", "maximum", "--max-risk", "5", "--json", check_json=True)
    assert set(out) >= {"curves", "optimum", "crossings"}
    states = [c["state"] for c in out["curves"]]
    assert states == ["record", "population", "percentile", "maximum"]
    for curve in out["curves"]:
        assert set(curve) >= {"state", "lambda2", "risk", "utility", "efficiency"}
        assert len(curve["lambda2"]) == 11
    record = out["curves"][0]
    assert record["risk"][0] is None  # infinite risk at lambda2 = 0 is null
    assert record["risk"][2] == pytest.approx(5.0)
    assert out["optimum"]["record"]["lambda2"] == pytest.approx(0.2)
    assert out["optimum"]["record"]["utility"] == pytest.approx(166.67, abs=0.01)
    assert out["optimum"]["population"]["lambda2"] == 0.0
    assert out["optimum"]["population"]["risk"] == pytest.approx(0.995, abs=5e-4)
    for crossing in out["crossings"]:
        assert len(crossing["states"]) == 2 and 0 <= crossing["lambda2"] <= 1
    assert "NaN" not in proc.stdout and "Infinity" not in proc.stdout


def test_json_without_max_risk_has_empty_optimum():
    _, out = run_cli(*PAPER, "--state", "record", "--json", check_json=True)
    assert out["optimum"] == {} and out["crossings"] == []


def test_sample_state_from_data_file(tmp_path):
    rng = np.random.default_rng(0)
    x = rng.normal(50, 10, 120)
    path = tmp_path / "d.csv"
    path.write_text("income,region\n" + "\n".join(f"{v},{i % 3}" for i, v in enumerate(x)))
    _, out = run_cli("analytic", "--data", path, "--column", "income", "--lambda2", "0:100:5",
                     "--state", "sample", "--state", "maximum", "--json", check_json=True)
    expected = x.size / (x.var(ddof=1) + 0 + np.sum((x.mean() - x) ** 2))
    assert out["curves"][0]["risk"][0] == pytest.approx(expected)
    assert out["config"]["n"] == 120


def test_readable_table_without_json():
    proc = run_cli(*PAPER, "--state", "record", "--max-risk", "5")
    assert proc.returncode == 0
    assert "lambda2" in proc.stdout and "R[record]" in proc.stdout
    assert "noise variance 0.2 keeps" in proc.stdout


@pytest.mark.parametrize(
    "args, fragments",
    [
        (["analytic", "--n", "1", "--sigma2", "1", "--lambda2", "0:1:3", "--state", "record"], ["n must be"]),
        (["analytic", "--n", "10", "--sigma2", "-1", "--lambda2", "0:1:3", "--state", "record"], ["sigma2"]),
        (["analytic", "--n", "10", "--sigma2", "1", "--lambda2", "-1:1:3", "--state", "record"], ["lambda2"]),
        (["analytic", "--n", "10", "--sigma2", "1", "--lambda2", "0:1", "--state", "record"], ["START:STOP:NUM"]),
        (["analytic", "--n", "10", "--sigma2", "1", "--lambda2", "0:1:3", "--state", "x"], ["unknown --state"]),
        (["analytic", "--n", "10", "--sigma2", "1", "--lambda2", "0:1:3", "--state", "percentile", "--p", "1.5"],
         ["p must be"]),
        (["analytic", "--n", "10", "--sigma2", "1", "--lambda2", "0:1:3", "--state", "sample"], ["sample"]),
        (["analytic", "--lambda2", "0:1:3", "--state", "record"], ["--n and --sigma2"]),
        (["analytic", "--n", "10", "--sigma2", "1", "--lambda2", "0:1:3"], ["--state"]),
        (["analytic", "--n", "ten", "--sigma2", "1", "--lambda2", "0:1:3", "--state", "record"], ["--n"]),
        (["analytic", "--data", "no/such.csv", "--column", "a", "--lambda2", "0:1:3", "--state", "sample"],
         ["no/such.csv", "no such file"]),
        (["analytic", "--n", "10", "--sigma2", "1", "--lambda2", "0:1:3", "--state", "record", "--max-risk", "0"],
         ["max_risk"]),
        (["nonsense"], ["invalid choice"]),
    ],
)
def test_bad_arguments_exit_2_with_one_line(args, fragments):
    assert_bad_input(run_cli(*args), *fragments)


def test_bad_column_names_file_and_column(tmp_path):
    path = tmp_path / "d.csv"
    path.write_text("a,b\n1,x\n2,y\n3,z\n")
    assert_bad_input(run_cli("analytic", "--data", path, "--column", "b", "--lambda2", "0:1:3", "--state", "sample"),
                     "'b'", "not numeric")
    assert_bad_input(run_cli("analytic", "--data", path, "--column", "c", "--lambda2", "0:1:3", "--state", "sample"),
                     "no column 'c'")


def _reject_constant(name: str):
    raise ValueError(f"non-standard JSON constant {name}")


def test_json_is_strict():
    proc = run_cli(*PAPER, "--state", "record", "--json")
    json.loads(proc.stdout, parse_constant=_reject_constant)


def test_an_infinite_grid_end_is_one_line():
    assert_bad_input(run_cli("analytic", "--n", "200", "--sigma2", "1", "--lambda2", "0:inf:5", "--state", "record"),
                     "--lambda2 must have finite START and STOP")


@pytest.mark.parametrize("extra", [["--sigma2", "1e308", "--lambda2", "0:1:5"],
                                   ["--sigma2", "1", "--lambda2", "0:1e308:5"],
                                   ["--sigma2", "1e308", "--lambda2", "0:1e308:5"],
                                   ["--sigma2", "1e308", "--lambda2", "0:1:5", "--mu", "1e300", "--tau=-1e300"]])
def test_values_near_the_largest_float_give_clean_output(extra):
    proc = run_cli("analytic", "--n", "200", *extra, "--state", "record", "--state", "population", "--state",
                   "percentile", "--state", "maximum", "--state", "minimum", "--max-risk", "5", "--json",
                   *(["--state", "mean-target"] if "--tau=-1e300" in extra else []))
    assert proc.returncode == 0 and proc.stderr == "", proc.stderr
    json.loads(proc.stdout, parse_constant=_reject_constant)  # no NaN or Infinity: null where not finite


def test_recommendation_is_the_exact_optimum_safe_for_every_state():
    """R_max = 0.6: record knowledge needs lambda2 = 1 / 0.6 exactly (the 0:3:11 grid would give 1.8)."""
    _, out = run_cli("analytic", "--n", "200", "--sigma2", "1", "--lambda2", "0:3:11", "--state", "record",
                     "--state", "maximum", "--max-risk", "0.6", "--json", check_json=True)
    r = out["recommendation"]
    assert list(r) == ["feasible", "value", "risk", "risk_upper", "utility", "efficiency", "binding", "reason",
                       "p_exceed", "value_interval"]
    expected = max(out["optimum"]["record"]["lambda2"], out["optimum"]["maximum"]["lambda2"])
    assert r["feasible"] and r["value"] == pytest.approx(expected) and r["value"] >= 1 / 0.6 - 1e-9
    assert r["risk"] <= 0.6 * (1 + 1e-9) and 0 < r["efficiency"] <= 1
    assert r["p_exceed"] is None and r["value_interval"] is None  # a closed form has no Monte-Carlo error
    _, out = run_cli("analytic", "--n", "200", "--sigma2", "1", "--lambda2", "0:1:11", "--state", "record",
                     "--max-risk", "0.1", "--json", check_json=True)
    assert out["recommendation"]["feasible"] is False and out["recommendation"]["value"] is None
    assert "10, beyond the range shown" in out["recommendation"]["reason"]
