"""Constraints on parameters: numbers checked against the table :data:`PARAMETERS` (:mod:`rumap._validation.parameters`), arrays, choices, flags, types and alternatives."""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from numbers import Integral
from typing import Any

import numpy as np

from rumap._validation.base import _NO_ARGUMENTS, Arguments, Constraint, Interval, shown
from rumap._validation.parameters import MAX_RECORDS, MAX_SEED, PARAMETERS
from rumap.errors import InputError

__all__ = ["Arguments", "Constraint", "Interval", "PARAMETERS", "check_scalar", "check_array", "StrOptions", "Boolean",
           "InstanceOf", "Labels", "BooleanArray", "AnyOf", "SEED", "make_constraint", "MAX_RECORDS", "MAX_SEED"]



def check_scalar(name: str, value: Any, constraint: Interval | None = None) -> float | int:
    """Validate one scalar parameter against its constraint.

    Parameters
    ----------
    name : str
        Parameter name, used in the message and to look up the constraint.
    value : int or float
        The value to check.
    constraint : Interval, optional
        Defaults to ``PARAMETERS[name]``.

    Returns
    -------
    int or float
        The value, converted to ``int`` or ``float``.

    Raises
    ------
    InputError
        If the value has the wrong type or lies outside the range.
    """
    return (constraint or PARAMETERS[name]).check(name, value)


def _holds_text(values: Any) -> bool:
    """Whether an array-like holds text: ``float()`` would read "1" and "\u0661" (any Unicode digit) as numbers."""
    arr = np.asarray(values, dtype=object) if isinstance(values, (list, tuple)) else np.asarray(values)
    if arr.dtype.kind in "USa":
        return True
    return arr.dtype == object and any(isinstance(v, (str, bytes)) for v in arr.reshape(-1))


def check_array(name: str, values: Any, constraint: Interval | None = None) -> np.ndarray:
    """Validate a 1-D array of parameter values (e.g. a grid of ``lambda2``).

    Returns a float array of shape ``(m,)``; a scalar becomes shape ``(1,)``.
    """
    constraint = constraint or PARAMETERS[name]
    if isinstance(values, (str, bytes)) or _holds_text(values):
        raise InputError(f"{name} must be numbers, not text: got {shown(values)}")
    try:
        arr = np.atleast_1d(np.asarray(values, dtype=float))
    except (TypeError, ValueError) as exc:
        raise InputError(f"{name} must be numeric: {exc}") from None
    if arr.ndim != 1:
        raise InputError(f"{name} must be a 1-D array, got shape {arr.shape}")
    if arr.size == 0:
        raise InputError(f"{name} is empty")
    bad = ~(_vector_contains(arr, constraint) & np.isfinite(arr))
    if bad.any():
        first = arr[np.argmax(bad)]
        raise InputError(f"every {name} must be {constraint.describe()}, got {float(first)!r}")
    return arr


def _vector_contains(arr: np.ndarray, c: Interval) -> np.ndarray:
    ok = ~np.isnan(arr)
    if c.low is not None:
        ok &= arr >= c.low if c.closed in ("both", "left") else arr > c.low
    if c.high is not None:
        ok &= arr <= c.high if c.closed in ("both", "right") else arr < c.high
    return ok


@dataclass(frozen=True)
class Grid(Constraint):
    """A grid of values of one :data:`PARAMETERS` entry (e.g. noise variances): checked into a 1-D float array.

    Parameters
    ----------
    parameter : str
        The :data:`PARAMETERS` entry every value must satisfy.
    """

    parameter: str

    def check(self, name: str, value: Any, args: Arguments = _NO_ARGUMENTS) -> np.ndarray:
        """:func:`check_array` with the entry's interval; a scalar becomes shape ``(1,)``."""
        return check_array(name, value, PARAMETERS[self.parameter])

    def describe(self) -> str:
        return f"a non-empty 1-D array of values that are each {PARAMETERS[self.parameter].describe()}"

    def invalid_values(self, name: str, example: Mapping[str, Any]) -> list[Any]:
        interval = PARAMETERS[self.parameter]
        out: list[Any] = [[], [[1.0, 2.0]], "text", [math.nan], [math.inf], ["\u0661"], ["1"]]
        if interval.low is not None:
            out.append([interval.low - 1.0])
        if interval.high is not None:
            out.append([interval.high + 1.0])
        return out


