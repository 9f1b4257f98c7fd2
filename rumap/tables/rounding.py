"""Rounding to base b, its cell risks, and the rounding R-U map.

The original of a cell published as n b lies in [(n - 1/2) b, (n + 1/2) b)
(Section 4.2). The R-U map's parameter is the rounding base b; R is the largest
or mean cell risk 1/log2 m and U the reciprocal of the table's mean squared
error.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from rumap._validation import Boolean, Grid, StrOptions, validate_params
from rumap.errors import InputError
from rumap.result import RUMap, json_safe
from rumap.tables.entropy import SNAP, uniform_risk_kernel
from rumap.tables.published import PublishedTable
from rumap.tables.rules import freeze_array_fields

__all__ = ["round_table", "RoundingRisk", "rounding_risk", "rounding_ru_map", "RISK_STATISTICS"]


@validate_params({"base": "rounding_base"}, example=lambda: {"cells": [[3.0, 7.0], [12.0, 0.0]], "base": 5.0})
def round_table(cells: np.ndarray, base: float) -> np.ndarray:
    """Conventional rounding of every cell to the nearest multiple of ``base`` (halves up).

    Parameters
    ----------
    cells : ndarray
        Non-negative cell values.
    base : float
        The rounding base b, > 0.

    Returns
    -------
    ndarray, same shape as ``cells``
        n b with n = floor(x / b + 1/2), so that x lies in [(n - 1/2) b, (n + 1/2) b).
    """
    arr = _check_cells(cells)
    return np.floor(arr / base + 0.5) * base


def _check_cells(cells: Any) -> np.ndarray:
    if isinstance(cells, PublishedTable):
        cells = cells.cells
    try:
        arr = np.asarray(cells, dtype=float)
    except (TypeError, ValueError):
        raise InputError("cells must be numeric") from None
    if arr.size == 0:
        raise InputError("the table has no cells")
    if np.isnan(arr).any():
        raise InputError("the table has suppressed (missing) cells; rounding needs every cell")
    if not np.all(np.isfinite(arr)) or (arr < 0).any():
        raise InputError("cells must be finite and non-negative")
    return arr


@dataclass(frozen=True)
class RoundingRisk:
    """Risk and error of a table rounded to base b.

    Parameters
    ----------
    base : float
    original, rounded : ndarray, shape of the table
    min, max : ndarray
        The possible original values given the rounded one.
    values : ndarray
        m per cell.
    risk : ndarray
        1 / log2 m per cell (``inf`` where m = 1).
    mse : float
        Mean squared error of the rounded cells.
    """

    base: float
    original: np.ndarray
    rounded: np.ndarray
    min: np.ndarray
    max: np.ndarray
    values: np.ndarray
    risk: np.ndarray
    mse: float

    def __post_init__(self) -> None:
        freeze_array_fields(self)

    @property
    def max_risk(self) -> float:
        """The largest cell risk."""
        return float(self.risk.max())

    @property
    def mean_risk(self) -> float:
        """The mean cell risk."""
        return float(self.risk.mean())

    @property
    def utility(self) -> float:
        """U = 1 / MSE (``inf`` when the rounded table equals the original)."""
        return math.inf if self.mse == 0 else 1.0 / self.mse

    def to_frame(self) -> pd.DataFrame:
        """One row per cell (row-major): indices, original, rounded, min, max, values, risk."""
        idx = np.indices(self.original.shape).reshape(self.original.ndim, -1)
        frame = pd.DataFrame({f"index_{i}": idx[i] for i in range(self.original.ndim)})
        for name in ("original", "rounded", "min", "max", "values", "risk"):
            frame[name] = getattr(self, name).reshape(-1)
        return frame

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dictionary."""
        return json_safe({"base": self.base, "rounded": self.rounded, "min": self.min, "max": self.max,
                          "values": self.values, "risk": self.risk, "mse": self.mse, "utility": self.utility,
                          "max_risk": self.max_risk, "mean_risk": self.mean_risk})


@validate_params({"base": "rounding_base", "resolution": "resolution", "nonnegative": Boolean()},
                 example=lambda: {"cells": [[3.0, 7.0], [12.0, 0.0]], "base": 5.0})
