"""Fuzzing the command line in-process: every malformed invocation exits 2 with one line, no traceback, no NaN.

Each subcommand starts from a valid invocation on small files; every flag is
then given values that are wrong for it (not numbers, out of range, NaN,
infinities, 1e400, empty, absurdly long, or files that are missing,
directories, devices, empty, binary, over-large in value, constant, with
duplicate or missing columns), required flags are dropped, unknown flags
added. Each runs through ``rumap.cli.main(argv)`` in this process: it must
return 2, print exactly one line ``error: ...`` on stderr and nothing that
looks like a traceback, emit no RuntimeWarning, and leave stdout empty.
"""

from __future__ import annotations

import argparse
import gc
import os
import warnings
from pathlib import Path

import numpy as np
import pytest

from rumap.cli import build_parser, main

OTHER_DIGITS = ["\u0661\u0662", "\uff11", "\u00b2", "\u09e7.5"]  # Arabic-Indic, full-width, superscript, Bengali
BAD_NUMBERS = ["abc", "", "nan", "NaN", "inf", "-inf", "1e400", "-1e400", "0x1p3", "1,5", "--", *OTHER_DIGITS]
#: Numbers that parse but are wrong for a flag whose values are bounded (a fraction, a size, a percent).
HUGE = ["1e308", "-1e308"]
BAD_POSITIVE = [*BAD_NUMBERS, "-1", "0", "-1e-300"]
BAD_INTEGERS = [*BAD_POSITIVE, "2.5", "1e3000"]
BAD_FRACTIONS = [*BAD_NUMBERS, "-0.1", "0", "1", "1.5", "1e308"]
BAD_GRIDS = ["", "abc", "1", "0:1", "0:1:0", "0:1:-3", "1:0:5", "0:nan:5", "0:inf:5", "0:1:1e9", "0:1:2.5",
             "::", "0:1:3:4", "-1:1:3", "1e400:1e401:3", "0:1:10000000000", "0:1:\u0663", "\uff10:1:3"]
LONG = "x" * 5000
BAD_QUERIES = ["", "SUM", "SUM:", "SUM:0", "SUM:61", "AVG:1", "SUM:1-", "SUM:5-1", "COUNT>nan:1", "MAX>3:1", "SUM:a",
               "SUM:1-99999999999", LONG, "COUNT>1e400:1", "SUM:1-\u00b2", "SUM:\u0661", "COUNT>\u0663:1-3"]


def _write(path: Path, text: str) -> str:
    path.write_text(text, encoding="utf-8")
    return str(path)


@pytest.fixture(scope="module")
def files(tmp_path_factory) -> dict[str, str]:
    return make_files(tmp_path_factory.mktemp("fuzz"))


