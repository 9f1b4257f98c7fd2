"""The command line and the Python call that reproduce a map seen in the dashboard.

:func:`cli_command` gives the equivalent ``python -m rumap ...`` command and
:func:`python_call` a short Python script, for a specification from
:mod:`rumap.specs`. Numbers are written with ``repr`` so that the command gives
exactly the same floating-point inputs.
"""

from __future__ import annotations

import json
import os
import shlex
from pathlib import Path

import numpy as np

from rumap._validation import InstanceOf, validate_params
from rumap.io.data import BUNDLED_DATA
from rumap.maps.method_records import grid_values
from rumap.maps.methods import METHODS
from rumap.specs import AnalyticSpec, DataSource, EmpiricalSpec

__all__ = ["cli_command", "python_call", "data_path", "shown_path"]

@validate_params({"path": InstanceOf((str, os.PathLike), "a file path")}, example=lambda: {"path": "data.csv"})
def shown_path(path: str | Path) -> str:
    """A file's path as a command run from the working directory names it: relative when it lies under it.

    Parameters
    ----------
    path : str or Path

    Returns
    -------
    str
    """
    resolved = Path(path).resolve()
    try:
        return str(resolved.relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(resolved)


@validate_params({"source": InstanceOf(DataSource)},
                 example=lambda: {"source": DataSource.of("upload", "d.csv", ["x"], [1.0, 2.0])})
def data_path(source: DataSource) -> str:
    """The file name to pass on the command line for a data source.

    Bundled data sets are given relative to the working directory when they lie
    under it (otherwise by their full path); an uploaded file by its own name
    (the user has it); a file on the dashboard's server by its path; inline values by a placeholder.

    Parameters
    ----------
    source : DataSource
        Where a specification's data come from.

    Returns
    -------
    str
    """
    if source.kind == "bundled":
        path = BUNDLED_DATA.get(source.name)
        if path is None:
            return source.name
        return shown_path(path)
    if source.kind in ("upload", "server"):
        return source.name
    return "DATA_FILE"


def _num(x: float) -> str:
    """A number as the shortest text that reads back to the same float (``2`` for 2.0)."""
    text = repr(float(x))
    return text.removesuffix(".0") if float(x).is_integer() else text


def _analytic_cli(spec: AnalyticSpec) -> str:
    parts = ["python", "-m", "rumap", "analytic"]
    if spec.data is not None:
        parts += ["--data", data_path(spec.data), "--column", spec.data.columns[0]]
    from_data = dict(spec.from_data)  # statistics of --data: the command recomputes them (no value written)
    if spec.data is None or spec.n != spec.data.n:
        parts += ["--n", str(spec.n)]
    for name in ("sigma2", "mu"):
        if name not in from_data:
            parts += [f"--{name}", _num(getattr(spec, name))]
    if spec.tau is not None:
        parts += ["--tau", from_data.get("tau") or _num(spec.tau)]
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


#: numpy's name of each of rumap.specs.DATA_STATISTICS that a target value can be.
_NUMPY_STATISTIC = {"maximum": "max", "minimum": "min", "mean": "mean"}


def _analytic_python(spec: AnalyticSpec) -> str:
    lines = ["import numpy as np", "from rumap import AnalyticSetting, analytic_map, max_tolerable_risk"]
    if spec.data is not None:
        lines.append("from rumap.io.data import numeric_column, read_table")
        lines.append(f"column = numeric_column(read_table({data_path(spec.data)!r}), {spec.data.columns[0]!r}, "
                     f"missing={spec.data.missing!r})")
    from_data = dict(spec.from_data)  # statistics of the column: computed from it (no value written)
    args = [f"n={spec.n}"] if spec.data is None or spec.n != spec.data.n else []
    args += [f"{name}={getattr(spec, name)!r}" for name in ("sigma2", "mu") if name not in from_data]
    args.append(f"p={spec.p!r}")
    if spec.tau is not None:
        args.append(f"tau=float(np.{_NUMPY_STATISTIC[from_data['tau']]}(column))" if "tau" in from_data
                    else f"tau={spec.tau!r}")
    if spec.family != "normal":
        args.append(f"family={spec.family!r}")
    if spec.shape is not None:
        args.append(f"shape={spec.shape!r}")
    if spec.data is not None:  # n, sigma2 and mu default to the column's (AnalyticSetting.from_data)
        lines.append(f"setting = AnalyticSetting.from_data(column, {', '.join(args)})")
    else:
        lines.append(f"setting = AnalyticSetting({', '.join(args)})")
    lines.append(f"lambda2 = np.linspace({spec.lambda2_start!r}, {spec.lambda2_stop!r}, {spec.lambda2_num})")
    lines.append(f"maps = analytic_map({list(spec.states)!r}, lambda2, setting)")
    if spec.max_risk is not None:
        lines.append(f"optima = [max_tolerable_risk(s, setting, {spec.max_risk!r}) for s in {list(spec.states)!r}]")
    return "\n".join(lines)


def _grid_text(values: list[float], integer: bool) -> str | None:
    """``START:STOP:NUM`` (or ``START:STOP:STEP`` for integers) that gives exactly ``values``, else ``None``."""
    arr = np.asarray(values, dtype=float)
    if arr.size == 0:
        return None
    if integer:
        step = int(arr[1] - arr[0]) if arr.size > 1 else 1
        if step >= 1 and np.array_equal(arr, np.arange(arr[0], arr[-1] + 1, step)):
            return f"{int(arr[0])}:{int(arr[-1])}" + (f":{step}" if step != 1 else "")
        return None
    if np.array_equal(arr, grid_values(arr[0], arr[-1], arr.size)) or \
            np.array_equal(arr, np.linspace(arr[0], arr[-1], arr.size)):
        return f"{_num(arr[0])}:{_num(arr[-1])}:{arr.size}"
    return None


def _empirical_cli(spec: EmpiricalSpec) -> str:
    sim = spec.simulation.to_dict()
    columns = list(spec.data.columns)
    method = sim.get("method", "noise")
    options = dict(sim.get("method_options") or {})
    notes = []
    parts = ["python", "-m", "rumap", "simulate", "--data", data_path(spec.data)]
    parts += ["--column", columns[0]] if len(columns) == 1 else ["--columns", ",".join(columns)]
    target_column = int(sim.get("target_column", 0))
    if target_column:
        parts += ["--target-column", columns[target_column]]
    parts += ["--method", method]
    record = METHODS[method]
    flag = record.grid(options).flag.flag
    grid = _grid_text(list(sim.get("values", [])), record.grid(options).integer)
    if grid is None:
        notes.append("the grid is not evenly spaced: the command line cannot give it; use the Python call")
        grid = ",".join(_num(v) for v in sim.get("values", []))
    parts += [flag, grid]
    flags, method_notes = record.command_flags(options, target_column)
    parts += flags
    notes += method_notes
    for target in sim.get("targets", []):
        parts += ["--target", str(target)]
    for state in sim.get("knowledge", []):
        parts += ["--knowledge", str(state)]
    if sim.get("rational"):
        parts.append("--rational")
    for measure in sim.get("risk_measures", []) or []:
        parts += ["--risk-measure", str(measure)]
    parts += ["--utility", str(sim.get("utility", "mean"))]
    utility_options = dict(sim.get("utility_options") or {})
    if "quantiles" in utility_options:
        parts += ["--quantiles", ",".join(_num(q) for q in utility_options["quantiles"])]
    if "response" in utility_options:
        parts += ["--response", columns[int(utility_options["response"])]]
    parts += ["--replicates", str(int(sim.get("replicates", 200))), "--seed", str(int(sim.get("seed", 0)))]
    if sim.get("chunk_size"):
        parts += ["--chunk-size", str(int(sim["chunk_size"]))]
    if sim.get("subsample"):
        parts += ["--subsample", str(int(sim["subsample"])), "--subsamples", str(int(sim.get("subsamples", 10)))]
    if spec.max_risk is not None:  # the map's bound: the command prints the recommendation the pages show
        parts += ["--max-risk", _num(spec.max_risk)]
    parts.append("--json")
    if spec.data.kind == "server" and not _is_parquet(spec.data.name):
        notes.append("the command line reads a CSV or TSV file of at most 200 MB whole: convert a larger one to "
                     "Parquet, whose chosen columns it reads alone")
    if spec.data.missing == "drop":
        notes.append("rows with missing values were dropped: remove them from the file first")
    return "".join(f"# note: {n}\n" for n in notes) + shlex.join(parts)


def _is_parquet(name: str) -> bool:
    return Path(name).suffix.lower() == ".parquet"


def _empirical_python(spec: EmpiricalSpec) -> str:
    config = json.dumps(spec.simulation.to_dict(), sort_keys=True)
    columns = list(spec.data.columns)
    pick = "[:, 0]" if len(columns) == 1 else ""
    path = data_path(spec.data)
    if spec.data.kind == "server" and _is_parquet(path) and spec.data.missing == "refuse":  # the columns alone
        read = ["from rumap.io.parquet import read_parquet_numeric",
                f"data = read_parquet_numeric({path!r}, {columns!r})[0]{pick}"]
    else:
        read = ["from rumap.io.data import numeric_columns, read_table",
                f"data = numeric_columns(read_table({path!r}), {columns!r}, missing={spec.data.missing!r}){pick}"]
    return "\n".join([
        "import json",
        read[0],
        "from rumap.maps.simulation import SimulationConfig, simulate",
        read[1],
        f"config = SimulationConfig.from_dict(json.loads({config!r}))",
        "result = simulate(data, config)",
        "maps = result.maps",
        *([f"recommendation = result.recommendation({spec.max_risk!r})"] if spec.max_risk is not None else []),
    ])


@validate_params({"spec": InstanceOf((AnalyticSpec, EmpiricalSpec), "an AnalyticSpec or EmpiricalSpec")},
                 example=lambda: {"spec": AnalyticSpec(n=200, sigma2=1.0, states=("record",))})
def cli_command(spec: AnalyticSpec | EmpiricalSpec) -> str:
    """The ``python -m rumap ...`` command that computes the same maps (JSON output).

    The map specifications' case of :func:`rumap.present.reproduce.to_command`.

    Parameters
    ----------
    spec : AnalyticSpec or EmpiricalSpec

    Returns
    -------
    str
    """
    return (_analytic_cli if isinstance(spec, AnalyticSpec) else _empirical_cli)(spec)


@validate_params({"spec": InstanceOf((AnalyticSpec, EmpiricalSpec), "an AnalyticSpec or EmpiricalSpec")},
                 example=lambda: {"spec": AnalyticSpec(n=200, sigma2=1.0, states=("record",))})
def python_call(spec: AnalyticSpec | EmpiricalSpec) -> str:
    """A Python script that computes the same maps (``maps`` is the list of RUMap).

    The map specifications' case of :func:`rumap.present.reproduce.to_python`.

    Parameters
    ----------
    spec : AnalyticSpec or EmpiricalSpec

    Returns
    -------
    str
    """
    return (_analytic_python if isinstance(spec, AnalyticSpec) else _empirical_python)(spec)
