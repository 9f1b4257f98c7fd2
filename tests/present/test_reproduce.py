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
from rumap.specs.dp_tables import DPTableMapSpec, DPTableSpec
from rumap.specs.risk import MaskedRiskSpec
from rumap.specs.scale import ScaleRiskSpec
from rumap.specs.synthetic import SyntheticSpec
from rumap.specs.table_protection import TableMapSpec, TableProtectionSpec
from rumap.specs.tables import (
    DominanceFlawSpec,
    HierarchicalTableSpec,
    LinkedTablesSpec,
    RedesignSpec,
    RoundingMapSpec,
    RuleSpec,
    SuppressedCellsSpec,
)
from rumap.tables.microdata import example_microdata

#: The specification types the cases below cover: every key of REPRODUCERS.
COVERED = {AnalyticSpec, EmpiricalSpec, ReleaseSpec, TableProtectionSpec, TableMapSpec, CallSpec, RuleSpec,
           DominanceFlawSpec, SuppressedCellsSpec, RedesignSpec, LinkedTablesSpec, RoundingMapSpec, MaskedRiskSpec,
           HierarchicalTableSpec, ScaleRiskSpec, DPTableSpec, SyntheticSpec, DPTableMapSpec}


def _command_output(spec, subcommand: str, line: int = 0):
    argv = shlex.split(to_command(spec).splitlines()[line])
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


def test_synthetic_map(tmp_path):
    x = np.column_stack([np.linspace(1.0, 30.0, 30) ** 1.3, np.cos(np.arange(30.0))])
    path = tmp_path / "tiny data.csv"
    pd.DataFrame(x, columns=["v", "w"]).to_csv(path, index=False)
    spec = SyntheticSpec("cart", (3, 9), DataSource.of("upload", str(path), ["v", "w"], x), replicates=2, seed=4,
                         max_risk=0.7)
    shown = spec.run(x)
    printed = json.loads(_command_output(spec, "simulate"))
    _assert_same_curves(printed["curves"], shown.maps)
    assert printed["recommendation"]["value"] == shown.recommendation().value
    namespace = _python_namespace(spec)
    _assert_same_maps([namespace["result"]], shown.maps)
    assert namespace["recommendation"].value == shown.recommendation().value


def test_empirical_map_of_a_file_on_the_server(tmp_path):
    x = np.linspace(1.0, 30.0, 30) ** 1.3
    path = tmp_path / "on server.parquet"
    pd.DataFrame({"v": x, "w": -x}).to_parquet(path, index=False)
    spec = EmpiricalSpec(simulation={"method": "noise", "values": [0.1, 0.5], "targets": ["max"],
                                     "knowledge": ["index"], "replicates": 3, "seed": 4, "subsample": 12,
                                     "subsamples": 2},
                         data=DataSource.of("server", str(path), ["v"], x))
    assert EmpiricalSpec.from_dict(spec.to_dict()) == spec
    assert "read_parquet_numeric" in to_python(spec) and "read_table" not in to_python(spec)  # its columns alone
    shown = spec.run(x)
    _assert_same_curves(json.loads(_command_output(spec, "simulate"))["curves"], shown.maps)
    _assert_same_maps(_python_namespace(spec)["maps"], shown.maps)
    with pytest.raises(InputError, match="load it first"):  # a specification never reads a server path by itself
        spec.run()
    csv = DataSource.of("server", str(tmp_path / "big.csv"), ["v"], x)
    assert "at most 200 MB" in to_command(EmpiricalSpec(simulation=spec.simulation, data=csv)).splitlines()[0]