def make_files(d: Path) -> dict[str, str]:
    """The small files the invocations read, written in ``d``."""
    rng = np.random.default_rng(12)
    x = np.round(np.exp(rng.normal(9.7, 0.6, 60)), 2)
    y = np.round(x * 0.3 + rng.normal(0, 500, 60), 2)
    region = [["north", "south", "east"][i % 3] for i in range(60)]
    good = "income,spend,region\n" + "".join(f"{a},{b},{r}\n" for a, b, r in zip(x, y, region, strict=True))
    masked = "income,spend,region\n" + "".join(f"{a + 50},{b - 20},{r}\n" for a, b, r in zip(x, y, region, strict=True))
    out = {
        "good": _write(d / "good.csv", good),
        "masked": _write(d / "masked.csv", masked),
        "short_masked": _write(d / "short.csv", "income,spend,region\n1,2,north\n3,4,south\n"),
        "huge_values": _write(d / "huge.csv", "income,spend\n" + "".join(f"{1e308 * (1 + i / 100)},{i}\n" for i in range(30))),
        "constant": _write(d / "constant.csv", "income,spend\n" + "".join(f"5,{i}\n" for i in range(30))),
        "empty": _write(d / "empty.csv", ""),
        "header_only": _write(d / "header.csv", "income,spend\n"),
        "one_row": _write(d / "one.csv", "income,spend\n5,6\n"),
        "text_only": _write(d / "text.csv", "income,spend\na,b\nc,d\n"),
        "duplicate_header": _write(d / "dup.csv", "income,income\n1,2\n3,4\n5,6\n"),
        "missing_values": _write(d / "missing.csv", "income,spend\n1,2\n,4\n5,\n7,8\n"),
        "nan_text": _write(d / "nan.csv", "income,spend\nnan,1\ninf,2\n3,4\n"),
        "ragged": _write(d / "ragged.csv", "income,spend\n1,2,3,4\n5\n"),
        "text_in_numbers": _write(d / "text_in_numbers.csv", "income,spend,region\n" + "".join(
            f"{'abc' if i == 7 else i + 1},{i},{['north', 'south'][i % 2]}\n" for i in range(30))),
        "wrong_extension": _write(d / "data.xyz", good),
        "not_excel": _write(d / "fake.xlsx", good),
        "directory": str(d),
        "missing_file": str(d / "no-such-file.csv"),
        "device": "/dev/zero",
        "long_name": str(d / (LONG[:200] + ".csv")),
        "table_bad": _write(d / "table.csv", "r,a,b,total\nx1,10,x,20\nx2,x,5,15\ntotal,20,15,999\n"),
        "table_good": _write(d / "table_ok.csv", "r,a,b,total\nx1,10,x,20\nx2,x,5,15\ntotal,20,15,35\n"),
        "table_huge": _write(d / "table_huge.csv", "r,a,b,total\nx1,1e200,x,2e200\nx2,x,5,1e200\ntotal,2e200,1e200,3e200\n"),
        "table_complete": _write(d / "table_complete.csv", "r,a,b,total\nx1,10,12,22\nx2,9,5,14\ntotal,19,17,36\n"),
        "table_complete_bad": _write(d / "table_nonadd.csv", "r,a,b,total\nx1,10,12,22\nx2,9,5,14\ntotal,19,17,37\n"),
        "contributions_cells": _write(d / "contrib_cells.csv", "cell,value\nx1:a,9\nx1:a,1\nx2:b,3\nx2:b,1\nx2:b,1\n"),
        "contributions": _write(d / "contrib.csv", "cell,value\nA,10\nA,5\nB,3\nB,1\nB,1\n"),
        "contributions_bad": _write(d / "contrib_bad.csv", "cell,value\nA,-10\nA,5\n"),
        "contributions_huge": _write(d / "contrib_huge.csv", "cell,value\nA,1e308\nA,1.5e308\n"),
        "granularity": _write(d / "granularity.csv", "sex,age,count\nf,young,1\nf,old,3\nm,young,2\nm,old,1\n"),
        "queries": _write(d / "queries.txt", "SUM:1-10\nMEAN:11-20\n"),
        "queries_json_bad": _write(d / "queries.json", "[1, 2]"),
        "queries_json_broken": _write(d / "broken.json", "[\"SUM:1\""),
        "queries_bad_record": _write(d / "bad_record.txt", "SUM:1-61\n"),
        "queries_other_digits": _write(d / "other_digits.txt", "SUM:1-\u0665\n"),
        "infinite_income": _write(d / "infinite.csv", "income,spend,region\n" + "".join(
            f"{'inf' if i == 3 else i},{i},{['north', 'south'][i % 2]}\n" for i in range(30))),
        "table_total_inside": _write(d / "table_inside.csv",
                                     "r,a,b,total\nx1,10,12,22\ntotal,19,17,36\nx2,9,5,14\ntotal,19,17,36\n"),
        "table_repeated_row": _write(d / "table_repeat.csv", "r,a,b,total\nx1,10,12,22\nx1,9,5,14\ntotal,19,17,36\n"),
        "table_other_digits": _write(d / "table_digits.csv",
                                     "r,a,b,total\nx1,\u0661\u0660,12,22\nx2,9,5,14\ntotal,19,17,36\n"),
        "table_nan_word": _write(d / "table_nanword.csv", "r,a,b,total\nx1,NaN,12,22\nx2,9,5,14\ntotal,19,17,36\n"),
    }
    (d / "binary.csv").write_bytes(bytes(range(256)) * 50)
    out["binary"] = str(d / "binary.csv")
    out["release_out"] = str(d / "released.csv")
    step = '{"method": "noise", "columns": ["income"], "parameters": {"lambda2_frac": %s}, "seed": 0}'
    out["plan"] = _write(d / "plan.json", '{"steps": [%s]}' % (step % "0.1"))
    for name, value in [("inf", '"inf"'), ("huge", "1e308"), ("text", '"abc"'), ("digits", '"\u0661"'),
                        ("negative", "-1")]:
        out[f"plan_{name}"] = _write(d / f"plan_{name}.json", '{"steps": [%s]}' % (step % value))
    out["plan_unknown_column"] = _write(d / "plan_column.json", out_text := '{"steps": [%s]}' % (step % "0.1"))
    Path(out["plan_unknown_column"]).write_text(out_text.replace('"income"', '"nope"'), encoding="utf-8")
    out["plan_no_steps"] = _write(d / "plan_empty.json", '{"steps": []}')
    out["plan_not_object"] = _write(d / "plan_list.json", "[1, 2]")
    return out


BAD_FILES = ["huge_values", "constant", "empty", "header_only", "one_row", "text_only", "duplicate_header",
             "missing_values", "nan_text", "ragged", "wrong_extension", "not_excel", "directory", "missing_file",
             "device", "binary"]


