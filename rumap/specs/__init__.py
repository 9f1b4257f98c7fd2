"""Specifications that reproduce R-U maps, and the analyses they produce.

A *specification* holds every input of a map (the parameters, the grid, the
snooper's knowledge states and which data were used), converts to JSON and back
without loss, and re-runs to give the same maps. The dashboard keeps
:class:`Analysis` objects (a specification, its maps and optima); the report
writes the specifications out so that they can be loaded back.

Data never enter a specification unless asked for: :class:`DataSource` names
the data set and column(s) and records a digest of the values used, so a loaded
specification can check that it is applied to the same data.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

import numpy as np

from rumap._validation import PARAMETERS, DataMatrix, InstanceOf, NumberArray, check_scalar, validate_params
from rumap._validation.fields import Fields
from rumap.budget import DEFAULT_BUDGET, WorkBudget
from rumap.errors import InputError
from rumap.fingerprint import array_digest
from rumap.maps.analytic import analytic_map, check_state
from rumap.maps.optimum import Crossing, Optimum, crossings, max_tolerable_risk
from rumap.maps.recommend import Recommendation, recommend, recommend_exact
from rumap.maps.setting import AnalyticInputs, AnalyticSetting, sample_variance
from rumap.result import RUMap, json_safe

if TYPE_CHECKING:
    from rumap.maps.simulation import SimulationConfig

__all__ = ["DataSource", "AnalyticSpec", "EmpiricalSpec", "Analysis", "spec_from_dict", "SPEC_KINDS",
           "DATA_STATISTICS", "DATA_VALUE_KEYS", "inputs_from_data"]


#: Where a :class:`DataSource`'s data come from.
DATA_KINDS = ("bundled", "upload", "inline", "server")
#: Statistics of a data column that an analytic input may be taken from (``AnalyticSpec.from_data``):
#: the aggregates (mean, variance) and the order statistics (maximum, minimum).
DATA_STATISTICS: dict[str, Callable[[np.ndarray], float]] = {
    "mean": lambda x: float(np.mean(x)),
    "variance": sample_variance,
    "maximum": lambda x: float(np.max(x)),
    "minimum": lambda x: float(np.min(x)),
}
#: The analytic inputs that can come from the data, with the statistics each can be; exports withhold them
#: unless aggregates are asked for.
_DATA_INPUTS = {"sigma2": ("variance",), "mu": ("mean",), "tau": ("maximum", "minimum", "mean")}
#: Keys of a map's ``config`` that hold a value of the data or an order statistic: never exported unless asked.
DATA_VALUE_KEYS = ("target_value", "data_min", "data_max")


@dataclass(frozen=True)
class DataSource:
    """Which data a map was computed on.

    Parameters
    ----------
    kind : {"bundled", "upload", "inline", "server"}
        A data set shipped with rumap, an uploaded file, values stored in
        the specification itself, or a file the dashboard read where it lies
        on its server (its values are never read back from the path).
    name : str
        The bundled data set's name, the uploaded file's name or the server file's path.
    columns : tuple of str
        The numeric column(s) used.
    missing : {"refuse", "drop"}
        The missing-value policy applied.
    digest : str
        :func:`rumap.fingerprint.array_digest` of the values used, shape (n, d).
    n : int
        Number of rows used.
    values : tuple of tuple of float, optional
        The values themselves, only when the user chose to include them.
    """

    kind: str
    name: str
    columns: tuple[str, ...]
    missing: str = "refuse"
    digest: str = ""
    n: int = 0
    values: tuple[tuple[float, ...], ...] | None = field(default=None, repr=False)

    def __post_init__(self) -> None:
        if self.kind not in DATA_KINDS:
            raise InputError(f"data source kind must be bundled, upload, inline or server, got {self.kind!r}")
        if self.missing not in ("refuse", "drop"):
            raise InputError(f"missing must be 'refuse' or 'drop', got {self.missing!r}")
        object.__setattr__(self, "columns", tuple(str(c) for c in self.columns))
        if not self.columns:
            raise InputError("a data source needs at least one column")

    @classmethod
    def of(cls, kind: str, name: str, columns: Sequence[str], values: np.ndarray, missing: str = "refuse",
           include_values: bool = False) -> DataSource:
        """A data source for ``values`` (shape (n,) or (n, d)), with its digest."""
        arr = np.asarray(values, dtype=float)
        arr2 = arr.reshape(arr.shape[0], -1)
        stored = tuple(tuple(float(v) for v in row) for row in arr2) if include_values else None
        return cls(kind=kind, name=name, columns=tuple(columns), missing=missing, digest=array_digest(arr2),
                   n=int(arr2.shape[0]), values=stored)

    def with_values(self, values: np.ndarray | None) -> DataSource:
        """A copy that stores ``values`` (or drops them with ``None``)."""
        if values is None:
            return DataSource(self.kind, self.name, self.columns, self.missing, self.digest, self.n, None)
        arr2 = np.asarray(values, dtype=float).reshape(len(values), -1)
        if array_digest(arr2) != self.digest:
            raise InputError(f"the values given for {self.name!r} are not the data this map was computed on")
        return DataSource(self.kind, self.name, self.columns, self.missing, self.digest, self.n,
                          tuple(tuple(float(v) for v in row) for row in arr2))

    def stored_values(self) -> np.ndarray | None:
        """The stored values as an array of shape (n, d), or ``None``."""
        if self.values is None:
            return None
        return np.array(self.values, dtype=float).reshape(len(self.values), -1)

    def check(self, values: np.ndarray) -> np.ndarray:
        """``values`` as shape (n, d) after checking they are the data this source describes."""
        arr2 = np.asarray(values, dtype=float).reshape(len(values), -1)
        if array_digest(arr2) != self.digest or (self.n and arr2.shape[0] != self.n):
            raise InputError(f"the loaded data are not {self.name!r} [{', '.join(self.columns)}] "
                             f"as used for this map (n = {self.n}); load that data set first")
        return arr2

    def resolve(self, values: np.ndarray | None = None) -> np.ndarray:
        """The data as shape (n, d): ``values`` if given, else the stored values, else the bundled file.

        Raises
        ------
        InputError
            No data available, or data that are not the ones this source describes.
        """
        if values is None:
            values = self.stored_values()
        if values is None and self.kind == "bundled":
            from rumap.io.data import BUNDLED_DATA, numeric_columns, read_table

            if self.name not in BUNDLED_DATA:
                raise InputError(f"no bundled data set named {self.name!r}")
            values = numeric_columns(read_table(BUNDLED_DATA[self.name]), list(self.columns), source=self.name,
                                     missing=self.missing)
        if values is None:
            raise InputError(f"this map needs the data {self.name!r} [{', '.join(self.columns)}]; load it first")
        return self.check(values)

    def to_dict(self) -> dict[str, Any]:
        out = {"kind": self.kind, "name": self.name, "columns": list(self.columns), "missing": self.missing,
               "digest": self.digest, "n": self.n}
        if self.values is not None:
            out["values"] = [list(row) for row in self.values]
        return out

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], path: str = "data") -> DataSource:
        """Rebuild from :meth:`to_dict` (a bad field raises InputError naming its ``path``)."""
        f = Fields(data, path)
        values = f.data.get("values")
        stored = None
        if values is not None:
            try:
                matrix = np.asarray(values, dtype=float)
            except (TypeError, ValueError):
                raise InputError(f"{path}.values must be rows of numbers") from None
            if matrix.ndim != 2 or matrix.shape[0] == 0 or not np.isfinite(matrix).all():
                raise InputError(f"{path}.values must be a non-empty list of rows of finite numbers")
            stored = tuple(tuple(float(v) for v in row) for row in matrix)
        arguments = dict(kind=f.text("kind"), name=f.text("name"), columns=f.texts("columns"),
                         missing=f.text("missing", "refuse"), digest=f.text("digest", ""), n=f.integer("n", 0, low=0))
        try:
            return cls(**arguments, values=stored)
        except InputError as exc:
            raise InputError(f"{path}: {exc}") from None


@dataclass(frozen=True, kw_only=True)
class AnalyticSpec(AnalyticInputs):
    """An analytic map of additive noise (Duncan et al. 2001, Eq 1-10).

    Parameters
    ----------
    n, sigma2, mu, tau, p, family, shape
        As in :class:`rumap.maps.analytic.AnalyticInputs` (declared and checked there).
    states : tuple of str
        Knowledge states, keys of :data:`rumap.maps.analytic.STATES`.
    lambda2_start, lambda2_stop : float
        The range of noise variances.
    lambda2_num : int
        Number of evenly spaced values (``numpy.linspace``).
    max_risk : float, optional
        The maximum tolerable risk.
    log_x, log_y : bool
        Logarithmic axes when drawn.
    data : DataSource, optional
        The data column whose observed extremes (Eq 9) and values (Eq 3) are
        used; needed by the ``sample`` state.
    from_data : tuple of (str, str)
        The inputs (``sigma2``, ``mu``, ``tau``) that are statistics of the data
        column (keys of :data:`DATA_STATISTICS`), e.g. ``(("sigma2", "variance"),
        ("mu", "mean"))``. Exports withhold them unless aggregates are asked for
        (:meth:`export_dict`); loading back recomputes them from the data.

    Examples
    --------
    >>> from rumap.specs import AnalyticSpec
    >>> spec = AnalyticSpec(n=200, sigma2=1.0, states=("record", "population"), lambda2_stop=1.0,
    ...                     lambda2_num=11, max_risk=5.0)
    >>> analysis = spec.run()
    >>> [round(o.lambda2, 3) for o in analysis.optima], round(analysis.optima[0].utility, 2)
    ([0.2, 0.0], 166.67)
    >>> AnalyticSpec.from_dict(spec.to_dict()) == spec
    True
    """

    states: tuple[str, ...]
    lambda2_start: float = 0.0
    lambda2_stop: float = 3.0
    lambda2_num: int = 301
    max_risk: float | None = None
    log_x: bool = False
    log_y: bool = True
    data: DataSource | None = None
    from_data: tuple[tuple[str, str], ...] = ()

    kind = "analytic"

    def __post_init__(self) -> None:
        super().__post_init__()
        states = (self.states,) if isinstance(self.states, str) else self.states
        if not isinstance(states, (list, tuple)) or not all(isinstance(s, str) for s in states):
            raise InputError(f"states must be a knowledge state's name or a list of them, got {self.states!r:.60}")
        object.__setattr__(self, "states", tuple(dict.fromkeys(states)))
        if not self.states:
            raise InputError("choose at least one knowledge state")
        for state in self.states:
            check_state(state, self)  # known, and this spec has what it needs (tau, a data column)
        check_scalar("lambda2", self.lambda2_start)
        check_scalar("lambda2", self.lambda2_stop)
        check_scalar("grid_num", self.lambda2_num)
        if self.lambda2_stop < self.lambda2_start:
            raise InputError(f"the lambda2 range must have start <= stop, got {self.lambda2_start}:{self.lambda2_stop}")
        if self.max_risk is not None:
            check_scalar("max_risk", self.max_risk)
        object.__setattr__(self, "from_data", _check_from_data(self.from_data, self.data))

    def grid(self) -> np.ndarray:
        """The noise variances, shape (lambda2_num,)."""
        return np.linspace(self.lambda2_start, self.lambda2_stop, int(self.lambda2_num))

    def setting(self, data: np.ndarray | None = None) -> AnalyticSetting:
        """The analytic setting; ``data`` (checked against :attr:`data`) supplies the observed values."""
        column = None if self.data is None else self.data.resolve(data)[:, 0]
        return AnalyticSetting(**self.inputs(), data=column)

    def run(self, data: np.ndarray | None = None, progress: Callable[[float], None] | None = None,
            budget: WorkBudget = DEFAULT_BUDGET) -> Analysis:
        """Compute the maps and, with :attr:`max_risk`, each state's optimum (a grid over ``budget`` is refused)."""
        budget.check_grid(int(self.lambda2_num), "lambda2")
        setting = self.setting(data)
        maps = analytic_map(list(self.states), self.grid(), setting)
        optima = tuple(max_tolerable_risk(s, setting, self.max_risk) for s in self.states) \
            if self.max_risk is not None else ()
        crossed = tuple(crossings(list(self.states), setting, (self.lambda2_start, self.lambda2_stop))) \
            if len(self.states) > 1 else ()
        if progress is not None:
            progress(1.0)
        return Analysis(spec=self, maps=tuple(maps), optima=optima, crossings=crossed, setting=setting)

    def title(self) -> str:
        if self.data is not None and dict(self.from_data).get("sigma2"):
            return f"analytic, {self.data.name} (n = {self.n}): " + ", ".join(self.states)
        return (f"analytic, n = {self.n}, σ² = {self.sigma2:.4g}: " + ", ".join(self.states))

    def to_dict(self) -> dict[str, Any]:
        return json_safe({
            "kind": "analytic", **self.inputs(), "states": list(self.states),
            "lambda2": {"start": self.lambda2_start, "stop": self.lambda2_stop, "num": self.lambda2_num},
            "max_risk": self.max_risk, "log_x": self.log_x, "log_y": self.log_y,
            "data": None if self.data is None else self.data.to_dict(),
            **({"from_data": dict(self.from_data)} if self.from_data else {}),
        })

    def export_dict(self, aggregates: bool = False) -> dict[str, Any]:
        """:meth:`to_dict` for an export: the inputs taken from the data are ``null`` unless ``aggregates``.

        Parameters
        ----------
        aggregates : bool, default False
            Keep the data's statistics (:attr:`from_data`) in the export.

        Returns
        -------
        dict
        """
        out = self.to_dict()
        if not aggregates:
            for name, _statistic in self.from_data:
                out[name] = None
        return out

    def withheld(self) -> tuple[str, ...]:
        """The inputs an export without aggregates leaves out (they are statistics of the data)."""
        return tuple(name for name, _statistic in self.from_data)

    @classmethod
    def from_dict(cls, d: Mapping[str, Any], data: np.ndarray | None = None, path: str = "spec") -> AnalyticSpec:
        """Rebuild from :meth:`to_dict` or :meth:`export_dict`; withheld inputs are recomputed from the data.

        ``data`` (shape (n,) or (n, d), checked against the data source) supplies
        the values when the configuration stores none and the data are not bundled.
        A bad field raises InputError naming it (under ``path``).
        """
        f = Fields(d, path)
        grid = f.object("lambda2")
        source = DataSource.from_dict(f.data["data"], f"{path}.data") if f.has("data") else None
        from_data_fields = f.object("from_data", None)
        from_data = {} if from_data_fields is None else {str(k): from_data_fields.text(str(k))
                                                          for k in from_data_fields.data}
        inputs = {"sigma2": f.number("sigma2", None), "mu": f.number("mu", None), "tau": f.number("tau", None)}
        missing = [name for name in from_data if name in inputs and inputs[name] is None]
        if missing:
            if source is None:
                raise InputError(f"{path} withholds {', '.join(missing)} but names no data")
            column = source.resolve(data)[:, 0]
            for name in missing:
                if from_data[name] not in _DATA_INPUTS[name]:
                    raise InputError(f"{path}.from_data.{name} cannot be the data's {from_data[name]!r}")
                inputs[name] = DATA_STATISTICS[from_data[name]](column)
        if inputs["sigma2"] is None:
            raise InputError(f"{path}.sigma2 is missing")
        arguments = dict(n=f.integer("n"), sigma2=inputs["sigma2"], states=f.texts("states"),
                         mu=0.0 if inputs["mu"] is None else inputs["mu"], tau=inputs["tau"],
                         p=f.number("p", 0.99), family=f.text("family", "normal"), shape=f.number("shape", None),
                         lambda2_start=grid.number("start"), lambda2_stop=grid.number("stop"),
                         lambda2_num=grid.integer("num"), max_risk=f.number("max_risk", None),
                         log_x=f.boolean("log_x", False), log_y=f.boolean("log_y", True), data=source,
                         from_data=tuple(from_data.items()))
        try:
            return cls(**arguments)
        except InputError as exc:
            raise InputError(f"{path}: {exc}") from None


