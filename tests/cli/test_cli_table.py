"""The ``python -m rumap table`` contract: bounds, rules, dominance-flaw (JSON keys, exit codes)."""

from __future__ import annotations

import json
import math

import pytest
from cli_helpers import ROOT, assert_bad_input, run_cli, run_cli_subprocess

from rumap.cli import main

TABLE1 = ROOT / "tests" / "data" / "paper_table1_suppressed.csv"

CONTRIBUTIONS = "cell,value\nA,59\nA,40\nA,1\nB,61\nB,20\nB,19\nC,10\nC,10\nC,10\nC,10\n"


@pytest.fixture
def contributions(tmp_path):
    path = tmp_path / "contributions.csv"
    path.write_text(CONTRIBUTIONS)
    return path


def test_bounds_json_reproduces_paper_table1():
    proc, out = run_cli("table", "bounds", "--table", TABLE1, "--json", check_json=True)
    cells = out["cells"]
    assert [(c["row"], c["column"]) for c in cells] == [("5", "5"), ("5", "7"), ("6", "5"), ("6", "7")]
    for cell in cells:
        assert set(cell) >= {"row", "column", "min", "max", "values", "risk"}
        assert cell["values"] == cell["max"] - cell["min"] + 1 == 407
        assert cell["risk"] == pytest.approx(1 / math.log2(cell["values"]))
    assert [c["min"] for c in cells] == [0, 1131, 0, 845]
    assert [c["max"] for c in cells] == [406, 1537, 406, 1251]
    assert round(cells[0]["risk"], 3) == 0.115
    assert "NaN" not in proc.stdout and "Infinity" not in proc.stdout