def _base(files: dict[str, str]) -> dict[str, list[str]]:
    return {
        "analytic": ["analytic", "--n", "200", "--sigma2", "1", "--lambda2", "0:1:5", "--state", "record"],
        "analytic-data": ["analytic", "--data", files["good"], "--column", "income", "--lambda2", "0:1e7:5",
                          "--state", "sample", "--state", "maximum"],
        "simulate": ["simulate", "--data", files["good"], "--column", "income", "--lambda2-frac", "0.1:1:3",
                     "--target", "max", "--replicates", "5"],
        "microaggregate": ["microaggregate", "--data", files["good"], "--columns", "income,spend", "--k", "3",
                           "--algorithm", "mdav"],
        "linkage": ["risk", "linkage", "--original", files["good"], "--masked", files["masked"], "--keys",
                    "income,spend"],
        "interval": ["risk", "interval", "--original", files["good"], "--masked", files["masked"], "--columns",
                     "income,spend"],
        "identity": ["risk", "identity", "--f", "0.1", "--a", "100", "--fu", "0.01"],
        "identity-data": ["risk", "identity", "--data", files["good"], "--key", "region", "--N", "10000", "--a", "50"],
        "bounds": ["table", "bounds", "--table", files["table_good"]],
        "rules": ["table", "rules", "--contributions", files["contributions"], "--rule", "p-percent", "--p", "10"],
        "flaw": ["table", "dominance-flaw", "--n", "1", "--k", "0.8", "--cells", "10"],
        "individual": ["risk", "individual", "--data", files["good"], "--keys", "region", "--weight", "income"],
        "keys": ["risk", "keys", "--data", files["good"], "--keys", "region,spend"],
        "suda": ["risk", "suda", "--data", files["good"], "--keys", "region,spend,income", "--max-size", "2"],
        "frequencies": ["risk", "frequencies", "--data", files["good"], "--keys", "region,spend", "--weight", "income"],
        "suppress": ["protect", "suppress", "--data", files["good"], "--keys", "region,spend", "--k", "2"],
        "pram": ["protect", "pram", "--data", files["good"], "--keys", "region", "--theta", "0.5"],
        "recode": ["protect", "recode", "--data", files["good"], "--keys", "region,income", "--band", "income:1000"],
        "protect-top-bottom": ["protect", "top_bottom", "--data", files["good"], "--keys", "region,income", "--top",
                               "income:5000"],
        "protect-granularity": ["protect", "granularity", "--data", files["good"], "--keys", "region,spend", "--level",
                                "60"],
        "simulate-pram": ["simulate", "--data", files["good"], "--method", "pram", "--keys", "region", "--theta",
                          "0.5:1:3", "--replicates", "3"],
        "query-answer": ["query", "answer", "--data", files["good"], "--value", "income", "--query", "SUM:1-5",
                         "--query", "MAX:*", "--queries", files["queries"]],
        "query-audit": ["query", "audit", "--data", files["good"], "--value", "income", "--query", "SUM:1-10",
                        "--query", "SUM:1-9", "--queries", files["queries"]],
        "granularity": ["table", "granularity", "--table", files["granularity"]],
        "table-suppress": ["table", "suppress", "--table", files["table_complete"], "--primary", "x1:a"],
        "table-suppress-rule": ["table", "suppress", "--table", files["table_complete"], "--contributions",
                                files["contributions_cells"], "--rule", "p-percent", "--p", "10"],
        "table-round": ["table", "round", "--table", files["table_complete"], "--base", "5"],
        "table-dp": ["table", "dp", "--microdata", files["good"], "--dims", "region", "--epsilon", "1", "--seed", "1"],
        "synthesize": ["synthesize", "--data", files["good"], "--method", "copula", "--seed", "1", "--out",
                       files["release_out"]],
        "risk-synthetic": ["risk", "synthetic", "--original", files["good"], "--release", files["masked"]],
        "table-ckm": ["table", "ckm", "--microdata", files["good"], "--dims", "region", "--max-perturbation", "3",
                      "--variance", "1.08", "--js", "1", "--seed", "1"],
        "swap": ["protect", "swap", "--data", files["good"], "--hierarchy", "region", "--keys", "spend", "--household",
                 "region", "--similar", "region", "--swaprate", "0.1"],
        "release-noise": ["release", "--data", files["good"], "--out", files["release_out"], "--method", "noise",
                          "--columns", "income", "--lambda2-frac", "0.1", "--no-prediction"],
        "release-pram": ["release", "--data", files["good"], "--out", files["release_out"], "--method", "pram",
                         "--keys", "region", "--theta", "0.8", "--no-prediction"],
        "release-plan": ["release", "--data", files["good"], "--out", files["release_out"], "--plan", files["plan"],
                         "--no-prediction"],
    }


