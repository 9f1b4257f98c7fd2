"""How numbers read in sentences, figures and tables: one formatter for every reader-facing text."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from rumap._validation import InstanceOf, validate_params

__all__ = ["format_number", "distinct_digits", "format_numbers", "EXACT_DISCLOSURE", "format_risk", "readable_risks"]

#: How an infinite risk (the snooper's error exactly 0: the target recovered) reads in tables, hovers and sentences.
EXACT_DISCLOSURE = "exact disclosure"

#: Significant digits of a number shown to a reader.
SIGNIFICANT_DIGITS = 3


@validate_params({"x": InstanceOf((int, float, np.integer, np.floating), "a number")}, example=lambda: {"x": 0.2})
def format_number(x: float) -> str:
    """A number for a reader: three significant digits, words for the infinite and the undefined.

    Parameters
    ----------
    x : float

    Returns
    -------
    str

    Examples
    --------
    >>> from rumap.present.numbers import format_number
    >>> format_number(166.6667), format_number(0.2), format_number(20139.0), format_number(0.000123)
    ('167', '0.2', '2.01e+04', '0.000123')
    >>> format_number(float("inf")), format_number(float("nan"))
    ('infinite', 'undefined')
    """
    if not math.isfinite(x):
        return "infinite" if x > 0 else "undefined"
    return f"{x:.{SIGNIFICANT_DIGITS}g}"


@validate_params({"x": InstanceOf((int, float, np.integer, np.floating), "a number")}, example=lambda: {"x": 0.2})
def format_risk(x: float) -> str:
    """A risk for a reader: :func:`format_number`, and "exact disclosure" for an infinite risk.

    Parameters
    ----------
    x : float

    Returns
    -------
    str

    Examples
    --------
    >>> from rumap.present.numbers import format_risk
    >>> format_risk(4e-08), format_risk(float("inf"))
    ('4e-08', 'exact disclosure')
    """
    return EXACT_DISCLOSURE if x == math.inf else format_number(x)


@validate_params({"frame": InstanceOf(pd.DataFrame, "a pandas DataFrame")},
                 example=lambda: {"frame": pd.DataFrame({"risk": [1.0, math.inf]})})
def readable_risks(frame: pd.DataFrame) -> pd.DataFrame:
    """A copy of a table of curves for display: an infinite risk reads "exact disclosure".

    Parameters
    ----------
    frame : pandas.DataFrame
        With a ``risk`` column (and possibly ``risk_low``, ``risk_high``).

    Returns
    -------
    pandas.DataFrame

    Examples
    --------
    >>> from rumap.present.numbers import readable_risks
    >>> readable_risks(pd.DataFrame({"k": [2, 3], "risk": [0.5, float("inf")]}))["risk"].tolist()
    [0.5, 'exact disclosure']
    """
    out = frame.copy()
    for name in [c for c in ("risk", "risk_low", "risk_high") if c in out.columns]:
        values = out[name].astype(float)
        if np.isposinf(values).any():
            out[name] = [EXACT_DISCLOSURE if v == math.inf else v for v in values]
    return out


#: The most significant digits a column is shown with.
MAX_DIGITS = 15


@validate_params({"values": InstanceOf((list, tuple, np.ndarray), "a list of numbers")}, example=lambda: {"values": [1.0, 2.0]})
def distinct_digits(values) -> int:
    """The fewest significant digits (at least three) that show different values of a column differently.

    Parameters
    ----------
    values : sequence of float

    Returns
    -------
    int

    Examples
    --------
    >>> from rumap.present.numbers import distinct_digits
    >>> distinct_digits([8.1e-07, 8.4e-07]), distinct_digits([0.995012, 0.995018, 0.5])
    (3, 5)
    """
    finite = sorted({float(v) for v in np.asarray(values, dtype=float).ravel() if math.isfinite(v)})
    for digits in range(SIGNIFICANT_DIGITS, MAX_DIGITS + 1):
        if len({f"{v:.{digits}g}" for v in finite}) == len(finite):
            return digits
    return MAX_DIGITS


@validate_params({"values": InstanceOf((list, tuple, np.ndarray), "a list of numbers")}, example=lambda: {"values": [1.0, 2.0]})
def format_numbers(values) -> list[str]:
    """A column of numbers for a table: as few significant digits as keep different values different.

    Parameters
    ----------
    values : sequence of float

    Returns
    -------
    list of str

    Examples
    --------
    >>> from rumap.present.numbers import format_numbers
    >>> format_numbers([8.12e-07, 8.14e-07, float("nan")])
    ['8.12e-07', '8.14e-07', 'undefined']
    """
    digits = distinct_digits(values)
    return [f"{float(v):.{digits}g}" if math.isfinite(float(v)) else format_number(float(v)) for v in values]
