"""How numbers read in sentences, figures and tables: one formatter for every reader-facing text."""

from __future__ import annotations

import math

import numpy as np

from rumap._validation import InstanceOf, validate_params

__all__ = ["format_number"]

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
