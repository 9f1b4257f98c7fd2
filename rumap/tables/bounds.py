"""Cell suppression: the feasible range and risk of every suppressed cell, by linear programming.

One LP minimization and one LP maximization per suppressed cell under the
published margins and non-negativity (scipy's HiGHS) give the range of values
the cell can take; :mod:`rumap.tables.entropy` turns it into DR = 1 / log2 m
(Domingo-Ferrer, Oganian & Torra, Section 4.1 and Table 1).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
from scipy.optimize import linprog

from rumap._validation import InstanceOf, assumes_valid, check_scalar, validate_params
from rumap.errors import InputError
from rumap.result import json_safe
from rumap.tables.entropy import cell_risks, check_distribution
from rumap.tables.published import PublishedTable, paper_table1
from rumap.tables.rules import freeze_array_fields

__all__ = ["TableBounds", "suppression_bounds", "paper_table1_bounds"]


@dataclass(frozen=True)
class TableBounds:
    """Feasible ranges and risks of unknown table cells.

    Parameters
    ----------
    axes : tuple of str
        Names of the label parts, ``("row", "column")`` for 2-D tables.
    labels : tuple of tuple of str, length u
        Each unknown cell's labels, one per axis.
    min, max : ndarray, shape (u,)
        The smallest and largest value the cell can take, snapped to the grid
        of ``resolution`` (``max`` is ``inf`` when unbounded).
    values : ndarray, shape (u,)
        m, the number of possible values, ``(max - min) / resolution + 1``.
    risk : ndarray, shape (u,)
        DR = 1 / log2 m (uniform) or 1 / H(X | Y = y) (given distribution);
        ``inf`` when m = 1.
    method : str
        ``"suppression"``, ``"redesign"``, ``"linked"`` or ``"insider"``.
    """

    axes: tuple[str, ...]
    labels: tuple[tuple[str, ...], ...]
    min: np.ndarray
    max: np.ndarray
    values: np.ndarray
    risk: np.ndarray
    method: str = "suppression"
    config: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        freeze_array_fields(self)

    @property
    def max_risk(self) -> float:
        """The largest cell risk (0 for a table with no unknown cell)."""
        return float(self.risk.max()) if self.risk.size else 0.0

    @property
    def mean_risk(self) -> float:
        """The mean cell risk (0 for a table with no unknown cell)."""
        return float(self.risk.mean()) if self.risk.size else 0.0

    def cell(self, *labels: str) -> dict[str, Any]:
        """The bounds of one cell given its labels."""
        key = tuple(str(label) for label in labels)
        try:
            i = self.labels.index(key)
        except ValueError:
            raise InputError(f"no unknown cell {key}; unknown cells are {list(self.labels)}") from None
        return {"min": float(self.min[i]), "max": float(self.max[i]), "values": float(self.values[i]),
                "risk": float(self.risk[i])}

    def to_frame(self) -> pd.DataFrame:
        """One row per unknown cell: its labels, min, max, values (m) and risk."""
        frame = pd.DataFrame(list(self.labels), columns=list(self.axes)) if self.labels else \
            pd.DataFrame(columns=list(self.axes))
        frame["min"], frame["max"], frame["values"], frame["risk"] = self.min, self.max, self.values, self.risk
        return frame

    def to_dict(self) -> dict[str, Any]:
        """``{"cells": [{<axes>, "min", "max", "values", "risk"}], "max_risk", "mean_risk", "method"}``."""
        return json_safe({"cells": self.to_frame().to_dict(orient="records"), "max_risk": self.max_risk,
                          "mean_risk": self.mean_risk, "method": self.method})


def lp_bounds(matrix: np.ndarray, rhs: np.ndarray, lower: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Minimum and maximum of every variable subject to matrix @ x = rhs, x >= lower (2 LPs per variable)."""
    n = matrix.shape[1]
    bounds = [(float(lo), None) for lo in lower]
    mins, maxs = np.empty(n), np.empty(n)
    for j in range(n):  # one LP pair per unknown cell: the method itself (Section 4.1)
        objective = np.zeros(n)
        objective[j] = 1.0
        low = linprog(objective, A_eq=matrix, b_eq=rhs, bounds=bounds, method="highs")
        if low.status == 2:
            raise InputError("the published values are inconsistent: no non-negative table has these totals")
        if low.status != 0:
            raise InputError(f"the linear program failed: {low.message}")
        high = linprog(-objective, A_eq=matrix, b_eq=rhs, bounds=bounds, method="highs")
        mins[j] = low.fun
        if high.status == 3:
            maxs[j] = math.inf
        elif high.status != 0:
            raise InputError(f"the linear program failed: {high.message}")
        else:
            maxs[j] = -high.fun
    return mins, maxs