def test_bounds_insider_and_text(capsys):
    assert main(["table", "bounds", "--table", str(TABLE1), "--insider-row", "5", "--insider-column", "5",
                 "--contribution", "300", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["insider"]["cells"][0]["min"] == 300 and out["insider"]["others"]["insider_max"] == 106
    assert main(["table", "bounds", "--table", str(TABLE1)]) == 0
    text = capsys.readouterr().out
    assert "1131" in text and "0.115355" in text


def test_bounds_exactly_disclosed_cell_is_null_risk(tmp_path, capsys):
    path = tmp_path / "t.csv"
    path.write_text("r,a,b,Total\nu,x,2,5\nv,4,5,9\nTotal,7,7,14\n")
    assert main(["table", "bounds", "--table", str(path), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["cells"] == [{"row": "u", "column": "a", "min": 3.0, "max": 3.0, "values": 1.0, "risk": None}]


@pytest.mark.parametrize("rule, params, sensitive", [
    ("dominance", ["--n", "1", "--k", "0.6"], ["B"]),
    ("p-percent", ["--p", "10"], ["A"]),
    ("pq", ["--p", "10", "--q", "50"], ["A"]),
    ("threshold", ["--threshold", "4"], ["A", "B"]),
])
def test_rules_json(contributions, rule, params, sensitive, capsys):
    args = ("table", "rules", "--contributions", contributions, "--rule", rule, *params, "--json")
    if rule == "dominance":
        _, out = run_cli(*args, check_json=True)
    else:  # the same entry point in this process
        assert main([str(a) for a in args]) == 0
        out = json.loads(capsys.readouterr().out)
    assert out["rule"] == rule
    assert out["sensitive_cells"] == sensitive
    assert [c["cell"] for c in out["cells"]] == ["A", "B", "C"]
    for cell in out["cells"]:
        assert set(cell) >= {"cell", "total", "contributors", "statistic", "limit", "sensitive", "reason"}


def test_rules_text_and_other_columns(tmp_path, capsys):
    path = tmp_path / "micro.csv"
    path.write_text("firm,sector,turnover\n1,s1,59\n2,s1,40\n3,s1,1\n")
    code = main(["table", "rules", "--contributions", str(path), "--rule", "dominance", "--n", "1", "--k", "0.6",
                 "--cell-column", "sector", "--value-column", "turnover"])
    assert code == 0 and "0 of 1 cells sensitive" in capsys.readouterr().out


def test_dominance_flaw_example2():
    _, out = run_cli("table", "dominance-flaw", "--n", "1", "--k", "0.369", "--cells", "3", "--json",
                     check_json=True)
    assert out["r"] == pytest.approx(0.9, abs=2e-5)
    assert out["nonsensitive_tail"] == pytest.approx(0.298893, abs=5e-6)
    assert out["sensitive_tail"] == pytest.approx(0.315498, abs=5e-6)
    assert out["theorem_holds"] is True


def test_dominance_flaw_text(capsys):
    assert main(["table", "dominance-flaw", "--n", "2", "--k", "0.7", "--cells", "20"]) == 0
    assert "Theorem 1 holds" in capsys.readouterr().out


def test_bad_input_subprocess(tmp_path):
    """Through the real entry point: exit code 2, one line on stderr."""
    assert_bad_input(run_cli_subprocess("table", "bounds", "--table", tmp_path / "missing.csv"), "missing.csv",
                     "no such file")
    assert_bad_input(run_cli_subprocess("table", "dominance-flaw", "--n", "1", "--k", "0.2", "--cells", "3"), "n/N")


def _bad_in_process(capsys, *args: str) -> str:
    """Run ``main`` in this process (the same code path, without a Python start-up per case)."""
    code = main([str(a) for a in args])
    captured = capsys.readouterr()
    lines = captured.err.strip().splitlines()
    assert code == 2 and len(lines) == 1 and captured.out == "", (code, captured)
    return lines[0]


def test_bad_input(tmp_path, contributions, capsys):
    bad = tmp_path / "bad.csv"
    bad.write_text(TABLE1.read_text().replace("592,x", "592,?"))
    assert "bad.csv" in (line := _bad_in_process(capsys, "table", "bounds", "--table", bad))
    assert "row '5', column '5'" in line
    typo = tmp_path / "typo.csv"
    typo.write_text(TABLE1.read_text().replace("Total,1448", "Total,1148"))
    assert "column '4' does not add up" in _bad_in_process(capsys, "table", "bounds", "--table", typo)
    assert "go together" in _bad_in_process(capsys, "table", "bounds", "--table", TABLE1, "--contribution", "3")
    rules = ("table", "rules", "--contributions", contributions)
    assert "--rule" in _bad_in_process(capsys, *rules, "--rule", "median")
    assert "needs k" in _bad_in_process(capsys, *rules, "--rule", "dominance", "--n", "1")
    assert "not p" in _bad_in_process(capsys, *rules, "--rule", "threshold", "--threshold", "3", "--p", "5")
    assert "q must be" in _bad_in_process(capsys, *rules, "--rule", "pq", "--p", "10", "--q", "200")
    assert "no column 'amount'" in _bad_in_process(capsys, *rules, "--rule", "threshold", "--threshold", "3",
                                                   "--value-column", "amount")
    assert "--cells" in _bad_in_process(capsys, "table", "dominance-flaw", "--n", "1", "--k", "0.5")
    assert "TABLE_COMMAND" in _bad_in_process(capsys, "table")


WORKED = "r,A,B,C,Total\nActivity I,20,50,10,80\nActivity II,8,19,22,49\nActivity III,17,32,12,61\nTotal,45,101,44,190\n"


@pytest.fixture
def worked(tmp_path):
    path = tmp_path / "worked.csv"
    path.write_text(WORKED)
    return path


def test_suppress_json_contract(worked):
    proc, out = run_cli("table", "suppress", "--table", worked, "--primary", "Activity II:C", "--protection", "20",
                        "--json", check_json=True)
    assert set(out) >= {"cells", "primary", "secondary", "cost", "optimal", "method"}
    assert len(out["cells"]) == 16  # every cell with the totals
    for cell in out["cells"]:
        assert set(cell) >= {"row", "column", "value", "status", "min", "max"}
        assert cell["status"] in ("primary", "secondary", "published")
        if cell["status"] == "published":
            assert cell["min"] == cell["max"] == cell["value"]
    assert out["primary"] == [["Activity II", "C"]]
    assert sorted(map(tuple, out["secondary"])) == [("Activity II", "A"), ("Activity III", "A"),
                                                   ("Activity III", "C")]
    assert out["cost"] == 37 and out["optimal"] is True and out["method"] == "milp"
    primary = next(c for c in out["cells"] if c["status"] == "primary")
    assert (primary["min"], primary["max"]) == (5, 30)  # seed 004's y_23 in [5, 30]
    assert "NaN" not in proc.stdout


def test_suppress_external_bounds(worked, capsys):
    assert main(["table", "suppress", "--table", str(worked), "--primary", "Activity II:C", "--external", "50",
                 "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    primary = next(c for c in out["cells"] if c["status"] == "primary")
    assert (primary["min"], primary["max"]) == (18, 26)  # seed 004 with every cell known within 50%


def test_suppress_costs_default_protection_and_text(worked, capsys):
    assert main(["table", "suppress", "--table", str(worked), "--primary", "Activity II:C", "--primary",
                 "Total:Total", "--cost", "unity", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["protection"] == 10 and ["Total", "Total"] in out["primary"]
    assert out["cost"] == len(out["secondary"]) and out["protected"] is True
    assert main(["table", "suppress", "--table", str(worked), "--primary", "Activity I:A", "--time-limit", "5",
                 "--work-limit", "1e10"]) == 0
    text = capsys.readouterr().out
    assert "secondary" in text and "proven optimal" in text


def test_suppress_primaries_from_a_rule(worked, tmp_path, capsys):
    contributions = tmp_path / "contributions.csv"
    contributions.write_text("cell,value\nActivity II:C,20\nActivity II:C,2\nActivity I:B,25\nActivity I:B,25\n"
                             "Activity I:B,0\n")
    assert main(["table", "suppress", "--table", str(worked), "--contributions", str(contributions), "--rule",
                 "dominance", "--n", "1", "--k", "0.8", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["primary"] == [["Activity II", "C"]] and out["protected"] is True
    assert main(["table", "suppress", "--table", str(worked), "--contributions", str(contributions), "--rule",
                 "dominance", "--n", "1", "--k", "0.8", "--cost", "cells", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["cost"] == 3  # cells without contributions cost 1 each


def test_round_json_and_text(worked, capsys):
    assert main(["table", "round", "--table", str(worked), "--base", "5", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert len(out["cells"]) == 16 and out["total_absolute_deviation"] == 16 and out["optimal"] is True
    rounded = {(c["row"], c["column"]): c["rounded"] for c in out["cells"]}
    assert all(v % 5 == 0 for v in rounded.values())
    assert sum(rounded[("Total", c)] for c in "ABC") == rounded[("Total", "Total")]
    for cell in out["cells"]:
        assert cell["deviation"] == cell["rounded"] - cell["value"] and abs(cell["deviation"]) < 5
    assert main(["table", "round", "--table", str(worked), "--base", "10"]) == 0
    assert "total absolute deviation" in capsys.readouterr().out


def test_suppress_and_round_bad_input(worked, tmp_path, capsys):
    suppress = ("table", "suppress", "--table", worked)
    assert "names no cell" in _bad_in_process(capsys, *suppress, "--primary", "Activity IV:A")
    assert "ROW:COL" in _bad_in_process(capsys, *suppress, "--primary", "Activity II")
    assert "--primary" in _bad_in_process(capsys, *suppress)
    assert "complete" in _bad_in_process(capsys, "table", "suppress", "--table", TABLE1, "--primary", "5:5")
    nonadditive = tmp_path / "nonadd.csv"
    nonadditive.write_text(WORKED.replace("Total,45,101,44,190", "Total,45,101,44,191"))
    assert "does not add up" in _bad_in_process(capsys, "table", "suppress", "--table", nonadditive, "--primary",
                                                "Activity II:C")
    assert "protection" in _bad_in_process(capsys, *suppress, "--primary", "Activity II:C", "--protection", "0")
    assert "--cost" in _bad_in_process(capsys, *suppress, "--primary", "Activity II:C", "--cost", "magic")
    assert "--rule needs" in _bad_in_process(capsys, *suppress, "--rule", "p-percent", "--p", "10")
    assert "base" in _bad_in_process(capsys, "table", "round", "--table", worked, "--base", "0")
    assert "base" in _bad_in_process(capsys, "table", "round", "--table", worked, "--base", "-5")
    assert_bad_input(run_cli("table", "suppress", "--table", worked, "--primary", "x:y"), "names no cell")
