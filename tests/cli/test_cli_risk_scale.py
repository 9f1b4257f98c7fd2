"""``risk individual --engine scale``: the out-of-core path gives the in-memory path's totals and records."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from cli_helpers import assert_bad_input, run_cli

pytest.importorskip("polars")

KEYS = "region,age,sex,marital"


@pytest.fixture(scope="module")
def persons(tmp_path_factory):
    """2,000 records with households, weights, missing key values and a sensitive variable, as Parquet."""
    rng = np.random.default_rng(4)
    n = 2000
    marital = rng.integers(0, 4, n).astype(float)
    marital[rng.random(n) < 0.03] = np.nan
    frame = pd.DataFrame({"region": rng.choice(list("abcdefgh"), n), "age": rng.integers(0, 30, n),
                          "sex": rng.integers(0, 2, n), "marital": marital, "hh": np.repeat(np.arange(n // 4), 4),
                          "w": rng.uniform(1, 50, n).round(1), "income": rng.integers(0, 3, n)})
    path = tmp_path_factory.mktemp("cli-scale") / "persons.parquet"
    frame.to_parquet(path)
    return path


def test_scale_engine_equals_memory(persons, tmp_path):
    flags = ["--keys", KEYS, "--weight", "w", "--household", "hh", "--k", "3", "--sensitive", "income", "--json"]
    _, memory = run_cli("risk", "individual", "--data", persons, *flags, "--work-limit", "1e10", check_json=True)
    out = tmp_path / "records.csv"
    proc, scale = run_cli("risk", "individual", "--data", persons, *flags, "--engine", "scale", "--chunk-size",
                          "600", "--out", out, check_json=True)
    for key in ("n", "keys", "k", "k_anonymity_violations", "l_diversity_min"):
        assert scale[key] == memory[key], key
    for key in ("expected_reidentifications", "global_risk", "household_expected_reidentifications"):
        assert scale[key] == pytest.approx(memory[key], rel=1e-12), key
    assert scale["engine"] == "scale" and scale["records_out"] == str(out)
    records = pd.read_csv(out)
    np.testing.assert_array_equal(records["fk"], memory["fk"])
    np.testing.assert_allclose(records["risk"], memory["risk"], rtol=1e-12)
    np.testing.assert_allclose(records["household_risk"], memory["household_risk"], rtol=1e-12)
    np.testing.assert_array_equal(records["l_diversity"], memory["l_diversity"])
    assert "2,000 records" in proc.stderr  # progress of the record-wise passes


def test_scale_engine_is_quiet_on_request_and_refuses_what_it_cannot_do(persons):
    proc = run_cli("risk", "individual", "--data", persons, "--keys", KEYS, "--engine", "scale", "--quiet")
    assert proc.returncode == 0 and proc.stderr == "" and "expected re-identifications" in proc.stdout
    assert_bad_input(run_cli("risk", "individual", "--data", persons, "--keys", KEYS, "--engine", "scale",
                             "--merge", "sex:0,1=any"), "--merge goes with --engine memory")
    assert_bad_input(run_cli("risk", "individual", "--data", persons, "--keys", KEYS, "--out", "x.csv", "--engine",
                             "memory"), "--out goes with --engine scale")
    assert_bad_input(run_cli("risk", "individual", "--data", persons, "--keys", KEYS, "--engine", "scale",
                             "--chunk-size", "0"), "--chunk-size must be an integer >= 1")
    assert_bad_input(run_cli("risk", "individual", "--data", persons, "--keys", "region,nope", "--engine", "scale"),
                     "no column 'nope'")


def test_auto_routes_files_over_the_in_memory_limit(persons, monkeypatch):
    import rumap.io.data

    monkeypatch.setattr(rumap.io.data, "MAX_BYTES", 100)  # this small file is now "over the limit"
    _, result = run_cli("risk", "individual", "--data", persons, "--keys", KEYS, "--quiet", "--json", check_json=True)
    assert result["engine"] == "scale" and "risk" not in result


def test_identity_risk_from_a_big_file(persons):
    flags = ["risk", "identity", "--data", persons, "--keys", "region,age,sex", "--N", "100000", "--a", "20",
             "--max-risk", "0.05", "--json"]
    _, memory = run_cli(*flags, check_json=True)
    _, scale = run_cli(*flags, "--engine", "scale", check_json=True)
    assert scale.pop("key") == memory.pop("key") and scale.pop("method") == memory.pop("method")
    assert scale == pytest.approx(memory, rel=1e-12)


def test_suda_out_of_core_equals_memory(persons, tmp_path):
    flags = ["risk", "suda", "--data", persons, "--keys", KEYS, "--max-size", "3", "--json"]
    _, memory = run_cli(*flags, check_json=True)
    out = tmp_path / "suda.parquet"
    proc, scale = run_cli(*flags, "--engine", "scale", "--chunk-size", "700", "--out", out, check_json=True)
    for key in ("n", "keys", "max_size", "dis_fraction", "msus_by_size", "special_uniques", "sample_uniques", "dis",
                "variables"):
        assert scale[key] == memory[key], key
    assert memory["special_uniques"] > 0 and scale["engine"] == "scale" and scale["records_out"] == str(out)
    records = pd.read_parquet(out)
    np.testing.assert_array_equal(records["msus"], memory["msus"])
    np.testing.assert_array_equal(records["score"], memory["score"])
    np.testing.assert_array_equal(records["dis_score"], memory["dis_score"])
    assert "2,000 records" in proc.stderr
    assert_bad_input(run_cli(*flags, "--out", out, "--engine", "memory"), "--out goes with --engine scale")
    assert_bad_input(run_cli(*flags, "--engine", "scale", "--merge", "sex:0,1=any"), "--merge goes with")


def test_risk_frequencies_writes_the_table_of_risk_individual(persons, tmp_path):
    out = tmp_path / "table.parquet"
    _, summary = run_cli("risk", "frequencies", "--data", persons, "--keys", KEYS, "--weight", "w", "--chunk-size",
                         "300", "--out", out, "--quiet", "--json", check_json=True)
    table = pd.read_parquet(out)
    records = tmp_path / "records.csv"
    run_cli("risk", "individual", "--data", persons, "--keys", KEYS, "--weight", "w", "--engine", "scale", "--out",
            records, "--quiet", "--json", check_json=True)
    fk = pd.read_csv(records)["fk"]
    assert summary["partitions"] > 1 and summary["records_out"] == str(out) and summary["engine"] == "scale"
    assert summary["distinct_rows"] == len(table) and table["count"].sum() == summary["n"] == len(fk)
    assert summary["sample_uniques"] == int((fk == 1).sum()) == int(table["count"][table["fk"] == 1].sum())
    assert sorted(np.repeat(table["fk"].to_numpy(), table["count"].to_numpy()).tolist()) == sorted(fk.tolist())
    assert_bad_input(run_cli("risk", "frequencies", "--data", persons, "--keys", "region,zz"), "no column 'zz'")