@validate_params({"inputs": InstanceOf(Mapping, "a mapping of analytic inputs"), "column": NumberArray(PARAMETERS["value"], ndim=(1,))},
                 example=lambda: {"inputs": {"sigma2": 2.5, "mu": 3.0, "tau": 5.0}, "column": np.arange(1.0, 6.0)})
def inputs_from_data(inputs: Mapping[str, Any], column: np.ndarray) -> tuple[tuple[str, str], ...]:
    """Which analytic inputs are statistics of ``column``: the ``from_data`` of :class:`AnalyticSpec`.

    Parameters
    ----------
    inputs : mapping
        Analytic inputs (``sigma2``, ``mu``, ``tau``; others are ignored).
    column : ndarray, shape (n,)

    Returns
    -------
    tuple of (str, str)
        ``(input, statistic)`` for each input equal (to 1e-9 relative) to that
        statistic of the column.

    Examples
    --------
    >>> import numpy as np
    >>> from rumap.specs import inputs_from_data
    >>> inputs_from_data({"sigma2": 2.5, "mu": 3.0, "tau": 5.0}, np.arange(1.0, 6.0))
    (('sigma2', 'variance'), ('mu', 'mean'), ('tau', 'maximum'))
    """
    out = []
    for name, statistics in _DATA_INPUTS.items():
        value = inputs.get(name)
        if value is None:
            continue
        for statistic in statistics:
            if math.isclose(float(value), DATA_STATISTICS[statistic](column), rel_tol=1e-9, abs_tol=0.0):
                out.append((name, statistic))
                break
    return tuple(out)


