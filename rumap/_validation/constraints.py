"""Constraints on scalar parameters: the table :data:`PARAMETERS`, choices, flags, types and alternatives."""

from __future__ import annotations

import math
from abc import ABC, abstractmethod
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from numbers import Integral, Real
from types import MappingProxyType
from typing import Any

import numpy as np

from rumap.errors import InputError

__all__ = ["Arguments", "Constraint", "Interval", "PARAMETERS", "check_scalar", "check_array", "StrOptions", "Boolean",
           "InstanceOf", "Labels", "BooleanArray", "AnyOf", "SEED", "make_constraint", "MAX_RECORDS", "MAX_SEED"]


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
        """:func:`check_scalar` with this interval."""
        return check_scalar(name, value, self)

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


#: The most records any parameter counts (a file, a group size, a subsample, a chunk): no file holds more.
MAX_RECORDS = 10**12
#: The largest seed: 64 bits.
MAX_SEED = 2**64 - 1

#: The allowed range of every named parameter of the public API.
PARAMETERS: dict[str, Interval] = {
    # at least 2: the analytic setting's variance is a sample's, S² (ddof = 1); "records" counts any records
    "n": Interval("int", 2, None, "left", "number of records of the analytic setting (its variance S² needs 2)", most=MAX_RECORDS),
    "sigma2": Interval("float", 0.0, None, "neither", "variance of the original data"),
    "mu": Interval("float", None, None, "neither", "mean of the original data"),
    "tau": Interval("float", None, None, "neither", "the target value"),
    "lambda2": Interval("float", 0.0, None, "left", "variance of the additive noise"),
    "p": Interval("float", 0.0, 1.0, "neither", "percentile as a fraction"),
    "max_risk": Interval("float", 0.0, None, "neither", "maximum tolerable risk"),
    "observed_extreme": Interval("float", None, None, "neither", "observed sample extreme"),
    "grid_num": Interval("int", 1, 1_000_000, "both", "number of grid values"),
    "work_limit": Interval("float", 1.0, 1e18, "both", "a work limit (elementary steps)"),
    "shape": Interval("float", 0.0, None, "neither", "shape parameter of the data's distribution family"),
    "tolerable_error": Interval("float", 0.0, None, "neither", "the snooper's tolerable average error, in data units (R_max = 1 / error²)"),
    # tables (rumap.tables.rules, rumap.tables.dominance, rumap.tables.bounds)
    "dominance_n": Interval("int", 1, None, "left", "number of largest contributions in the (n,k)-dominance rule",
                            slider=(1, 10, 1), most=MAX_RECORDS),
    "dominance_k": Interval("float", 0.0, 1.0, "right", "fraction of the cell total in the (n,k)-dominance rule",
                            slider=(0.05, 0.99, 0.001)),
    "rule_percent": Interval("float", 0.0, 100.0, "right",
                             "an accuracy in percent of the p% and pq rules: p, and the pq rule's prior accuracy q",
                             slider=(1.0, 100.0, 1.0)),
    "threshold": Interval("int", 1, None, "left", "least number of contributors of a non-sensitive cell", most=MAX_RECORDS),
    "contributions_n": Interval("int", 2, 100_000, "both", "number N of contributions to a cell",
                                slider=(2, 60, 1)),
    # the slider's top is the table's own scale: a page narrows it to the cells' magnitude
    "rounding_base": Interval("float", 0.0, None, "neither", "rounding base b", slider=(2.0, 1e150, 1.0)),
    "resolution": Interval("float", 0.0, None, "neither", "smallest step between cell values"),
    "own_contribution": Interval("float", 0.0, None, "left", "the insider's own contribution to the cell"),
    "time_limit": Interval("float", 0.0, 86400.0, "right", "time limit in seconds"),
    "protection": Interval("float", 0.0, 100.0, "right",
                           "protection level P: percent of each primary's value, in both directions"),
    # a bound becomes a released value: within the data's largest magnitude (rumap._validation.MAX_MAGNITUDE)
    "truncation": Interval("float", -1e150, 1e150, "both", "a lower or upper bound of the masked values"),
    "unequal_threshold": Interval("float", None, None, "neither",
                                  "threshold above (or below) which records are sensitive"),
    "unequal_factor": Interval("float", 0.0, None, "neither", "noise variance factor for sensitive records"),
    "replicates": Interval("int", 1, 10_000_000, "both", "Monte-Carlo replicates per parameter value"),
    "seed": Interval("int", 0, None, "both", "random seed", most=MAX_SEED),
    "subsample": Interval("int", 2, None, "both", "records of each subsample of an empirical map", most=MAX_RECORDS),
    "subsamples": Interval("int", 2, 1000, "both", "independent subsamples of an empirical map"),
    "chunk_size": Interval("int", 1, None, "both", "replicates per chunk", most=10_000_000),
    "k": Interval("int", 1, None, "left", "minimum group size of microaggregation", most=MAX_RECORDS),
    "swap_percent": Interval("float", 0.0, 100.0, "both", "rank-swapping window, percent of the records"),
    "records": Interval("int", 1, None, "left", "number of records (one suffices, unlike the analytic setting's n)", most=MAX_RECORDS),
    # disclosure risk measures (rumap.risk.linkage, rumap.risk.interval, rumap.risk.identity)
    "tolerance": Interval("float", 0.0, None, "left", "agreement tolerance of numeric keys (standard deviations)"),
    "block_size": Interval("int", 2, None, "left", "records per block of probabilistic linkage", most=MAX_RECORDS),
    "max_iter": Interval("int", 1, 1_000_000, "both", "maximum number of EM iterations"),
    # a width, not a rule's accuracy: the same bound as rule_percent, but its own slider range
    "interval_percent": Interval("float", 0.0, 100.0, "right",
                                 "interval width in percent (of the records, or of a standard deviation)",
                                 slider=(0.5, 50.0, 0.5)),
    "f": Interval("float", 0.0, 1.0, "right", "sampling fraction: n / N, or f_k / F_k in one cell"),
    "a": Interval("float", 0.0, None, "left", "number of acquaintances of the investigator"),
    "f_u": Interval("float", 0.0, 1.0, "both", "fraction of population uniques u / N"),
    "N": Interval("float", 1.0, None, "left", "population size"),
    "investigators": Interval("int", 1, None, "left", "number of investigators", most=MAX_RECORDS),
    "risk_bound": Interval("float", 0.0, 1.0, "neither", "maximum tolerable identification risk (a probability)"),
    "share_bound": Interval("float", 0.0, 1.0, "right", "maximum tolerable share of the records re-identified"),
    "beta": Interval("float", 0.0, None, "left", "scale parameter of the Poisson-gamma model"),
    "f_a": Interval("float", 0.0, 1.0, "both", "fraction of acquaintances a / N"),
    "band_width": Interval("float", 0.0, None, "neither", "width of the bands of a recoded variable"),
    "theta": Interval("float", 0.0, 1.0, "both", "retention probability of PRAM"),
    "cells": Interval("int", 1, None, "left", "number of cells k of the key", most=MAX_RECORDS),
    "max_size": Interval("int", 1, 64, "both", "the largest size of a minimal sample unique"),
    "dis_fraction": Interval("float", 0.0, 1.0, "neither", "the sampling fraction of the DIS score"),
    "value": Interval("float", None, None, "neither", "a finite number"),
    "weight": Interval("float", 0.0, None, "left", "a non-negative weight"),
    "sampling_weight": Interval("float", 1.0, None, "left", "a sampling weight (records of the population per record)"),
    "position": Interval("int", 0, None, "left", "a 0-based position in a list (of maps, of curves)", most=MAX_RECORDS),
    "group_label": Interval("int", 0, None, "left", "a group label", most=MAX_RECORDS),
    "cache_entries": Interval("int", 1, None, "left", "the most results a cache holds", most=1_000_000),
    "record_chunk": Interval("int", 1, None, "left", "records per chunk", most=MAX_RECORDS),
    "key_partitions": Interval("int", 1, None, "left", "partitions of the key rows", most=MAX_RECORDS),
    "household_partitions": Interval("int", 1, None, "left", "partitions of the households", most=MAX_RECORDS),
    "plan_steps": Interval("int", 1, 100, "both", "steps of a release plan"),
    "prediction_replicates": Interval("int", 2, 10_000, "both", "simulated releases per step of a prediction band"),
    "resamples": Interval("int", 10, None, "left", "bootstrap resamples", most=10_000_000),
    "relative_sd": Interval("float", 0.0, 1.0, "both", "the noise's standard deviation, relative"),
    "lambda2_upper": Interval("float", 0.0, None, "neither", "the largest noise variance searched"),
    "extremes_n": Interval("int", 3, None, "left", "number of records (the extremes' constants need ln ln n)", most=MAX_RECORDS),
    "picture_width": Interval("int", 200, 4000, "both", "the picture's width in pixels"),
    "picture_height": Interval("int", 150, 4000, "both", "the picture's height in pixels"),
    # record linkage and key variables (rumap.risk.linkage.probabilistic, rumap.risk.suda, rumap.risk.keys)
    "probabilistic_keys": Interval("int", 1, 16, "both", "number of key variables of probabilistic linkage"),
    "match_share": Interval("float", 0.0, 1.0, "neither", "starting proportion of matched pairs"),
    "convergence_tolerance": Interval("float", 0.0, None, "neither", "convergence tolerance"),
    "key_variables": Interval("int", 1, 64, "both", "the number of key variables"),
    "key_dimension": Interval("int", 1, 10, "both", "the largest number of key variables combined"),
    "minbucket": Interval("int", 1, None, "left", "the fewest original records in a leaf of CART synthesis", most=MAX_RECORDS),
    "shrinkage": Interval("float", 0.0, 1.0, "both", "shrinkage of the copula's correlation towards the identity"),
    "copies": Interval("int", 1, 1000, "both", "the number m of synthetic copies"),
    "holdout_share": Interval("float", 0.0, 1.0, "neither", "share of the records held out of the generator's fit"),
    # tables (rumap.tables, rumap.maps.tables)
    "cell_value": Interval("float", 0.0, None, "left", "a non-negative cell of a table"),
    "contribution": Interval("float", 0.0, None, "left", "a respondent's contribution to a cell"),
    "possible_values": Interval("float", 1.0, None, "left", "a number m of possible values"),
    "dominance_ratio": Interval("float", 0.0, 1.0, "both", "ratio r of Lemma 1"),
    "external_bound": Interval("float", 0.0, 1e6, "neither", "external bound in percent of each cell's value"),
    "granularity_threshold": Interval("float", 0.0, 100.0, "right", "the index of granularity (percent) at which a hyper-row is unsafe"),
    "top_contributions": Interval("int", 2, 50, "both", "largest contributions kept per cell"),
    "replicate_risk": Interval("float", 0.0, None, "left", "a replicate's squared error of the snooper, or its value of a risk measure"),
    "code_length": Interval("int", 1, None, "left", "the length of a hierarchy level's codes", most=1000),
    "rule_parameter": Interval("float", 0.0, None, "neither", "a value of the rule's parameter"),
    # statistical databases (rumap.databases, rumap.maps.databases)
    "camouflage_width": Interval("float", 0.0, 100.0, "right", "the protection width, percent of each value"),
    "camouflage_k": Interval("int", 3, 50, "both", "the number k of camouflage vectors (P^k is the data)"),
    "audit_protection": Interval("float", 0.0, 100.0, "both",
                                 "the protection interval, percent of each value (0: exact only)"),
    # a bound becomes a released value: within the data's largest magnitude (rumap._validation.MAX_MAGNITUDE)
    "known_bound": Interval("float", -1e150, 1e150, "both", "a known lower or upper bound of every value"),
    "workload_queries": Interval("int", 1, 1000, "both", "the number of random queries in the workload"),
    "workload_records": Interval("int", 2, 500, "both", "the number of records sampled for the workload"),
}


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
    constraint = constraint or PARAMETERS[name]
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
