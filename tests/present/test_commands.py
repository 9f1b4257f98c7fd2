"""The command line and Python call shown with a map reproduce it exactly."""

from __future__ import annotations

import shlex

import numpy as np
import pytest
from cli_helpers import assert_bad_input, run_cli

from rumap.present.commands import cli_command, python_call
from rumap.specs import AnalyticSpec, DataSource


def _assert_cli_reproduces(spec, data=None):
    argv = shlex.split(cli_command(spec))
    assert argv[:4] == ["python", "-m", "rumap", "analytic"]
    _proc, out = run_cli(*argv[3:], check_json=True)
    analysis = spec.run(data)
    assert [c["state"] for c in out["curves"]] == list(spec.states)
    for curve, m in zip(out["curves"], analysis.maps, strict=True):
        np.testing.assert_array_equal(np.array(curve["lambda2"], dtype=float), m.values)
        risk = np.array([np.inf if v is None else v for v in curve["risk"]], dtype=float)
        np.testing.assert_array_equal(risk, m.risk)
        np.testing.assert_array_equal(np.array(curve["utility"], dtype=float), m.utility)
    for opt in analysis.optima:
        assert out["optimum"][opt.state]["lambda2"] == opt.lambda2


def test_analytic_command_reproduces_the_map_exactly():
    spec = AnalyticSpec(n=200, sigma2=1.0, p=0.99, states=("record", "population", "percentile", "maximum"),
                        lambda2_start=0.0, lambda2_stop=3.0, lambda2_num=31, max_risk=5.0, tau=0.3)
    command = cli_command(spec)
    assert "--lambda2 0:3:31" in command and "--max-risk 5" in command and "--tau 0.3" in command
    _assert_cli_reproduces(spec)


def test_analytic_command_with_data_file(tmp_path):
    x = np.random.default_rng(7).gamma(2.0, 1000.0, size=120) + 1 / 3
    path = tmp_path / "my data.csv"
    path.write_text("id,income\n" + "\n".join(f"{i},{float(v)!r}" for i, v in enumerate(x)) + "\n")
    source = DataSource.of("upload", str(path), ["income"], x)
    spec = AnalyticSpec(n=120, sigma2=float(np.var(x, ddof=1)) * 1.1, mu=float(x.mean()), p=0.9,
                        states=("sample", "maximum", "minimum"), lambda2_stop=2e6, lambda2_num=21,
                        max_risk=1e-6, data=source)
    command = cli_command(spec)
    assert f"--data '{path}'" in command
    _assert_cli_reproduces(spec, x)
    # one state and no bound: no crossings or optimum to search, so the quadrature of Eq 5 runs only on the grid
    gamma = AnalyticSpec(**{**spec.__dict__, "states": ("percentile",), "family": "gamma", "shape": 2.0,
                            "max_risk": None})
    assert "--family gamma --shape 2" in cli_command(gamma)
    _assert_cli_reproduces(gamma, x)


def test_python_call_reproduces_the_map_exactly(tmp_path):
    x = np.linspace(1.0, 50.0, 40) ** 1.5
    path = tmp_path / "d.csv"
    path.write_text("id,v\n" + "\n".join(f"{i},{float(v)!r}" for i, v in enumerate(x)) + "\n")
    spec = AnalyticSpec(n=40, sigma2=float(np.var(x, ddof=1)), mu=float(x.mean()), states=("sample", "record"),
                        lambda2_stop=100.0, lambda2_num=11, max_risk=0.5,
                        data=DataSource.of("upload", str(path), ["v"], x))
    namespace: dict = {}
    exec(python_call(spec), namespace)  # noqa: S102 - the code is ours
    for a, b in zip(namespace["maps"], spec.run(x).maps, strict=True):
        np.testing.assert_array_equal(a.risk, b.risk)
        np.testing.assert_array_equal(a.utility, b.utility)
    assert namespace["optima"][1].lambda2 == pytest.approx(2.0)