#: flag -> bad values, per base invocation.
def _flag_values(files: dict[str, str]) -> dict[str, dict[str, list[str]]]:
    bad_files = [files[k] for k in BAD_FILES]
    bad_query_files = [files[k] for k in ("queries_json_bad", "queries_json_broken", "queries_bad_record")]
    return {
        "analytic": {"--n": BAD_INTEGERS + ["1"], "--sigma2": BAD_POSITIVE, "--mu": BAD_NUMBERS,
                     "--p": BAD_FRACTIONS, "--lambda2": BAD_GRIDS, "--state": ["nobody", "", "RECORD", LONG],
                     "--max-risk": BAD_POSITIVE, "--family": ["cauchy", ""], "--tau": ["big", "nan", "1e400"],
                     "--work-limit": ["0", "-1", "nan", "abc", "1e400"]},
        "analytic-data": {"--data": [*bad_files, files["text_in_numbers"]], "--column": ["region", "nope", ""]},
        "simulate": {"--data": [*bad_files, files["text_in_numbers"]], "--column": ["region", "nope", ""], "--lambda2-frac": BAD_GRIDS,
                     "--target": ["p0", "p100", "row:0", "row:61", "row:x", "nobody", "", "p1e400"],
                     "--replicates": BAD_INTEGERS + ["10000000000", "20000000"], "--seed": ["-1", "abc", "1.5", "1e400"],
                     "--knowledge": ["nobody", ""], "--utility": ["nobody", ""], "--method": ["magic"],
                     "--chunk-size": ["0", "-3", "abc"], "--truncate-below": ["nan", "abc", "1e400"],
                     "--quantiles": ["abc", "0,2", "1.5", "nan", "0.5"], "--scheduler": ["zzz", "tcp://"],
                     "--target-column": ["nope"], "--risk-measure": ["nobody"]},
        "microaggregate": {"--data": [f for f in bad_files if f != files["constant"]],  # constant data group fine "--columns": ["nope", "region", ",", ""],
                           "--k": BAD_INTEGERS + ["61", "1000"], "--algorithm": ["magic", ""],
                           "--criterion": ["magic"], "--out": [files["directory"], "/proc/forbidden/x.csv", "x.unknown"],
                           "--work-limit": ["0", "nan"]},
        "linkage": {"--original": bad_files, "--masked": [*bad_files, files["short_masked"]],
                    "--keys": ["nope", ",", ""], "--method": ["magic"], "--aggregation": ["magic"],
                    "--tolerance": BAD_NUMBERS + ["-1"], "--block-size": [*BAD_INTEGERS, "1"], "--ordinal": ["nope"],
                    "--ties": ["magic"]},
        "interval": {"--original": [*bad_files, files["text_in_numbers"]], "--masked": [*bad_files, files["short_masked"]],
                     "--columns": ["nope", "region", ""], "--p": [*BAD_POSITIVE, "101", "1e308"], "--method": ["magic"]},
        "identity": {"--f": [*BAD_NUMBERS, "-0.1", "0", "1.5"], "--a": [*BAD_NUMBERS, "-1"],
                     "--fu": [*BAD_NUMBERS, "-0.1", "1.5"], "--max-risk": BAD_FRACTIONS, "--estimator": ["magic"]},
        "identity-data": {"--data": bad_files, "--key": ["nope", ",", ""], "--N": [*BAD_POSITIVE, "10"],
                          "--cells": ["0", "-1", "abc", "1"], "--investigators": ["0", "-1", "abc"]},
        "bounds": {"--table": [*bad_files, files["table_bad"], files["table_huge"]],
                   "--resolution": [*BAD_POSITIVE, "3", "1e308"], "--insider-row": ["nope"]},
        "rules": {"--contributions": [*bad_files, files["contributions_bad"], files["contributions_huge"]],
                  "--p": [*BAD_POSITIVE, "101"], "--rule": ["magic"], "--cell-column": ["nope"],
                  "--value-column": ["nope", "cell"]},
        "flaw": {"--n": BAD_INTEGERS, "--k": BAD_FRACTIONS, "--cells": [*BAD_INTEGERS, "1"]},
        "individual": {"--data": bad_files, "--keys": ["nope", ",", ""], "--weight": ["nope", "region"],
                       "--household": ["nope"], "--k": [*BAD_INTEGERS]},
        "keys": {"--data": bad_files, "--keys": ["nope", ",", "region,region"], "--dimension": ["0", "11", "abc"],
                 "--threshold": ["0", "-1", "abc"]},
        "suda": {"--data": bad_files, "--keys": ["nope", ",", "", "region,region"],
                 "--max-size": [*BAD_INTEGERS, "4", "65"], "--dis-fraction": [*BAD_FRACTIONS, "0", "1"],
                 "--work-limit": ["0", "nan", "1"]},
        "frequencies": {"--data": bad_files, "--keys": ["nope", ",", "", "region,region"], "--weight": ["nope", "region"],
                        "--chunk-size": BAD_INTEGERS, "--out": ["x.unknown", files["directory"]]},
        "suppress": {"--data": bad_files, "--k": [*BAD_INTEGERS, "61", "1000"], "--max-risk": BAD_FRACTIONS,
                     "--importance": ["region", "region:abc", "region:nan", "income:2", "region:\u0662"],
                     "--out": ["x.unknown", files["directory"]]},
        "protect-granularity": {"--level": [*BAD_POSITIVE, "101"], "--types": ["nobody", "", "odd,,dispersed"],
                                "--keys": ["region", "nope,region"], "--dispersed-frequency": BAD_INTEGERS,
                                "--odd-expected": BAD_POSITIVE, "--hierarchy": ["region", f"nope={files['good']}"],
                                "--ordered": ["nope"]},
        "recode": {"--data": [*bad_files, files["infinite_income"]],
                   "--band": ["income:nan", "income:0", "income:-5", "income:abc", "region:5", "nope:5", "income",
                              "income:\u0661"],
                   "--top": ["region:5", "income:abc", "income:nan", "income:inf", "nope:3"],
                   "--bottom": ["region:5", "income:-inf"]},
        "pram": {"--data": bad_files, "--theta": [*BAD_NUMBERS, "-0.1", "1.5"], "--seed": ["-1", "abc"],
                 "--keys": ["nope", ""]},
        "simulate-pram": {"--theta": BAD_GRIDS + ["0:2:3"], "--replicates": BAD_INTEGERS, "--keys": ["nope"],
                          "--risk": ["nobody", "", "share_above", "k_violations"], "--utility": ["mean", "nobody", "",
                          "cramers_v", "regression"], "--risk-threshold": ["0.1", "nan"], "--anonymity-k": ["3", "x"],
                          "--pair": ["region,region", "region"], "--response": ["nope"]},
        "query-answer": {"--data": [f for f in bad_files if f != files["constant"]],  # constant values answer fine
                         "--value": ["region", "nope", ""], "--query": BAD_QUERIES,
                         "--queries": [*bad_files, *bad_query_files, files["queries_other_digits"]],
                         "--protection": [*BAD_POSITIVE, "101"],
                         "--camouflage-k": ["2", "51", "abc", "2.5", "-3"], "--seed": ["-1", "abc", "1.5", "1e400"],
                         "--records": ["0", "-1", "abc", "2.5", "4"],  # 4 records: the base's SUM:1-5 is refused
                         "--work-limit": ["0", "nan"]},
        "query-audit": {"--data": [f for f in bad_files if f != files["constant"]],
                        "--value": ["region", "nope", ""], "--query": [*BAD_QUERIES, "MAX:1", "COUNT>1:1"],
                        "--queries": [*bad_files, *bad_query_files], "--protection": [*BAD_NUMBERS, "-1", "101"],
                        "--lower": ["abc", "nan", "inf", "1e400", "1e6", ""], "--upper": ["abc", "nan", "1", "-inf"],
                        "--threshold": ["0", "-1", "abc"], "--dominance-n": ["0", "abc", "2"],
                        "--records": ["0", "-1", "abc", "1e400"],
                        "--dominance-k": ["0", "1.5", "nan"], "--work-limit": ["0", "nan"]},
        # a file of two columns with numbers in the second reads as a 2-D table of counts: constant, one_row,
        # missing_values, nan_text and huge_values (huge row labels) are tables
        "granularity": {"--table": [files[k] for k in BAD_FILES if k not in ("constant", "one_row", "missing_values",
                                                                              "nan_text", "huge_values")],
                        "--threshold": [*BAD_NUMBERS, "0", "-1", "101"], "--count-column": ["nope", ""],
                        "--work-limit": ["0", "nan"]},
        "table-suppress": {"--table": [*bad_files, files["table_good"], files["table_bad"], files["table_huge"],
                                       files["table_complete_bad"], files["table_total_inside"],
                                       files["table_repeated_row"], files["table_other_digits"],
                                       files["table_nan_word"]],
                           "--primary": ["x1", "x9:a", "x1:zz", "", ":", LONG, "x1:a:b"],
                           "--protection": [*BAD_POSITIVE, "101", "1e308"], "--cost": ["magic", ""],
                           "--time-limit": [*BAD_POSITIVE, "1e9"], "--work-limit": ["0", "nan", "abc", "1"],
                           "--external": [*BAD_POSITIVE, "1e308", "5"]},
        "table-suppress-rule": {"--contributions": [*bad_files, files["contributions"], files["contributions_bad"],
                                                    files["contributions_huge"]],
                                "--rule": ["magic"], "--p": [*BAD_POSITIVE, "101"], "--cell-column": ["nope"],
                                "--value-column": ["nope", "cell"]},
        "table-round": {"--table": [*bad_files, files["table_good"], files["table_bad"], files["table_complete_bad"]],
                        "--base": BAD_POSITIVE, "--time-limit": ["0", "-1", "abc", "nan"],
                        "--work-limit": ["0", "nan", "1"]},
        "table-dp": {"--microdata": bad_files, "--dims": ["nope", "", ",", "region,region"],
                     "--epsilon": [*BAD_POSITIVE, "1e308"], "--rho": ["1"], "--delta": BAD_FRACTIONS,
                     "--mechanism": ["magic"], "--value-column": ["nope", "region", "income"],
                     "--bounds": ["abc", "5:1", "nan:1", "1e400:2", ""], "--seed": ["-1", "abc", "1.5", "1e400"],
                     "--small": ["0", "abc"], "--hierarchy": ["region", "nope=x.hrc", "region=prefixes:x"],
                     "--out": [files["directory"], "x.unknown"], "--work-limit": ["0", "nan"]},
        "table-ckm": {"--microdata": bad_files, "--dims": ["nope", ",", ""], "--variance": BAD_POSITIVE,
                      "--max-perturbation": [*BAD_INTEGERS, "50"], "--js": ["-1", "abc", "1001"],
                      "--record-key": ["nope", "region", "income"], "--weight": ["nope", "region"],
                      "--ptable": bad_files, "--hierarchy": ["region=nope.hrc", "nope=x.hrc", "region"],
                      "--out": [files["directory"], "/proc/forbidden/x.csv", "x.unknown"], "--seed": ["-1", "abc"]},
        "swap": {"--data": bad_files, "--k": BAD_INTEGERS, "--swaprate": [*BAD_NUMBERS, "-0.1", "1.5"],
                 "--hierarchy": ["nope", ",", ""], "--household": ["nope", ""], "--similar": ["nope", ",", "", "spend"],
                 "--carry-along": ["nope", "spend", "region"], "--seed": ["-1", "abc"],
                 "--out": [files["directory"], "/proc/forbidden/x.csv", "x.unknown"]},
        "release-noise": {"--data": [*bad_files, files["text_in_numbers"]], "--columns": ["nope", "region", "", ","],
                          "--lambda2-frac": [*BAD_NUMBERS, "-1", *HUGE], "--lambda2": [*BAD_NUMBERS, "-1", *HUGE],
                          "--seed": ["-1", "abc", "1.5", "1e400", "\u0661"], "--replicates": ["abc", "1.5", "1e308", "\u0661", "-1", "0", "2"],
                          "--truncate-below": ["nan", "abc", "inf", "1e400", "\u0661"],
                          "--unequal-above": ["nan", "inf", "abc"], "--unequal-factor": [*BAD_POSITIVE, "-1e308"],
                          "--target": ["p0", "p100", "row:0", "nobody", "", "row:61", "max"], "--method": ["magic", ""],
                          "--out": [files["directory"], "x.unknown"], "--k": ["3"], "--theta": ["0.5"],
                          "--keys": ["region"], "--swap-percent": ["5"], "--weight": ["nope", "region", "income"],
                          "--work-limit": ["0", "nan"]},
        "release-pram": {"--data": bad_files, "--keys": ["nope", "", ","], "--theta": [*BAD_NUMBERS, "-0.1", "1.5", "1e308"],
                         "--lambda2": ["1"], "--columns": ["income"], "--band-width": ["5"]},
        "release-plan": {"--plan": [*bad_files, *(files[f"plan_{k}"] for k in ("inf", "huge", "text", "digits",
                                    "negative", "unknown_column", "no_steps", "not_object"))],
                         "--method": ["noise"], "--columns": ["income"], "--lambda2-frac": ["0.1"]},
    }