def test_release_chunk_by_chunk(tmp_path):
    frame = pd.DataFrame({"a": np.linspace(1.0, 9.0, 7), "b": list("vwxyzvw")})
    data, out, plan_file = tmp_path / "in.parquet", tmp_path / "out.parquet", tmp_path / "plan.json"
    frame.to_parquet(data, index=False)
    plan = ReleasePlan((Step("noise", {"lambda2_frac": 0.5}, columns=("a",), seed=3),))
    plan_file.write_text(plan.to_json())
    spec = ReleaseSpec(plan, str(data), str(out), plan_file=str(plan_file), report=None, replicates=None,
                       chunk_size=3)
    assert to_command(spec).endswith(f"--out {out} --chunk-size 3")
    _command_output(spec, "release")
    written = out.read_bytes()
    out.unlink()
    _python_namespace(spec)
    assert out.read_bytes() == written
    pd.testing.assert_frame_equal(pd.read_parquet(out), spec.run(frame).data, check_exact=False, rtol=1e-12)
    for bad in ({"report": "r.html", "replicates": None}, {"report": None, "replicates": 50},
                {"report": None, "replicates": None, "out": "out.csv"}, {"report": None, "replicates": None,
                                                                         "chunk_size": 0}):
        arguments = {"plan": plan, "data": str(data), "out": str(out), "chunk_size": 3, **bad}
        with pytest.raises(InputError):
            ReleaseSpec(**arguments)


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


def test_a_release_spec_takes_the_replicates_of_a_prediction_band_as_its_report_does():
    plan = ReleasePlan((Step("microaggregation", {"k": 2}, columns=("a",)),))
    assert ReleaseSpec(plan, "a.csv", "b.csv", replicates=2.0).replicates == 2
    for bad in (1, 10_001, True, "5"):
        with pytest.raises(InputError, match=r"^replicates must be an integer in \[2, 10000\], got "):
            ReleaseSpec(plan, "a.csv", "b.csv", replicates=bad)


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


# --- the Tables page's analyses, and record linkage with interval disclosure -------------------------------------

BUILT_IN = "the command line reads a file; this example is built into rumap"


@pytest.fixture(scope="module")
def table_files(tmp_path_factory) -> dict[str, tuple[str, pd.DataFrame]]:
    folder = tmp_path_factory.mktemp("tables")
    texts = {"contributions": "cell,amount,respondent\nA,59,1\nA,40,2\nA,1,3\nB,61,4\nB,20,5\nB,19,6\nC,5,7\n",
             "suppressed": "row,c1,c2,c3,Total\na,x,x,3,20\nb,x,x,4,25\nc,5,6,7,18\nTotal,26,23,14,63\n",
             "complete": "row,c1,c2,Total\na,12,7,19\nb,4,31,35\nTotal,16,38,54\n"}
    files = {}
    for name, text in texts.items():
        path = folder / f"{name} table.csv"
        path.write_text(text)
        files[name] = (str(path), read_table(str(path)))
    return files


@pytest.mark.parametrize(("rule", "parameters"), [("p-percent", {"p": 10.0}), ("dominance", {"n": 1, "k": 0.6})])
def test_sensitivity_rule_on_a_file(table_files, rule, parameters):
    path, frame = table_files["contributions"]
    spec = RuleSpec(rule, parameters, path, cell_column="cell", value_column="amount")
    shown = spec.run(frame)
    assert shown.sensitive_cells  # the case flags a cell
    assert json.loads(_command_output(spec, "table")) == json.loads(json.dumps(shown.to_dict()))
    pd.testing.assert_frame_equal(_python_namespace(spec)["result"].to_frame(), shown.to_frame())


def test_sensitivity_rule_on_the_example():
    spec = RuleSpec("pq", {"p": 10.0, "q": 50.0})
    assert command_or_reason(spec) == (None, BUILT_IN)
    pd.testing.assert_frame_equal(_python_namespace(spec)["result"].to_frame(), spec.run().to_frame())


