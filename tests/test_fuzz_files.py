"""Malformed hierarchy files, JJ files and plans, and the bad arguments of issue 41: an InputError naming them.

A table of the cases the issue lists: each call raises :class:`rumap.InputError`
whose message names the culprit (the parameter, the line or row), never another
exception. Hypothesis then mutates valid ``.hrc``, parent,child, prefix, JJ and
plan texts (bounded sizes, few examples): each either parses or raises
InputError, and never hangs. The command line prints a reader's message on one
line with exit code 2.
"""

from __future__ import annotations

import math
import re

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rumap.cli import main
from rumap.errors import InputError
from rumap.io.data import summary_table
from rumap.maps.analytic import analytic_map
from rumap.maps.recommend import ReplicateRisk, recommend
from rumap.maps.setting import AnalyticSetting
from rumap.release.plan import read_plan
from rumap.risk.individual import individual_risk
from rumap.tables.hierarchy import from_parents, from_prefixes, read_hrc, read_parent_child
from rumap.tables.jj import JJInstance, instance_from_table, read_jj, solve_jj
from rumap.tables.ndtable import build_table, example_table
from rumap.tables.secondary import suppress_secondary, worked_example_table

JJ = "0\n3\n0 7 7 s 0 70 0 0 0\n1 3 3 u 0 70 1 1 0\n2 4 4 s 0 70 0 0 0\n1\n0.0 3 : 0 (-1) 1 (1) 2 (1)\n"
PLAN = '{"steps": [{"method": "pram", "parameters": {"theta": 0.8}, "keys": ["sex"], "seed": 1}]}'
HRC = "A\n@A01\n@@A011\n@A02\nB\n"
PARENT_CHILD = "parent,child\nA,A1\nA,A2\n,B\n"
MAPS = analytic_map(["record"], [0.1, 0.2, 1.0], AnalyticSetting(n=200, sigma2=1.0))
DUPLICATED = pd.DataFrame([["a", "b", 3.0], ["c", "d", 4.0]], columns=["r", "r", "v"])
UNHASHABLE = pd.DataFrame({"a": [[1], [2], [1]], "b": ["x", "y", "x"]})


def _jj(old: str, new: str) -> str:
    assert old in JJ
    return JJ.replace(old, new, 1)


