"""For every kind of specification, the generated command and Python give what running the specification gives.

Each case builds a tiny specification, runs it directly (what the page shows),
runs the command of :func:`rumap.present.reproduce.to_command` in-process and
executes the Python of :func:`~rumap.present.reproduce.to_python` in a fresh
namespace, and compares the three results. A kind without a command line says
why, and the test checks that it does.
"""

from __future__ import annotations

import json
import shlex
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from cli_helpers import run_cli

from rumap.errors import InputError
from rumap.io.data import read_table
from rumap.present.release_report import release_report_json
from rumap.present.reproduce import REPRODUCERS, NoCommandLine, command_or_reason, to_command, to_python
from rumap.release.plan import ReleasePlan, Step
from rumap.release.spec import ReleaseSpec
from rumap.specs import AnalyticSpec, DataSource, EmpiricalSpec
from rumap.specs.calls import CallSpec
from rumap.tables.microdata import example_microdata
from rumap.tables.protection import TableMapSpec, TableProtectionSpec

#: The specification types the cases below cover: every key of REPRODUCERS.
COVERED = {AnalyticSpec, EmpiricalSpec, ReleaseSpec, TableProtectionSpec, TableMapSpec, CallSpec}


def _command_output(spec, subcommand: str):
    argv = shlex.split(to_command(spec))
    assert argv[:4] == ["python", "-m", "rumap", subcommand]
    proc = run_cli(*argv[3:])
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def _python_namespace(spec) -> dict:
    namespace: dict = {}
    exec(to_python(spec), namespace)  # noqa: S102 - the code is generated here, from our own specification
    return namespace


def _assert_same_curves(curves, maps) -> None:
    assert len(curves) == len(maps)
    for curve, m in zip(curves, maps, strict=True):
        values = curve["lambda2"] if "lambda2" in curve else curve["values"]
        np.testing.assert_array_equal(np.array(values, dtype=float), m.values)
        risk = np.array([np.inf if v is None else v for v in curve["risk"]], dtype=float)
        np.testing.assert_array_equal(risk, m.risk)
        np.testing.assert_array_equal(np.array(curve["utility"], dtype=float), m.utility)


def _assert_same_maps(these, those) -> None:
    assert len(these) == len(those)
    for a, b in zip(these, those, strict=True):
        np.testing.assert_array_equal(a.values, b.values)
        np.testing.assert_array_equal(a.risk, b.risk)
        np.testing.assert_array_equal(a.utility, b.utility)


def test_every_kind_of_specification_is_covered():
    assert set(REPRODUCERS) == COVERED


def test_analytic_map():
    spec = AnalyticSpec(n=50, sigma2=2.0, mu=1.0, p=0.9, states=("record", "maximum"), lambda2_stop=4.0,
                        lambda2_num=5, max_risk=1.0)
    shown = spec.run()
    _assert_same_curves(json.loads(_command_output(spec, "analytic"))["curves"], shown.maps)
    _assert_same_maps(_python_namespace(spec)["maps"], shown.maps)


@pytest.mark.parametrize("subsampled", [{}, {"subsample": 12, "subsamples": 2}])
def test_empirical_map(tmp_path, subsampled):
    x = np.linspace(1.0, 30.0, 30) ** 1.3
    path = tmp_path / "tiny data.csv"
    path.write_text("v\n" + "\n".join(repr(float(v)) for v in x) + "\n")
    spec = EmpiricalSpec(simulation={"method": "noise", "values": [0.1, 0.5], "method_options": {"relative": True},
                                     "targets": ["max"], "knowledge": ["index"], "replicates": 3, "seed": 4,
                                     **subsampled},
                         data=DataSource.of("upload", str(path), ["v"], x))
    shown = spec.run(x)
    _assert_same_curves(json.loads(_command_output(spec, "simulate"))["curves"], shown.maps)
    _assert_same_maps(_python_namespace(spec)["maps"], shown.maps)


