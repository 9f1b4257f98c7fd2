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
from rumap.tables.ndtable import NDTable, example_table
from rumap.tables.published import PublishedTable
from rumap.tables.rules import freeze_array_fields
from rumap.tables.secondary import _labels, check_complete_additive, worked_example_table

__all__ = ["ControlledRounding", "controlled_round", "TableRounding", "round_table", "ROUNDING_STATUSES"]

#: Outcomes of :func:`round_table`: proven least deviation, found but not proven in time, no zero-restricted
#: rounding exists, none found in time.
ROUNDING_STATUSES = ("optimal", "feasible", "infeasible", "time_limit")

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


@validate_params({"table": InstanceOf(PublishedTable, "a PublishedTable (see rumap.tables.table_files.read_published_table)"),
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
    status, rounded, gap = _round_milp(values, sparse.csr_matrix(equations), base, time_limit)
    if status == "infeasible":
        raise InputError(f"no zero-restricted controlled rounding of this table to base {base:g} exists")
    if rounded is None:
        raise InputError(f"no controlled rounding to base {base:g} found within {time_limit:g} s: allow more time")
    _, names = _margin_equations(table)
    residual = equations @ rounded
    if np.abs(residual).max(initial=0.0) > 1e-6 * max(1.0, float(np.abs(values).max())):
        raise InputError(f"the rounded {names[int(np.argmax(np.abs(residual)))]} does not add up")
    labels = _labels(table)
    return ControlledRounding(tuple(r for r, _ in labels), tuple(c for _, c in labels), values, rounded,
                              float(base), status == "optimal", gap, table.row_labels, table.column_labels,
                              {"time_limit": time_limit, "resolution": resolution})


def _round_milp(values: np.ndarray, equations: sparse.csr_matrix, base: float,
                time_limit: float) -> tuple[str, np.ndarray | None, float]:
    """The zero-restricted rounding of least total absolute deviation under ``equations`` (HiGHS).

    Returns the status (``"optimal"``, ``"feasible"``: found, not proven in
    time, ``"infeasible"``: none exists, ``"time_limit"``: none found in
    time), the rounded values (None when none was found) and HiGHS's gap.
    """
    n = values.size
    steps = values / base
    floors = np.floor(steps + 1e-9)
    exact = np.abs(steps - np.round(steps)) <= 1e-9 * np.maximum(1.0, np.abs(steps))
    floors = np.where(exact, np.round(steps), floors)
    remainder = np.where(exact, 0.0, values - floors * base)
    rhs = -(equations @ (floors * base))
    constraints = [LinearConstraint(equations * base, rhs, rhs)] if equations.shape[0] else []
    res = milp(base - 2 * remainder, integrality=np.ones(n), bounds=Bounds(np.zeros(n), np.where(exact, 0.0, 1.0)),
               constraints=constraints, options={"time_limit": time_limit, "mip_rel_gap": 1e-9})
    if res.status == 2:
        return "infeasible", None, 0.0
    if res.x is None:
        return "time_limit", None, float("nan")
    rounded = (floors + np.round(res.x)) * base
    gap = 0.0 if res.status == 0 else float(getattr(res, "mip_gap", np.nan) or 0.0)
    return ("optimal" if res.status == 0 else "feasible"), rounded, gap


@dataclass(frozen=True)
class TableRounding:
    """A hierarchical or n-dimensional table rounded to base b over every subtotal's equation, or why not.

    Parameters
    ----------
    table : NDTable
        The table.
    rounded : ndarray or None
        The rounded cells (C order), None when no rounding was found.
    base : float
        The rounding base b.
    status : str
        One of :data:`ROUNDING_STATUSES`: ``"optimal"`` (least total absolute
        deviation, proven), ``"feasible"``, ``"infeasible"`` (no
        zero-restricted controlled rounding exists) or ``"time_limit"``.
    gap : float
        HiGHS's relative gap (0 when optimal, NaN when nothing was found).
    """

    table: NDTable
    rounded: np.ndarray | None
    base: float
    status: str
    gap: float
    config: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        freeze_array_fields(self)

    @property
    def found(self) -> bool:
        """Whether a rounding was found."""
        return self.rounded is not None

    @property
    def deviation(self) -> np.ndarray | None:
        """Rounded minus original, per cell (None when none was found)."""
        return None if self.rounded is None else self.rounded - self.table.values

    @property
    def total_absolute_deviation(self) -> float:
        """Sum of |rounded - original| over every cell (NaN when none was found)."""
        return float("nan") if self.rounded is None else float(np.abs(self.deviation).sum())

    @property
    def max_absolute_deviation(self) -> float:
        """The largest |rounded - original| (below b; NaN when none was found)."""
        return float("nan") if self.rounded is None else float(np.abs(self.deviation).max(initial=0.0))

    def to_frame(self) -> pd.DataFrame:
        """One row per cell: the codes, value, rounded and deviation (empty when none was found)."""
        frame = self.table.cells[[*self.table.dims, "value"]].copy()
        frame["rounded"] = np.nan if self.rounded is None else self.rounded
        frame["deviation"] = frame["rounded"] - frame["value"]
        return frame

    def to_dict(self) -> dict[str, Any]:
        """``{"cells": [{"codes", "value", "rounded"}], "base", "status", "optimal", "gap",
        "total_absolute_deviation", "max_absolute_deviation"}``."""
        dims = self.table.dims
        codes = self.table.cells[list(dims)].to_numpy(dtype=object)
        rounded = [None] * self.table.size if self.rounded is None else self.rounded.tolist()
        cells = [{"codes": dict(zip(dims, row, strict=True)), "value": float(v), "rounded": r}
                 for row, v, r in zip(codes, self.table.values, rounded, strict=True)]
        return json_safe({"cells": cells, "base": self.base, "status": self.status,
                          "optimal": self.status == "optimal", "gap": self.gap,
                          "total_absolute_deviation": self.total_absolute_deviation,
                          "max_absolute_deviation": self.max_absolute_deviation, "method": "milp"})


@validate_params({"table": InstanceOf(NDTable, "an NDTable (see rumap.tables.ndtable.build_table)"),
                  "base": "rounding_base",
                  "time_limit": "time_limit",
                  "budget": InstanceOf(WorkBudget)},
                 example=lambda: {"table": example_table(), "base": 10.0})
def round_table(table: NDTable, base: float, time_limit: float = 30.0,
                budget: WorkBudget = DEFAULT_BUDGET) -> TableRounding:
    """Zero-restricted controlled rounding of a hierarchical or n-dimensional table, every subtotal additive (MILP).

    Parameters
    ----------
    table : NDTable
        The table with every subtotal and total
        (:func:`rumap.tables.ndtable.build_table`).
    base : float
        The rounding base b > 0.
    time_limit : float, default 30
        Seconds for HiGHS.
    budget : WorkBudget
        Refuses tables too large for the MILP.

    Returns
    -------
    TableRounding
        The rounding of least total absolute deviation and its status; when
        no zero-restricted controlled rounding exists, status
        ``"infeasible"`` and no rounded values.

    Notes
    -----
    Every cell a_i = b q_i + s_i is rounded to b q_i or b (q_i + 1) (a
    multiple of b stays) so that every equation of the table, at every level
    of every dimension, holds for the rounded cells: the MILP of
    :func:`controlled_round` over all of ``table.equations()``. Cox (1987)
    proves such a rounding exists for a 2-D table with one level of totals;
    with subtotals in both dimensions, or with three dimensions, it may not
    (Causey, Cox & Ernst 1985), and HiGHS proves it.

    References
    ----------
    Cox (1987), *A constructive procedure for unbiased controlled rounding*,
    JASA 82; Causey, Cox & Ernst (1985), *Applications of transportation
    theory to statistical problems*, JASA 80; seed 004, tau-Argus: controlled
    rounding.

    Examples
    --------
    >>> from rumap.tables.ndtable import example_table
    >>> result = round_table(example_table(), 10)
    >>> result.status, result.max_absolute_deviation < 10
    ('optimal', True)
    >>> import numpy as np
    >>> bool(np.abs(example_table().equations() @ result.rounded).max() == 0)  # every subtotal adds up
    True
    """
    values = table.values
    equations = sparse.csr_matrix(table.equations())
    budget.check_work(_WORK_PER_ENTRY * values.size * max(equations.shape[0], 1),
                      f"{values.size} cells x {equations.shape[0]} equations")
    status, rounded, gap = _round_milp(values, equations, base, time_limit)
    return TableRounding(table, rounded, float(base), status, gap, {"time_limit": time_limit})
