"""``python -m rumap simulate``: the JSON contract, the table, and bad input (exit 2, one line)."""

from __future__ import annotations

import json
from types import SimpleNamespace

import numpy as np
import pytest
from cli_helpers import ROOT, assert_bad_input, run_cli, run_cli_subprocess

from rumap.cli import main
from rumap.cli.simulate import config_from_json

INCOME = str(ROOT / "data" / "income.csv")
CURVE_KEYS = {"method", "target", "knowledge", "parameter", "values", "risk", "risk_se", "utility", "utility_se"}
PAPER = ["--data", INCOME, "--column", "income", "--method", "noise", "--lambda2-frac", "0.05:1:20",
         "--truncate-below", "0", "--target", "max", "--target", "min", "--target", "p99",
         "--knowledge", "index", "--knowledge", "position", "--replicates", "200", "--seed", "1"]


@pytest.fixture(scope="module")
def paper_json():
    return run_cli("simulate", *PAPER, "--json", check_json=True)[1]


def test_json_contract(paper_json):
    assert set(paper_json) >= {"curves", "config"}
    curves = paper_json["curves"]
    assert len(curves) == 6
    for curve in curves:
        assert set(curve) >= CURVE_KEYS
        assert curve["method"] == "noise" and curve["parameter"] == "lambda2_frac"
        assert len(curve["values"]) == len(curve["risk"]) == len(curve["utility_se"]) == 20
    assert [(c["target"], c["knowledge"]) for c in curves] == [
        ("max", "index"), ("max", "position"), ("min", "index"), ("min", "position"), ("p99", "index"),
        ("p99", "position")]
    config = paper_json["config"]
    assert config["seed"] == 1 and config["replicates"] == 200 and config["columns"] == ["income"]
    assert config["method_options"]["truncate_below"] == 0
    rebuilt = config_from_json(config)
    assert (rebuilt.method, rebuilt.values[0], rebuilt.targets) == ("noise", 0.05, ("max", "min", "p99"))


def test_json_reproduces_the_paper_findings(paper_json):
    curves = {(c["target"], c["knowledge"]): c for c in paper_json["curves"]}
    assert min(curves["min", "position"]["risk"]) > 4.0e-08
    assert np.all(np.array(curves["p99", "position"]["risk"]) > np.array(curves["p99", "index"]["risk"]))
    assert curves["max", "index"]["efficiency"][0] == pytest.approx(1 / 1.05, abs=0.02)


def test_same_seed_same_json(paper_json):
    again = run_cli("simulate", *PAPER, "--json", check_json=True)[1]
    assert again["curves"] == paper_json["curves"]


def test_absolute_lambda2_unequal_masking_and_table():
    proc = run_cli("simulate", "--data", INCOME, "--column", "income", "--lambda2", "1e6:1e8:4",
                   "--unequal-above", "35000", "--unequal-factor", "2", "--target", "p99", "--knowledge", "position",
                   "--knowledge", "corrected", "--knowledge", "mean", "--rational", "--replicates", "30")
    assert proc.returncode == 0, proc.stderr
    assert "R[p99/position]" in proc.stdout and "R[p99/rational]" in proc.stdout
    assert "lambda2" in proc.stdout.splitlines()[1]
    assert len(proc.stdout.strip().splitlines()) == 2 + 4


def test_multivariate_noise_with_other_utilities(tmp_path):
    rng = np.random.default_rng(0)
    data = rng.multivariate_normal([0, 5], [[1, 0.8], [0.8, 2]], size=300)
    path = tmp_path / "two.csv"
    path.write_text("a,b\n" + "\n".join(f"{u},{v}" for u, v in data))
    _, out = run_cli("simulate", "--data", path, "--columns", "a,b", "--target-column", "b", "--correlated",
                     "--lambda2-frac", "0.1:0.5:3", "--target", "row:5", "--knowledge", "index", "--utility",
                     "regression", "--response", "b", "--replicates", "20", "--json", check_json=True)
    (curve,) = out["curves"]
    assert curve["target_value"] == pytest.approx(data[4, 1])
    assert out["config"]["target_column"] == 1 and out["config"]["utility_options"] == {"response": 1}
    assert curve["utility_label"] == "U = 1 / MSE of the regression slopes"