def _bounds_from_equations(equations: np.ndarray, known: np.ndarray, unknown: np.ndarray,
                           names: list[str]) -> tuple[np.ndarray, np.ndarray]:
    """Split equations over all entries ('parts - total = 0') into an LP over the unknown ones.

    Equations with no unknown entry are checked for consistency and dropped;
    the first that fails is named in the message.
    """
    known_values = np.where(unknown, 0.0, known)
    rhs = -equations[:, ~unknown] @ known_values[~unknown]
    matrix = equations[:, unknown]
    involved = np.abs(matrix).sum(axis=1) > 0
    scale = max(1.0, float(np.abs(known_values).max(initial=0.0)))
    bad = ~involved & (np.abs(rhs) > 1e-9 * scale)
    if bad.any():
        i = int(np.argmax(bad))
        parts = float(np.clip(equations[i], 0, None) @ known_values)
        total = float(-np.clip(equations[i], None, 0) @ known_values)
        raise InputError(f"{names[i]} does not add up: its entries sum to {parts:g} but its total is {total:g}")
    return matrix[involved], rhs[involved]


def _margin_equations(table: PublishedTable) -> tuple[np.ndarray, list[str]]:
    """Equations 'entries - total = 0' over the (R+1)(C+1) entries, with a name for each.

    Inner rows, then inner columns, then the totals row and the totals column,
    so that an inconsistency is reported where it is.
    """
    n_rows, n_cols = table.values.shape
    index = np.arange(n_rows * n_cols).reshape(n_rows, n_cols)
    order = [("row", r) for r in range(n_rows - 1)] + [("column", c) for c in range(n_cols - 1)] + \
            [("row", n_rows - 1), ("column", n_cols - 1)]
    eq = np.zeros((len(order), n_rows * n_cols))
    names = []
    for i, (kind, k) in enumerate(order):  # one equation per row or column of the table
        line = index[k] if kind == "row" else index[:, k]
        eq[i, line[:-1]] = 1.0
        eq[i, line[-1]] = -1.0
        label = table.label(k, 0)[0] if kind == "row" else table.label(0, k)[1]
        names.append(f"{kind} {label!r}")
    return eq, names


def _check_multiples(table: PublishedTable, resolution: float) -> None:
    """Refuse a resolution that the published cells are not multiples of (their bounds would be snapped wrongly)."""
    published = np.argwhere(~table.suppressed)
    values = table.values[~table.suppressed]
    steps = values / resolution
    off = np.abs(steps - np.round(steps)) > 1e-6 * np.abs(steps)
    if off.any():
        r, c = published[int(np.argmax(off))]
        row, column = table.label(int(r), int(c))
        raise InputError(f"resolution {resolution:g}: the published value {values[off][0]:g} (row {row!r}, column "
                         f"{column!r}) is not a multiple of it; cells take values in steps of the resolution")


@validate_params({"table": InstanceOf(PublishedTable, "a PublishedTable (see rumap.tables.table_files.published_table_from_frame)"), "resolution": "resolution"},
                 example=lambda: {"table": paper_table1()})
