"""The command line and the Python call that reproduce a map seen in the dashboard.

:func:`cli_command` gives the equivalent ``python -m rumap ...`` command and
:func:`python_call` a short Python script, for a specification from
:mod:`rumap.specs`. Numbers are written with ``repr`` so that the command gives
exactly the same floating-point inputs.
"""

from __future__ import annotations

import json
import shlex
from collections.abc import Callable
from pathlib import Path

from rumap.data import BUNDLED_DATA
from rumap.errors import InputError
from rumap.specs import AnalyticSpec, DataSource, EmpiricalSpec

__all__ = ["cli_command", "python_call", "data_path"]

_ROOT = Path(__file__).resolve().parent.parent


def data_path(source: DataSource) -> str:
    """The file name to pass on the command line for a data source.

    Bundled data sets are given relative to the project's root; an uploaded
    file by its own name (the user has it); inline values by a placeholder.
    """
    if source.kind == "bundled":
        path = BUNDLED_DATA.get(source.name)
        if path is None:
            return source.name
        try:
            return str(Path(path).resolve().relative_to(_ROOT))
        except ValueError:
            return str(path)
    if source.kind == "upload":
        return source.name
    return "DATA_FILE"


def _num(x: float) -> str:
    return repr(float(x)) if not float(x).is_integer() else repr(float(x)).removesuffix(".0") or "0"


def _analytic_cli(spec: AnalyticSpec) -> str:
    parts = ["python", "-m", "rumap", "analytic"]
    if spec.data is not None:
        parts += ["--data", data_path(spec.data), "--column", spec.data.columns[0]]
    parts += ["--n", str(spec.n), "--sigma2", _num(spec.sigma2), "--mu", _num(spec.mu)]
    if spec.tau is not None:
        parts += ["--tau", _num(spec.tau)]
    parts += ["--p", _num(spec.p)]
    if spec.family != "normal":
        parts += ["--family", spec.family]
    if spec.shape is not None:
        parts += ["--shape", _num(spec.shape)]
    parts += ["--lambda2", f"{_num(spec.lambda2_start)}:{_num(spec.lambda2_stop)}:{spec.lambda2_num}"]
    for state in spec.states:
        parts += ["--state", state]
    if spec.max_risk is not None:
        parts += ["--max-risk", _num(spec.max_risk)]
    parts.append("--json")
    return shlex.join(parts)


def _analytic_python(spec: AnalyticSpec) -> str:
    lines = ["import numpy as np", "from rumap import AnalyticSetting, analytic_map, max_tolerable_risk"]
    data_arg = ""
    if spec.data is not None:
        lines.append("from rumap.data import numeric_column, read_table")
        lines.append(f"column = numeric_column(read_table({data_path(spec.data)!r}), {spec.data.columns[0]!r}, "
                     f"missing={spec.data.missing!r})")
        data_arg = ", data=column"
    args = [f"n={spec.n}", f"sigma2={spec.sigma2!r}", f"mu={spec.mu!r}", f"p={spec.p!r}"]
    if spec.tau is not None:
        args.append(f"tau={spec.tau!r}")
    if spec.family != "normal":
        args.append(f"family={spec.family!r}")
    if spec.shape is not None:
        args.append(f"shape={spec.shape!r}")
    lines.append(f"setting = AnalyticSetting({', '.join(args)}{data_arg})")
    lines.append(f"lambda2 = np.linspace({spec.lambda2_start!r}, {spec.lambda2_stop!r}, {spec.lambda2_num})")
    lines.append(f"maps = analytic_map({list(spec.states)!r}, lambda2, setting)")
    if spec.max_risk is not None:
        lines.append(f"optima = [max_tolerable_risk(s, setting, {spec.max_risk!r}) for s in {list(spec.states)!r}]")
    return "\n".join(lines)


def _empirical_cli(spec: EmpiricalSpec) -> str:
    from rumap.cli.simulate import command_for

    return command_for(spec.simulation, data_path(spec.data), list(spec.data.columns), spec.data.missing)


def _empirical_python(spec: EmpiricalSpec) -> str:
    config = json.dumps(spec.simulation, sort_keys=True)
    columns = list(spec.data.columns)
    pick = "[:, 0]" if len(columns) == 1 else ""
    return "\n".join([
        "import json",
        "from rumap.data import numeric_columns, read_table",
        "from rumap.simulation import SimulationConfig, simulate",
        f"data = numeric_columns(read_table({data_path(spec.data)!r}), {columns!r}, missing={spec.data.missing!r}){pick}",
        f"config = SimulationConfig.from_dict(json.loads({config!r}))",
        "result = simulate(data, config)",
        "maps = result.maps",
    ])


_CLI: dict[type, Callable] = {AnalyticSpec: _analytic_cli, EmpiricalSpec: _empirical_cli}
_PYTHON: dict[type, Callable] = {AnalyticSpec: _analytic_python, EmpiricalSpec: _empirical_python}


def cli_command(spec: AnalyticSpec | EmpiricalSpec) -> str:
    """The ``python -m rumap ...`` command that computes the same maps (JSON output)."""
    try:
        return _CLI[type(spec)](spec)
    except KeyError:
        raise InputError(f"no command line for {type(spec).__name__}") from None


def python_call(spec: AnalyticSpec | EmpiricalSpec) -> str:
    """A Python script that computes the same maps (``maps`` is the list of RUMap)."""
    try:
        return _PYTHON[type(spec)](spec)
    except KeyError:
        raise InputError(f"no Python call for {type(spec).__name__}") from None
