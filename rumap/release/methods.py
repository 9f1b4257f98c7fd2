"""A masking method as a step of a release plan: its record, a plan's step, and how a plan file names a parameter.

A :class:`Step` checks itself against the registry of step methods (:data:`rumap.release.registry.STEP_METHODS`,
which sets itself here through :func:`use_step_methods` when ``rumap.release`` loads), so this module imports
no step of its own.

A record's ``check`` checks each parameter with :func:`rumap._validation.check_parameter`, by the
constraint a public function's would use: its message names the parameter (``parameter k must be ...``);
:func:`plan_key` gives it the plan file's key, the command line its flag.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from rumap._validation import assumes_valid, check_scalar
from rumap._validation.steps import REQUIRED
from rumap.budget import WorkBudget
from rumap.errors import InputError
from rumap.maps.method_records import Flag

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["StepMethod", "Step", "REQUIRED", "STAGES", "ORIGIN_KEYS", "plan_key"]

#: What a step takes and gives: microdata to microdata, microdata to a table, a table to a table.
STAGES = ("microdata", "tabulate", "table")

@dataclass(frozen=True)
class StepMethod:
    """A masking method as a step of a release plan.

    Parameters
    ----------
    target : {"columns", "keys", "table"}
        Whether the step protects numeric columns, categorical keys (or spans
        a table over them), or the table a plan has built (neither).
    parameters : mapping
        Its parameters and their defaults (:data:`REQUIRED` for one the step
        must give); the step's ``parameters`` get every default filled in.
    random : bool
        Whether it draws random numbers (then the step's seed matters).
    check : callable
        ``check(parameters, names) -> parameters``: the parameters checked and
        converted (``names``: the step's columns or keys).
    apply : callable
        ``apply(frame, step, source, budget) -> (frame, summary)``: the
        protected data and what the step did, counts only.
    map_method : str or None
        The method of the empirical R-U map whose prediction the report sets
        beside the step (:data:`rumap.maps.methods.METHODS`), if any.
    description : str
    stage : {"microdata", "tabulate", "table"}
        What the step takes and gives (:data:`STAGES`): microdata to microdata,
        microdata to a table built from it, or a table to a protected table.
    precision : str
        The parameter that rounds the released values to a number of decimals
        ("" for none).
    stream : callable, optional
        How the step runs on a file chunk by chunk (:func:`rumap.release.stream.release_in_chunks`):
        ``stream(step, file) -> stream``, where ``file`` (:class:`rumap.release.chunked.FilePass`) runs
        the passes it needs first (its counts, its whole columns) and the stream masks each chunk
        (``stream(frame, source, start)``, ``restart()``, ``summary()``, ``types()``). None: the step is
        not applied chunk by chunk.
    not_streamed : str
        Why not, when ``stream`` is None.
    predictor : callable, optional
        ``predictor(before, after, step, replicates, budget, targets, applied=...) -> (checks, how)``: the
        step's map simulated at its parameter, beside the release (:func:`rumap.release.report.predict_step`).
    no_prediction : str
        Why the report has no prediction, when ``predictor`` is None.
    anonymity : str
        The parameter that is the k of k-anonymity the step aims at ("" for none): the report measures the
        released file's k-anonymity at it too.
    file_work : callable, optional
        ``file_work(parameters, n, p, budget)``: refuses, before any pass over a file of ``n`` records, a step
        whose work on its ``p`` columns gathered exceeds ``budget`` (raises :class:`InputError`).
    flags : tuple of rumap.maps.method_records.Flag
        The flags of ``python -m rumap release --method NAME`` that give one parameter each, as the flag's
        value: the parameter is named by the flag (``--band-width`` gives ``band_width``). A flag several methods
        declare is one flag of the parser.
    text_flags : tuple of rumap.maps.method_records.Flag
        The flags of ``release`` that give its parameters as text (``--merge``), read by ``read_flags``;
        refused with another ``--method``.
    read_flags : callable, optional
        ``read_flags(given) -> parameters``: the parameters that the text flags given (``{flag: text}``) make.
    key_map : rumap.maps.key_method.CategoricalMethod, optional
        The map of categorical keys whose points are this step at a value of the map's parameter
        (:func:`rumap.release.from_map.step_from_key_map`).
    every_column : bool
        A step that names no columns takes every column of the data (its ``columns`` may be left out).
    summary_words : callable, optional
        ``summary_words(summary) -> str``: what the step did, in words, from its summary (the Release page
        and the report show it); None: the summary is shown as it is.
    measured : callable, optional
        ``measured(step) -> names``: the variables the report measures a step on categorical keys on, when
        they are more than its keys (a swap's geography with its keys, as its map measures them).
    """

    target: str
    parameters: Mapping[str, Any]
    random: bool
    check: Callable[[dict, tuple[str, ...]], dict]
    apply: Callable[[pd.DataFrame, Step, str, WorkBudget], tuple[pd.DataFrame, dict]]
    map_method: str | None
    description: str
    stage: str = field(default="microdata")
    precision: str = ""
    stream: Callable[[Step, Any], Any] | None = None
    not_streamed: str = "it needs the whole file"
    predictor: Callable[..., tuple] | None = None
    no_prediction: str = "no map"
    anonymity: str = ""
    file_work: Callable[[Mapping[str, Any], int, int, WorkBudget], None] | None = None
    flags: tuple[Flag, ...] = ()
    text_flags: tuple[Flag, ...] = ()
    read_flags: Callable[[Mapping[str, Any]], dict] | None = None
    key_map: Any = None
    every_column: bool = False
    summary_words: Callable[[dict], str] | None = None
    measured: Callable[[Step], Sequence[str]] | None = None


@assumes_valid
def plan_key(message: str, index: int) -> str:
    """A step's message with the parameter it names given by its key in the plan file (``steps[0].parameters.k``).

    Parameters
    ----------
    message : str
        A check's message (``parameter k must be ...``).
    index : int
        The step's place in the plan's ``steps`` list (0-based, as the key counts).

    Returns
    -------
    str

    Examples
    --------
    >>> plan_key("parameter k must be an integer >= 1, got 0", 1)
    'steps[1].parameters.k must be an integer >= 1, got 0'
    """
    prefix = "parameter "
    return f"steps[{index}].parameters.{message[len(prefix):]}" if message.startswith(prefix) else message


class _Registry:
    """The step methods a :class:`Step` is checked against: :data:`rumap.release.registry.STEP_METHODS`, which sets
    itself here when it loads (``rumap.release`` loads it before any of its modules)."""

    methods: Mapping[str, StepMethod] = {}


def use_step_methods(methods: Mapping[str, StepMethod]) -> None:
    """Make ``methods`` the registry steps are checked against (:data:`rumap.release.registry.STEP_METHODS` does).

    Parameters
    ----------
    methods : mapping
        Step methods by name (a live view: read at each check).
    """
    _Registry.methods = methods


def step_methods() -> Mapping[str, StepMethod]:
    """The registry of step methods, :data:`rumap.release.registry.STEP_METHODS`, by name."""
    return _Registry.methods


#: The keys of a step's object in a plan file (``origin`` only for a step applied from a map).
STEP_KEYS = ("method", "parameters", "columns", "keys", "seed", "origin")

#: What a step's ``origin`` may hold: the map (its name and ``map_digest``), the ``data`` fingerprint of the table it
#: was drawn on (:func:`rumap.fingerprint.frame_digest`), whether its value was the ``recommended`` one or
#: ``picked`` (``choice``), and the decision behind it: ``max_risk`` (R_max), the ``decision`` rule
#: (:data:`rumap.maps.recommend.DECISIONS`), the ``binding`` target and knowledge state, the map's ``targets``,
#: ``knowledge`` states, attacked ``target_column`` and dataset ``risk_measures``.
ORIGIN_KEYS = ("map", "map_digest", "data", "choice", "value", "recommended", "max_risk", "decision", "binding",
               "targets", "knowledge", "target_column", "risk_measures")


def _origin(value: Any) -> dict[str, Any] | None:
    """A step's ``origin`` checked: an object of :data:`ORIGIN_KEYS`, plain JSON values, lists of names as lists."""
    if value is None:
        return None
    if not isinstance(value, Mapping):
        raise InputError(f"origin must be an object (the map a step came from), got {value!r}")
    unknown = sorted(set(value) - set(ORIGIN_KEYS))
    if unknown:
        raise InputError(f"origin: unknown key(s) {', '.join(map(repr, unknown))}; it has {', '.join(ORIGIN_KEYS)}")
    for name in ("targets", "knowledge", "risk_measures"):
        if name in value and (isinstance(value[name], str) or not isinstance(value[name], Sequence)
                              or not all(isinstance(v, str) for v in value[name])):
            raise InputError(f"origin: {name} must be a list of names, got {value[name]!r}")
    if value.get("choice") not in (None, "recommended", "picked"):
        raise InputError(f"origin: choice must be recommended or picked, got {value['choice']!r}")
    try:
        return json.loads(json.dumps(dict(value), allow_nan=False))
    except (TypeError, ValueError):
        raise InputError(f"origin must hold plain JSON values (finite numbers), got {value!r}") from None


def _names(value: Any, what: str) -> tuple[str, ...]:
    if isinstance(value, str) or not isinstance(value, Sequence) or not value \
            or not all(isinstance(v, str) and v.strip() for v in value):
        raise InputError(f"{what} must be a non-empty list of column names, got {value!r}")
    names = tuple(v.strip() for v in value)
    if len(set(names)) != len(names):
        raise InputError(f"{what} names a column twice: {', '.join(names)}")
    return names


@dataclass(frozen=True)
class Step:
    """One step of a release plan.

    Parameters
    ----------
    method : str
        A key of :data:`rumap.release.registry.STEP_METHODS`.
    parameters : mapping
        The method's parameters (e.g. ``{"k": 5}``); defaults are filled in.
    columns : sequence of str, optional
        The numeric columns protected (methods on columns).
    keys : sequence of str, optional
        The categorical key variables (methods on keys; a ``table`` step's
        spanning variables, rows then columns). Steps on the table a plan
        built have neither.
    seed : int, optional
        The seed of the step's random numbers (default 0 for a method that
        draws; kept as given, or None, for one that does not).
    origin : mapping, optional
        The map the step was applied from and the decision behind its value
        (:data:`ORIGIN_KEYS`); None for a step written by hand.

    Examples
    --------
    >>> step = Step("pram", {"theta": 0.8}, keys=["sex", "region"], seed=3)
    >>> step.to_dict()
    {'method': 'pram', 'parameters': {'theta': 0.8}, 'keys': ['sex', 'region'], 'seed': 3}
    """

    method: str
    parameters: Mapping[str, Any] = field(default_factory=dict)
    columns: tuple[str, ...] | None = None
    keys: tuple[str, ...] | None = None
    seed: int | None = None
    origin: Mapping[str, Any] | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "origin", _origin(self.origin))
        registry = step_methods()
        if not isinstance(self.method, str) or self.method not in registry:
            raise InputError(f"method must be one of {', '.join(registry)}, got {self.method!r}")
        record = registry[self.method]
        if record.target == "table":
            if self.columns is not None or self.keys is not None:
                raise InputError(f"method {self.method} works on the table a plan built: no columns or keys")
            names: tuple[str, ...] = ()
        else:
            given, other = ("columns", "keys") if record.target == "columns" else ("keys", "columns")
            if getattr(self, other) is not None:
                raise InputError(f"method {self.method} protects {given}, not {other}")
            if getattr(self, given) is None and not record.every_column:
                raise InputError(f"method {self.method} needs {given}")
            names = () if getattr(self, given) is None else _names(getattr(self, given), given)
            if names:
                object.__setattr__(self, given, names)
        if not isinstance(self.parameters, Mapping):
            raise InputError(f"parameters must be an object of name: value, got {self.parameters!r}")
        unknown = sorted(set(self.parameters) - set(record.parameters))
        if unknown:
            raise InputError(f"unknown parameter(s) {', '.join(map(repr, unknown))} of method {self.method}; "
                             f"it takes {', '.join(record.parameters)}")
        filled = {**record.parameters, **self.parameters}
        missing = [name for name, value in filled.items() if value is REQUIRED]
        if missing:
            raise InputError(f"method {self.method} needs the parameter(s) {', '.join(missing)}")
        object.__setattr__(self, "parameters", record.check(filled, names))
        if self.seed is None and record.random:
            object.__setattr__(self, "seed", 0)
        if self.seed is not None:
            if isinstance(self.seed, bool):
                raise InputError(f"seed must be an integer >= 0, got {self.seed!r}")
            object.__setattr__(self, "seed", check_scalar("seed", self.seed))

    @property
    def names(self) -> tuple[str, ...]:
        """The step's columns or keys (none for a step on a table)."""
        return self.columns if self.columns is not None else (self.keys or ())

    def to_dict(self) -> dict[str, Any]:
        """The step's object in a plan file (:meth:`from_dict` reads it back); a step on a table has no names."""
        out: dict[str, Any] = {"method": self.method, "parameters": json.loads(json.dumps(self.parameters))}
        if self.columns is not None or self.keys is not None:
            out["columns" if self.columns is not None else "keys"] = list(self.names)
        out["seed"] = self.seed
        if self.origin is not None:
            out["origin"] = json.loads(json.dumps(self.origin))
        return out

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], where: str = "step", index: int | None = None) -> Step:
        """A step from its object in a plan file.

        Parameters
        ----------
        data : mapping
            ``method``, ``parameters``, ``columns`` or ``keys``, ``seed``, and ``origin`` when from a map.
        where : str
            The step's place, for messages (``"step 2"``).
        index : int, optional
            Its place in the plan file's ``steps`` (0-based): a parameter is then named by its key there
            (``steps[1].parameters.k``).

        Returns
        -------
        Step
        """
        if not isinstance(data, Mapping):
            raise InputError(f"{where} must be an object, got {type(data).__name__}")
        unknown = sorted(set(data) - set(STEP_KEYS))
        if unknown:
            raise InputError(f"{where}: unknown key(s) {', '.join(map(repr, unknown))}; a step has "
                             f"{', '.join(STEP_KEYS)}")
        if "method" not in data:
            raise InputError(f"{where}: no method")
        try:
            return cls(data["method"], data.get("parameters") or {}, data.get("columns"), data.get("keys"),
                       data.get("seed"), data.get("origin"))
        except InputError as exc:
            raise InputError(f"{where}: {plan_key(str(exc), index) if index is not None else exc}") from None