def rounding_risk(cells: np.ndarray | PublishedTable, base: float, *, resolution: float = 1.0,
                  nonnegative: bool = True) -> RoundingRisk:
    """A posteriori risk of a table rounded to base b, without margins.

    Parameters
    ----------
    cells : array_like or PublishedTable
        The original cells (any shape; a PublishedTable's inner cells).
    base : float
        Rounding base b, a positive multiple of ``resolution``.
    resolution : float, default 1
        Step between possible cell values.
    nonnegative : bool, default True
        Whether the intruder uses that cells are non-negative: a cell rounded
        to 0 then lies in [0, b/2) rather than [-b/2, b/2).

    Returns
    -------
    RoundingRisk

    Notes
    -----
    A cell published as n b has its original in I = [(n - 1/2) b, (n + 1/2) b);
    with integer values (resolution 1) I holds b of them, so DR = 1 / log2 b
    (m(I) possible values in general; fewer for cells rounded to 0 when
    ``nonnegative``).

    References
    ----------
    Domingo-Ferrer, Oganian & Torra, Section 4.2.
    """
    steps = base / resolution
    if abs(steps - round(steps)) > 1e-9 * max(1.0, steps):
        raise InputError(f"base {base:g} must be a multiple of the resolution {resolution:g}")
    original = _check_cells(cells)
    rounded = round_table(original, base)
    low = rounded - base / 2
    if nonnegative:
        low = np.maximum(low, 0.0)
    high = rounded + base / 2  # excluded
    # possible values v = j * resolution with low <= v < high
    first = np.ceil(low / resolution - SNAP) + 0.0
    end = np.ceil(high / resolution - SNAP)
    m = end - first
    risk = uniform_risk_kernel(np.maximum(m, 1.0)).reshape(original.shape)
    mse = float(np.mean((rounded - original) ** 2))
    return RoundingRisk(base, original, rounded, first * resolution, (end - 1) * resolution, m, risk, mse)


def _max(values: np.ndarray) -> float:
    return float(np.max(values))


def _mean(values: np.ndarray) -> float:
    return float(np.mean(values))


#: How a table's cell risks become one R: the largest or the mean.
RISK_STATISTICS: dict[str, Callable[[np.ndarray], float]] = {"max": _max, "mean": _mean}


_STATISTIC_LABELS = {"max": "R = largest cell risk 1/log2 m", "mean": "R = mean cell risk 1/log2 m"}


@validate_params({"bases": Grid("rounding_base"), "statistic": StrOptions(RISK_STATISTICS),
                  "resolution": "resolution", "nonnegative": Boolean()},
                 example=lambda: {"cells": [[3.0, 7.0], [12.0, 0.0]], "bases": [1.0, 5.0]})
def rounding_ru_map(cells: np.ndarray | PublishedTable, bases: Sequence[float] | np.ndarray, *,
                    statistic: str = "max", resolution: float = 1.0, nonnegative: bool = True) -> RUMap:
    """R-U map of rounding: the parameter is the rounding base b.

    Parameters
    ----------
    cells : array_like or PublishedTable
        The original table's cells.
    bases : array_like, shape (m,)
        Rounding bases (multiples of ``resolution``).
    statistic : {"max", "mean"}, default "max"
        R is the largest or the mean cell risk (:data:`RISK_STATISTICS`).
    resolution : float, default 1
    nonnegative : bool, default True
        As in :func:`rounding_risk`.

    Returns
    -------
    RUMap
        ``parameter="b"``, R from :func:`rounding_risk`, U = 1 / MSE between
        the original and the rounded cells (``inf`` where they agree).

    References
    ----------
    Domingo-Ferrer, Oganian & Torra, Sections 1 and 4.2 (U = reciprocal of the
    mean squared error, after Duncan et al. 2001); Duncan, Keller-McNulty &
    Stokes (2001) for the R-U map.
    """
    grid = bases
    reduce = RISK_STATISTICS[statistic]
    results = [rounding_risk(cells, float(b), resolution=resolution, nonnegative=nonnegative) for b in grid]
    return RUMap(
        parameter="b", values=grid, risk=np.array([reduce(r.risk) for r in results]),
        utility=np.array([r.utility for r in results]),
        risk_label=_STATISTIC_LABELS[statistic], utility_label="U = 1 / MSE of the rounded table",
        method="rounding", knowledge="outsider", target=statistic,
        config={"bases": grid.tolist(), "statistic": statistic, "resolution": resolution,
                "nonnegative": nonnegative, "mean_risk": [r.mean_risk for r in results],
                "max_risk": [r.max_risk for r in results]})