def test_release(tmp_path):
    frame = pd.DataFrame({"a": [1.0, 2.0, 4.0, 8.0, 16.0, 3.0], "b": ["x", "y", "x", "y", "x", "x"]})
    data = tmp_path / "in.csv"
    data.write_bytes(frame.to_csv(index=False).encode())
    plan = ReleasePlan((Step("rankswap", {"swap_percent": 50.0}, columns=("a",), seed=3),
                        Step("microaggregation", {"k": 2}, columns=("a",))))
    plan_file = tmp_path / "plan.json"
    plan_file.write_text(plan.to_json())
    out, report = tmp_path / "out.csv", tmp_path / "report.json"
    spec = ReleaseSpec(plan, str(data), str(out), plan_file=str(plan_file), report=str(report), replicates=None)
    original = read_table(str(data))
    result = spec.run(original)
    shown, shown_report = spec.content(result), release_report_json(spec.released_report(original, result))
    assert "--no-prediction" in to_command(spec)

    _command_output(spec, "release")
    assert out.read_bytes() == shown
    assert report.read_text() == shown_report
    out.unlink()
    report.unlink()

    _python_namespace(spec)
    assert out.read_bytes() == shown
    assert report.read_text() == shown_report


def test_release_command_names_the_plan_file_and_the_replicates():
    plan = ReleasePlan((Step("microaggregation", {"k": 2}, columns=("a",)),))
    assert to_command(ReleaseSpec(plan, "data/income.csv", "income_protected.csv")) == (
        "python -m rumap release --data data/income.csv --plan release_plan.json --out income_protected.csv "
        "--report release_report.html")
    assert to_command(ReleaseSpec(plan, "my data.csv", "out.parquet", report=None, replicates=20)) == (
        "python -m rumap release --data 'my data.csv' --plan release_plan.json --out out.parquet --replicates 20")


@pytest.fixture(scope="module")
def microdata(tmp_path_factory) -> tuple[Path, pd.DataFrame]:
    path = tmp_path_factory.mktemp("micro") / "firms.csv"
    path.write_bytes(example_microdata().to_csv(index=False).encode())
    return path, read_table(str(path))


def _protection(path: Path) -> TableProtectionSpec:
    return TableProtectionSpec(str(path), "region", "size", response="turnover", rule="p-percent",
                               rule_parameters={"p": 20.0}, protection=50.0, cost="cells")


def test_table_protection(microdata):
    path, frame = microdata
    spec = _protection(path)
    shown = spec.run(frame)
    assert shown.primary and shown.secondary  # the case protects something
    with pytest.raises(NoCommandLine, match="the command line protects a table file, not microdata"):
        to_command(spec)
    assert command_or_reason(spec) == (None, "the command line protects a table file, not microdata")
    result = _python_namespace(spec)["result"]
    pd.testing.assert_frame_equal(result.to_frame(), shown.to_frame())


@pytest.mark.parametrize(("sweep", "grid", "risk"), [("rule", (5.0, 20.0), "underprotected"),
                                                      ("protection", (5.0, 30.0), "underprotected"),
                                                      ("base", (10.0, 50.0), "underprotected")])
def test_table_map(microdata, sweep, grid, risk):
    path, frame = microdata
    spec = TableMapSpec(_protection(path), sweep, grid, risk=risk, utility="cells_kept")
    shown = spec.run(frame)
    assert command_or_reason(spec)[0] is None
    _assert_same_maps([_python_namespace(spec)["m"]], [shown])


