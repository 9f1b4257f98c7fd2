"""The configuration of an empirical R-U map: everything that defines a run, so that it can be repeated.

:class:`SimulationConfig` checks each choice when it is made (the method's
grid and options, the targets, the knowledge states, the utility, the dataset
risk measures) and, with ``subsample`` set, that a subsample estimates the map
(:func:`check_subsampling`, by :mod:`rumap.maps.subsample`'s lists). The
engine that runs it is :func:`rumap.maps.simulation.simulate`.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import asdict, dataclass, field, fields
from typing import Any

import numpy as np

from rumap._validation import assumes_valid, check_scalar
from rumap.errors import InputError
from rumap.maps.attacks import check_knowledge, parse_target
from rumap.maps.methods import METHODS
from rumap.maps.subsample import _WHAT, _refusal, check_subsample_size
from rumap.maps.utility import check_utility
from rumap.result import json_safe

__all__ = ["SimulationConfig", "check_subsampling"]


def _risk_measures() -> dict[str, Any]:
    """:data:`rumap.risk.measures.DATASET_RISK_MEASURES`, imported when a run names one (it imports pandas)."""
    from rumap.risk.measures import DATASET_RISK_MEASURES

    return DATASET_RISK_MEASURES


def _names(field: str, value: Any) -> tuple[str, ...]:
    """A name or a list of names, as a tuple; anything else is bad input naming the field."""
    if isinstance(value, str):
        return (value,)
    if isinstance(value, (list, tuple)) and all(isinstance(v, str) for v in value):
        return tuple(value)
    raise InputError(f"{field} must be a name or a list of names, got {value!r}")


@dataclass(frozen=True)
class SimulationConfig:
    """Everything that defines an empirical R-U map, so that a run can be repeated.

    Parameters
    ----------
    method : str, default "noise"
        A key of :data:`rumap.maps.methods.METHODS` (``"noise"``,
        ``"microaggregation"``, ``"rankswap"`` or a registered method).
    values : sequence of float
        The grid of the method's parameter (its record's ``grids``): ``lambda2``
        (noise; a fraction of each variable's variance with
        ``method_options["relative"]``), ``k`` (microaggregation) or the swap
        percentage (rank swapping), each within its ``PARAMETERS`` entry.
    method_options : mapping
        The method's options (its record's ``options``), each checked now.
        Noise: the fields of :class:`rumap.masking.noise.NoiseSpec` (``relative``,
        ``correlated``, ``truncate_below``, ``truncate_above``,
        ``unequal_above``, ``unequal_below``, ``unequal_factor``,
        ``unequal_column``). Microaggregation: ``algorithm`` (default
        ``"mdav"``), ``standardize`` (False), ``criterion`` (``"pc1"``).
    targets : sequence of str
        ``"max"``, ``"min"``, ``"pXX"``, ``"row:I"`` (:func:`rumap.maps.attacks.parse_target`).
    knowledge : sequence of str
        Keys of :data:`rumap.maps.attacks.KNOWLEDGE`.
    target_column : int, default 0
        The column the snooper attacks.
    utility : str, default "mean"
        A key of :data:`rumap.maps.utility.UTILITIES`.
    utility_options : mapping
        ``quantiles`` (for ``"quantiles"``), ``response`` (for ``"regression"``).
    replicates : int, default 200
        M, masked data sets per parameter value (1 is used for deterministic methods).
    seed : int, default 0
    chunk_size : int, optional
        Replicates per chunk; default about 4 million values per array. It
        changes memory and speed, never the results.
    risk_measures : sequence of str
        Keys of :data:`rumap.risk.measures.DATASET_RISK_MEASURES`; each adds a map.
    rational : bool, default False
        Add, per target, the rational snooper's envelope over the knowledge states.
    subsample : int, optional
        m: the map of simple random subsamples of m records, not of every record
        (:mod:`rumap.maps.subsample` says what it allows and what its SEs cover).
    subsamples : int, default 10
        B, the independent subsamples whose spread gives the standard errors.
    """

    method: str = "noise"
    values: tuple = ()
    method_options: Mapping[str, Any] = field(default_factory=dict)
    targets: tuple = ("max",)
    knowledge: tuple = ("index", "position")
    target_column: int = 0
    utility: str = "mean"
    utility_options: Mapping[str, Any] = field(default_factory=dict)
    replicates: int = 200
    seed: int = 0
    chunk_size: int | None = None
    risk_measures: tuple = ()
    rational: bool = False
    subsample: int | None = None
    subsamples: int = 10

    def __post_init__(self) -> None:
        if not isinstance(self.method, str) or self.method not in METHODS:
            raise InputError(f"unknown method {self.method!r}; choose from {', '.join(METHODS)}")
        spec = METHODS[self.method]
        if self.method_options is not None and not isinstance(self.method_options, Mapping):
            raise InputError(f"method_options must be an object of option: value, got {self.method_options!r}")
        if self.utility_options is not None and not isinstance(self.utility_options, Mapping):
            raise InputError(f"utility_options must be an object of option: value, got {self.utility_options!r}")
        options = spec.checked_options(self.method, dict(self.method_options or {}))
        object.__setattr__(self, "method_options", options)
        object.__setattr__(self, "values", spec.grid(options).check(self.values))
        targets = tuple(str(t) for t in _names("targets", self.targets))
        knowledge = list(_names("knowledge", self.knowledge))
        measures = _names("risk_measures", self.risk_measures)
        known = _risk_measures() if measures else {}
        for m in measures:
            if m not in known:
                raise InputError(f"unknown risk measure {m!r}; choose from {', '.join(known) or '(none)'}")
        if not targets and not measures:
            raise InputError("give at least one target (or a dataset risk measure)")
        for target in targets:
            parse_target(target)
        object.__setattr__(self, "targets", tuple(dict.fromkeys(targets)))
        object.__setattr__(self, "knowledge", check_knowledge(knowledge) if targets else tuple(knowledge))
        object.__setattr__(self, "risk_measures", tuple(dict.fromkeys(measures)))
        if "corrected" in self.knowledge and spec.published_lambda2 is None:
            publishing = " or ".join(repr(name) for name, m in METHODS.items() if m.published_lambda2 is not None)
            raise InputError(f"knowledge 'corrected' needs a published noise variance: it applies to method {publishing}")
        measure = check_utility(self.utility)
        object.__setattr__(self, "utility_options", dict(self.utility_options or {}))
        stray = sorted(set(self.utility_options) - set(measure.options))
        if stray:
            raise InputError(f"utility option(s) {', '.join(map(repr, stray))} do not apply to utility "
                             f"{self.utility!r}; it takes {', '.join(map(repr, measure.options)) or 'none'}")
        object.__setattr__(self, "replicates", check_scalar("replicates", self.replicates))
        object.__setattr__(self, "seed", check_scalar("seed", self.seed))
        if self.chunk_size is not None:
            object.__setattr__(self, "chunk_size", check_scalar("chunk_size", self.chunk_size))
        if isinstance(self.target_column, bool) or not isinstance(self.target_column, (int, np.integer)) \
                or self.target_column < 0:
            raise InputError(f"target_column must be a column index >= 0, got {self.target_column!r}")
        object.__setattr__(self, "rational", bool(self.rational))
        object.__setattr__(self, "subsamples", check_scalar("subsamples", self.subsamples))
        if self.subsample is not None:
            object.__setattr__(self, "subsample", check_scalar("subsample", self.subsample))
            check_subsampling(self)

    @property
    def parameter(self) -> str:
        """The name of the masking parameter: ``lambda2``, ``lambda2_frac``, ``k`` or ``swap_percent``."""
        return METHODS[self.method].parameter(self.method_options)

    def check_records(self, n_records: int) -> None:
        """Refuse a grid that data of ``n_records`` records cannot take (microaggregation's k > n), or subsamples
        of as many records as the data.

        Parameters
        ----------
        n_records : int
            The number of records of the data the config will mask.
        """
        METHODS[self.method].grid(self.method_options).check_records(self.values, n_records)
        if self.subsample is not None:
            check_subsample_size(self.subsample, n_records)

    @property
    def deterministic(self) -> bool:
        """Whether the masking has no randomness (then one replicate suffices)."""
        return METHODS[self.method].deterministic

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dictionary; :meth:`from_dict` rebuilds the same config."""
        out = asdict(self)
        out["method_options"] = dict(self.method_options)
        out["utility_options"] = dict(self.utility_options)
        if self.subsample is None:  # every record: no subsampling keys
            del out["subsample"], out["subsamples"]
        return json_safe(out)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], ignore: Collection[str] = ()) -> SimulationConfig:
        """Rebuild a config from :meth:`to_dict` output.

        Parameters
        ----------
        data : mapping
            The output of :meth:`to_dict`, possibly with more keys.
        ignore : collection of str
            Keys that a caller added and that are not part of a config (the
            command line adds where the data came from); other unknown keys are
            refused.

        Returns
        -------
        SimulationConfig
        """
        if not isinstance(data, Mapping):
            raise InputError(f"a simulation config must be an object, got {type(data).__name__}")
        names = {f.name for f in fields(cls)}
        data = {k: v for k, v in data.items() if k not in ignore}
        unknown = sorted(set(data) - names)
        if unknown:
            raise InputError(f"unknown simulation config key(s): {', '.join(map(repr, unknown))}")
        values = dict(data)
        for key in ("values", "targets", "knowledge", "risk_measures"):
            if key in values and isinstance(values[key], list):
                values[key] = tuple(values[key])
        options = values.get("utility_options") or {}
        if not isinstance(options, Mapping):
            raise InputError(f"utility_options must be an object of option: value, got {options!r}")
        options = dict(options)
        if isinstance(options.get("quantiles"), list):
            options["quantiles"] = tuple(options["quantiles"])
        values["utility_options"] = options
        return cls(**values)