# (call, a pattern the message must hold): the cases of issue 41, point 5
CASES = {
    "plan with a 10^6-digit number": (lambda: read_plan(PLAN.replace("0.8", "1" * 10**6)), "too many digits"),
    "plan with a 400-digit integer": (lambda: read_plan(PLAN.replace("0.8", "1" + "0" * 400)),
                                      r"parameters\.theta is a number out of range"),
    "read_hrc(None)": (lambda: read_hrc(None), "text must be"),
    "read_hrc(5)": (lambda: read_hrc(5), "text must be"),
    "read_hrc(bytes)": (lambda: read_hrc(b"A\n@B\n"), "text must be"),
    "read_hrc of no code": (lambda: read_hrc("\n \n"), "text: the hierarchy has no code"),
    "read_hrc of a code Total": (lambda: read_hrc("A\n@Total\n"), "text: line 2 .*implicit"),
    "read_hrc of a repeated code": (lambda: read_hrc("A\n@B\nB\n"), "text: line 3 .*'B' twice"),
    'read_parent_child("")': (lambda: read_parent_child(""), "source: .*empty"),
    "read_parent_child of a header only": (lambda: read_parent_child("parent,child\n"), "source: .*no row"),
    "read_parent_child(None)": (lambda: read_parent_child(None), "source must be"),
    "read_parent_child of a ragged row": (lambda: read_parent_child("parent,child\nA,B\nA,B,C,D\n"),
                                          "source: .*line 3"),
    "read_parent_child of a list child": (lambda: read_parent_child(pd.DataFrame({"parent": ["A"], "child": [[1]]})),
                                          "source: row 1 .*no code"),
    "from_prefixes(5)": (lambda: from_prefixes(5), "codes must be"),
    "from_prefixes of a string": (lambda: from_prefixes("A1B"), "codes must be"),
    "from_prefixes with lengths 2.5": (lambda: from_prefixes(["A", "AB1"], lengths=[1, 2.5]), "lengths"),
    "from_prefixes with lengths '12'": (lambda: from_prefixes(["A1"], lengths="12"), "lengths"),
    "from_prefixes with lengths decreasing": (lambda: from_prefixes(["A1"], lengths=[2, 1]), "lengths .*increase"),
    "from_prefixes of a code Total": (lambda: from_prefixes(["Total", "Total1"]), "codes: 'Total'"),
    "from_prefixes of a subtotal Total": (lambda: from_prefixes(["Total1"], lengths=[5, 6]), "codes: 'Total'"),
    "from_prefixes of None": (lambda: from_prefixes([None, "A"]), "codes .*item 1"),
    "from_parents of a float parent": (lambda: from_parents({"A": 1.5}), "parent_of: "),
    "from_parents of a cycle": (lambda: from_parents({"a": "b", "b": "a"}), "parent_of: .*cycle"),
    "build_table with two columns r": (lambda: build_table(DUPLICATED, ["r"], value_column="v"), "frame: .*'r'"),
    "build_table with dims of lists": (lambda: build_table(DUPLICATED.iloc[:, 1:], [["r"]]), "dims must be"),
    "build_table with codes that are lists": (lambda: build_table(pd.DataFrame({"a": ["x", ["y"]]}), ["a"]),
                                              "dims 'a' has \\['y'\\] in record 2"),
    "instance_from_table with a mask of text": (
        lambda: instance_from_table(example_table(), ["no"] * example_table().size), "primary_mask must be"),
    "read_jj with 3.5 cells": (lambda: read_jj(_jj("\n3\n", "\n3.5\n")), "text: line 2 .*'3.5'"),
    "read_jj with a fractional index": (lambda: read_jj(_jj("1 3 3 u", "1.0 3 3 u")), "text: line 4 .*'1.0'"),
    "read_jj with a negative LPL": (lambda: read_jj(_jj("u 0 70 1 1 0", "u 0 70 -1 1 0")), "text: line 4 .*LPL"),
    "read_jj with an unknown status": (lambda: read_jj(_jj("1 3 3 u", "1 3 3 q")), "text: line 4 .*'q'"),
    "read_jj with Arabic digits": (lambda: read_jj(_jj("0 7 7 s", "0 \u0667 7 s")), "text: line 3 "),
    "read_jj with a NaN value": (lambda: read_jj(_jj("0 7 7 s", "0 nan 7 s")), "text: line 3 .*'nan'"),
    "read_jj with a huge count": (lambda: read_jj(_jj("\n1\n0.0", "\n" + "9" * 5000 + "\n0.0")), "text: line 6 "),
    "read_jj with a term of no cell": (lambda: read_jj(_jj("2 (1)", "7 (1)")), "text: line 7 .*'7'"),
    "read_jj(None)": (lambda: read_jj(None), "text must be"),
    "JJInstance with a negative UPL": (
        lambda: JJInstance(np.ones(1), np.ones(1), ("u",), np.zeros(1), np.ones(1) * 9, np.zeros(1), -np.ones(1),
                           np.zeros(1), np.zeros((0, 1)), np.zeros(0)), "upl of cell 0 is negative"),
    "recommend with replicates of 2 values on a grid of 3": (
        lambda: recommend(MAPS, 5.0, replicates=[ReplicateRisk(np.ones((4, 2)))]), "replicates: item 1"),
    "ReplicateRisk of NaN": (lambda: ReplicateRisk(np.full((4, 3), math.nan)), "samples has missing"),
    "ReplicateRisk of a 1-D array": (lambda: ReplicateRisk(np.ones(3)), "samples must be"),
    "individual_risk on lists": (lambda: individual_risk(UNHASHABLE, ["a", "b"]), "column 'a' .*row 1"),
    "individual_risk on a household of lists": (
        lambda: individual_risk(UNHASHABLE, ["b"], household="a"), "column 'a' .*row 1"),
    "suppress_secondary with a NaN frequency": (
        lambda: suppress_secondary(worked_example_table(), [("Activity II", "C")], cost="cells",
                                   frequencies={("Activity II", "C"): math.nan}), "frequencies: .*nan"),
    "suppress_secondary with a frequency of no cell": (
        lambda: suppress_secondary(worked_example_table(), [("Activity II", "C")], cost="cells",
                                   frequencies={("nope", "C"): 2}), "frequencies name"),
    "summary_table of one value": (lambda: summary_table([3.0]), "x needs at least 2"),
}


@pytest.mark.parametrize("case", list(CASES))
def test_listed_case_raises_input_error_naming_the_culprit(case):
    call, pattern = CASES[case]
    with pytest.raises(InputError, match=pattern) as caught:
        call()
    assert "\n" not in str(caught.value)


def test_inconsistent_equations_are_an_infeasible_status_and_valid_ones_protected():
    solution = solve_jj(read_jj(_jj("0.0 3 :", "5.0 3 :")))
    assert solution.status == "infeasible" and not solution.protected.any() and not solution.suppressed.any()
    assert "equation 1" in solution.reason and math.isnan(solution.cost)
    out = solution.to_dict()
    assert out["status"] == "infeasible" and out["cost"] is None
    good = solve_jj(read_jj(JJ))
    assert good.status == "protected" and good.protected.all() and good.reason == ""


def test_a_summary_of_two_values_has_a_finite_sd():
    table = summary_table([1.0, 3.0]).set_index("statistic")["value"]
    assert table["n"] == 2 and table["sd"] == pytest.approx(math.sqrt(2.0))


# --- fuzzing: mutations of valid texts -----------------------------------------------------------------------

