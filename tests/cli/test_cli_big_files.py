"""Parquet files over the size limit in ``microaggregate``, ``simulate`` and ``release``, and ``--progress``."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from cli_helpers import assert_bad_input, run_cli

import rumap.io.data


@pytest.fixture()
def files(tmp_path):
    """The same file as CSV and Parquet: a text key, two floats and an integer column."""
    rng = np.random.default_rng(3)
    frame = pd.DataFrame({"region": [f"r{i % 3}" for i in range(300)], "income": rng.lognormal(10, 1, 300),
                          "tax": rng.lognormal(8, 1, 300), "age": rng.integers(18, 90, 300)})
    frame.to_csv(tmp_path / "people.csv", index=False)
    frame.to_parquet(tmp_path / "people.parquet", index=False)
    return tmp_path / "people.csv", tmp_path / "people.parquet", frame


@pytest.fixture()
def small_limit(monkeypatch):
    """A size limit of 1 kB: both files are over it."""
    monkeypatch.setattr(rumap.io.data, "MAX_BYTES", 1024)


def test_microaggregate_reads_a_parquet_file_over_the_limit(files, tmp_path, small_limit):
    csv, parquet, frame = files
    assert_bad_input(run_cli("microaggregate", "--data", csv, "--k", "3", "--algorithm", "mdav"), "over the", "limit")
    _, out = run_cli("microaggregate", "--data", parquet, "--columns", "income,age", "--k", "3", "--algorithm",
                     "mdav_partitioned", "--standardize", "--json", "--out", tmp_path / "masked.parquet",
                     check_json=True)
    rumap.io.data.MAX_BYTES = 10**9  # the CSV path, for the same numbers
    _, expected = run_cli("microaggregate", "--data", csv, "--columns", "income,age", "--k", "3", "--algorithm",
                          "mdav_partitioned", "--standardize", "--json", "--out", tmp_path / "masked.csv",
                          check_json=True)
    assert out == expected
    masked, masked_csv = pd.read_parquet(tmp_path / "masked.parquet"), pd.read_csv(tmp_path / "masked.csv")
    assert list(masked.columns) == list(frame.columns)
    pd.testing.assert_series_equal(masked["region"], frame["region"], check_dtype=False)
    pd.testing.assert_series_equal(masked["tax"], frame["tax"])  # not chosen: unchanged
    np.testing.assert_allclose(masked[["income", "age"]], masked_csv[["income", "age"]], rtol=1e-14)
    assert not np.allclose(masked["income"], frame["income"])


def test_microaggregate_parquet_every_numeric_column_and_bad_columns(files, small_limit):
    _, parquet, _ = files
    _, out = run_cli("microaggregate", "--data", parquet, "--k", "5", "--algorithm", "optimal_pc1", "--json",
                     check_json=True)
    assert out["columns"] == ["income", "tax", "age"] and out["min_group_size"] >= 5
    assert_bad_input(run_cli("microaggregate", "--data", parquet, "--columns", "income,height", "--k", "3",
                             "--algorithm", "mdav"), "no column 'height'", "region, income, tax, age")
    assert_bad_input(run_cli("microaggregate", "--data", parquet, "--columns", "region", "--k", "3",
                             "--algorithm", "mdav"), "column 'region' is not numeric")


def test_progress_on_stderr_only_when_asked(files):
    _, parquet, _ = files
    args = ("microaggregate", "--data", parquet, "--k", "3", "--algorithm", "mdav_partitioned", "--json")
    quiet = run_cli(*args)
    assert quiet.returncode == 0 and quiet.stderr == ""
    loud = run_cli(*args, "--progress")
    lines = loud.stderr.strip().splitlines()
    assert loud.returncode == 0 and lines[0].endswith(f"reading {parquet}")
    assert any("read 300 records x 3 variables" in line for line in lines)
    assert lines[-2].endswith("records grouped: 300/300 (100%)") and "groups, information loss" in lines[-1]
    assert json.loads(loud.stdout) == json.loads(quiet.stdout)


def test_simulate_and_release_read_a_parquet_file_over_the_limit(files, tmp_path, small_limit):
    _, parquet, frame = files
    proc, out = run_cli("simulate", "--data", parquet, "--columns", "income,tax", "--lambda2-frac", "0.1:1:3",
                        "--target", "max", "--knowledge", "index", "--replicates", "10", "--progress", "--json",
                        check_json=True)
    assert out["n"] == 300 and len(out["curves"]) == 1 and "replicate-values: 30/30 (100%)" in proc.stderr
    proc, summary = run_cli("release", "--data", parquet, "--method", "rankswap", "--columns", "income,tax",
                            "--swap-percent", "5", "--seed", "2", "--out", tmp_path / "released.parquet",
                            "--no-prediction", "--progress", "--json", check_json=True)
    assert summary["rows"] == 300 and "steps applied" in proc.stderr
    released = pd.read_parquet(tmp_path / "released.parquet")
    np.testing.assert_array_equal(np.sort(released["income"]), np.sort(frame["income"]))  # a permutation
    assert not np.array_equal(released["income"], frame["income"])