#: Flags each base invocation cannot do without.
REQUIRED = {"analytic": ("--lambda2", "--state", "--sigma2"), "analytic-data": ("--column",),
            "simulate": ("--data", "--target", "--lambda2-frac"), "microaggregate": ("--k", "--algorithm", "--data"),
            "linkage": ("--original", "--masked"), "interval": ("--original", "--masked"),
            "identity": ("--f",), "identity-data": ("--key", "--N"), "bounds": ("--table",),
            "rules": ("--contributions", "--rule"), "flaw": ("--n", "--k"), "individual": ("--data", "--keys"),
            "keys": ("--keys",), "suda": ("--data", "--keys"), "frequencies": ("--data", "--keys"), "suppress": ("--keys",), "pram": ("--theta", "--keys"),
            "recode": ("--keys", "--band"),
            "simulate-pram": ("--keys", "--theta"), "query-answer": ("--data", "--value"),
            "query-audit": ("--data", "--value"), "granularity": ("--table",),
            "table-suppress": ("--table", "--primary"),
            "table-suppress-rule": ("--rule", "--contributions"), "table-round": ("--table", "--base"),
            "table-dp": ("--microdata", "--dims", "--epsilon"),
            "release-noise": ("--data", "--out", "--columns", "--method"), "release-pram": ("--keys", "--method"),
            "release-plan": ("--plan", "--data")}


