"""``pip install rumap`` installs the computational core alone, and the command line runs on it.

A fresh virtual environment gets the project installed from its source tree (a
built wheel, not an editable install, so the test sees what a user gets): no web
server, browser driver, cluster scheduler or file-format library comes with it,
every module of the core imports, and ``python -m rumap analytic`` and
``simulate`` run from a folder outside the project. The installing tests are
marked slow (about a minute): ``make test-slow`` runs them, ``make test`` does not.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tomllib
import venv
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
OPTIONAL = ("streamlit", "kaleido", "dask", "distributed", "pyreadstat", "pyarrow", "openpyxl", "opendp")
EXTRAS = {"app": {"streamlit", "kaleido"}, "dask": {"dask", "distributed"},
          "formats": {"pyreadstat", "pyarrow", "openpyxl"}, "scale": {"polars", "pyarrow"},
          "dp": {"opendp"}, "synthesis": {"scikit-learn"}}
#: The environment of the installed interpreter: without PYTHONPATH, which could put the source tree first.
ENV = {name: value for name, value in os.environ.items() if name != "PYTHONPATH"}


#: The core's dependencies: numba compiles the kernels of microaggregation, swapping and order statistics;
#: threadpoolctl keeps BLAS to one thread inside the simulation engine's threads.
CORE = {"numpy", "scipy", "pandas", "plotly", "numba", "threadpoolctl"}


def _name(requirement: str) -> str:
    for stop in "<>=[; ":
        requirement = requirement.split(stop)[0]
    return requirement.strip().lower()


def test_core_dependencies_and_extras_are_declared():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert {_name(r) for r in project["dependencies"]} == CORE
    extras = project["optional-dependencies"]
    for extra, names in EXTRAS.items():
        assert {_name(r) for r in extras[extra]} == names
    pinned = {_name(line) for line in (ROOT / "requirements.txt").read_text().splitlines()
              if line.strip() and not line.startswith("#")}
    # llvmlite: numba's compiler; polars-runtime-32: polars' compiled engine; deprecated and wrapt: OpenDP's one
    # dependency and its own; each pinned to match
    assert pinned == CORE.union(*EXTRAS.values()) | {"llvmlite", "polars-runtime-32", "deprecated", "wrapt", "joblib"}


@pytest.fixture(scope="module")
def core_python(tmp_path_factory) -> Path:
    # a copy of the sources, so that building the wheel leaves nothing in the project's folder
    source = tmp_path_factory.mktemp("source") / "rumap"
    shutil.copytree(ROOT, source, ignore=shutil.ignore_patterns(
        ".git", ".venv", "build", "*.egg-info", "artifacts", "__pycache__", ".*_cache", "tests", "benchmarks"))
    env = tmp_path_factory.mktemp("core-venv")
    venv.create(env, with_pip=True)
    python = env / "bin" / "python"
    proc = subprocess.run([str(python), "-m", "pip", "install", "-q", "--disable-pip-version-check", str(source)],
                          capture_output=True, text=True, timeout=900, env=ENV)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return python


def _run(python: Path, *args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([str(python), *args], cwd=cwd, capture_output=True, text=True, timeout=300, env=ENV)


@pytest.mark.slow  # a fresh virtual environment and a wheel: `make test-slow`
def test_core_install_has_no_optional_package(core_python, tmp_path):
    probe = f"import importlib.util as u, json; print(json.dumps([m for m in {OPTIONAL!r} if u.find_spec(m)]))"
    proc = _run(core_python, "-c", probe, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout) == []


@pytest.mark.slow  # a fresh virtual environment and a wheel: `make test-slow`
def test_every_core_module_imports(core_python, tmp_path):
    probe = ("import importlib, pkgutil, rumap\n"
             "names = [m.name for m in pkgutil.walk_packages(rumap.__path__, 'rumap.')]\n"
             "for name in names: importlib.import_module(name)\n"
             "from rumap.io.data import BUNDLED_DATA\n"
             "assert all(path.is_file() for path in BUNDLED_DATA.values())\n"
             "print(len(names), rumap.__file__)")
    proc = _run(core_python, "-c", probe, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    count, location = proc.stdout.split()
    assert int(count) > 20 and not location.startswith(str(ROOT))


@pytest.mark.slow  # a fresh virtual environment and a wheel: `make test-slow`
def test_analytic_runs_on_the_core(core_python, tmp_path):
    proc = _run(core_python, "-m", "rumap", "analytic", "--n", "200", "--sigma2", "1", "--lambda2", "0:1:11",
                "--state", "record", "--max-risk", "5", "--json", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert out["optimum"]["record"]["lambda2"] == pytest.approx(0.2)
    assert out["optimum"]["record"]["utility"] == pytest.approx(166.67, abs=0.01)


@pytest.mark.slow  # a fresh virtual environment and a wheel: `make test-slow`
def test_simulate_runs_on_the_core(core_python, tmp_path):
    data = tmp_path / "values.csv"
    data.write_text("income\n" + "\n".join(str(100 + 7 * i % 53) for i in range(60)) + "\n")
    args = ("-m", "rumap", "simulate", "--data", str(data), "--column", "income", "--method", "noise",
            "--lambda2-frac", "0.1:1:4", "--target", "max", "--knowledge", "index", "--replicates", "20",
            "--seed", "1", "--json")
    first, second = _run(core_python, *args, cwd=tmp_path), _run(core_python, *args, cwd=tmp_path)
    assert first.returncode == 0, first.stderr
    out = json.loads(first.stdout)
    assert [len(curve["risk"]) for curve in out["curves"]] == [4]
    assert first.stdout == second.stdout  # the seed fixes every number


@pytest.mark.slow  # a fresh virtual environment and a wheel: `make test-slow`
def test_missing_extra_is_named(core_python, tmp_path):
    (tmp_path / "survey.sav").write_bytes(b"$FL2@(#) not really SPSS")
    proc = _run(core_python, "-m", "rumap", "microaggregate", "--data", "survey.sav", "--k", "3",
                "--algorithm", "mdav", cwd=tmp_path)
    assert proc.returncode == 2, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "pyreadstat" in lines[0] and "rumap[formats]" in lines[0]