@dataclass(frozen=True)
class NumberArray(Constraint):
    """A non-empty array of numbers, every one in ``interval``; checked into a float array of the input's shape.

    Parameters
    ----------
    interval : Interval
        Where every entry lies.
    ndim : tuple of int
        Accepted dimensions; empty for any (a number alone has 0).
    infinite : bool
        Whether ``+inf`` is allowed besides the interval (a count with no upper bound).
    min_size : int
        The fewest entries (2 for a sample's standard deviation).

    An integer interval (``kind="int"``) refuses entries with a fractional part.
    """

    interval: Interval
    ndim: tuple[int, ...] = ()
    infinite: bool = False
    min_size: int = 1

    def check(self, name: str, value: Any, args: Arguments = _NO_ARGUMENTS) -> np.ndarray:
        if value is None or isinstance(value, (str, bytes)) or _holds_text(value):
            raise InputError(f"{name} must be {self.describe()}, got {shown(value)}")
        try:
            arr = np.asarray(value, dtype=float)
        except (TypeError, ValueError):
            raise InputError(f"{name} must be {self.describe()}, got {shown(value)}") from None
        if self.ndim and arr.ndim not in self.ndim:
            raise InputError(f"{name} must be {self.describe()}, got shape {arr.shape}")
        if arr.size == 0:
            raise InputError(f"{name} is empty")
        if arr.size < self.min_size:
            raise InputError(f"{name} needs at least {self.min_size} entries, got {arr.size}")
        if np.isnan(arr).any():
            raise InputError(f"{name} has missing (NaN) entries")
        allowed = _vector_contains(arr, self.interval) & np.isfinite(arr)
        if self.interval.kind == "int":
            allowed[allowed] = np.mod(arr[allowed], 1.0) == 0
        if self.infinite:
            allowed |= arr == math.inf
        if not allowed.all():
            raise InputError(f"every entry of {name} must be {self._entry()}, got {float(arr[~allowed][0]):g}")
        return arr

    def _entry(self) -> str:
        return self.interval.describe() + (" or inf" if self.infinite else "")

    def describe(self) -> str:
        dims = " or ".join(f"{d}-D" for d in self.ndim)
        return f"{'a ' + dims if dims else 'an'} array of numbers, each {self._entry()}"

    def invalid_values(self, name: str, example: Mapping[str, Any]) -> list[Any]:
        shape = np.shape(example[name])
        base = np.ones(shape) if 1 not in (self.ndim or (len(shape),)) else np.ones(1)
        out: list[Any] = [None, "text", "\u0661", [], np.full(base.shape, math.nan), np.full(base.shape, "1")]
        if not self.infinite:
            out.append(np.full(base.shape, math.inf))
        for bound, step in ((self.interval.low, -1.0), (self.interval.high, 1.0)):
            if bound is not None:
                beyond = base.copy()
                beyond.reshape(-1)[0] = bound + step
                out.append(beyond)
        if not self.infinite:
            infinite = base.copy()
            infinite.reshape(-1)[0] = math.inf
            out.append(infinite)
        if self.ndim:
            out.append(np.ones((1,) * (max(self.ndim) + 1)))
        if self.interval.kind == "int":
            fractional = base.copy()
            fractional.reshape(-1)[0] = (self.interval.low if self.interval.low is not None else 0) + 1.5
            out.append(fractional)
        if self.min_size > 1:
            out.append(np.ones(self.min_size - 1))
        return out


# --- choices, flags, types and alternatives --------------------------------------------------------------------


@dataclass(frozen=True, init=False)
class StrOptions(Constraint):
    """One of a set of strings, e.g. the keys of a registry: ``StrOptions(INTERVAL_METHODS)``."""

    options: tuple[str, ...]

    def __init__(self, options: Iterable[str]) -> None:
        object.__setattr__(self, "options", tuple(options))

    def check(self, name: str, value: Any, args: Arguments = _NO_ARGUMENTS) -> str:
        if not isinstance(value, str) or value not in self.options:
            raise InputError(f"{name} must be {self.describe()}, got {shown(value)}")
        return value

    def describe(self) -> str:
        return f"one of {', '.join(self.options)}"

    def invalid_values(self, name: str, example: Mapping[str, Any]) -> list[Any]:
        unknown = "-".join(["no-such", *self.options])
        return [unknown, unknown.upper(), 1, None]


