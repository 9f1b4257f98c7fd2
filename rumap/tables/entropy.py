"""The risk of a table cell from the values it can take: DR = 1 / H(X | Y = y).

Domingo-Ferrer, Oganian & Torra measure the risk of a released table cell by
the reciprocal of the intruder's conditional entropy about the cell's original
value (Eq 2). With a uniform distribution over the m values the cell can take
given what is published, DR = 1 / log2 m (Eq 3). The other modules of
:mod:`rumap.tables` find the range of each cell; this one turns ranges into m
and DR.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from rumap._validation import PARAMETERS, NumberArray, validate_params
from rumap.errors import InputError

__all__ = ["uniform_risk", "entropy_risk", "count_values"]


# numerical slack when snapping LP bounds to the grid of possible cell values
SNAP = 1e-7


@validate_params({"values": NumberArray(PARAMETERS["possible_values"],
                                         infinite=True)},
                 example=lambda: {"values": [1.0, 407.0, float("inf")]})
def uniform_risk(values: float | np.ndarray) -> np.ndarray | float:
    """DR = 1 / log2 m for m equally likely values (Eq 3).

    Parameters
    ----------
    values : float or array_like
        m, the number of values the cell can take (>= 1; ``inf`` allowed).

    Returns
    -------
    float or ndarray
        ``inf`` when m = 1 (the cell is disclosed exactly), 0 when m is infinite.

    References
    ----------
    Domingo-Ferrer, Oganian & Torra, Eq (3).
    """
    risk = uniform_risk_kernel(values)
    return float(risk) if risk.ndim == 0 else risk


def uniform_risk_kernel(m: np.ndarray) -> np.ndarray:
    with np.errstate(divide="ignore"):
        return 1.0 / np.log2(np.asarray(m, dtype=float))


@validate_params({"probabilities": NumberArray(PARAMETERS["weight"],
                                                ndim=(1,))},
                 example=lambda: {"probabilities": [0.5, 0.25, 0.25]})
def entropy_risk(probabilities: Sequence[float] | np.ndarray) -> float:
    """DR = 1 / H(X | Y = y) for a distribution over the cell's possible values (Eq 2).

    Parameters
    ----------
    probabilities : array_like, shape (m,)
        Non-negative weights of the possible values; normalized here.

    Returns
    -------
    float
        ``inf`` when all mass is on one value.

    References
    ----------
    Domingo-Ferrer, Oganian & Torra, Eq (2); base-2 logarithms.
    """
    p = probabilities
    total = p.sum()
    if total <= 0:
        raise InputError("the distribution's weights add up to 0")
    p = p / total
    p = p[p > 0]  # 0 log 0 = 0 (tiny weights may underflow to 0 here)
    entropy = float(-(p * np.log2(p)).sum())
    return math.inf if entropy <= 0 else 1.0 / entropy


@validate_params({"resolution": "resolution"}, example=lambda: {"low": [0.0, 0.5], "high": [406.0, 2.5]})
def count_values(low: np.ndarray | float, high: np.ndarray | float, resolution: float = 1.0) -> np.ndarray:
    """The number of multiples of ``resolution`` in [low, high] (``inf`` if high is infinite).

    Bounds from an LP are snapped to the grid with a small tolerance, so that
    405.9999999 counts as 406.

    Parameters
    ----------
    low, high : float or ndarray
        Bounds of each cell's range.
    resolution : float
        The step between possible values (> 0).

    Returns
    -------
    ndarray
    """
    return count_values_kernel(low, high, resolution)


def count_values_kernel(low: np.ndarray | float, high: np.ndarray | float, resolution: float) -> np.ndarray:
    lo = np.ceil(np.asarray(low, dtype=float) / resolution - SNAP)
    hi = np.asarray(high, dtype=float) / resolution
    with np.errstate(invalid="ignore"):
        hi = np.where(np.isfinite(hi), np.floor(hi + SNAP), np.inf)
    return np.maximum(hi - lo + 1.0, 0.0)


def check_distribution(distribution: Callable[[np.ndarray], Any] | None) -> None:
    if distribution is not None and not callable(distribution):
        raise InputError("distribution must be a function of the array of possible values returning their "
                         "weights, or None for the uniform distribution")


def cell_risks(low: np.ndarray, high: np.ndarray, resolution: float,
           distribution: Callable[[np.ndarray], Any] | None) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Snap LP bounds to the grid and compute m and DR for every cell."""
    m = count_values_kernel(low, high, resolution)
    snapped_low = np.ceil(low / resolution - SNAP) * resolution + 0.0  # + 0.0 turns -0.0 into 0.0
    with np.errstate(invalid="ignore"):
        snapped_high = np.where(np.isfinite(high), np.floor(high / resolution + SNAP) * resolution, np.inf)
    if distribution is None:
        risk = uniform_risk_kernel(np.maximum(m, 1.0)).reshape(-1)
        return snapped_low, snapped_high, m, risk
    risk = np.empty(m.size)
    for i in range(m.size):  # a user's distribution per cell
        if not np.isfinite(m[i]):
            raise InputError("a distribution cannot be given for a cell with no upper bound")
        support = snapped_low[i] + resolution * np.arange(int(m[i]))
        try:
            weights = np.asarray(distribution(support), dtype=float).reshape(-1)
        except InputError:
            raise
        except Exception as exc:
            raise InputError(f"the distribution failed on the possible values: {exc}") from None
        if weights.size != support.size:
            raise InputError(f"the distribution returned {weights.size} weights for {support.size} possible values")
        try:
            risk[i] = entropy_risk(weights)
        except InputError as exc:
            raise InputError(f"the distribution's weights: {exc}") from None
    return snapped_low, snapped_high, m, risk