def _check_from_data(pairs: Any, data: DataSource | None) -> tuple[tuple[str, str], ...]:
    try:
        checked = tuple((str(name), str(statistic)) for name, statistic in pairs)
    except (TypeError, ValueError):
        raise InputError("from_data must be pairs (input, statistic), such as ((\"mu\", \"mean\"),)") from None
    for name, statistic in checked:
        if name not in _DATA_INPUTS:
            raise InputError(f"from_data names {name!r}; only {', '.join(_DATA_INPUTS)} can come from the data")
        if statistic not in _DATA_INPUTS[name]:
            raise InputError(f"from_data: {name} cannot be the data's {statistic!r}; "
                             f"expected {' or '.join(_DATA_INPUTS[name])}")
    if checked and data is None:
        raise InputError("from_data needs the data source the statistics come from")
    return checked


@dataclass(frozen=True)
class EmpiricalSpec:
    """An empirical (simulated) map: a :class:`rumap.maps.simulation.SimulationConfig` plus its data.

    Parameters
    ----------
    simulation : SimulationConfig or mapping
        The simulation; a mapping (``SimulationConfig.to_dict()``) is converted.
    data : DataSource
        The data set and column(s) the simulation masks.
    max_risk : float, optional
    log_x, log_y : bool

    Examples
    --------
    >>> import numpy as np
    >>> from rumap.specs import DataSource, EmpiricalSpec
    >>> x = np.random.default_rng(0).normal(50.0, 10.0, size=(60, 1))
    >>> spec = EmpiricalSpec(simulation={"values": [0.1, 0.5], "method_options": {"relative": True},
    ...                                  "targets": ["max"], "knowledge": ["index"], "replicates": 20, "seed": 1},
    ...                      data=DataSource.of("inline", "example", ["x"], x, include_values=True))
    >>> spec.simulation.parameter, spec.simulation.replicates
    ('lambda2_frac', 20)
    >>> analysis = spec.run()
    >>> [m.label for m in analysis.maps], analysis.maps[0].values.tolist()
    (['noise / index / max'], [0.1, 0.5])
    >>> EmpiricalSpec.from_dict(spec.to_dict()) == spec
    True
    """

    simulation: SimulationConfig
    data: DataSource
    max_risk: float | None = None
    log_x: bool = False
    log_y: bool = True

    kind = "empirical"

    def __post_init__(self) -> None:
        from rumap.maps.simulation import SimulationConfig

        if not isinstance(self.simulation, SimulationConfig):
            if not isinstance(self.simulation, Mapping):
                raise InputError(f"simulation must be a SimulationConfig or its dict, got {self.simulation!r}")
            object.__setattr__(self, "simulation", SimulationConfig.from_dict(self.simulation))
        if isinstance(self.data, DataSource) and self.data.n:  # the data are known: a grid they cannot take is refused now
            self.simulation.check_records(self.data.n)
        if self.max_risk is not None:
            check_scalar("max_risk", self.max_risk)

    def config(self) -> SimulationConfig:
        """The :class:`rumap.maps.simulation.SimulationConfig` (the same as :attr:`simulation`)."""
        return self.simulation

    def run(self, data: np.ndarray | None = None, progress: Callable[[float], None] | None = None, *,
            counts: Callable[[int, int], None] | None = None, client: Any = None,
            budget: WorkBudget = DEFAULT_BUDGET) -> Analysis:
        """Run the simulation on ``data`` (checked against :attr:`data`) or on the stored values.

        The spec was checked when built, against its data's number of records
        too when :attr:`data` knows it: the run trusts it and compares k with n
        no more (only a source that did not know n is compared here, once).

        ``progress`` is told the share done; ``counts`` (the command line's
        printer) the (replicate, value) pairs done and their total. ``client``
        and ``budget`` are :func:`rumap.maps.simulation.simulate`'s.
        """
        from rumap.maps.simulation import simulate_kernel

        arr = DataMatrix(min_rows=2).check("data", self.data.resolve(data))
        if not self.data.n:
            self.simulation.check_records(arr.shape[0])

        def report(done: int, total: int) -> None:
            if progress is not None:
                progress(done / total if total else 1.0)
            if counts is not None:
                counts(done, total)

        told = progress is not None or counts is not None
        result = simulate_kernel(arr, self.config(), progress=report if told else None, client=client, budget=budget)
        return Analysis(spec=self, maps=tuple(result.maps), optima=(), replicates=result.replicate_risks,
                        n_records=result.n_records, common=result.common, subsample=result.subsample)

    def check_budget(self, data: np.ndarray | None = None, budget: WorkBudget = DEFAULT_BUDGET) -> None:
        """Refuse now, before the run is sent anywhere, what :meth:`run` would refuse over ``budget``."""
        from rumap.maps.simulation import check_budget

        shape = np.shape(self.data.resolve(data))
        check_budget((shape[0], int(np.prod(shape[1:], dtype=np.int64))), self.simulation, budget)

    def title(self) -> str:
        method = self.simulation.method
        return f"{method}, {self.data.name} [{', '.join(self.data.columns)}]"

    def to_dict(self) -> dict[str, Any]:
        return json_safe({"kind": "empirical", "simulation": self.simulation.to_dict(), "data": self.data.to_dict(),
                          "max_risk": self.max_risk, "log_x": self.log_x, "log_y": self.log_y})

    @classmethod
    def from_dict(cls, d: Mapping[str, Any], path: str = "spec") -> EmpiricalSpec:
        """Rebuild from :meth:`to_dict` (a bad field raises InputError naming it, under ``path``)."""
        from rumap.maps.simulation import SimulationConfig

        f = Fields(d, path)
        simulation = f.object("simulation")
        try:
            config = SimulationConfig.from_dict(simulation.data)
        except InputError as exc:
            raise InputError(f"{path}.simulation: {exc}") from None
        source = DataSource.from_dict(f.object("data").data, f"{path}.data")
        arguments = dict(max_risk=f.number("max_risk", None), log_x=f.boolean("log_x", False),
                         log_y=f.boolean("log_y", True))
        try:
            return cls(simulation=config, data=source, **arguments)
        except InputError as exc:
            raise InputError(f"{path}: {exc}") from None


