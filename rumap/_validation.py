"""Declarative parameter constraints shared by the core, the CLI and the dashboard.

One table, :data:`PARAMETERS`, says which values each named parameter may take.
Public functions validate their inputs against it before calling a private
kernel; the dashboard reads the same table for its widgets' bounds, so a limit
is written once.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from numbers import Integral, Real
from typing import Any

import numpy as np

from rumap.errors import InputError

__all__ = ["Interval", "PARAMETERS", "check_scalar", "check_array", "parse_grid"]


@dataclass(frozen=True)
class Interval:
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
    """

    kind: str
    low: float | None
    high: float | None
    closed: str = "both"
    description: str = ""

    def contains(self, value: float) -> bool:
        """Whether ``value`` lies in the interval (NaN never does)."""
        if value is None or (isinstance(value, float) and math.isnan(value)):
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


def _fmt(x: float) -> str:
    return f"{x:g}"


#: The allowed range of every named parameter of the public API.
PARAMETERS: dict[str, Interval] = {
    "n": Interval("int", 2, None, "left", "number of records"),
    "sigma2": Interval("float", 0.0, None, "neither", "variance of the original data"),
    "mu": Interval("float", None, None, "neither", "mean of the original data"),
    "tau": Interval("float", None, None, "neither", "the target value"),
    "lambda2": Interval("float", 0.0, None, "left", "variance of the additive noise"),
    "p": Interval("float", 0.0, 1.0, "neither", "percentile as a fraction"),
    "max_risk": Interval("float", 0.0, None, "neither", "maximum tolerable risk"),
    "observed_extreme": Interval("float", None, None, "neither", "observed sample extreme"),
    "grid_num": Interval("int", 1, 1_000_000, "both", "number of grid values"),
    # tables (rumap.tables.rules, rumap.tables.dominance, rumap.tables.bounds)
    "dominance_n": Interval("int", 1, None, "left", "number of largest contributions in the (n,k)-dominance rule"),
    "dominance_k": Interval("float", 0.0, 1.0, "right", "fraction of the cell total in the (n,k)-dominance rule"),
    "p_percent": Interval("float", 0.0, 100.0, "right", "accuracy p, in percent, of the p% and pq rules"),
    "q_percent": Interval("float", 0.0, 100.0, "right", "prior accuracy q, in percent, of the pq rule"),
    "threshold": Interval("int", 1, None, "left", "least number of contributors of a non-sensitive cell"),
    "contributions_n": Interval("int", 2, 100_000, "both", "number N of contributions to a cell"),
    "rounding_base": Interval("float", 0.0, None, "neither", "rounding base b"),
    "resolution": Interval("float", 0.0, None, "neither", "smallest step between cell values"),
    "own_contribution": Interval("float", 0.0, None, "left", "the insider's own contribution to the cell"),
    "truncate_below": Interval("float", None, None, "neither", "lower bound of the masked values"),
    "truncate_above": Interval("float", None, None, "neither", "upper bound of the masked values"),
    "unequal_above": Interval("float", None, None, "neither", "threshold above which records are sensitive"),
    "unequal_below": Interval("float", None, None, "neither", "threshold below which records are sensitive"),
    "unequal_factor": Interval("float", 0.0, None, "neither", "noise variance factor for sensitive records"),
    "replicates": Interval("int", 1, 10_000_000, "both", "Monte-Carlo replicates per parameter value"),
    "seed": Interval("int", 0, None, "both", "random seed"),
    "chunk_size": Interval("int", 1, None, "both", "replicates per chunk"),
    "k": Interval("int", 1, None, "left", "minimum group size of microaggregation"),
    "swap_percent": Interval("float", 0.0, 100.0, "both", "rank-swapping window, percent of the records"),
    # disclosure risk measures (rumap.risk.linkage, rumap.risk.interval, rumap.risk.identity)
    "tolerance": Interval("float", 0.0, None, "left", "agreement tolerance of numeric keys (standard deviations)"),
    "block_size": Interval("int", 2, None, "left", "records per block of probabilistic linkage"),
    "max_iter": Interval("int", 1, 1_000_000, "both", "maximum number of EM iterations"),
    "interval_percent": Interval("float", 0.0, 100.0, "right", "interval width in percent"),
    "f": Interval("float", 0.0, 1.0, "right", "sample fraction n / N"),
    "a": Interval("float", 0.0, None, "left", "number of acquaintances of the investigator"),
    "f_u": Interval("float", 0.0, 1.0, "both", "fraction of population uniques u / N"),
    "N": Interval("float", 1.0, None, "left", "population size"),
    "investigators": Interval("int", 1, None, "left", "number of investigators"),
    "risk_bound": Interval("float", 0.0, 1.0, "neither", "maximum tolerable identification risk (a probability)"),
    "beta": Interval("float", 0.0, None, "left", "scale parameter of the Poisson-gamma model"),
    "f_a": Interval("float", 0.0, 1.0, "both", "fraction of acquaintances a / N"),
    "band_width": Interval("float", 0.0, None, "neither", "width of the bands of a recoded variable"),
    "cells": Interval("int", 1, None, "left", "number of cells k of the key"),
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
    if isinstance(value, bool) or not isinstance(value, (Real, np.number)):
        raise InputError(f"{name} must be {constraint.describe()}, got {value!r}")
    if constraint.kind == "int":
        if isinstance(value, (Integral, np.integer)):
            value = int(value)
        elif float(value).is_integer():
            value = int(value)
        else:
            raise InputError(f"{name} must be {constraint.describe()}, got {value!r}")
    else:
        value = float(value)
        if math.isinf(value) and (constraint.low is None or constraint.high is None):
            raise InputError(f"{name} must be finite, got {value!r}")
    if not constraint.contains(value):
        raise InputError(f"{name} must be {constraint.describe()}, got {value!r}")
    return value


def check_array(name: str, values: Any, constraint: Interval | None = None) -> np.ndarray:
    """Validate a 1-D array of parameter values (e.g. a grid of ``lambda2``).

    Returns a float array of shape ``(m,)``; a scalar becomes shape ``(1,)``.
    """
    constraint = constraint or PARAMETERS[name]
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
        raise InputError(f"every {name} must be {constraint.describe()}, got {first!r}")
    return arr


def _vector_contains(arr: np.ndarray, c: Interval) -> np.ndarray:
    ok = ~np.isnan(arr)
    if c.low is not None:
        ok &= arr >= c.low if c.closed in ("both", "left") else arr > c.low
    if c.high is not None:
        ok &= arr <= c.high if c.closed in ("both", "right") else arr < c.high
    return ok


def parse_grid(text: str, name: str = "lambda2", integer: bool = False) -> np.ndarray:
    """Parse a grid written ``START:STOP:NUM`` (or ``START:STOP`` for integers).

    ``START:STOP:NUM`` gives ``NUM`` evenly spaced values from START to STOP
    inclusive. With ``integer=True``, ``START:STOP`` gives every integer from
    START to STOP and ``START:STOP:STEP`` every STEP-th one.

    Raises
    ------
    InputError
        If the text is not of that form.
    """
    parts = str(text).split(":")
    form = "START:STOP or START:STOP:STEP" if integer else "START:STOP:NUM"
    if len(parts) not in ((2, 3) if integer else (3,)):
        raise InputError(f"--{name.replace('_', '-')} must be {form}, got {text!r}")
    try:
        if integer:
            start, stop = int(parts[0]), int(parts[1])
            step = int(parts[2]) if len(parts) == 3 else 1
        else:
            start, stop, num = float(parts[0]), float(parts[1]), int(parts[2])
    except ValueError:
        raise InputError(f"--{name.replace('_', '-')} must be {form}, got {text!r}") from None
    if integer:
        if step < 1 or stop < start:
            raise InputError(f"--{name.replace('_', '-')} must have START <= STOP and STEP >= 1, got {text!r}")
        return np.arange(start, stop + 1, step, dtype=int)
    check_scalar("grid_num", num)
    if stop < start:
        raise InputError(f"--{name.replace('_', '-')} must have START <= STOP, got {text!r}")
    return np.linspace(start, stop, num)
