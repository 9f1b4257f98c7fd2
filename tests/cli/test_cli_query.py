"""The ``python -m rumap query answer|audit`` contract: flags, JSON keys, exit codes."""

from __future__ import annotations

import json

import pytest
from cli_helpers import assert_bad_input, run_cli

from rumap.cli import main

EMP = "id,dep,salary\n1,M,85\n2,M,3\n3,M,2\n4,A,4\n5,A,3\n6,A,3\n7,S,4\n8,S,3\n9,S,3\n"


@pytest.fixture
def emp(tmp_path):
    path = tmp_path / "emp.csv"
    path.write_text(EMP)
    return path


def test_answer_json_holds_every_exact_answer(emp):
    proc, out = run_cli("query", "answer", "--data", emp, "--value", "salary", "--query", "SUM:*", "--query",
                        "MEAN:4-9", "--query", "MIN:1-3", "--query", "MAX:*", "--query", "COUNT>3:*",
                        "--protection", "20", "--camouflage-k", "4", "--seed", "3", "--show-vectors", "--json",
                        check_json=True)
    assert set(out) == {"answers", "config", "vectors"}
    assert out["config"] == {"protection": 20.0, "k": 4, "seed": 3}
    rows = out["answers"]
    assert [r["query"] for r in rows] == ["SUM:1-9", "MEAN:4-9", "MIN:1-3", "MAX:1-9", "COUNT>3:1-9"]
    for r in rows:
        assert set(r) == {"query", "answer", "guarantee", "low", "high", "exact", "method"}
        assert r["answer"] - r["guarantee"] - 1e-9 <= r["exact"] <= r["answer"] + r["guarantee"] + 1e-9
    assert rows[0]["exact"] == 110 and rows[3]["high"] == pytest.approx(85 * 1.2)
    vectors = out["vectors"]["records"]
    assert len(vectors) == 9 and vectors[0]["P4"] == 85 and vectors[0]["p_max"] == pytest.approx(102)


def test_audit_refuses_the_exact_disclosure_sequence(tmp_path):
    data = tmp_path / "three.csv"
    data.write_text("x\n10\n20\n30\n")
    proc, out = run_cli("query", "audit", "--data", data, "--value", "x", "--query", "SUM:1,2,3", "--query",
                        "SUM:1,2", "--protection", "0", "--json", check_json=True)
    assert set(out) == {"decisions", "answered", "refused", "records", "config"}
    first, second = out["decisions"]
    assert first["answered"] and first["answer"] == 60
    assert not second["answered"] and second["reason"] == "exact disclosure"
    assert second["record"] == 3 and second["culprits"] == [1]
    assert (out["answered"], out["refused"]) == (1, 1)


def test_audit_queries_file_and_seed_example(emp, tmp_path):
    queries = tmp_path / "queries.json"
    queries.write_text(json.dumps(["SUM:4-6", "SUM:7-9", "SUM:*"]))
    proc, out = run_cli("query", "audit", "--data", emp, "--value", "salary", "--queries", queries, "--query",
                        "SUM:1-3", "--protection", "0", "--dominance-n", "2", "--dominance-k", "0.85", "--json",
                        check_json=True)
    assert [d["reason"] for d in out["decisions"]] == ["safe", "safe", "sensitive inferred sum", "sensitive"]
    lines = tmp_path / "queries.txt"
    lines.write_text("SUM:4-6  # Administration\nSUM:7-9\n\nSUM:*\n")
    proc, out = run_cli("query", "audit", "--data", emp, "--value", "salary", "--queries", lines, "--json",
                        check_json=True)
    assert out["decisions"][2]["reason"] == "interval disclosure" and out["decisions"][2]["culprits"] == [1, 2]
    assert out["records"][0]["high"] is None  # record 1 unbounded above once q3 is refused


def test_text_output(emp, capsys):
    assert main(["query", "audit", "--data", str(emp), "--value", "salary", "--query", "SUM:4-6"]) == 0
    assert "1 of 1 queries answered" in capsys.readouterr().out
    assert main(["query", "answer", "--data", str(emp), "--value", "salary", "--query", "SUM:4-6"]) == 0
    assert "guarantee" in capsys.readouterr().out


@pytest.mark.parametrize(("extra", "fragment"), [
    (["--query", "SUM:10"], "record 10"), (["--query", "AVG:1"], "kind"), (["--camouflage-k", "2"], "--camouflage-k"),
    (["--protection", "0"], "--protection"), (["--seed", "-1"], "--seed")])
def test_answer_bad_input_exits_2(emp, extra, fragment):
    base = ["query", "answer", "--data", emp, "--value", "salary"]
    proc = run_cli(*base, *(extra if extra[0] == "--query" else ["--query", "SUM:1", *extra]))
    assert_bad_input(proc, fragment)


@pytest.mark.parametrize(("extra", "fragment"), [
    (["--query", "MAX:1,2"], "SUM, MEAN and COUNT"), (["--query", "SUM:1", "--dominance-n", "2"], "--dominance-k"),
    (["--query", "SUM:1", "--lower", "abc"], "--lower"), (["--query", "SUM:1", "--lower", "5"], "outside"),
    ([], "--query")])
def test_audit_bad_input_exits_2(emp, extra, fragment):
    assert_bad_input(run_cli("query", "audit", "--data", emp, "--value", "salary", *extra), fragment)


def test_records_keeps_the_first_rows(emp):
    proc, out = run_cli("query", "audit", "--data", emp, "--value", "salary", "--records", "3", "--query", "SUM:*",
                        "--json", check_json=True)
    assert out["decisions"][0]["query"] == "SUM:1-3" and len(out["records"]) == 3
    assert_bad_input(run_cli("query", "audit", "--data", emp, "--value", "salary", "--records", "3", "--query",
                             "SUM:4"), "record 4")