#: Specification classes by their ``kind``.
SPEC_KINDS: dict[str, type] = {"analytic": AnalyticSpec, "empirical": EmpiricalSpec}


@validate_params({"d": InstanceOf(Mapping, "a JSON object (a mapping)"), "data": [None, InstanceOf(np.ndarray)]},
                 example=lambda: {"d": AnalyticSpec(n=200, sigma2=1.0, states=("record",)).to_dict()})
def spec_from_dict(d: Mapping[str, Any], data: np.ndarray | None = None,
                   path: str = "spec") -> AnalyticSpec | EmpiricalSpec:
    """Rebuild a specification from its ``to_dict()`` (or ``export_dict()``) output.

    Parameters
    ----------
    d : mapping
        ``spec.to_dict()``; its ``kind`` chooses the class (:data:`SPEC_KINDS`).
    data : ndarray, optional
        The data the specification names, to recompute inputs an export withheld.
    path : str
        Where the specification is, for messages naming a bad field.

    Returns
    -------
    AnalyticSpec or EmpiricalSpec
    """
    kind = Fields(d, path).text("kind")
    if kind not in SPEC_KINDS:
        raise InputError(f"{path}.kind: unknown map kind {kind!r}; expected one of {', '.join(SPEC_KINDS)}")
    if kind == "analytic":
        return AnalyticSpec.from_dict(d, data, path)
    return EmpiricalSpec.from_dict(d, path)


