"""A release plan: the ordered steps that turn a data set into the protected one, and its JSON file.

A step is a masking method of :data:`rumap.release.apply.STEP_METHODS`, its
parameters, the numeric ``columns`` or categorical ``keys`` it protects, and a
seed, and, for a step applied from a map, its ``origin``: the map it came from,
the fingerprint of the data the map was drawn on and the decision that set its
value (:data:`ORIGIN_KEYS`). The plan file is an object whose ``steps`` list
holds one object per step with those keys; the ``steps`` of ``python -m rumap release --json`` are
such a list, so one release's output is a plan for the next. A step's
parameters are stored with every default filled in, so the file says all that
the release used, and reading a plan and writing it again gives the same bytes.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from rumap._validation import PARAMETERS, InstanceOf, check_scalar, validate_params
from rumap._validation.fields import parse_json
from rumap.errors import InputError
from rumap.release.apply import REQUIRED, STEP_METHODS
from rumap.release.methods import plan_key

__all__ = ["PLAN_FORMAT", "ORIGIN_KEYS", "Step", "ReleasePlan", "read_plan"]

#: The ``format`` of a plan file.
PLAN_FORMAT = "rumap-release-plan/1"

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
        A key of :data:`rumap.release.apply.STEP_METHODS`.
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
        if not isinstance(self.method, str) or self.method not in STEP_METHODS:
            raise InputError(f"method must be one of {', '.join(STEP_METHODS)}, got {self.method!r}")
        record = STEP_METHODS[self.method]
        if record.target == "table":
            if self.columns is not None or self.keys is not None:
                raise InputError(f"method {self.method} works on the table a plan built: no columns or keys")
            names: tuple[str, ...] = ()
        else:
            given, other = ("columns", "keys") if record.target == "columns" else ("keys", "columns")
            if getattr(self, other) is not None:
                raise InputError(f"method {self.method} protects {given}, not {other}")
            if getattr(self, given) is None:
                raise InputError(f"method {self.method} needs {given}")
            names = _names(getattr(self, given), given)
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


def _check_step_count(count: int) -> None:
    """Refuse a plan of more steps than its entry ``plan_steps`` allows, before any step is read or applied."""
    most = PARAMETERS["plan_steps"].high
    if count > most:
        raise InputError(f"steps: a release plan holds at most {most:g} steps, got {count}")


@dataclass(frozen=True)
class ReleasePlan:
    """An ordered list of steps; applied to a data set it gives the protected data set.

    Parameters
    ----------
    steps : sequence of Step
        At least one.

    Examples
    --------
    >>> plan = ReleasePlan([Step("microaggregation", {"k": 3}, columns=["income"])])
    >>> read_plan(plan.to_json()) == plan
    True
    """

    steps: tuple[Step, ...]

    def __post_init__(self) -> None:
        if isinstance(self.steps, (str, bytes)) or not isinstance(self.steps, Sequence):
            raise InputError(f"steps must be a list of steps, got {type(self.steps).__name__}")
        if not self.steps:
            raise InputError("a release plan needs at least one step")
        _check_step_count(len(self.steps))
        for i, step in enumerate(self.steps):
            if not isinstance(step, Step):
                raise InputError(f"step {i + 1} must be a Step, got {type(step).__name__}")
        object.__setattr__(self, "steps", tuple(self.steps))

    def to_dict(self) -> dict[str, Any]:
        """The plan file's object: ``format``, ``rumap_version`` and ``steps``."""
        from rumap import __version__

        return {"format": PLAN_FORMAT, "rumap_version": __version__, "steps": [s.to_dict() for s in self.steps]}

    def to_json(self) -> str:
        """The plan file's text; :func:`read_plan` reads it back to the same plan, and writing that gives this text."""
        return json.dumps(self.to_dict(), indent=2, allow_nan=False) + "\n"

    def to_frame(self):
        """One row per step: method, parameters, columns or keys, seed."""
        import pandas as pd

        return pd.DataFrame([{"step": i + 1, "method": s.method, "parameters": json.dumps(s.parameters),
                              "columns": ",".join(s.names), "seed": s.seed} for i, s in enumerate(self.steps)])


@validate_params({"text": InstanceOf((str, bytes), "text or bytes")},
                 example=lambda: {"text": '{"steps": [{"method": "pram", "parameters": {"theta": 0.8}, '
                                          '"keys": ["sex"], "seed": 1}]}'})
def read_plan(text: str | bytes) -> ReleasePlan:
    """Read a plan file: an object whose ``steps`` list holds the steps.

    The JSON of ``python -m rumap release --json`` is one: its other keys are
    left aside. A ``format`` key, when present, must be :data:`PLAN_FORMAT`.

    Parameters
    ----------
    text : str or bytes
        The file's content.

    Returns
    -------
    ReleasePlan

    Raises
    ------
    InputError
        Not JSON, no ``steps`` list, or a bad step (named by its number).

    Examples
    --------
    >>> plan = read_plan('{"steps": [{"method": "noise", "parameters": {"lambda2_frac": 0.1}, "columns": ["a"]}]}')
    >>> plan.steps[0].seed, plan.steps[0].parameters["lambda2_frac"]
    (0, 0.1)
    """
    if isinstance(text, bytes):
        try:
            text = text.decode("utf-8-sig")
        except UnicodeDecodeError:
            raise InputError("the plan is not UTF-8 text") from None
    data = parse_json(text, "the plan")
    if not isinstance(data, dict) or not isinstance(data.get("steps"), list):
        raise InputError("the plan must be an object with a \"steps\" list")
    if "format" in data and data["format"] != PLAN_FORMAT:
        raise InputError(f"not a release plan (expected \"format\": \"{PLAN_FORMAT}\", got {data['format']!r})")
    _check_step_count(len(data["steps"]))
    return ReleasePlan(tuple(Step.from_dict(entry, f"step {i + 1}", i) for i, entry in enumerate(data["steps"])))