@dataclass(frozen=True)
class Boolean(Constraint):
    """``True`` or ``False`` (a numpy bool too); converted to ``bool``."""

    def check(self, name: str, value: Any, args: Arguments = _NO_ARGUMENTS) -> bool:
        if not isinstance(value, (bool, np.bool_)):
            raise InputError(f"{name} must be {self.describe()}, got {shown(value)}")
        return bool(value)

    def describe(self) -> str:
        return "True or False"

    def invalid_values(self, name: str, example: Mapping[str, Any]) -> list[Any]:
        return ["yes", 1, None, math.nan]


@dataclass(frozen=True)
class InstanceOf(Constraint):
    """An instance of ``type_`` (a class, e.g. a spec, or a tuple of classes with a ``description``)."""

    type_: type | tuple[type, ...]
    description: str = ""

    def check(self, name: str, value: Any, args: Arguments = _NO_ARGUMENTS) -> Any:
        if not isinstance(value, self.type_):
            raise InputError(f"{name} must be {self.describe()}, got {shown(value)}")
        return value

    def describe(self) -> str:
        if self.description:
            return self.description
        name = self.type_.__name__
        return f"{'an' if name[:1].lower() in 'aeiou' else 'a'} {name}"

    def invalid_values(self, name: str, example: Mapping[str, Any]) -> list[Any]:
        return [v for v in ("text", 1, 2.5, {"a": 1}, None) if not isinstance(v, self.type_)]


@dataclass(frozen=True)
class ListOf(Constraint):
    """A list or tuple whose every item is an instance of ``type_`` (at least ``min_items`` of them)."""

    type_: type | tuple[type, ...]
    description: str
    min_items: int = 1

    def check(self, name: str, value: Any, args: Arguments = _NO_ARGUMENTS) -> Any:
        if not isinstance(value, (list, tuple)):
            raise InputError(f"{name} must be {self.describe()}, got {shown(value)}")
        if len(value) < self.min_items:
            raise InputError(f"{name} must be {self.describe()} (at least {self.min_items}), got {len(value)}")
        for i, item in enumerate(value):
            if not isinstance(item, self.type_):
                raise InputError(f"{name} must be {self.describe()}; item {i + 1} is {shown(item)}")
        return value

    def describe(self) -> str:
        return self.description

    def invalid_values(self, name: str, example: Mapping[str, Any]) -> list[Any]:
        return ["text", 1, None, [1, 2], []]


@dataclass(frozen=True)
class Labels(Constraint):
    """Codes or labels given as a list: text or integers, none empty; checked into a tuple of stripped strings.

    A list, tuple, set, array, pandas Series or Index is accepted; a string (whose
    characters would be read as codes), a mapping, ``None``, a float, a boolean or
    a nested list among the items are refused, naming the item's position.
    """

    description: str = "a list of codes (text or integers)"
    min_items: int = 1

    def check(self, name: str, value: Any, args: Arguments = _NO_ARGUMENTS) -> tuple[str, ...]:
        if isinstance(value, (str, bytes, Mapping)) or not isinstance(value, Iterable) \
                or getattr(value, "ndim", 1) != 1:
            raise InputError(f"{name} must be {self.describe()}, got {shown(value)}")
        out: list[str] = []
        for i, item in enumerate(value):
            if isinstance(item, (bool, np.bool_)) or not isinstance(item, (str, Integral, np.integer)):
                raise InputError(f"{name} must be {self.describe()}; item {i + 1} is {shown(item)}")
            text = str(item).strip()
            if not text:
                raise InputError(f"{name}: item {i + 1} is an empty code")
            out.append(text)
        if len(out) < self.min_items:
            raise InputError(f"{name} must be {self.describe()} (at least {self.min_items}), got {len(out)}")
        return tuple(out)

    def describe(self) -> str:
        return self.description

    def invalid_values(self, name: str, example: Mapping[str, Any]) -> list[Any]:
        return ["AB", 5, None, {"a": 1}, [], [None], [" "], [1.5], [True], [["a"]], np.array([["a"]])]