@pytest.mark.parametrize(("args", "fragments"), [
    (["--data", "nope.csv", "--column", "x", "--lambda2", "0:1:3", "--target", "max"], ["nope.csv"]),
    (["--data", INCOME, "--column", "wage", "--lambda2", "0:1:3", "--target", "max"], ["wage"]),
    (["--data", INCOME, "--lambda2", "0:1:3", "--target", "max"], ["--column"]),
    (["--data", INCOME, "--column", "income", "--target", "max"], ["--lambda2"]),
    (["--data", INCOME, "--column", "income", "--lambda2", "0:1:3", "--lambda2-frac", "0:1:3", "--target", "max"],
     ["one grid"]),
    (["--data", INCOME, "--column", "income", "--lambda2", "0:1", "--target", "max"], ["START:STOP:NUM"]),
    (["--data", INCOME, "--column", "income", "--lambda2", "-1:1:3", "--target", "max"], ["lambda2"]),
    (["--data", INCOME, "--column", "income", "--k", "2:5", "--target", "max"], ["--k", "noise"]),
    (["--data", INCOME, "--column", "income", "--lambda2", "0:1:3", "--target", "top"], ["top"]),
    (["--data", INCOME, "--column", "income", "--lambda2", "0:1:3", "--target", "row:500"], ["500"]),
    (["--data", INCOME, "--column", "income", "--lambda2", "0:1:3", "--target", "max", "--knowledge", "psychic"],
     ["psychic"]),
    (["--data", INCOME, "--column", "income", "--lambda2", "0:1:3", "--target", "max", "--utility", "fun"], ["fun"]),
    (["--data", INCOME, "--column", "income", "--lambda2", "0:1:3", "--target", "max", "--truncate-below", "5",
      "--truncate-above", "1"], ["truncate_below"]),
    (["--data", INCOME, "--column", "income", "--lambda2", "0:1:3", "--target", "max", "--unequal-factor", "3"],
     ["--unequal-above"]),
    (["--data", INCOME, "--column", "income", "--lambda2", "0:1:3", "--target", "max", "--algorithm", "mdav"],
     ["--algorithm", "microaggregation"]),
    (["--data", INCOME, "--column", "income", "--lambda2", "0:1:3", "--target", "max", "--replicates", "0"],
     ["replicates"]),
    (["--data", INCOME, "--column", "income", "--lambda2", "0:1:3", "--target", "max", "--utility", "correlation"],
     ["2 columns"]),
    (["--data", INCOME, "--column", "income", "--method", "rankswap", "--swap-percent", "1:5:3", "--target", "max",
      "--knowledge", "corrected"], ["corrected"]),
    (["--data", INCOME, "--column", "income", "--lambda2", "0:1:3"], ["--target"]),
])
def test_bad_input(args, fragments, capsys):
    """In-process through the same ``main()`` as ``python -m rumap`` (a subprocess each would be slow)."""
    code = main(["simulate", *map(str, args)])
    captured = capsys.readouterr()
    assert_bad_input(SimpleNamespace(returncode=code, stdout=captured.out, stderr=captured.err), *fragments)


def test_bad_input_in_a_subprocess():
    assert_bad_input(run_cli_subprocess("simulate", "--data", "nope.csv", "--column", "x", "--lambda2", "0:1:3",
                                        "--target", "max"), "nope.csv")


def test_non_numeric_and_missing_values(tmp_path, capsys):
    path = tmp_path / "bad.csv"
    path.write_text("income,name\n1,a\n2,b\n,c\n")
    for column, fragments in (("name", ["name", "not numeric"]), ("income", ["income", "missing"])):
        code = main(["simulate", "--data", str(path), "--column", column, "--lambda2", "0:1:3", "--target", "max"])
        captured = capsys.readouterr()
        assert_bad_input(SimpleNamespace(returncode=code, stdout=captured.out, stderr=captured.err), *fragments)


def test_scheduler_address(capsys, monkeypatch):
    import distributed

    args = ["simulate", "--data", INCOME, "--column", "income", "--lambda2-frac", "0.1:1:3", "--target", "max",
            "--replicates", "12", "--chunk-size", "5", "--json"]
    assert main(args) == 0
    local = json.loads(capsys.readouterr().out)
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=False,
                                  dashboard_address=None) as cluster:
        assert main([*args, "--scheduler", cluster.scheduler_address]) == 0
        remote = json.loads(capsys.readouterr().out)
    assert remote["curves"] == local["curves"]
    monkeypatch.setattr("rumap.maps.simulation._CONNECT_TIMEOUT", 1)
    code = main([*args, "--scheduler", "tcp://127.0.0.1:1"])
    captured = capsys.readouterr()
    assert_bad_input(SimpleNamespace(returncode=code, stdout=captured.out, stderr=captured.err),
                     "cannot reach the Dask scheduler")


