"""``python -m rumap synthesize`` and ``python -m rumap risk synthetic``."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from cli_helpers import assert_bad_input, run_cli

from rumap.fingerprint import bytes_digest


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    folder = tmp_path_factory.mktemp("synthetic")
    rng = np.random.default_rng(2)
    n = 120
    frame = pd.DataFrame({"age": rng.integers(18, 80, n), "income": rng.lognormal(10, 1, n),
                          "sex": rng.choice(["m", "f"], n), "region": rng.choice(list("abc"), n)})
    frame.iloc[:60].to_csv(folder / "train.csv", index=False)
    frame.iloc[60:].to_csv(folder / "hold.csv", index=False)
    return folder


def test_synthesize_writes_the_same_bytes_for_a_seed(files):
    outs = []
    for name in ("a.csv", "b.csv"):
        outs.append(run_cli("synthesize", "--data", files / "train.csv", "--method", "cart", "--minbucket", "3",
                            "--seed", "4", "--out", files / name, "--json", check_json=True)[1])
    assert outs[0]["sha256_out"] == outs[1]["sha256_out"] == bytes_digest((files / "a.csv").read_bytes())
    assert {k: outs[0][k] for k in ("rows", "method", "parameters", "seed")} == {
        "rows": 60, "method": "cart", "parameters": {"minbucket": 3}, "seed": 4}
    summary = run_cli("synthesize", "--data", files / "train.csv", "--method", "copula", "--shrinkage", "0.5",
                      "--copies", "2", "--rows", "10", "--columns", "income,sex", "--out", files / "c.parquet",
                      "--json", check_json=True)[1]
    written = pd.read_parquet(files / "c.parquet")
    assert summary["rows"] == 20 and list(written.columns) == ["copy", "income", "sex"]


def test_synthesize_with_mst_writes_the_same_bytes_for_a_seed(files):
    pytest.importorskip("opendp")
    base = ("synthesize", "--data", files / "train.csv", "--method", "mst", "--epsilon", "2", "--columns", "sex,region",
            "--seed", "4", "--json")
    outs = [run_cli(*base, "--out", files / name, check_json=True)[1] for name in ("m1.csv", "m2.csv")]
    assert outs[0]["sha256_out"] == outs[1]["sha256_out"] == bytes_digest((files / "m1.csv").read_bytes())
    assert (outs[0]["method"], outs[0]["parameters"], outs[0]["rows"]) == ("mst", {"epsilon": 2.0}, 60)
    assert list(pd.read_csv(files / "m1.csv").columns) == ["sex", "region"]


def test_risk_synthetic_prints_every_measure_its_inputs_allow(files):
    run_cli("synthesize", "--data", files / "train.csv", "--method", "copula", "--seed", "1",
            "--out", files / "s.csv")
    base = ("risk", "synthetic", "--original", files / "train.csv", "--release", files / "s.csv", "--json")
    bare = run_cli(*base, check_json=True)[1]
    full = run_cli(*base, "--holdout", files / "hold.csv", "--keys", "sex,region", "--target", "age",
                   check_json=True)[1]
    names = ["dcr_share", "nndr", "membership_advantage", "repu", "disco", "pmse", "s_pmse", "linkage",
             "interval_disclosure", "common_utility"]
    assert list(bare) == list(full) == names
    assert [k for k, v in bare.items() if v is None] == ["dcr_share", "membership_advantage", "repu", "disco"]
    assert all(v is not None for v in full.values())
    copy = run_cli("risk", "synthetic", "--original", files / "train.csv", "--release", files / "train.csv",
                   "--holdout", files / "hold.csv", "--json", check_json=True)[1]
    assert copy["dcr_share"] == 1.0 and copy["linkage"] == 1.0


def test_simulate_maps_a_generator_with_a_recommendation(files):
    out = run_cli("simulate", "--data", files / "train.csv", "--method", "cart", "--minbucket", "1,30",
                  "--replicates", "3", "--max-risk", "0.7", "--json", check_json=True)[1]
    curve = out["curves"][0]
    assert (curve["method"], curve["parameter"], curve["values"]) == ("cart", "minbucket", [1.0, 30.0])
    assert curve["risk"][0] > curve["risk"][1] and out["config"]["holdout_share"] == 0.5 and out["n"] == 60
    assert out["recommendation"]["value"] == 30.0


@pytest.mark.parametrize(("args", "fragment"), [
    (("simulate", "--method", "cart", "--minbucket", "5", "--risk", "global_risk"), "--risk must be one of"),
    (("simulate", "--method", "copula", "--shrinkage", "0:1:3", "--risk", "disco"), "needs --keys"),
    (("simulate", "--method", "noise", "--minbucket", "5"), "--minbucket applies to --method cart"),
    (("synthesize", "--method", "copula", "--minbucket", "3"), "--minbucket"),
    (("synthesize", "--method", "cart", "--minbucket", "0"), "--minbucket must be"),
    (("synthesize", "--method", "cart", "--copies", "0"), "--copies must be"),
    (("synthesize", "--method", "mst", "--epsilon", "0"), "--epsilon must be"),
    (("synthesize", "--method", "cart", "--epsilon", "1"), "--epsilon is a parameter of --method mst"),
    (("simulate", "--method", "mst", "--dims", "sex,region", "--epsilon", "1", "--holdout-share", "0.5"),
     "--holdout-share applies to --method cart"),
    (("risk", "synthetic", "--release", "{train}", "--target", "age"), "--target needs --keys"),
    (("risk", "synthetic", "--release", "{train}", "--keys", "nosuch"), "nosuch"),
])
def test_bad_flags_are_one_line(files, args, fragment):
    train = str(files / "train.csv")
    args = [a.format(train=train) for a in args]
    where = {"synthesize": ["--data", train, "--out", str(files / "x.csv")], "simulate": ["--data", train],
             "risk": ["--original", train]}[args[0]]
    assert_bad_input(run_cli(*args, *where), fragment)