def suppression_bounds(table: PublishedTable, *, resolution: float = 1.0,
                       distribution: Callable[[np.ndarray], Any] | None = None,
                       lower: Mapping[tuple[str, str], float] | None = None) -> TableBounds:
    """Feasible range and risk of every suppressed entry of a published table.

    Parameters
    ----------
    table : PublishedTable
        The table with its margins; NaN entries are suppressed.
    resolution : float, default 1
        Step between possible cell values (1 for integer tables, 0.01 for two
        decimals; Note 1 of the paper).
    distribution : callable, optional
        The intruder's distribution over a cell's possible values: called with
        the array of possible values, returns their weights. Default: uniform,
        DR = 1 / log2 m.
    lower : mapping, optional
        Extra lower bounds ``{(row, column): value}`` known to the intruder
        (an insider's own contribution; see :func:`insider_bounds`).

    Returns
    -------
    TableBounds
        One entry per suppressed cell, in row-major order.

    Raises
    ------
    InputError
        Published entries that do not add up, no feasible table, or a bad
        distribution.

    Notes
    -----
    For each suppressed entry x: min and max of x over non-negative x subject
    to every row and column adding up to its (published or suppressed) total;
    two LPs (scipy.optimize.linprog, method "highs"). m = (max - min)/resolution
    + 1 and DR = 1 / log2 m (Eq 3), or 1 / H(X | Y = y) (Eq 2) for a given
    distribution. For a 2-D table with integer entries the constraint matrix
    is totally unimodular, so the LP bounds are attained by integer tables.

    Table 1 of the paper: 0 <= x1 <= 406, 1131 <= x2 <= 1537, 0 <= x3 <= 406,
    845 <= x4 <= 1251, m = 407, DR = 1/log2 407 = 0.115.

    References
    ----------
    Domingo-Ferrer, Oganian & Torra, *Information-theoretic disclosure risk
    measures in statistical disclosure control of tabular data*, Section 4.1,
    Eq (2), (3) and Table 1.

    Examples
    --------
    >>> from rumap.tables.bounds import suppression_bounds
    >>> from rumap.tables.published import paper_table1
    >>> bounds = suppression_bounds(paper_table1())  # the paper's Table 1: x1 in [0, 406], m = 407
    >>> bounds.min.tolist(), bounds.max.tolist()
    ([0.0, 1131.0, 0.0, 845.0], [406.0, 1537.0, 406.0, 1251.0])
    >>> round(float(bounds.risk[0]), 4)  # 1 / log2(407)
    0.1154
    """
    check_distribution(distribution)
    _check_multiples(table, resolution)
    unknown = table.suppressed.ravel()
    positions = np.argwhere(table.suppressed)
    labels = tuple(table.label(int(r), int(c)) for r, c in positions)
    lower_bounds = np.zeros(len(labels))
    for key, value in (lower or {}).items():
        key = (str(key[0]), str(key[1]))
        if key not in labels:
            raise InputError(f"row {key[0]!r}, column {key[1]!r} is not a suppressed cell")
        lower_bounds[labels.index(key)] = check_scalar("own_contribution", value)
    if not labels:
        return TableBounds(("row", "column"), (), *(np.empty(0) for _ in range(4)), method="suppression",
                           config={"resolution": resolution})
    equations, names = _margin_equations(table)
    matrix, rhs = _bounds_from_equations(equations, table.values.ravel(), unknown, names)
    low, high = lp_bounds(matrix, rhs, lower_bounds)
    low, high, m, risk = cell_risks(low, high, resolution, distribution)
    return TableBounds(("row", "column"), labels, low, high, m, risk,
                       method="insider" if lower else "suppression",
                       config={"resolution": resolution, "distribution": "uniform" if distribution is None else "given"})


@assumes_valid
def paper_table1_bounds() -> TableBounds:
    """:func:`suppression_bounds` of :func:`paper_table1` (Table 1 of Domingo-Ferrer, Oganian & Torra)."""
    return suppression_bounds(paper_table1())