def test_dominance_flaw():
    spec = DominanceFlawSpec(0.6, 2, 0.5, 7)
    example, flaw, scan = spec.run()
    assert json.loads(_command_output(spec, "table")) == json.loads(json.dumps(flaw.to_dict()))
    namespace = _python_namespace(spec)
    np.testing.assert_equal(namespace["example"].to_dict(), example.to_dict())
    np.testing.assert_equal(namespace["flaw"].to_dict(), flaw.to_dict())
    np.testing.assert_equal(namespace["scan"].to_dict(), scan.to_dict())


def test_suppressed_cells_of_a_file_and_an_insider(table_files):
    path, frame = table_files["suppressed"]
    spec = SuppressedCellsSpec(path, ("a", "c1", 3.0))
    bounds, insider = spec.run(frame)
    assert len(bounds.labels) == 4
    out = json.loads(_command_output(spec, "table"))
    insider_out = out.pop("insider")
    assert out == json.loads(json.dumps(bounds.to_dict()))
    assert insider_out["cells"] == json.loads(json.dumps(insider.insider.to_dict()["cells"]))
    assert insider_out["others"] == json.loads(json.dumps(insider.view.to_dict()))
    namespace = _python_namespace(spec)
    pd.testing.assert_frame_equal(namespace["bounds"].to_frame(), bounds.to_frame())
    pd.testing.assert_frame_equal(namespace["insider"].to_frame(), insider.to_frame())


def test_suppressed_cells_of_the_example():
    spec = SuppressedCellsSpec()
    assert command_or_reason(spec) == (None, BUILT_IN)
    bounds, insider = spec.run()
    assert insider is None and "insider" not in _python_namespace(spec)
    pd.testing.assert_frame_equal(_python_namespace(spec)["bounds"].to_frame(), bounds.to_frame())


@pytest.mark.parametrize("spec", [RedesignSpec(("5", "6")),
                                  LinkedTablesSpec(3, ("AS", "SR"))], ids=["redesign", "linked"])
def test_bounds_without_a_command(spec):
    assert command_or_reason(spec) == (None, BUILT_IN)
    pd.testing.assert_frame_equal(_python_namespace(spec)["bounds"].to_frame(), spec.run().to_frame())


def test_rounding_map_of_a_file_and_of_the_example(table_files):
    path, frame = table_files["complete"]
    for spec, shown in [(RoundingMapSpec((2.0, 3.0, 10.0), path), RoundingMapSpec((2.0, 3.0, 10.0), path).run(frame)),
                        (RoundingMapSpec((5.0, 50.0)), RoundingMapSpec((5.0, 50.0)).run())]:
        assert command_or_reason(spec) == (None, "the command line has no rounding map")
        _assert_same_maps(_python_namespace(spec)["maps"], shown)


@pytest.fixture(scope="module")
def masked_files(tmp_path_factory) -> dict[str, object]:
    rng = np.random.default_rng(2)
    n = 30
    original = pd.DataFrame({"age": rng.integers(18, 70, n).astype(float), "income": rng.lognormal(3, 0.5, n).round(3),
                             "region": rng.choice(["N", "S"], n)})
    masked = original.assign(age=original["age"] + rng.integers(-3, 4, n), income=original["income"] * 1.05)
    folder = tmp_path_factory.mktemp("masked")
    paths = {"original": folder / "original.csv", "masked": folder / "masked file.csv"}
    original.to_csv(paths["original"], index=False)
    masked.to_csv(paths["masked"], index=False)
    return {"folder": folder, "original": str(paths["original"]), "masked": str(paths["masked"]),
            "frames": (read_table(str(paths["original"])), read_table(str(paths["masked"])))}


def _same_masked_risk(spec, shown) -> None:
    linked, intervals = shown
    commands = to_command(spec).splitlines()
    assert len(commands) == (linked is not None) + (intervals is not None)
    if linked is not None:
        assert json.loads(_command_output(spec, "risk", 0)) == json.loads(json.dumps(linked.to_dict()))
    if intervals is not None:
        out = json.loads(_command_output(spec, "risk", len(commands) - 1))
        assert out == json.loads(json.dumps(intervals.to_dict()))