@pytest.fixture(scope="module")
def keys_file(tmp_path_factory) -> tuple[str, pd.DataFrame]:
    rng = np.random.default_rng(1)
    n = 40
    frame = pd.DataFrame({"sex": rng.choice(["f", "m"], n), "region": rng.choice(["R01", "R02", "R03"], n),
                          "age": rng.integers(18, 60, n), "w": rng.uniform(1, 5, n).round(2),
                          "hh": np.repeat(np.arange(n // 2), 2)})
    path = tmp_path_factory.mktemp("keys") / "keys file.csv"
    path.write_bytes(frame.to_csv(index=False).encode())
    return str(path), read_table(str(path))


def _same_individual_risk(out: dict, result) -> None:
    np.testing.assert_array_equal(np.array(out["risk"], dtype=float), result.risk)
    np.testing.assert_array_equal(np.array(out["household_risk"], dtype=float), result.household_risk)
    assert (out["global_risk"], out["k_anonymity_violations"]) == (result.global_risk, result.k_anonymity_violations)


def _same_suda(out: dict, result) -> None:
    np.testing.assert_array_equal(np.array(out["score"], dtype=float), result.score)
    np.testing.assert_array_equal(np.array(out["dis_score"], dtype=float), result.dis_score)
    assert (out["special_uniques"], out["dis"]) == (result.special_uniques, result.dis)


def _same_map(out: dict, result) -> None:
    _assert_same_curves(out["curves"], [result])


def _same_identity(out: dict, result) -> None:
    assert out == json.loads(json.dumps(result.to_dict()))


#: A call of each function with a command, the comparison of the command's JSON with the result.
CALLS = [
    ("rumap.risk.individual.individual_risk", {"keys": ["sex", "region"], "weight": "w", "household": "hh", "k": 2},
     (), _same_individual_risk),
    ("rumap.risk.suda.suda2", {"keys": ["sex", "region", "age"], "max_size": None, "dis_fraction": 0.1}, (),
     _same_suda),
    ("rumap.maps.categorical.suppression_map", {"keys": ["sex", "region", "age"], "ks": [1, 2, 3], "weight": None,
                                                "risk": None, "utility": None, "options": {}},
     ("region: R01, R02 = R0",), _same_map),
    ("rumap.maps.categorical.pram_map", {"keys": ["sex", "region"], "thetas": [0.5, 1.0], "replicates": 2, "seed": 3,
                                         "weight": "w", "risk": None, "utility": "cramers_v",
                                         "options": {"pair": ("sex", "region")}}, (), _same_map),
    ("rumap.maps.categorical.banding_map", {"keys": ["sex", "age"], "variable": "age", "widths": [2.0, 6.0, 10.0],
                                            "weight": None, "risk": "share_above", "utility": None,
                                            "options": {"threshold": 0.1}}, (), _same_map),
    ("rumap.risk.identity.identity_risk_from_data", {"key": ["sex", "region", "age"], "N": 1000.0, "a": 50.0,
                                                     "max_risk": 0.01, "method": "ml"}, (), _same_identity),
]


@pytest.mark.parametrize(("function", "arguments", "merges", "same"), CALLS, ids=[c[0].rsplit(".", 1)[1] for c in CALLS])
def test_call_of_a_function(keys_file, function, arguments, merges, same):
    path, frame = keys_file
    spec = CallSpec(function, path, arguments, merges=merges)
    shown = spec.run(frame)
    subcommand = shlex.split(to_command(spec))[3]
    same(json.loads(_command_output(spec, subcommand)), shown)
    np.testing.assert_equal(_python_namespace(spec)["result"].to_dict(), shown.to_dict())


def test_call_on_a_column(keys_file):
    path, frame = keys_file
    spec = CallSpec("rumap.databases.audit.audit_queries", path, {"queries": ["SUM:1,2,3", "SUM:1,2", "MEAN:4-9"],
                                                                  "protection": 5.0}, column="w", records=12)
    shown = spec.run(frame)
    assert not all(d.answered for d in shown.decisions)  # the case refuses a query
    assert json.loads(_command_output(spec, "query")) == json.loads(json.dumps(shown.to_dict()))
    np.testing.assert_equal(_python_namespace(spec)["result"].to_dict(), shown.to_dict())


def test_camouflage_answers_on_a_column(keys_file):
    path, frame = keys_file
    spec = CallSpec("rumap.databases.camouflage.answer_with_camouflage", path,
                    {"queries": ["SUM:1-4", "MAX:*"], "protection": 15.0, "k": 4, "seed": 2}, column="w", records=9)
    shown = spec.run(frame)
    assert json.loads(_command_output(spec, "query")) == json.loads(json.dumps(shown.to_dict()))
    np.testing.assert_equal(_python_namespace(spec)["result"].to_dict(), shown.to_dict())


@pytest.mark.parametrize("function", ["rumap.maps.databases.camouflage_map", "rumap.maps.databases.audit_map"])
def test_query_maps_have_no_command(keys_file, function):
    path, frame = keys_file
    spec = CallSpec(function, path, {"protections": [5.0, 50.0], "queries": 4, "records": 9, "seed": 1},
                    column="w", records=9)
    assert command_or_reason(spec)[1] == "the command line answers and audits queries; the maps are in Python"
    np.testing.assert_equal(_python_namespace(spec)["result"].to_dict(), spec.run(frame).to_dict())


@pytest.mark.parametrize(("function", "arguments"), [
    ("rumap.risk.identity.subsampling_map", {"key": ["sex", "region"], "N": 1000.0, "a": 50.0,
                                             "fractions": [0.01, 0.04], "method": "ml"}),
    ("rumap.risk.identity.recoding_map", {"key": ["sex", "age"], "variable": "age", "widths": [1.0, 5.0],
                                          "N": 1000.0, "a": 50.0, "method": "ml"})])
def test_call_without_a_command(keys_file, function, arguments):
    path, frame = keys_file
    spec = CallSpec(function, path, arguments)
    assert command_or_reason(spec) == (None, "the command line gives the estimate, not this map")
    np.testing.assert_equal(_python_namespace(spec)["result"].to_dict(), spec.run(frame).to_dict())


def test_granularity_has_no_command(keys_file):
    path, frame = keys_file
    spec = CallSpec("rumap.tables.granularity.granularity_analysis", path, {"keys": ["sex", "region", "age"],
                                                                            "threshold": 50.0})
    assert command_or_reason(spec)[1] == "python -m rumap table granularity takes one table; the procedure is in Python"
    shown = spec.run(frame)
    result = _python_namespace(spec)["result"]
    pd.testing.assert_frame_equal(result.tables, shown.tables)
    pd.testing.assert_frame_equal(result.unit_cells, shown.unit_cells)


def test_a_call_the_command_line_cannot_give_says_why(keys_file):
    path, _frame = keys_file
    uneven = CallSpec("rumap.maps.categorical.suppression_map", path, {"keys": ["sex"], "ks": [1, 2, 5]})
    assert command_or_reason(uneven) == (None, "--k cannot give the values [1, 2, 5]: the command line takes an "
                                               "evenly spaced grid")
    other = CallSpec("rumap.risk.keys.key_analysis", path, {"keys": ["sex", "region"]})
    assert command_or_reason(other) == (None, "the command line does not run key_analysis")
    assert "result = key_analysis(frame, keys=['sex', 'region'])" in to_python(other)


def test_a_call_holds_plain_values_and_refuses_what_it_cannot_call(keys_file):
    path, frame = keys_file
    spec = CallSpec("rumap.risk.identity.subsampling_map", path, {"key": ["sex"], "N": np.float64(1000.0), "a": 50.0,
                                                                  "fractions": np.array([0.02, 0.04])})
    assert spec.arguments["fractions"] == [0.02, 0.04] and type(spec.arguments["N"]) is float
    assert "fractions=[0.02, 0.04]" in to_python(spec)
    for function, arguments, message in [("rumap.risk.suda.nosuch", {}, "does not exist"),
                                         ("rumap.risk.suda._msus", {}, "public rumap function"),
                                         ("os.remove", {}, "public rumap function"),
                                         ("rumap.risk.suda.suda2", {"nosuch": 1}, "no parameter 'nosuch'"),
                                         ("rumap.risk.suda.suda2", {"source": "x"}, "own field")]:
        with pytest.raises(InputError, match=message):
            CallSpec(function, path, arguments)


def test_a_specification_of_another_type_is_refused():
    with pytest.raises(InputError, match="spec"):
        to_python("analytic")
    with pytest.raises(InputError, match="spec"):
        to_command(object())