def test_microaggregation_form(tmp_path):
    _, out = run_cli("simulate", "--data", INCOME, "--columns", "income", "--method", "microaggregation",
                     "--algorithm", "mdav", "--k", "2:6:2", "--target", "max", "--target", "p90", "--knowledge", "index",
                     "--knowledge", "position", "--utility", "variance", "--json", check_json=True)
    assert [c["values"] for c in out["curves"]] == [[2, 4, 6]] * 4
    assert all(c["parameter"] == "k" and c["risk_se"] == [0, 0, 0] for c in out["curves"])
    assert_bad_input(run_cli("simulate", "--data", INCOME, "--column", "income", "--method", "microaggregation",
                             "--k", "2:500", "--target", "max"), "k")


def test_rankswap_form():
    _, out = run_cli("simulate", "--data", INCOME, "--columns", "income", "--method", "rankswap", "--swap-percent",
                     "1:10:3", "--target", "p90", "--knowledge", "index", "--knowledge", "position", "--utility", "sse",
                     "--replicates", "20", "--json", check_json=True)
    index, position = out["curves"]
    assert index["parameter"] == "swap_percent" and index["values"] == [1, 5.5, 10]
    # a 1% window on 177 records swaps neighbours only: no randomness left; wider windows vary
    assert index["risk_se"][0] == 0 and all(se > 0 for se in index["risk_se"][1:])
    assert index["risk"][0] > index["risk"][1] > index["risk"][2]
    assert position["risk"] == [None, None, None]  # infinite: a swap permutes values, order statistics stay
    assert all(0 < u < 1 for u in index["utility"])


@pytest.mark.parametrize("grid", [["--lambda2", "0.1:1:3"], ["--lambda2-frac", "0.1:1:3"]])
def test_a_constant_column_is_one_line(tmp_path, grid):
    path = tmp_path / "constant.csv"
    path.write_text("x\n5\n5\n5\n5\n5\n")
    assert_bad_input(run_cli("simulate", "--data", path, "--column", "x", *grid, "--target", "max",
                             "--replicates", "5", "--json"), "constant")


# --- the recommendation under --max-risk ----------------------------------------------------

RECOMMENDATION_KEYS = ["feasible", "value", "risk", "risk_upper", "utility", "efficiency", "binding", "reason",
                       "p_exceed", "value_interval"]


def test_max_risk_adds_the_recommendation_and_keeps_every_other_key(paper_json):
    """The paper's $5K (R_max = 4e-08): the truncated minimum never reaches it, so none, with the reason."""
    _, out = run_cli("simulate", *PAPER, "--max-risk", "4e-8", "--json", check_json=True)
    assert list(out) == [*paper_json, "recommendation"]
    assert {k: v for k, v in out.items() if k != "recommendation"} == paper_json
    r = out["recommendation"]
    assert list(r) == RECOMMENDATION_KEYS
    assert r["feasible"] is False and r["value"] is None
    assert r["binding"] == {"target": "min", "knowledge": "position"} and "extend the grid" in r["reason"]


def test_recommendation_by_band_and_by_mean(capsys):
    args = ["simulate", "--data", INCOME, "--column", "income", "--lambda2-frac", "0.05:1:20", "--target", "max",
            "--target", "p99", "--replicates", "200", "--seed", "1", "--max-risk", "4e-8", "--json"]
    assert main(args) == 0
    upper = json.loads(capsys.readouterr().out)["recommendation"]
    assert main([*args, "--decision", "mean"]) == 0
    out = json.loads(capsys.readouterr().out)
    mean = out["recommendation"]
    for r in (upper, mean):
        assert r["feasible"] and 0 <= r["efficiency"] <= 1 and 0 <= r["p_exceed"] <= 1
        low, high = r["value_interval"]
        assert low <= r["value"] <= high
    assert upper["value"] >= mean["value"] and upper["risk_upper"] <= 4e-8 and mean["risk"] <= 4e-8
    assert upper["p_exceed"] <= mean["p_exceed"]
    curves = out["curves"]
    j = curves[0]["values"].index(mean["value"])
    assert mean["risk"] == max(c["risk"][j] for c in curves) and mean["utility"] == curves[0]["utility"][j]
    assert main([*args[:-1]]) == 0
    assert "recommendation (R_max = 4e-08, decision upper): lambda2_frac = " in capsys.readouterr().out