@assumes_valid
def check_subsampling(config: SimulationConfig) -> None:
    """Refuse a config whose map a subsample does not estimate, naming each refused choice.

    Parameters
    ----------
    config : SimulationConfig
        A config with ``subsample`` set.

    Raises
    ------
    InputError
        Naming the method, knowledge states, utility, risk measures (or the
        rational snooper) that a subsample cannot estimate, and why.

    Examples
    --------
    >>> SimulationConfig(values=(1.0,), knowledge=("index",), subsample=500).subsample
    500
    >>> SimulationConfig(values=(1.0,), knowledge=("index", "position"), subsample=500)
    Traceback (most recent call last):
    ...
    rumap.errors.InputError: subsample: knowledge 'position' cannot be estimated on a subsample: the order statistic Y_(r) of the masked file depends on the number of records
    """
    chosen = [("method", config.method), *(("knowledge", k) for k in config.knowledge),
              ("utility", config.utility), *(("risk_measure", r) for r in config.risk_measures)]
    reasons = [f"{_WHAT[kind]} {name!r} cannot be estimated on a subsample: {why}"
               for kind, name in chosen if (why := _refusal(kind, name)) is not None]
    if config.rational:
        reasons.append("the rational snooper cannot be estimated on a subsample: it needs knowledge states other "
                       "than 'index'")
    if reasons:
        raise InputError("subsample: " + "; ".join(reasons))