@pytest.mark.parametrize(("method", "keys", "columns"), [("distance", ("age", "income"), ("income",)),
                                                         ("probabilistic", ("age", "region"), ()),
                                                         ("distance", (), ("age", "income"))])
def test_masked_risk_of_two_files(masked_files, method, keys, columns):
    original, masked = masked_files["frames"]
    spec = MaskedRiskSpec(masked_files["original"], masked_files["masked"], keys=keys, method=method,
                          aggregation="max", tolerance=0.2, columns=columns, interval_method="sd", p=10.0)
    shown = spec.run(original, masked)
    _same_masked_risk(spec, shown)
    namespace = _python_namespace(spec)
    if keys:
        np.testing.assert_equal(namespace["linked"].to_dict(), shown[0].to_dict())
    if columns:
        np.testing.assert_equal(namespace["intervals"].to_dict(), shown[1].to_dict())


def test_masked_risk_of_the_noise_example(masked_files):
    original = masked_files["frames"][0]
    written = masked_files["folder"] / "noisy.csv"
    spec = MaskedRiskSpec(masked_files["original"], str(written), keys=("age", "income"), columns=("age", "income"),
                          p=5.0, noise=0.05)
    shown = spec.run(original)
    namespace = _python_namespace(spec)  # it writes the masked file the commands read
    np.testing.assert_equal(namespace["linked"].to_dict(), shown[0].to_dict())
    np.testing.assert_equal(namespace["intervals"].to_dict(), shown[1].to_dict())
    _same_masked_risk(spec, shown)


def test_masked_risk_with_nothing_chosen_has_no_command(masked_files):
    spec = MaskedRiskSpec(masked_files["original"], masked_files["masked"])
    assert command_or_reason(spec) == (None, "neither key variables nor numeric variables are chosen")


@pytest.fixture(scope="module")
def hierarchical_files(tmp_path_factory) -> dict[str, object]:
    rng = np.random.default_rng(3)
    n = 60
    frame = pd.DataFrame({"nace": rng.choice(["A1", "A2", "B1", "B2", "B3"], n),
                          "region": rng.choice(["N1", "N2", "S1"], n), "turnover": rng.integers(1, 100, n)})
    folder = tmp_path_factory.mktemp("hierarchical")
    paths = {"data": folder / "firms.csv", "hrc": folder / "regions.hrc", "csv": folder / "regions.csv",
             "txt": folder / "regions.txt"}
    frame.to_csv(paths["data"], index=False)
    paths["hrc"].write_text("N\n@N1\n@N2\nS\n@S1\n")
    paths["txt"].write_text("N\n@N1\n@N2\nS\n@S1\n")
    paths["csv"].write_text("parent,child\nN,N1\nN,N2\nS,S1\n")
    return {"frame": read_table(str(paths["data"])), **{k: str(v) for k, v in paths.items()}}


@pytest.mark.parametrize(("hierarchy", "kind", "value"), [("hrc", "hrc", "turnover"), ("csv", "parent_child", None)])
def test_hierarchical_table_from_files(hierarchical_files, hierarchy, kind, value):
    f = hierarchical_files
    spec = HierarchicalTableSpec(f["data"], ("region", "nace"), files={"region": (f[hierarchy], kind)},
                                 value_column=value, threshold=4, protection=15.0, cost="cells")
    shown = spec.run(f["frame"])
    assert shown.counts()["primary"] and shown.counts()["secondary"]  # the case protects something
    assert json.loads(_command_output(spec, "table")) == json.loads(json.dumps(shown.to_dict()))
    pd.testing.assert_frame_equal(_python_namespace(spec)["result"].to_frame(), shown.to_frame())


@pytest.mark.parametrize(("value", "rule", "parameters"), [(None, "threshold", {}),
                                                            ("turnover", "dominance", {"n": 2, "k": 0.7}),
                                                            ("turnover", "p-percent", {"p": 20.0})])
