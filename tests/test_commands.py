"""The command line and Python call shown with a map reproduce it exactly."""

from __future__ import annotations

import shlex

import numpy as np
import pytest
from cli_helpers import run_cli

from rumap.commands import cli_command, python_call
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
                        states=("sample", "maximum", "minimum", "percentile"), lambda2_stop=2e6,
                        lambda2_num=21, family="gamma", shape=2.0, max_risk=1e-6, data=source)
    command = cli_command(spec)
    assert f"--data '{path}'" in command and "--family gamma --shape 2" in command
    _assert_cli_reproduces(spec, x)


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