@dataclass(frozen=True)
class BooleanArray(Constraint):
    """A 1-D array of booleans, one per item (a mask): ``True``/``False``, or the integers 0 and 1.

    Checked into a bool array. Text, numbers other than 0 and 1 and NaN are
    refused rather than read as true (``bool("no")`` and ``bool(nan)`` are).
    """

    def check(self, name: str, value: Any, args: Arguments = _NO_ARGUMENTS) -> np.ndarray:
        if value is None or isinstance(value, (str, bytes, Mapping)):
            raise InputError(f"{name} must be {self.describe()}, got {shown(value)}")
        try:
            arr = np.asarray(value)
        except (TypeError, ValueError):
            raise InputError(f"{name} must be {self.describe()}, got {shown(value)}") from None
        if arr.ndim != 1:
            raise InputError(f"{name} must be {self.describe()}, got shape {arr.shape}")
        if arr.dtype == bool:
            return arr.copy()
        if arr.dtype.kind in "iu" and np.isin(arr, (0, 1)).all():
            return arr.astype(bool)
        if arr.size == 0:
            return np.zeros(0, dtype=bool)
        raise InputError(f"{name} must be {self.describe()}, got {shown(value)}")

    def describe(self) -> str:
        return "a 1-D array of booleans (True and False, or 0 and 1)"

    def invalid_values(self, name: str, example: Mapping[str, Any]) -> list[Any]:
        return [None, "text", {"a": True}, [0.5], [math.nan], ["a"], [2], [[True]]]


@dataclass(frozen=True)
class _IsNone(Constraint):
    def check(self, name: str, value: Any, args: Arguments = _NO_ARGUMENTS) -> None:
        if value is not None:
            raise InputError(f"{name} must be None, got {shown(value)}")
        return None

    def describe(self) -> str:
        return "None"

    def invalid_values(self, name: str, example: Mapping[str, Any]) -> list[Any]:
        return [0, "None"]


@dataclass(frozen=True, init=False)
class AnyOf(Constraint):
    """Any of several constraints (a list in :func:`validate_params`); the first that accepts converts."""

    members: tuple[Constraint, ...]

    def __init__(self, *members: Any) -> None:
        object.__setattr__(self, "members", tuple(make_constraint(m) for m in members))

    @property
    def depends_on(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(d for m in self.members for d in m.depends_on))

    def check(self, name: str, value: Any, args: Arguments = _NO_ARGUMENTS) -> Any:
        others = [m for m in self.members if not isinstance(m, _IsNone)]
        if len(others) == 1 and value is not None:
            return others[0].check(name, value, args)  # an optional value: its constraint says what is wrong
        for member in self.members:
            try:
                return member.check(name, value, args)
            except InputError:
                continue
        raise InputError(f"{name} must be {self.describe()}, got {shown(value)}")

    def describe(self) -> str:
        phrases = [m.describe() for m in self.members]
        return ", ".join(phrases[:-1]) + " or " + phrases[-1] if len(phrases) > 1 else phrases[0]

    def invalid_values(self, name: str, example: Mapping[str, Any]) -> list[Any]:
        args = Arguments(example, example)
        return [v for m in self.members for v in m.invalid_values(name, example) if not self.accepts(name, v, args)]


def make_constraint(spec: Any) -> Constraint:
    """A :class:`Constraint` from its short form: a name in :data:`PARAMETERS`, None, a class or a list."""
    if isinstance(spec, Constraint):
        return spec
    if isinstance(spec, str):
        if spec not in PARAMETERS:
            raise TypeError(f"no parameter {spec!r} in PARAMETERS")
        return PARAMETERS[spec]
    if spec is None:
        return _IsNone()
    if isinstance(spec, type):
        return InstanceOf(spec)
    if isinstance(spec, (list, tuple)):
        return AnyOf(*spec)
    raise TypeError(f"not a constraint: {spec!r}")


#: A seed for ``numpy.random.default_rng``: None, an integer >= 0 or a Generator.
SEED: Constraint = AnyOf(None, PARAMETERS["seed"], InstanceOf(np.random.Generator, "a numpy.random.Generator"))