def test_hierarchical_table_from_prefixes_or_a_misnamed_file_by_any_rule(hierarchical_files, value, rule, parameters):
    f = hierarchical_files
    spec = HierarchicalTableSpec(f["data"], ("nace", "region"), prefixes={"nace": (1, 2)},
                                 files={"region": (f["txt"], "hrc")}, value_column=value, threshold=4,
                                 rule=rule, rule_parameters=parameters)
    command, _ = command_or_reason(spec)
    assert "nace=prefixes:1,2" in command and f"region=hrc:{f['txt']}" in command and f"--rule {rule}" in command
    shown = spec.run(f["frame"])
    assert list(shown.table.hierarchy("nace").subtotals) == ["A", "B"]
    assert shown.counts()["primary"] and shown.counts()["secondary"]  # the case protects something
    assert json.loads(_command_output(spec, "table")) == json.loads(json.dumps(shown.to_dict()))
    pd.testing.assert_frame_equal(_python_namespace(spec)["result"].to_frame(), shown.to_frame())


@pytest.mark.parametrize(("value", "bounds", "mechanism", "loss"), [
    (None, None, "discrete-gaussian", {"rho": 0.5}), ("turnover", (-5.0, 60.5), "laplace", {"epsilon": 2.0})])
def test_a_dp_table_from_files_and_prefixes(hierarchical_files, value, bounds, mechanism, loss):
    pytest.importorskip("opendp")
    f = hierarchical_files
    spec = DPTableSpec(f["data"], ("nace", "region"), prefixes={"nace": (1, 2)}, files={"region": (f["txt"], "hrc")},
                       value_column=value, bounds=bounds, mechanism=mechanism, seed=9, **loss)
    shown = spec.run(f["frame"])
    assert json.loads(_command_output(spec, "table")) == json.loads(json.dumps(shown.to_dict()))
    pd.testing.assert_frame_equal(_python_namespace(spec)["result"].to_frame(), shown.to_frame())


def test_a_dp_table_map_and_its_suppression_map(tmp_path):
    pytest.importorskip("opendp")
    path = tmp_path / "firms data.csv"
    example_microdata().to_csv(path, index=False)
    table = DPTableSpec(str(path), ("region", "size"), mechanism="discrete-laplace", seed=5)
    noise = DPTableMapSpec(table, (0.5, 2.0), replicates=3, thresholds=(2, 4))
    suppression = DPTableMapSpec(table, (0.5, 2.0), replicates=3, thresholds=(2, 4), curve="suppression")
    assert to_command(noise) == to_command(suppression)  # the command prints both maps
    shown = [noise.run(pd.read_csv(path)), suppression.run(pd.read_csv(path))]
    _assert_same_curves(json.loads(_command_output(noise, "simulate"))["curves"], shown)
    _assert_same_maps([_python_namespace(spec)["m"] for spec in (noise, suppression)], shown)


def test_out_of_core_risk_of_a_file(tmp_path):
    frame = pd.DataFrame({"sex": list("mfmfmfmfmm"), "age": [1, 1, 2, 2, 1, 3, 3, 1, 2, 1],
                          "hh": [1, 1, 2, 2, 3, 3, 4, 4, 5, 5], "w": [2.0, 3.0, 1.5, 2.5, 4.0, 1.0, 2.0, 3.0, 1.0, 2.0],
                          "job": list("aabbaccaba")})
    path = tmp_path / "census file.csv"
    frame.to_csv(path, index=False)
    spec = ScaleRiskSpec(str(path), ("sex", "age"), weight="w", household="hh", k=3, sensitive="job")
    shown = spec.run().to_dict()
    assert json.loads(_command_output(spec, "risk")) == json.loads(json.dumps(shown))
    assert _python_namespace(spec)["result"].to_dict() == shown
