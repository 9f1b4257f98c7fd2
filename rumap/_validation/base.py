"""The types every constraint shares: the arguments a check may read, a constraint, and a number's interval."""

from __future__ import annotations

import math
from abc import ABC, abstractmethod
from collections.abc import Mapping
from dataclasses import dataclass
from numbers import Integral, Real
from types import MappingProxyType
from typing import Any

import numpy as np

from rumap.errors import InputError

__all__ = ["Arguments", "Constraint", "Interval", "shown"]


@dataclass(frozen=True)
class Arguments:
    """The arguments of one call: as passed (``raw``) and those checked so far (``checked``)."""

    raw: Mapping[str, Any]
    checked: Mapping[str, Any]


_NO_ARGUMENTS = Arguments(MappingProxyType({}), MappingProxyType({}))


class Constraint(ABC):
    """What a parameter may be: checks a value and makes invalid ones for the common test."""

    @property
    def depends_on(self) -> tuple[str, ...]:
        """Parameters whose checked value :meth:`check` reads; they are declared before this one."""
        return ()

    @abstractmethod
    def check(self, name: str, value: Any, args: Arguments = _NO_ARGUMENTS) -> Any:
        """The value, converted; raises :class:`InputError` naming ``name`` if it is not allowed."""

    @abstractmethod
    def describe(self) -> str:
        """A phrase for messages, such as ``'an integer >= 2'``."""

    @abstractmethod
    def invalid_values(self, name: str, example: Mapping[str, Any]) -> list[Any]:
        """Values that :meth:`check` refuses, given valid arguments ``example`` of the function."""

    def accepts(self, name: str, value: Any, args: Arguments = _NO_ARGUMENTS) -> bool:
        """Whether :meth:`check` accepts the value."""
        try:
            self.check(name, value, args)
        except InputError:
            return False
        return True


@dataclass(frozen=True)
class Interval(Constraint):
    """A range of allowed values.

    Parameters
    ----------
    kind : {"int", "float"}
        Whether the value must be an integer.
    low, high : float or None
        The bounds; ``None`` means unbounded on that side.
    closed : {"both", "left", "right", "neither"}
        Which bounds are included.
    description : str
        What the parameter is, for messages and widget help.
    slider : tuple of float, optional
        ``(low, high, step)`` of a slider over the parameter: finite ends inside
        the interval, the part of it a reader explores (a page may narrow it to
        its data). ``None``: no slider shows the parameter.
    most : float, optional
        A ceiling no real value reaches (:data:`MAX_RECORDS` records, a seed of
        64 bits), for a parameter whose range has no upper bound of its own: a
        value above it is refused (a number of 10^30 records would overflow
        the engines' integers), and :meth:`describe` leaves it out.
    """

    kind: str
    low: float | None
    high: float | None
    closed: str = "both"
    description: str = ""
    slider: tuple[float, float, float] | None = None
    most: float | None = None

    def contains(self, value: float) -> bool:
        """Whether ``value`` lies in the interval (NaN never does) and at most :attr:`most`."""
        if value is None or (isinstance(value, float) and math.isnan(value)):
            return False
        if self.most is not None and value > self.most:
            return False
        if self.low is not None:
            if self.closed in ("both", "left"):
                if value < self.low:
                    return False
            elif value <= self.low:
                return False
        if self.high is not None:
            if self.closed in ("both", "right"):
                if value > self.high:
                    return False
            elif value >= self.high:
                return False
        return True

    def describe(self) -> str:
        """A phrase such as ``'a number > 0'`` or ``'a number in (0, 1)'``."""
        noun = "an integer" if self.kind == "int" else "a number"
        if self.low is not None and self.high is not None:
            left = "[" if self.closed in ("both", "left") else "("
            right = "]" if self.closed in ("both", "right") else ")"
            return f"{noun} in {left}{_fmt(self.low)}, {_fmt(self.high)}{right}"
        if self.low is not None:
            return f"{noun} {'>=' if self.closed in ('both', 'left') else '>'} {_fmt(self.low)}"
        if self.high is not None:
            return f"{noun} {'<=' if self.closed in ('both', 'right') else '<'} {_fmt(self.high)}"
        return f"a finite {noun.split()[1]}"

    def check(self, name: str, value: Any, args: Arguments = _NO_ARGUMENTS) -> float | int:
        """A number within this interval, converted to ``int`` or ``float`` (:func:`check_scalar` with it)."""
        constraint = self
        if isinstance(value, bool) or not isinstance(value, (Real, np.integer, np.floating)):
            raise InputError(f"{name} must be {constraint.describe()}, got {shown(value)}")
        if constraint.kind == "int":
            if isinstance(value, (Integral, np.integer)):
                value = int(value)
            elif float(value).is_integer():
                value = int(value)
            else:
                raise InputError(f"{name} must be {constraint.describe()}, got {shown(value)}")
        else:
            try:
                value = float(value)
            except OverflowError:
                raise InputError(f"{name} must be finite, got {shown(value)}") from None
            if math.isinf(value) and (constraint.low is None or constraint.high is None):
                raise InputError(f"{name} must be finite, got {shown(value)}")
        if not constraint.contains(value):
            most = f" and at most {constraint.most:.6g}" if constraint.most is not None and value > constraint.most else ""
            raise InputError(f"{name} must be {constraint.describe()}{most}, got {shown(value)}")
        return value

    def invalid_values(self, name: str, example: Mapping[str, Any]) -> list[Any]:
        """Just outside each bound, a non-integer for integers, NaN, infinities and values of other types."""
        # text, including digits other than ASCII ones and the words of infinity, is never a number here
        out: list[Any] = [math.nan, math.inf, -math.inf, "1", "\u0661", "inf", None, True, [1]]
        out += [huge for huge in (1e308, -1e308) if not self.accepts(name, huge)]
        step = 1 if self.kind == "int" else None
        if self.low is not None:
            inside = self.closed in ("both", "left")
            out.append((self.low - step if step else math.nextafter(self.low, -math.inf)) if inside else self.low)
        if self.high is not None:
            inside = self.closed in ("both", "right")
            out.append((self.high + step if step else math.nextafter(self.high, math.inf)) if inside else self.high)
        if self.most is not None:
            out.append(self.most + 1 if step else self.most * 2)
        if self.kind == "int":
            out.append((self.low if self.low is not None else 0) + 1.5)
        return out


def shown(value: Any) -> str:
    """A value for a message: its repr when short and on one line, else its type."""
    text = repr(value)
    if len(text) <= 60 and "\n" not in text:
        return text
    shape = getattr(value, "shape", None)
    return f"a {type(value).__name__}" + (f" of shape {shape}" if shape is not None else "")


def _fmt(x: float) -> str:
    return f"{x:g}"
