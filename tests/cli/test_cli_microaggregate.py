"""The ``python -m rumap microaggregate`` contract (flags, JSON keys, --out file, exit codes)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from cli_helpers import assert_bad_input, run_cli

JSON_KEYS = {"algorithm", "k", "n", "groups", "min_group_size", "max_group_size", "sse", "sst", "information_loss"}


@pytest.fixture()
def mixed_file(tmp_path):
    """A file with two numeric columns, a text column and a numeric id."""
    rng = np.random.default_rng(0)
    frame = pd.DataFrame({"region": [f"r{i % 4}" for i in range(40)], "income": rng.lognormal(10, 1, 40).round(2),
                          "age": rng.integers(20, 70, 40), "tax": rng.lognormal(8, 1, 40).round(2)})
    path = tmp_path / "people.csv"
    frame.to_csv(path, index=False)
    return path, frame


def test_json_contract_census_mdav(shared_data):
    _, out = run_cli("microaggregate", "--data", shared_data / "census.csv", "--k", "3", "--algorithm", "mdav",
                     "--standardize", "--json", check_json=True)
    assert JSON_KEYS <= set(out)
    assert out["algorithm"] == "mdav" and out["k"] == 3 and out["n"] == 1080
    assert out["groups"] == 360 and out["min_group_size"] == 3 and out["max_group_size"] == 3
    assert 100 * out["information_loss"] == pytest.approx(5.69, abs=0.05)
    assert out["information_loss"] == pytest.approx(out["sse"] / out["sst"])
    assert out["sst"] == pytest.approx(13 * 1079)  # 13 standardized columns


def test_out_replaces_chosen_columns_only(mixed_file, tmp_path):
    path, frame = mixed_file
    out_path = tmp_path / "masked.csv"
    _, out = run_cli("microaggregate", "--data", path, "--columns", "income,tax", "--k", "4", "--algorithm", "mwa",
                     "--out", out_path, "--json", check_json=True)
    masked = pd.read_csv(out_path)
    assert masked.columns.tolist() == frame.columns.tolist()
    assert masked["region"].tolist() == frame["region"].tolist()
    assert masked["age"].tolist() == frame["age"].tolist()
    for column in ("income", "tax"):
        assert masked[column].mean() == pytest.approx(frame[column].mean())
        assert not np.allclose(masked[column], frame[column])
    assert masked.groupby(["income", "tax"]).size().min() >= 4
    assert 4 <= out["min_group_size"] and out["max_group_size"] <= 7
    assert out["n"] == 40 and JSON_KEYS <= set(out)


def test_default_columns_are_every_numeric_one(mixed_file, tmp_path):
    path, frame = mixed_file
    out_path = tmp_path / "masked.csv"
    _, out = run_cli("microaggregate", "--data", path, "--k", "5", "--algorithm", "fixed", "--out", out_path,
                     "--json", check_json=True)
    assert out["columns"] == ["income", "age", "tax"]
    masked = pd.read_csv(out_path)
    assert masked["region"].tolist() == frame["region"].tolist()
    assert masked.groupby(["income", "age", "tax"]).size().min() >= 5


def test_readable_output(mixed_file):
    path, _ = mixed_file
    proc = run_cli("microaggregate", "--data", path, "--columns", "income", "--k", "3", "--algorithm", "optimal")
    assert proc.returncode == 0, proc.stderr
    assert "optimal microaggregation, k = 3, n = 40, 1 variable(s): income" in proc.stdout
    assert "information loss L = SSE/SST" in proc.stdout and "groups: " in proc.stdout


def test_standardize_changes_the_loss_scale(mixed_file):
    path, _ = mixed_file
    args = ["microaggregate", "--data", path, "--columns", "income,age", "--k", "3", "--algorithm", "mdav", "--json"]
    _, raw = run_cli(*args, check_json=True)
    _, standardized = run_cli(*args, "--standardize", check_json=True)
    assert standardized["sst"] == pytest.approx(2 * 39)
    assert raw["sst"] > 1e6


def test_bad_input_exit_2_one_line(mixed_file, tmp_path):
    path, frame = mixed_file
    base = ["microaggregate", "--data", path, "--algorithm", "mdav"]
    assert_bad_input(run_cli("microaggregate", "--data", tmp_path / "none.csv", "--k", "3", "--algorithm", "mdav"),
                     "none.csv", "no such file")
    assert_bad_input(run_cli(*base, "--k", "3", "--columns", "income,wealth"), "no column 'wealth'")
    assert_bad_input(run_cli(*base, "--k", "3", "--columns", "region"), "'region'", "not numeric")
    assert_bad_input(run_cli(*base, "--k", "41"), "k must be at most the number of records n = 40", "k = 41")
    assert_bad_input(run_cli(*base, "--k", "0"), "k must be an integer >= 1")
    assert_bad_input(run_cli("microaggregate", "--data", path, "--k", "3", "--algorithm", "optimal",
                             "--columns", "income,tax"), "optimal", "one column")
    assert_bad_input(run_cli(*base, "--k", "3", "--out", tmp_path / "masked.xyz"), "--out", "'.xyz'")
    holes = frame.copy()
    holes.loc[5, "tax"] = np.nan
    holes_path = tmp_path / "holes.csv"
    holes.to_csv(holes_path, index=False)
    assert_bad_input(run_cli("microaggregate", "--data", holes_path, "--k", "3", "--algorithm", "mdav"),
                     "'tax'", "missing", "row 6")
    # Missing values outside the chosen columns do not matter.
    proc = run_cli("microaggregate", "--data", holes_path, "--columns", "income,age", "--k", "3", "--algorithm",
                   "mdav", "--json")
    assert proc.returncode == 0, proc.stderr


def test_parse_columns():
    from rumap.cli.microaggregate import parse_columns
    from rumap.errors import InputError

    assert parse_columns(None) is None
    assert parse_columns(" a, b ") == ["a", "b"]
    with pytest.raises(InputError, match="empty name"):
        parse_columns("a,,b")
    with pytest.raises(InputError, match="twice"):
        parse_columns("a,a")