def test_microaggregation_never_recommends_the_largest_k_for_the_mean():
    """Eq 14 grows with k when the mean is kept exactly; the efficiency is 100% at every k: the smallest safe k."""
    _, out = run_cli("simulate", "--data", INCOME, "--column", "income", "--method", "microaggregation", "--k",
                     "2:177:5", "--target", "max", "--knowledge", "index", "--max-risk", "1e-6", "--json",
                     check_json=True)
    curve, r = out["curves"][0], out["recommendation"]
    safe = [k for k, risk in zip(curve["values"], curve["risk"], strict=True) if risk is not None and risk <= 1e-6]
    assert r["value"] == min(safe) and r["efficiency"] == pytest.approx(1.0)
    assert all(e <= 1.0 for e in curve["efficiency"])
    assert r["p_exceed"] is None and r["value_interval"] is None  # deterministic: one replicate, nothing to resample


def test_categorical_map_recommendation(capsys):
    from rumap.io.data import BUNDLED_DATA

    survey = str(BUNDLED_DATA["survey (synthetic, households and weights)"])
    code = main(["simulate", "--data", survey, "--method", "suppress", "--keys", "region,sex,age_band", "--k", "1:5",
                 "--max-risk", "0.05", "--decision", "mean", "--json"])
    out = json.loads(capsys.readouterr().out)
    assert code == 0 and list(out["recommendation"]) == RECOMMENDATION_KEYS
    curve, r = out["curves"][0], out["recommendation"]
    safe = [(u, -k) for k, risk, u in zip(curve["values"], curve["risk"], curve["utility"], strict=True)
            if risk <= 0.05]
    assert r["value"] == (-max(safe)[1] if safe else None)


@pytest.mark.parametrize(("extra", "fragments"), [
    (["--max-risk", "0"], ["--max-risk"]),
    (["--max-risk", "nan"], ["--max-risk"]),
    (["--decision", "mean"], ["--decision", "--max-risk"]),
])
def test_recommendation_bad_input(extra, fragments, capsys):
    code = main(["simulate", "--data", INCOME, "--column", "income", "--lambda2", "0:1:3", "--target", "max", *extra])
    captured = capsys.readouterr()
    assert_bad_input(SimpleNamespace(returncode=code, stdout=captured.out, stderr=captured.err), *fragments)


def test_subsample_json_states_its_error(tmp_path):
    path = tmp_path / "big.csv"
    path.write_text("x\n" + "\n".join(f"{v:.6f}" for v in np.random.default_rng(5).normal(50, 5, 3000)))
    out = run_cli("simulate", "--data", path, "--column", "x", "--lambda2", "1:4:2", "--target", "max",
                  "--subsample", "300", "--subsamples", "3", "--replicates", "10", "--json", check_json=True)[1]
    assert out["n"] == 3000 and out["subsample"]["m"] == 300 and out["subsample"]["subsamples"] == 3
    assert out["subsample"]["method"] == "between-subsample"
    assert [(c["target"], c["knowledge"]) for c in out["curves"]] == [("max", "index")]
    assert out["config"]["subsample"] == 300 and all(v > 0 for v in out["curves"][0]["risk_se"])
    assert "common" not in out


@pytest.mark.parametrize(("extra", "fragments"), [
    (["--subsamples", "3"], ["--subsamples needs --subsample"]),
    (["--subsample", "50", "--knowledge", "position"], ["knowledge 'position'"]),
    (["--subsample", "50", "--risk-measure", "record-linkage"], ["risk measure 'record-linkage'"]),
    (["--subsample", "500"], ["not fewer"]),
])
def test_subsample_bad_input(extra, fragments, capsys):
    code = main(["simulate", "--data", INCOME, "--column", "income", "--lambda2", "1:4:2", "--target", "max",
                 "--replicates", "5", *extra])
    captured = capsys.readouterr()
    assert_bad_input(SimpleNamespace(returncode=code, stdout=captured.out, stderr=captured.err), *fragments)
