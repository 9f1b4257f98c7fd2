"""``table dp``: a table released with differential privacy (JSON keys, --out, the seed, exit codes)."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from rumap.cli import main

pytest.importorskip("opendp")


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    folder = tmp_path_factory.mktemp("dp")
    rng = np.random.default_rng(0)
    n = 40
    pd.DataFrame({"nace": rng.choice(["A01", "A02", "B01"], n), "size": rng.choice(["s", "l"], n),
                  "v": rng.normal(10, 20, n).round()}).to_csv(folder / "m.csv", index=False)
    (folder / "nace.hrc").write_text("A\n@A01\n@A02\nB\n@B01\n")
    return folder


def _json(capsys, *args: str) -> dict:
    code = main([str(a) for a in args])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    return json.loads(captured.out)


def _bad(capsys, *args: str) -> str:
    code = main([str(a) for a in args])
    captured = capsys.readouterr()
    lines = captured.err.strip().splitlines()
    assert code == 2 and len(lines) == 1 and captured.out == "", (code, captured)
    return lines[0]


def test_json_contract_out_and_seed(files, tmp_path, capsys):
    args = ["table", "dp", "--microdata", files / "m.csv", "--dims", "nace,size", "--hierarchy",
            f"nace={files / 'nace.hrc'}", "--epsilon", "1", "--seed", "5", "--json"]
    out = _json(capsys, *args, "--out", tmp_path / "t.csv")
    again = _json(capsys, *args)
    assert {"cells", "privacy", "method", "sampler", "seed", "disclosure", "utility", "additive"} <= set(out)
    assert out["privacy"] == {"mechanism": "laplace", "sensitivity": 1.0, "scale": 1.0, "epsilon": 1.0,
                              "delta": None, "rho": None, "accounting": "opendp"}
    assert out["sampler"] == "numpy" and out["seed"] == 5 and out["additive"]
    assert len(out["cells"]) == 6 * 3 and {c["status"] for c in out["cells"]} == {"published"}
    assert [c["value"] for c in out["cells"]] == [c["value"] for c in again["cells"]]
    written = pd.read_csv(tmp_path / "t.csv", keep_default_na=False)
    assert written["value"].tolist() == [int(c["value"]) for c in out["cells"]]
    assert "pass --overwrite" in _bad(capsys, *args, "--out", tmp_path / "t.csv")  # refused before any work


def test_a_gaussian_sum_states_rho_and_epsilon_at_delta(files, capsys):
    out = _json(capsys, "table", "dp", "--microdata", files / "m.csv", "--dims", "nace", "--value-column", "v",
                "--bounds=-5:30", "--mechanism", "gaussian", "--rho", "0.5", "--delta", "1e-5", "--seed", "1", "--json")
    privacy = out["privacy"]
    assert privacy["sensitivity"] == 30 and privacy["rho"] == pytest.approx(0.5) and privacy["delta"] == 1e-5
    assert privacy["epsilon"] > 0 and out["postprocessing"] is None and out["disclosure"]["unit_recovered"] is None


@pytest.mark.parametrize("extra, message", [
    ([], "give the privacy loss: --epsilon E or --rho R"),
    (["--epsilon", "1", "--rho", "1"], "give the privacy loss"),
    (["--epsilon", "0"], "--epsilon must be"),
    (["--rho", "1"], "--rho: the laplace mechanism is pure epsilon"),
    (["--epsilon", "1", "--bounds", "0:1"], "--value-column and --bounds L:U go together"),
    (["--epsilon", "1", "--value-column", "v", "--bounds", "3:1"], "--bounds must be L:U"),
    (["--epsilon", "1", "--value-column", "v", "--bounds", "0:9", "--mechanism", "discrete-laplace"],
     "--mechanism: the discrete-laplace mechanism adds integer noise, for counts"),
    (["--epsilon", "1", "--hierarchy", "size=x.hrc"], "--hierarchy size"),
])
def test_bad_input_is_one_line_naming_the_flag(files, capsys, extra, message):
    line = _bad(capsys, "table", "dp", "--microdata", files / "m.csv", "--dims", "nace,size", *extra)
    assert message in line


def test_simulate_dp_table_maps_epsilon_and_recommends(files, capsys):
    out = _json(capsys, "simulate", "--data", files / "m.csv", "--method", "dp-table", "--dims", "nace,size",
                "--hierarchy", f"nace={files / 'nace.hrc'}", "--epsilon", "0.1,1,10", "--replicates", "10",
                "--small", "10", "--max-risk", "0.9", "--beside-suppression", "2:3", "--json")
    curve = out["curves"][0]
    assert curve["parameter"] == "epsilon" and curve["values"] == [0.1, 1.0, 10.0] and curve["method"] == "dp-table"
    assert out["config"]["mechanism"] == "laplace" and len(out["config"]["interval_half_width"]) == 3
    assert out["recommendation"]["feasible"] and out["recommendation"]["value"] in curve["values"]
    beside = out["curves"][1]
    assert beside["method"] == "suppression" and beside["values"] == [2, 3]
    assert (beside["risk_label"], beside["utility_label"]) == (curve["risk_label"], curve["utility_label"])
    line = _bad(capsys, "simulate", "--data", files / "m.csv", "--method", "dp-table", "--dims", "nace",
                "--epsilon", "0.1,x")
    assert "--epsilon must be a list of numbers" in line
    assert "--dims applies to --method dp-table" in _bad(capsys, "simulate", "--data", files / "m.csv",
                                                         "--column", "v", "--dims", "nace", "--target", "max")


def test_simulate_mst_maps_epsilon(files, capsys):
    out = _json(capsys, "simulate", "--data", files / "m.csv", "--method", "mst", "--dims", "nace,size",
                "--epsilon", "0.5,20", "--replicates", "2", "--json")
    curve = out["curves"][0]
    assert curve["method"] == "mst" and curve["values"] == [0.5, 20.0] and len(out["config"]["mean_tvd"]) == 2
    assert "--dims: MST needs two or more" in _bad(capsys, "simulate", "--data", files / "m.csv", "--method", "mst",
                                                   "--dims", "nace", "--epsilon", "1")
    assert "--mechanism applies to --method dp-table, not mst" in _bad(
        capsys, "simulate", "--data", files / "m.csv", "--method", "mst", "--dims", "nace,size", "--epsilon", "1",
        "--mechanism", "gaussian")
