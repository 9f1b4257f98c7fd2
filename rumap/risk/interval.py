"""Interval disclosure: does an interval around each masked value hold the original value?

Two interval rules for numeric (or ordinal, coded as numbers) variables:

- **rank** intervals (Domingo-Ferrer & Torra 2004, Section 2.3): around the rank
  of the masked value, the ranks that differ among them by less than p% of the
  number of records, mapped back to masked values;
- **sd** intervals (standard-deviation interval disclosure, SDID): the masked
  value plus or minus p% of the original variable's standard deviation.

The risk is the share of original values (over records and variables) that fall
inside the interval around their masked value. Row ``i`` of the masked file is
the masked version of row ``i`` of the original.

References
----------
.. [1] J. Domingo-Ferrer, V. Torra (2004), "Disclosure risk assessment in
   statistical data protection", J. Comput. Appl. Math. 164-165, 285-293, Section 2.3.
.. [2] J. Domingo-Ferrer, J. M. Mateo-Sanz, V. Torra (2001), "Comparing SDC
   methods for microdata on the basis of information loss and disclosure risk",
   Proc. ETK-NTTS 2001 (interval disclosure averaged over p = 1..10).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from rumap._validation import Columns, DataMatrix, StrOptions, validate_params

__all__ = ["INTERVAL_METHODS", "DEFAULT_P", "IntervalResult", "interval_disclosure", "rank_half_width",
           "interval_risk", "sdid_risk"]

#: Default p (percent) of each rule.
DEFAULT_P: dict[str, float] = {"rank": 10.0, "sd": 5.0}


@validate_params({"n": "records", "p": "interval_percent"}, example=lambda: {"n": 100, "p": 10.0})
def rank_half_width(n: int, p: float) -> int:
    """Half-width h (in ranks) of a rank interval for n records and p percent.

    The interval ``[r - h, r + h]`` holds ranks that differ among them by less than
    ``p n / 100``, so h is the largest integer with ``2 h < p n / 100`` (0 at least).

    Parameters
    ----------
    n : int
        Number of records, at least 1.
    p : float
        Interval width parameter in percent, in (0, 100].
    """
    return _half_width(n, p)


def _half_width(n: int, p: float) -> int:
    return max(0, math.ceil(p * n / 200.0) - 1)


def _rank_bounds(original: np.ndarray, masked: np.ndarray, p: float) -> tuple[np.ndarray, np.ndarray]:
    n = masked.shape[0]
    h = _half_width(n, p)
    order = np.argsort(masked, axis=0, kind="stable")
    sorted_values = np.take_along_axis(masked, order, axis=0)
    rank = np.empty_like(order)
    np.put_along_axis(rank, order, np.arange(n)[:, None].repeat(masked.shape[1], axis=1), axis=0)
    low = np.take_along_axis(sorted_values, np.clip(rank - h, 0, n - 1), axis=0)
    high = np.take_along_axis(sorted_values, np.clip(rank + h, 0, n - 1), axis=0)
    return low, high


def _sd_bounds(original: np.ndarray, masked: np.ndarray, p: float) -> tuple[np.ndarray, np.ndarray]:
    radius = p / 100.0 * original.std(axis=0, ddof=1)
    return masked - radius, masked + radius


#: Interval rules by name: (original, masked, p) -> (lower, upper) bounds of shape (n, q).
INTERVAL_METHODS: dict[str, Callable[[np.ndarray, np.ndarray, float], tuple[np.ndarray, np.ndarray]]] = {
    "rank": _rank_bounds,
    "sd": _sd_bounds,
}


@dataclass(frozen=True)
class IntervalResult:
    """Outcome of interval disclosure.

    Parameters
    ----------
    method : str
        ``"rank"`` or ``"sd"``.
    p : float
        Interval width parameter, in percent.
    n : int
        Number of records.
    columns : tuple of str
        The variables examined.
    per_variable : tuple of float
        Share of records whose original value lies in its interval, per variable.
    """

    method: str
    p: float
    n: int
    columns: tuple[str, ...]
    per_variable: tuple[float, ...]

    @property
    def risk(self) -> float:
        """Share of original values inside their interval, over all records and variables."""
        return float(np.mean(self.per_variable))

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dictionary: method, p, n, risk, columns, per_variable."""
        return {"method": self.method, "p": self.p, "n": self.n, "risk": self.risk, "columns": list(self.columns),
                "per_variable": dict(zip(self.columns, self.per_variable, strict=True))}

    def to_frame(self) -> pd.DataFrame:
        """One row per variable and a last row ``(all)`` with the overall risk."""
        return pd.DataFrame({"variable": [*self.columns, "(all)"],
                             "risk": [*self.per_variable, self.risk],
                             "method": self.method, "p": self.p, "n": self.n})