def _replace(argv: list[str], flag: str, value: str) -> list[str]:
    if flag in argv:
        i = argv.index(flag)
        return [*argv[:i + 1], value, *argv[i + 2:]]
    return [*argv, flag, value]


def _drop(argv: list[str], flag: str) -> list[str]:
    i = argv.index(flag)
    return [*argv[:i], *argv[i + 2:]]


def _invocations(files: dict[str, str]) -> list[list[str]]:
    base = _base(files)
    out: list[list[str]] = []
    for name, flags in _flag_values(files).items():
        for flag, values in flags.items():
            out += [_replace(base[name], flag, value) for value in values]
        argv = base[name]
        out += [[*argv, "--no-such-flag"], [*argv, "--json", "--json", "extra-positional"]]
        out += [_drop(argv, flag) for flag in REQUIRED.get(name, ())]
    answer = base["query-answer"]
    out += [[a for i, a in enumerate(answer) if i < 6 or i >= 10][:6],  # no query at all
            ["query"], ["query", "nosuch"], ["table", "granularity"]]
    out += [[], ["nosuchcommand"], ["risk"], ["table"], ["analytic", "--lambda2"], ["simulate", "--data"],
            ["--version-no"], [LONG], ["analytic", "--n", "200", "--sigma2", "1", "--lambda2", "0:1:3"]]
    return out


