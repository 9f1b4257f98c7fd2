"""Controlled rounding of a 2-D table with its totals to base b, additive, by MILP (HiGHS).

Every entry, totals included, is rounded to one of the two multiples of b
adjacent to it (an entry already a multiple stays: zero-restricted rounding)
so that the rounded rows and columns add up to the rounded totals. Cox (1987)
shows such a rounding exists for every 2-D table; the MILP picks the one of
least total absolute deviation. tau-Argus offers it as the alternative to cell
suppression (seed 004).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
from scipy import sparse
from scipy.optimize import Bounds, LinearConstraint, milp

from rumap._validation import InstanceOf, validate_params
from rumap.budget import DEFAULT_BUDGET, WorkBudget
from rumap.errors import InputError
from rumap.result import json_safe
from rumap.tables.bounds import _margin_equations
from rumap.tables.entropy import cell_risks
from rumap.tables.published import PublishedTable
from rumap.tables.rules import freeze_array_fields
from rumap.tables.secondary import _labels, check_complete_additive, worked_example_table

__all__ = ["ControlledRounding", "controlled_round"]

#: Work units per entry x equation of the rounding MILP.
_WORK_PER_ENTRY = 200.0


@dataclass(frozen=True)
class ControlledRounding:
    """A table rounded to base b with its totals, additively.

    Parameters
    ----------
    rows, columns : tuple of str
        Each entry's labels, row-major, totals labelled ``"Total"``.
    values, rounded : ndarray
        Original and rounded entries.
    base : float
        The rounding base b.
    optimal : bool
        Whether HiGHS proved the rounding of least total absolute deviation.
    gap : float
        Relative MIP gap reported by HiGHS (0 when optimal).
    row_labels, column_labels : tuple of str
        The inner rows and columns, for :meth:`table`.
    """

    rows: tuple[str, ...]
    columns: tuple[str, ...]
    values: np.ndarray
    rounded: np.ndarray
    base: float
    optimal: bool
    gap: float
    row_labels: tuple[str, ...]
    column_labels: tuple[str, ...]
    config: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        freeze_array_fields(self)

    @property
    def deviation(self) -> np.ndarray:
        """Rounded minus original, per entry."""
        return self.rounded - self.values

    @property
    def total_absolute_deviation(self) -> float:
        """Sum of |rounded - original| over every entry with the totals (the objective)."""
        return float(np.abs(self.deviation).sum())

    @property
    def max_absolute_deviation(self) -> float:
        """The largest |rounded - original| (below b)."""
        return float(np.abs(self.deviation).max(initial=0.0))

    def table(self) -> PublishedTable:
        """The rounded table as a :class:`PublishedTable`."""
        shape = (len(self.row_labels) + 1, len(self.column_labels) + 1)
        return PublishedTable(self.row_labels, self.column_labels, self.rounded.reshape(shape))

    def _ranges(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """The originals an intruder cannot exclude: the grid points strictly inside (rounded - b, rounded + b),
        at least 0; their number m and DR = 1 / log2 m."""
        resolution = float(self.config.get("resolution", 1.0))
        low = np.maximum(self.rounded - self.base + resolution / 2, 0.0)
        high = self.rounded + self.base - resolution / 2
        return cell_risks(low, high, resolution, None)

    @property
    def max_risk(self) -> float:
        """The largest cell risk DR = 1 / log2 m over the entries."""
        return float(self._ranges()[3].max(initial=0.0))

    def to_frame(self) -> pd.DataFrame:
        """One row per entry: row, column, value, rounded, deviation, and the range min..max of originals an
        intruder cannot exclude (grid points strictly within b of the rounded value, >= 0), their number m
        (``values``) and DR = 1 / log2 m (``risk``)."""
        low, high, m, risk = self._ranges()
        return pd.DataFrame({"row": list(self.rows), "column": list(self.columns), "value": self.values,
                             "rounded": self.rounded, "deviation": self.deviation, "min": low, "max": high,
                             "values": m, "risk": risk})

    def to_dict(self) -> dict[str, Any]:
        """``{"cells", "base", "total_absolute_deviation", "max_absolute_deviation", "optimal", "gap"}``."""
        return json_safe({"cells": self.to_frame().to_dict(orient="records"), "base": self.base,
                          "total_absolute_deviation": self.total_absolute_deviation,
                          "max_absolute_deviation": self.max_absolute_deviation, "max_risk": self.max_risk,
                          "optimal": self.optimal,
                          "gap": self.gap, "method": "milp"})


@validate_params({"table": InstanceOf(PublishedTable, "a PublishedTable (see rumap.io.tables.read_published_table)"),
                  "base": "rounding_base", "resolution": "resolution",
                  "time_limit": "time_limit",
                  "budget": InstanceOf(WorkBudget)},
                 example=lambda: {"table": worked_example_table(), "base": 5.0})
def controlled_round(table: PublishedTable, base: float, time_limit: float = 30.0,
                     budget: WorkBudget = DEFAULT_BUDGET, resolution: float = 1.0) -> ControlledRounding:
    """Zero-restricted controlled rounding to base b of a complete table with its totals (MILP).

    Parameters
    ----------
    table : PublishedTable
        The complete table with its totals; it must add up.
    base : float
        The rounding base b > 0.
    time_limit : float, default 30
        Seconds for HiGHS.
    budget : WorkBudget
        Refuses tables too large for the MILP.
    resolution : float, default 1
        Step between possible original values, for each entry's range and
        risk DR = 1 / log2 m (m = 2b - 1 integers strictly within b of the
        rounded value, fewer next to 0).

    Returns
    -------
    ControlledRounding

    Raises
    ------
    InputError
        An incomplete or non-additive table, or no rounding found in time.

    Notes
    -----
    Each entry a_i = b q_i + s_i with 0 <= s_i < b becomes b q_i + b z_i with
    binary z_i (z_i = 0 when s_i = 0); the rows and columns of the rounded
    table must add up: A (b q + b z) = 0. The objective sum_i |rounded_i - a_i|
    = sum_i s_i + (b - 2 s_i) z_i is linear in z. Such a rounding exists for
    every 2-D table (Cox 1987); HiGHS finds the least deviation.

    References
    ----------
    Seed 004 (Mas, EUSTAT), tau-Argus: controlled rounding; Cox (1987), *A
    constructive procedure for unbiased controlled rounding*, JASA 82.

    Examples
    --------
    >>> from rumap.tables.controlled_rounding import controlled_round
    >>> from rumap.tables.secondary import worked_example_table
    >>> result = controlled_round(worked_example_table(), 5)
    >>> result.table().to_frame().astype(int).values.tolist()[-1]  # rounded column totals add up
    [45, 100, 45, 190]
    >>> result.optimal, result.max_absolute_deviation < 5
    (True, True)
    >>> round(result.max_risk, 4)  # 1 / log2 9: nine integers strictly within 5 of a rounded entry
    0.3155
    """
    equations = check_complete_additive(table)
    values = table.values.ravel().astype(float)
    n = values.size
    budget.check_work(_WORK_PER_ENTRY * n * equations.shape[0], f"{n} entries x {equations.shape[0]} equations")
    steps = values / base
    floors = np.floor(steps + 1e-9)
    exact = np.abs(steps - np.round(steps)) <= 1e-9 * np.maximum(1.0, np.abs(steps))
    floors = np.where(exact, np.round(steps), floors)
    remainder = np.where(exact, 0.0, values - floors * base)
    matrix = sparse.csr_matrix(equations * base)
    rhs = -(equations @ (floors * base))
    constraints = [LinearConstraint(matrix, rhs, rhs)]
    res = milp(base - 2 * remainder, integrality=np.ones(n), bounds=Bounds(np.zeros(n), np.where(exact, 0.0, 1.0)),
               constraints=constraints, options={"time_limit": time_limit, "mip_rel_gap": 1e-9})
    if res.status == 2:
        raise InputError(f"no zero-restricted controlled rounding of this table to base {base:g} exists")
    if res.x is None:
        raise InputError(f"no controlled rounding to base {base:g} found within {time_limit:g} s: allow more time")
    rounded = (floors + np.round(res.x)) * base
    _, names = _margin_equations(table)
    residual = equations @ rounded
    if np.abs(residual).max(initial=0.0) > 1e-6 * max(1.0, float(np.abs(values).max())):
        raise InputError(f"the rounded {names[int(np.argmax(np.abs(residual)))]} does not add up")
    labels = _labels(table)
    gap = 0.0 if res.status == 0 else float(getattr(res, "mip_gap", np.nan) or 0.0)
    return ControlledRounding(tuple(r for r, _ in labels), tuple(c for _, c in labels), values, rounded,
                              float(base), res.status == 0, gap, table.row_labels, table.column_labels,
                              {"time_limit": time_limit, "resolution": resolution})