def _shares_inside(original: np.ndarray, masked: np.ndarray, p: float, method: str) -> np.ndarray:
    """Per variable, the share of original values inside their interval; checked (n, q) arrays."""
    low, high = INTERVAL_METHODS[method](original, masked, p)
    return ((original >= low) & (original <= high)).mean(axis=0)


def _example() -> dict[str, Any]:
    x = np.array([[1.0, 10.0], [2.0, 30.0], [3.0, 20.0], [4.0, 50.0], [5.0, 40.0]])
    return {"original": x, "masked": x + np.array([0.3, -4.0]), "p": 40.0, "method": "rank", "columns": ["x2", 0]}


#: The constraints of the dataset-level measures: every column of both files.
_DATASET_MEASURE = {"original": DataMatrix(min_rows=2), "masked": DataMatrix(min_rows=2, masked_of="original"),
                    "p": "interval_percent"}


def _dataset_example() -> dict[str, Any]:
    return {k: v for k, v in _example().items() if k in _DATASET_MEASURE}


@validate_params({"columns": Columns(of="original", what="interval"),
                  "original": DataMatrix(min_rows=2, columns="columns"),
                  "masked": DataMatrix(min_rows=2, columns="columns", masked_of="original"),
                  "p": [None, "interval_percent"], "method": StrOptions(INTERVAL_METHODS)},
                 example=_example)
def interval_disclosure(original: Any, masked: Any, p: float | None = None, method: str = "rank",
                        columns: Sequence[str | int] | None = None) -> IntervalResult:
    """Interval disclosure risk of a masked file.

    Parameters
    ----------
    original, masked : ndarray of shape (n, q) or (n,), or DataFrame
        The two files; row ``i`` of ``masked`` is the masked record ``i``.
        At least 2 records; the chosen columns numeric without missing values.
    p : float, optional
        Width parameter in percent, in (0, 100]. Default :data:`DEFAULT_P`
        (10 for rank intervals, 5 for sd intervals).
    method : {"rank", "sd"}
        Rank intervals or standard-deviation intervals.
    columns : sequence of str or int, optional
        Numeric variables to examine, by name or position (default all; array
        columns are ``x1 .. xq``).

    Returns
    -------
    IntervalResult

    Notes
    -----
    Rank rule: each variable is ranked on its own over the masked file; the
    interval around the masked value of rank r runs from the masked value of
    rank ``r - h`` to that of rank ``r + h`` (clipped to the file), with
    ``h = ceil(p n / 200) - 1`` so that the ranks in it differ by less than
    ``p n / 100`` (:func:`rank_half_width`). SD rule: ``[y - (p/100) s, y + (p/100) s]``
    with s the original variable's standard deviation. The risk is the share
    of original values in ``[lower, upper]``; 1 means the attacker is sure
    every original value lies in its interval.

    References
    ----------
    Domingo-Ferrer & Torra (2004), Section 2.3.
    """
    p = DEFAULT_P[method] if p is None else p
    shares = _shares_inside(original, masked, p, method)
    return IntervalResult(method, float(p), int(original.shape[0]), tuple(columns), tuple(shares.tolist()))


@validate_params(_DATASET_MEASURE, example=_dataset_example)
def interval_risk(original: np.ndarray, masked: np.ndarray, p: float = DEFAULT_P["rank"]) -> float:
    """Rank-interval disclosure risk (share of original values inside); a dataset-level risk measure.

    Parameters
    ----------
    original, masked : ndarray of shape (n, q) or (n,), or DataFrame
        As in :func:`interval_disclosure`, every column examined.
    p : float
        Width parameter in percent, in (0, 100].
    """
    return _risk(original, masked, p, "rank")


@validate_params(_DATASET_MEASURE, example=_dataset_example)
def sdid_risk(original: np.ndarray, masked: np.ndarray, p: float = DEFAULT_P["sd"]) -> float:
    """Standard-deviation interval disclosure risk; a dataset-level risk measure.

    Parameters
    ----------
    original, masked : ndarray of shape (n, q) or (n,), or DataFrame
        As in :func:`interval_disclosure`, every column examined.
    p : float
        Width parameter in percent, in (0, 100].
    """
    return _risk(original, masked, p, "sd")


def _risk(original: np.ndarray, masked: np.ndarray, p: float, method: str) -> float:
    """The mean over variables of the shares inside, as :attr:`IntervalResult.risk`; ``masked`` is (n, q)."""
    shares = _shares_inside(original.reshape(masked.shape), masked, p, method)
    return float(np.mean(tuple(shares.tolist())))
