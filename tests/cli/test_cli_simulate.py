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