def test_simulate_command_reproduces_an_empirical_map_exactly():
    from rumap.present.examples import example_specs
    from rumap.specs import EmpiricalSpec

    (_, spec), = example_specs("figure-7")[1:]
    spec = EmpiricalSpec(simulation={**spec.simulation.to_dict(), "replicates": 40, "targets": ["p99", "max"],
                                     "knowledge": ["position", "index"]}, data=spec.data, max_risk=spec.max_risk)
    command = cli_command(spec)
    assert command.startswith("python -m rumap simulate --data data/income.csv --column income --method noise "
                              "--lambda2-frac 0.05:1:20 --truncate-below 0 --unequal-above 35000")
    assert command.endswith("--max-risk 4e-08 --json")  # the map's bound: the command prints its recommendation
    _proc, out = run_cli(*shlex.split(command)[3:], check_json=True)
    analysis = spec.run()
    assert len(out["curves"]) == len(analysis.maps) == 4
    chosen = analysis.recommendation()
    assert out["recommendation"]["value"] == chosen.value and out["recommendation"]["feasible"] == chosen.feasible
    for curve, m in zip(out["curves"], analysis.maps, strict=True):
        assert (curve["target"], curve["knowledge"]) == (m.target, m.knowledge)
        np.testing.assert_array_equal(np.array(curve["values"], dtype=float), m.values)
        np.testing.assert_array_equal(np.array(curve["risk"], dtype=float), m.risk)
        np.testing.assert_array_equal(np.array(curve["utility"], dtype=float), m.utility)
    namespace: dict = {}
    exec(python_call(spec), namespace)  # noqa: S102 - the code is ours
    for a, b in zip(namespace["maps"], analysis.maps, strict=True):
        np.testing.assert_array_equal(a.risk, b.risk)
    assert namespace["recommendation"].value == chosen.value


def test_simulate_command_for_microaggregation_and_uneven_grids():
    from rumap.specs import EmpiricalSpec

    x = np.column_stack([np.arange(30.0), np.arange(30.0) ** 1.5])
    source = DataSource.of("upload", "two.csv", ["a", "b"], x, missing="drop")
    spec = EmpiricalSpec(simulation={"method": "microaggregation", "values": [2, 4, 6],
                                     "method_options": {"algorithm": "mwa", "standardize": True},
                                     "targets": ["max"], "knowledge": ["index"], "target_column": 1,
                                     "replicates": 1, "seed": 3}, data=source)
    command = cli_command(spec)
    assert "--columns a,b --target-column b --method microaggregation --k 2:6:2 --algorithm mwa --standardize" \
        in command
    assert command.startswith("# note: rows with missing values were dropped")
    uneven = EmpiricalSpec(simulation={**spec.simulation.to_dict(), "values": [2, 3, 7]}, data=source)
    assert "# note: the grid is not evenly spaced" in cli_command(uneven)


def test_inputs_from_the_data_are_recomputed_by_the_command_and_the_python(tmp_path):
    x = np.random.default_rng(5).lognormal(9.0, 0.5, size=90) + 1 / 7
    path = tmp_path / "private.csv"
    path.write_text("income\n" + "\n".join(repr(float(v)) for v in x) + "\n")
    source = DataSource.of("upload", str(path), ["income"], x)
    spec = AnalyticSpec(n=90, sigma2=float(np.var(x, ddof=1)), mu=float(x.mean()), tau=float(x.max()),
                        states=("mean-target", "maximum", "sample"), lambda2_stop=1e7, lambda2_num=11,
                        max_risk=1e-6, data=source,
                        from_data=(("sigma2", "variance"), ("mu", "mean"), ("tau", "maximum")))
    command = cli_command(spec)
    assert "--sigma2" not in command and "--mu" not in command and "--n " not in command
    assert "--tau maximum" in command and f"{x.max():.6g}" not in command
    _assert_cli_reproduces(spec, x)
    code = python_call(spec)
    assert f"{x.mean():.6g}" not in code and "tau=float(np.max(column))" in code
    namespace: dict = {}
    exec(code, namespace)  # noqa: S102 - the code is ours
    for a, b in zip(namespace["maps"], spec.run(x).maps, strict=True):
        np.testing.assert_allclose(a.risk, b.risk, rtol=1e-12)


def test_tau_names_a_statistic_only_with_data():
    proc = run_cli("analytic", "--n", "10", "--sigma2", "1", "--lambda2", "0:1:3", "--state", "mean-target",
                   "--tau", "maximum")
    assert_bad_input(proc, "--tau maximum needs --data")
    proc = run_cli("analytic", "--n", "10", "--sigma2", "1", "--lambda2", "0:1:3", "--state", "mean-target",
                   "--tau", "big")
    assert_bad_input(proc, "--tau must be a number or one of maximum, minimum, mean, got 'big'")