FUZZ = settings(max_examples=30, deadline=None, derandomize=True,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
#: Characters that matter to the formats, with a few that do not.
SYMBOLS = st.sampled_from(list("@0123456789.-+:() ,\n\tTotaleAxu") + ["\u0661", "nan", "inf", "1e999", "9" * 30])


def _mutated(text: str):
    """``text`` with a slice replaced by up to 12 symbols (or deleted): most results are malformed."""
    return st.tuples(st.integers(0, len(text)), st.integers(0, 8), st.lists(SYMBOLS, max_size=12)).map(
        lambda cut: text[:cut[0]] + "".join(cut[2]) + text[cut[0] + cut[1]:])


def _parses_or_refuses(call, text):
    try:
        call(text)
    except InputError as exc:
        assert str(exc) and "\n" not in str(exc)


@FUZZ
@given(_mutated(HRC))
def test_fuzzed_hrc(text):
    _parses_or_refuses(read_hrc, text)


@FUZZ
@given(_mutated(PARENT_CHILD))
def test_fuzzed_parent_child(text):
    _parses_or_refuses(read_parent_child, text)


@FUZZ
@given(st.lists(st.one_of(st.text("ATotal01 ", max_size=7), st.integers(-5, 10**6), st.none(), st.floats()),
                max_size=6),
       st.one_of(st.none(), st.lists(st.one_of(st.integers(-2, 8), st.floats(-1, 9)), max_size=4)))
def test_fuzzed_prefixes(codes, lengths):
    try:
        from_prefixes(codes, lengths)
    except InputError as exc:
        assert re.search(r"\b(codes|lengths)\b", str(exc)), str(exc)


@FUZZ
@given(_mutated(JJ))
def test_fuzzed_jj(text):
    try:
        instance = read_jj(text)
    except InputError as exc:
        assert str(exc).startswith("text") and "\n" not in str(exc)
        return
    try:
        solution = solve_jj(instance, time_limit=5.0)
    except InputError:
        return
    assert solution.status in ("protected", "infeasible")


@FUZZ
@given(_mutated(PLAN))
def test_fuzzed_plan(text):
    _parses_or_refuses(read_plan, text)


# --- the command line prints the reader's message --------------------------------------------------------------

@pytest.mark.parametrize(("suffix", "content", "expected"), [
    (".hrc", "A\n@@A1\n", "line 2 of the hierarchy"),
    (".csv", "", "cannot be read as CSV: it is empty"),
])
def test_command_line_prints_the_readers_message(tmp_path, capsys, suffix, content, expected):
    (tmp_path / "m.csv").write_text("nace,v\nA1,1\nA1,2\n")
    (tmp_path / f"h{suffix}").write_text(content)
    code = main(["table", "suppress", "--microdata", str(tmp_path / "m.csv"), "--dims", "nace", "--hierarchy",
                 f"nace={tmp_path / f'h{suffix}'}", "--rule", "threshold", "--threshold", "3"])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1, err
    assert "--hierarchy nace: " in err[0] and expected in err[0] and "text:" not in err[0], err[0]


def test_plan_file_message_on_the_command_line(tmp_path, capsys):
    (tmp_path / "plan.json").write_text(PLAN.replace("0.8", "1" * 5000))
    code = main(["release", "--data", str(tmp_path / "plan.json"), "--plan", str(tmp_path / "plan.json"),
                 "--out", str(tmp_path / "out.csv")])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1, err
    assert "too many digits" in err[0] and "--plan" in err[0], err[0]


def test_scale_engine_refuses_columns_of_lists(tmp_path):
    from rumap.scale import individual_risk as file_risk
    from rumap.scale import scan

    pd.DataFrame({"a": [[1], [2], [1]], "b": ["x", "y", "x"]}).to_parquet(tmp_path / "l.parquet")
    for keys, household in ((["a", "b"], None), (["b"], "a")):
        with pytest.raises(InputError, match="column 'a' holds values of type List") as caught:
            file_risk(scan(tmp_path / "l.parquet"), keys, household=household, progress=False)
        assert "\n" not in str(caught.value)
    with pytest.raises(InputError, match=r"weight 'a' must be a number >= 1 in every record, got \[1\] in row 1$"):
        file_risk(scan(tmp_path / "l.parquet"), ["b"], weight="a", progress=False)


@pytest.mark.parametrize(("argument", "value"), [("source", 5), ("progress", "x"), ("stage", 1)])
def test_release_in_chunks_names_a_bad_optional_argument(tmp_path, argument, value):
    from rumap.release.plan import ReleasePlan, Step
    from rumap.release.stream import release_in_chunks

    pd.DataFrame({"a": [1.0, 2.0, 4.0]}).to_parquet(tmp_path / "in.parquet")
    plan = ReleasePlan((Step("noise", {"lambda2_frac": 0.5}, columns=("a",), seed=3),))
    with pytest.raises(InputError, match=f"^{argument} must be"):
        release_in_chunks(tmp_path / "in.parquet", plan, tmp_path / "out.parquet", 2, **{argument: value})
    assert not (tmp_path / "out.parquet").exists()