@dataclass(frozen=True)
class Analysis:
    """One computed set of maps: the specification, its maps and (analytic) optima.

    Parameters
    ----------
    spec : AnalyticSpec or EmpiricalSpec
    maps : tuple of RUMap
    optima : tuple of Optimum
        One per state for analytic maps with a maximum tolerable risk.
    crossings : tuple of Crossing
        Where the analytic curves of two states cross in the grid's range.
    name : str
        A label chosen by the user (default: the specification's title).
    setting : AnalyticSetting, optional
        The analytic setting the maps were computed in: the exact optimum comes from it.
    replicates : tuple of ReplicateRisk or None
        A simulation's risk per replicate, one per map: the recommendation's uncertainty comes from it.
    n_records : int, optional
        The number of records of the data masked.
    common : RUMap, optional
        A simulated map's replicates on the measures every masking method shares
        (:mod:`rumap.maps.common`): any two analyses that have one overlay. ``None``
        for a map with no masked data (an analytic map) or measured its own way only.
    subsample : SubsampleError, optional
        A map computed on subsamples: m, n, B and what its standard errors cover
        (:mod:`rumap.maps.subsample`).
    """

    spec: AnalyticSpec | EmpiricalSpec
    maps: tuple[RUMap, ...]
    optima: tuple[Optimum, ...] = ()
    crossings: tuple[Crossing, ...] = ()
    name: str = ""
    setting: AnalyticSetting | None = field(default=None, compare=False, repr=False)
    replicates: tuple = field(default=(), compare=False, repr=False)
    n_records: int | None = field(default=None, compare=False, repr=False)
    _decided: dict = field(default_factory=dict, compare=False, repr=False)
    common: RUMap | None = None
    subsample: Any = field(default=None, compare=False, repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "maps", tuple(self.maps))
        object.__setattr__(self, "optima", tuple(self.optima))
        object.__setattr__(self, "crossings", tuple(self.crossings))
        if not self.name:
            object.__setattr__(self, "name", self.spec.title())

    @property
    def max_risk(self) -> float | None:
        return self.spec.max_risk

    def renamed(self, name: str) -> Analysis:
        return replace(self, name=name)

    def recommendation(self, max_risk: float | None = None, decision: str = "upper",
                       index: int | tuple[int, ...] | None = None) -> Recommendation | None:
        """The recommended value under the bound (:mod:`rumap.maps.recommend`); ``None`` without a bound.

        Parameters
        ----------
        max_risk : float, optional
            The bound, in the units of the maps' risk (default: the specification's).
        decision : {"upper", "mean"}, default "upper"
        index : int or tuple of int, optional
            Decide for one curve, or these curves, only (default: every curve
            of the first curve's risk measure: a bound is in one measure's units).

        Returns
        -------
        Recommendation or None
            For an analytic map the exact optimum in the range shown; for a
            simulation with its replicates, ``p_exceed`` and ``value_interval``.
        """
        bound = self.max_risk if max_risk is None else max_risk
        if bound is None or not self.maps:
            return None
        memo = (float(bound), decision, index)
        if memo not in self._decided:  # the bootstrap is redone only for a new bound, decision or curve
            self._decided[memo] = self._recommend(float(bound), decision, index)
        return self._decided[memo]

    def _recommend(self, bound: float, decision: str, index: int | tuple[int, ...] | None) -> Recommendation:
        if index is None:
            picked = [i for i, m in enumerate(self.maps) if m.risk_label == self.maps[0].risk_label]
        else:
            picked = [index] if isinstance(index, int) else list(index)
        maps = [self.maps[i] for i in picked]
        if isinstance(self.spec, AnalyticSpec) and self.setting is not None:
            exact = recommend_exact([m.knowledge for m in maps], self.setting, bound, float(self.spec.lambda2_stop),
                                    decision)
            return replace(exact, map_index=picked[exact.map_index]) if exact.map_index >= 0 else exact
        replicates = [self.replicates[i] for i in picked] if len(self.replicates) == len(self.maps) else None
        seed = self.spec.simulation.seed if isinstance(self.spec, EmpiricalSpec) else 0
        chosen = recommend(maps, bound, decision, replicates=replicates, n_records=self.n_records, seed=seed)
        return replace(chosen, map_index=picked[chosen.map_index]) if chosen.map_index >= 0 else chosen

    def to_frame(self):
        """Every curve as one long table, with an ``analysis`` column holding :attr:`name`."""
        import pandas as pd

        frames = [m.to_frame().assign(analysis=self.name) for m in self.maps]
        return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()

    def to_dict(self) -> dict[str, Any]:
        return self.export_dict(aggregates=True, values=True)

    def export_dict(self, aggregates: bool = False, values: bool = False) -> dict[str, Any]:
        """The analysis as exported: by default no value, order statistic or aggregate of the data.

        Parameters
        ----------
        aggregates : bool, default False
            Keep the inputs that are statistics of the data (``AnalyticSpec.from_data``).
        values : bool, default False
            Keep the targets' values and the data's extremes in the maps' configs
            (:data:`DATA_VALUE_KEYS`).

        Returns
        -------
        dict
        """
        spec = self.spec.export_dict(aggregates) if isinstance(self.spec, AnalyticSpec) else self.spec.to_dict()
        dropped = set() if values else set(DATA_VALUE_KEYS)
        if not aggregates and isinstance(self.spec, AnalyticSpec):
            dropped |= set(self.spec.withheld())
        maps = []
        for m in self.maps:
            d = m.to_dict()
            d["config"] = {k: v for k, v in d["config"].items() if k not in dropped}
            maps.append(d)
        return json_safe({"name": self.name, "spec": spec, "maps": maps,
                          "optima": [_exported_optimum(o) for o in self.optima],
                          "crossings": [c.to_dict() for c in self.crossings],
                          "common": None if self.common is None else self.common.to_dict()})


def _exported_optimum(optimum: Optimum) -> dict[str, Any]:
    """An optimum in an export: its values where the bound is reachable, else that it is not."""
    d = optimum.to_dict()
    if not optimum.reachable:
        return {"state": d["state"], "max_risk": d["max_risk"], "reachable": False}
    return {key: value for key, value in d.items() if key != "reachable"}
