"""The ``python -m rumap table granularity`` contract: flags, JSON keys, exit codes."""

from __future__ import annotations

import pytest
from cli_helpers import assert_bad_input, run_cli

from rumap.cli import main


@pytest.fixture
def proportional(tmp_path):
    path = tmp_path / "hyper_row.csv"
    path.write_text("age,count\n5-19,1\n20-34,3\n35-50,4\n50-65,1\n66+,1\n")
    return path


def test_json_on_the_seeds_proportional_hyper_row(proportional):
    proc, out = run_cli("table", "granularity", "--table", proportional, "--json", check_json=True)
    assert set(out) == {"variables", "threshold", "safe", "max_index", "unsafe_hyper_rows", "hyper_rows",
                        "unit_cells"}
    assert out["max_index"] == 60.0 and out["safe"] is False and out["threshold"] == 50.0
    assert out["hyper_rows"][0] == {"fixed": "(whole table)", "along": "age", "cells": 5, "unit_cells": 3,
                                    "index": 60.0, "unsafe": True}
    proc, out = run_cli("table", "granularity", "--table", proportional, "--threshold", "61", "--json",
                        check_json=True)
    assert out["safe"] is True


def test_a_2d_table_with_totals_and_text_output(tmp_path, capsys):
    path = tmp_path / "wide.csv"
    path.write_text("region,a,b,total\nnorth,1,5,6\nsouth,4,4,8\ntotal,5,9,14\n")
    assert main(["table", "granularity", "--table", str(path), "--threshold", "50"]) == 0
    out = capsys.readouterr().out
    assert "region=north" in out and "table unsafe: 2 hyper-row(s)" in out


@pytest.mark.parametrize(("args", "fragment"), [(["--threshold", "0"], "--threshold"),
                                                (["--threshold", "nan"], "--threshold"),
                                                (["--count-column", "freq"], "freq")])
def test_bad_input_exits_2(tmp_path, args, fragment):
    path = tmp_path / "one.csv"
    path.write_text("x\n1\n")
    assert_bad_input(run_cli("table", "granularity", "--table", path, *args), fragment)