def _paths(parser: argparse.ArgumentParser, prefix: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    """Every command and sub-command under ``parser``, as the words that name it."""
    subs = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    if not subs:
        return [prefix]
    return [path for name, sub in subs[0].choices.items() for path in _paths(sub, (*prefix, name))]


def test_every_command_has_a_base_invocation(files):
    commands = set(_paths(build_parser(every=True)))
    assert len(commands) >= 21
    based = {tuple(a for a in argv[:2] if not a.startswith("-")) for argv in _base(files).values()}
    based = {path[:1] if path[:1] in commands else path for path in based}
    assert commands - based == set()


def _run(argv: list[str], capsys) -> tuple[int, str, str, list]:
    if "--scheduler" in argv:
        # a Dask Client that failed to connect in an earlier invocation is finalised by the garbage collector;
        # finalised while the next Client starts its event loop, it can keep that loop from starting (in-process
        # only: a command line runs one command per process)
        gc.collect()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err, [w for w in caught if issubclass(w.category, RuntimeWarning)]


def test_every_malformed_invocation_exits_2_with_one_line(files, capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    invocations = _invocations(files)
    assert len(invocations) >= 200
    failures = []
    for argv in invocations:
        try:
            code, out, err, runtime_warnings = _run(argv, capsys)
        except SystemExit as exc:  # argparse --help and the like: not expected here
            failures.append((argv, f"SystemExit {exc.code}"))
            continue
        except Exception as exc:  # noqa: BLE001 - a traceback is the failure being looked for
            failures.append((argv, f"{type(exc).__name__}: {exc}"))
            continue
        lines = err.strip().splitlines()
        problem = None
        if code != 2:
            problem = f"exit {code}; stdout {out[:200]!r}"
        elif len(lines) != 1 or not lines[0].startswith("error: "):
            problem = f"stderr {err[:300]!r}"
        elif "Traceback" in err or out:
            problem = f"stdout {out[:200]!r}"
        elif runtime_warnings:
            problem = f"RuntimeWarning {runtime_warnings[0].message}"
        if problem:
            failures.append(([a[:60] for a in argv], problem))
    if os.environ.get("FUZZ_DUMP"):  # FUZZ_DUMP=file writes every failure, one per line
        Path(os.environ["FUZZ_DUMP"]).write_text("\n".join(f"{' '.join(a)[-150:]} => {p[:150]}" for a, p in failures))
    assert not failures, f"{len(failures)} of {len(invocations)}:\n" + "\n".join(map(str, failures[:25]))


def test_the_valid_bases_succeed_without_nan(files, capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    for name, argv in _base(files).items():
        replacing = ["--overwrite"] if "--out" in argv else []  # the releases write one file in turn
        code, out, err, runtime_warnings = _run([*argv, "--json", *replacing], capsys)
        assert code == 0, (name, err)
        assert "NaN" not in out and "Infinity" not in out, name
        assert not runtime_warnings, (name, runtime_warnings[0].message)
    assert not os.listdir(tmp_path)  # nothing written unless asked (--out)


def _command(parser: argparse.ArgumentParser, path: tuple[str, ...]) -> argparse.ArgumentParser:
    for word in path:
        sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
        parser = sub.choices[word]
    return parser


def _number_flags(parser: argparse.ArgumentParser, path: tuple[str, ...]) -> list[str]:
    """The flags of the command ``path`` whose values argparse reads as numbers."""
    return [a.option_strings[0] for a in _command(parser, path)._actions if a.type in (int, float) and a.option_strings]


def _json_flags(parser: argparse.ArgumentParser, path: tuple[str, ...]) -> list[str]:
    return [s for a in _command(parser, path)._actions for s in a.option_strings if s == "--json"]


def test_extreme_numbers_in_every_number_flag_are_computed_finite_or_refused(files, capsys, tmp_path, monkeypatch):
    """±1e308 in each number flag of each command: exit 0 with no NaN or infinity printed, or exit 2 with one line."""
    monkeypatch.chdir(tmp_path)
    parser = build_parser(every=True)
    failures, tried, computed = [], 0, 0
    for name, argv in _base(files).items():
        path = tuple(a for a in argv[:2] if not a.startswith("-"))
        path = path if path in set(_paths(parser)) else path[:1]
        for flag in _number_flags(parser, path):
            for value in HUGE:
                case = _replace(argv, flag, value)
                if _json_flags(parser, path) and "--json" not in case:
                    case.append("--json")
                tried += 1
                try:
                    code, out, err, runtime_warnings = _run(case, capsys)
                except Exception as exc:  # noqa: BLE001 - a traceback is the failure being looked for
                    failures.append((name, flag, value, f"{type(exc).__name__}: {exc}"[:200]))
                    continue
                lines = err.strip().splitlines()
                if code == 0:
                    computed += 1
                    if "NaN" in out or "Infinity" in out:
                        failures.append((name, flag, value, "a non-finite number in the output"))
                elif code != 2 or len(lines) != 1 or not lines[0].startswith("error: "):
                    failures.append((name, flag, value, f"exit {code}: {err[:200]!r}"))
                if runtime_warnings:
                    failures.append((name, flag, value, f"RuntimeWarning {runtime_warnings[0].message}"))
    assert tried >= 80 and computed >= 10  # some values are within bounds and computed, not all refused
    assert not failures, f"{len(failures)} of {tried}:\n" + "\n".join(map(str, failures[:30]))


def test_a_key_of_a_hundred_thousand_categories_is_protected_or_refused_in_bounded_time(tmp_path, capsys,
                                                                                           monkeypatch):
    """Every categorical command on a key whose every value is unique: no dense c x c structure, no traceback."""
    import time

    monkeypatch.chdir(tmp_path)
    rng = np.random.default_rng(0)
    n = 100_000
    data = tmp_path / "card.csv"
    data.write_text("id,sex,w\n" + "".join(f"{i},{'fm'[i % 2]},{rng.uniform(1, 100):.2f}\n" for i in range(n)))
    out = str(tmp_path / "o.csv")
    d = str(data)
    commands = [
        ["protect", "pram", "--data", d, "--keys", "id,sex", "--theta", "0.5", "--out", out],
        ["protect", "suppress", "--data", d, "--keys", "id,sex", "--k", "2", "--out", out],
        ["protect", "recode", "--data", d, "--keys", "id,sex", "--merge", "id:1,2=a", "--out", out],
        ["risk", "individual", "--data", d, "--keys", "id,sex", "--weight", "w"],
        ["risk", "suda", "--data", d, "--keys", "id,sex"],
        ["risk", "keys", "--data", d, "--keys", "id,sex"],
        ["risk", "identity", "--data", d, "--keys", "id", "--N", "1000000", "--a", "50"],
        ["simulate", "--data", d, "--method", "pram", "--keys", "id,sex", "--theta", "0.5:1:2", "--replicates", "2"],
        ["simulate", "--data", d, "--method", "suppress", "--keys", "id,sex", "--k", "1:3", "--replicates", "2"],
        ["release", "--data", d, "--method", "pram", "--keys", "id,sex", "--theta", "0.5", "--out", out,
         "--no-prediction"],
    ]
    parser = build_parser(every=True)
    for argv in commands:
        path = tuple(argv[:2]) if tuple(argv[:2]) in set(_paths(parser)) else tuple(argv[:1])
        start = time.perf_counter()
        replacing = ["--overwrite"] if "--out" in argv else []  # the commands write one file in turn
        code, out, err, runtime_warnings = _run([*argv, *_json_flags(parser, path), *replacing], capsys)
        assert time.perf_counter() - start < 60, argv
        assert code == 0, (argv, err[:300])  # each is a valid request: computed, sparsely where it must be
        assert "NaN" not in out and "Infinity" not in out, argv
        assert not runtime_warnings, (argv, runtime_warnings[0].message)
