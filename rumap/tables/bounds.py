"""A posteriori disclosure risk of protected tables: DR = 1 / H(X | Y = y).

Domingo-Ferrer, Oganian & Torra measure the risk of a released table cell by
the reciprocal of the intruder's conditional entropy about the cell's original
value. With a uniform distribution over the m values the cell can take given
what is published, DR = 1 / log2 m. This module finds m for

- cell suppression: one LP minimization and one LP maximization per suppressed
  cell under the published margins and non-negativity (scipy's HiGHS);
- rounding to base b: the original lies in [(n - 1/2) b, (n + 1/2) b);
- table redesign: the cells of merged rows (or columns) given the merged table;
- linked tables: a 3-D table released as some of its 2-D projections;
- the insider who knows its own contribution to a cell,

and draws an R-U map for rounding (parameter: the rounding base b; R the
largest or mean cell risk; U the reciprocal of the table's mean squared error).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
from scipy.optimize import linprog

from rumap._validation import PARAMETERS, check_array, check_scalar
from rumap.errors import InputError
from rumap.result import RUMap, json_safe
from rumap.tables.rules import freeze_array_fields

__all__ = [
    "RISK_STATISTICS",
    "InsiderBounds",
    "InsiderView",
    "PublishedTable",
    "RoundingRisk",
    "TableBounds",
    "count_values",
    "entropy_risk",
    "insider_bounds",
    "insider_view",
    "linked_bounds",
    "merge_categories",
    "paper_table1",
    "paper_table1_bounds",
    "paper_table1_completed",
    "published_table_from_frame",
    "read_published_table",
    "redesign_bounds",
    "round_table",
    "rounding_risk",
    "rounding_ru_map",
    "suppression_bounds",
    "uniform_risk",
]

#: Written in a table file for a suppressed cell (case-insensitive).
SUPPRESSED_MARKS = frozenset({"x"})

#: Label given to the totals row and column when a table is built from cells.
TOTAL_LABEL = "Total"

# numerical slack when snapping LP bounds to the grid of possible cell values
_SNAP = 1e-7


# ---------------------------------------------------------------------------------------------------------------
# risk of a cell from its possible values
# ---------------------------------------------------------------------------------------------------------------

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
    m = np.asarray(values, dtype=float)
    if np.any(np.isnan(m)) or np.any(m < 1):
        raise InputError("the number of possible values m must be at least 1")
    with np.errstate(divide="ignore"):
        risk = 1.0 / np.log2(m)
    return float(risk) if risk.ndim == 0 else risk


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
    p = np.asarray(probabilities, dtype=float).reshape(-1)
    if p.size == 0:
        raise InputError("the distribution has no values")
    if not np.all(np.isfinite(p)) or np.any(p < 0):
        raise InputError("the distribution's weights must be finite and non-negative")
    total = p.sum()
    if total <= 0:
        raise InputError("the distribution's weights add up to 0")
    p = p / total
    p = p[p > 0]  # 0 log 0 = 0 (tiny weights may underflow to 0 here)
    entropy = float(-(p * np.log2(p)).sum())
    return math.inf if entropy <= 0 else 1.0 / entropy


def count_values(low: np.ndarray | float, high: np.ndarray | float, resolution: float = 1.0) -> np.ndarray:
    """The number of multiples of ``resolution`` in [low, high] (``inf`` if high is infinite).

    Bounds from an LP are snapped to the grid with a small tolerance, so that
    405.9999999 counts as 406.
    """
    resolution = check_scalar("resolution", resolution)
    lo = np.ceil(np.asarray(low, dtype=float) / resolution - _SNAP)
    hi = np.asarray(high, dtype=float) / resolution
    with np.errstate(invalid="ignore"):
        hi = np.where(np.isfinite(hi), np.floor(hi + _SNAP), np.inf)
    return np.maximum(hi - lo + 1.0, 0.0)


# ---------------------------------------------------------------------------------------------------------------
# the published table
# ---------------------------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class PublishedTable:
    """A 2-D table with its row and column totals, suppressed entries as NaN.

    Parameters
    ----------
    row_labels : tuple of str, length R
    column_labels : tuple of str, length C
    values : ndarray, shape (R + 1, C + 1)
        The cells with the row totals in the last column, the column totals in
        the last row and the grand total in the corner. NaN marks a suppressed
        entry (totals may be suppressed as well).
    """

    row_labels: tuple[str, ...]
    column_labels: tuple[str, ...]
    values: np.ndarray

    def __post_init__(self) -> None:
        values = np.array(self.values, dtype=float, copy=True)
        rows, cols = tuple(str(r) for r in self.row_labels), tuple(str(c) for c in self.column_labels)
        if values.ndim != 2 or values.shape != (len(rows) + 1, len(cols) + 1):
            raise InputError(f"a table with {len(rows)} rows and {len(cols)} columns needs values of shape "
                             f"({len(rows) + 1}, {len(cols) + 1}) with its totals, got {values.shape}")
        if not rows or not cols:
            raise InputError("the table needs at least one row and one column besides the totals")
        if np.isinf(values).any():
            raise InputError("table values must be finite")
        if (values < 0).any():
            r, c = np.argwhere(values < 0)[0]
            raise InputError(f"row {self._label(r, rows)!r}, column {self._label(c, cols)!r} is negative "
                             f"({values[r, c]:g}); tables here are of non-negative counts or magnitudes")
        values.setflags(write=False)
        object.__setattr__(self, "row_labels", rows)
        object.__setattr__(self, "column_labels", cols)
        object.__setattr__(self, "values", values)

    @staticmethod
    def _label(index: int, labels: tuple[str, ...]) -> str:
        return labels[index] if index < len(labels) else TOTAL_LABEL

    @classmethod
    def from_cells(cls, cells: np.ndarray, row_labels: Sequence[str] | None = None,
                   column_labels: Sequence[str] | None = None,
                   suppressed: np.ndarray | None = None) -> PublishedTable:
        """A table from its inner cells: totals are computed, then ``suppressed`` cells hidden.

        Parameters
        ----------
        cells : array_like, shape (R, C)
        row_labels, column_labels : sequence of str, optional
            Default ``"1"``, ``"2"``, ...
        suppressed : array_like of bool, shape (R, C) or (R + 1, C + 1), optional
        """
        arr = np.asarray(cells, dtype=float)
        if arr.ndim != 2 or arr.size == 0:
            raise InputError(f"cells must be a non-empty 2-D array, got shape {arr.shape}")
        full = np.zeros((arr.shape[0] + 1, arr.shape[1] + 1))
        full[:-1, :-1] = arr
        full[:-1, -1] = arr.sum(axis=1)
        full[-1, :-1] = arr.sum(axis=0)
        full[-1, -1] = arr.sum()
        if suppressed is not None:
            mask = np.asarray(suppressed, dtype=bool)
            if mask.shape == arr.shape:
                mask = np.pad(mask, ((0, 1), (0, 1)))
            if mask.shape != full.shape:
                raise InputError(f"suppressed must have shape {arr.shape} or {full.shape}, got {mask.shape}")
            full[mask] = np.nan
        rows = row_labels if row_labels is not None else [str(i + 1) for i in range(arr.shape[0])]
        cols = column_labels if column_labels is not None else [str(j + 1) for j in range(arr.shape[1])]
        return cls(tuple(rows), tuple(cols), full)

    @property
    def cells(self) -> np.ndarray:
        """The inner cells, shape (R, C) (NaN where suppressed)."""
        return self.values[:-1, :-1]

    @property
    def suppressed(self) -> np.ndarray:
        """Boolean mask of suppressed entries, shape (R + 1, C + 1)."""
        return np.isnan(self.values)

    def label(self, row: int, column: int) -> tuple[str, str]:
        """The (row, column) labels of an entry of :attr:`values` (totals are ``"Total"``)."""
        return self._label(row, self.row_labels), self._label(column, self.column_labels)

    def transpose(self) -> PublishedTable:
        """Rows and columns swapped."""
        return PublishedTable(self.column_labels, self.row_labels, self.values.T)

    def to_frame(self) -> pd.DataFrame:
        """The table with its totals; suppressed entries are NaN."""
        return pd.DataFrame(self.values, index=[*self.row_labels, TOTAL_LABEL],
                            columns=[*self.column_labels, TOTAL_LABEL])

    def to_text_frame(self, mark: str = "x") -> pd.DataFrame:
        """The table as text, as it would be printed: suppressed entries written ``mark``."""
        text = np.where(self.suppressed, mark, np.vectorize(lambda v: f"{v:g}", otypes=[object])(self.values))
        return pd.DataFrame(text, index=[*self.row_labels, TOTAL_LABEL], columns=[*self.column_labels, TOTAL_LABEL])

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dictionary (suppressed entries are ``None``)."""
        return json_safe({"rows": list(self.row_labels), "columns": list(self.column_labels),
                          "values": self.values})


def _parse_entry(value: Any) -> float:
    if isinstance(value, str):
        text = value.strip()
        if text.lower() in SUPPRESSED_MARKS:
            return math.nan
        return float(text.replace(" ", ""))
    if value is None or (isinstance(value, float) and math.isnan(value)):
        raise ValueError("empty")
    return float(value)


def published_table_from_frame(frame: pd.DataFrame, source: str = "the table") -> PublishedTable:
    """Read a table whose first column holds row labels and whose last row and column hold totals.

    Parameters
    ----------
    frame : pandas.DataFrame
        Column names are the column labels (the first column's name is
        ignored). Each entry is a non-negative number or ``x`` (suppressed).
    source : str
        The file's name, for messages.

    Returns
    -------
    PublishedTable

    Raises
    ------
    InputError
        Too few rows or columns, an empty entry, or an entry that is neither a
        number nor ``x``; the message names the row and column.
    """
    if frame.shape[1] < 3 or frame.shape[0] < 2:
        raise InputError(f"{source}: a table needs a label column, at least one data column and a total column, "
                         f"and at least one data row and a total row; got {frame.shape[0]} rows and "
                         f"{frame.shape[1]} columns")
    labels = [str(v).strip() for v in frame.iloc[:, 0]]
    columns = [str(c).strip() for c in frame.columns[1:]]
    raw = frame.iloc[:, 1:].to_numpy(dtype=object)
    values = np.empty(raw.shape)
    for (i, j), entry in np.ndenumerate(raw):  # parsing text entries one by one; tables are small
        try:
            values[i, j] = _parse_entry(entry)
        except (TypeError, ValueError):
            shown = "empty" if entry is None or (isinstance(entry, float) and math.isnan(entry)) else repr(entry)
            raise InputError(f"{source}: row {labels[i]!r}, column {columns[j]!r} is {shown}; write a number, "
                             "or x for a suppressed cell") from None
    try:
        return PublishedTable(tuple(labels[:-1]), tuple(columns[:-1]), values)
    except InputError as exc:
        raise InputError(f"{source}: {exc}") from None


def read_published_table(path: str) -> PublishedTable:
    """Read a published table from a file (CSV, Excel, ...); see :func:`published_table_from_frame`."""
    from rumap.io.data import read_table

    return published_table_from_frame(read_table(path), source=str(path))


def paper_table1() -> PublishedTable:
    """Table 1 of Domingo-Ferrer, Oganian & Torra: turnover by economic activity and size class.

    Four cells are suppressed (x1, x2 in row 5 and x3, x4 in row 6, columns
    5 and 7). The paper prints 1148 as the total of size class 4, whose cells
    add up to 1448 (and the column totals to the grand total 20139 only with
    1448); the corrected value is used. The bounds of the suppressed cells do
    not depend on it.
    """
    cells = np.array([
        [80, 253, 54, 0, 0],
        [641, 3694, 2062, 746, 0],
        [592, np.nan, 329, np.nan, 1440],
        [57, np.nan, 946, np.nan, 2027],
        [78, 0, 890, 1719, 1743],
    ])
    full = np.zeros((6, 6))
    full[:5, :5] = cells
    full[:5, 5] = [387, 7143, 3898, 4281, 4430]
    full[5] = [1448, 4353, 4281, 4847, 5210, 20139]
    return PublishedTable(("2,3", "4", "5", "6", "7"), ("4", "5", "6", "7", "8"), full)


def paper_table1_completed() -> PublishedTable:
    """Table 1 with its four suppressed cells filled by one feasible completion (for demonstrations).

    x1 = 100, x2 = 1437, x3 = 306, x4 = 945 satisfy every published total of
    :func:`paper_table1`; the paper does not give the true values. Merging rows
    5 and 6 of this table gives the paper's Table 2 exactly.
    """
    table = paper_table1()
    values = np.array(table.values)
    values[2, 1], values[2, 3], values[3, 1], values[3, 3] = 100, 1437, 306, 945
    return PublishedTable(table.row_labels, table.column_labels, values)


# ---------------------------------------------------------------------------------------------------------------
# bounds by linear programming
# ---------------------------------------------------------------------------------------------------------------

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


def _lp_bounds(matrix: np.ndarray, rhs: np.ndarray, lower: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
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


def _check_distribution(distribution: Callable[[np.ndarray], Any] | None) -> None:
    if distribution is not None and not callable(distribution):
        raise InputError("distribution must be a function of the array of possible values returning their "
                         "weights, or None for the uniform distribution")


def _risks(low: np.ndarray, high: np.ndarray, resolution: float,
           distribution: Callable[[np.ndarray], Any] | None) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Snap LP bounds to the grid and compute m and DR for every cell."""
    m = count_values(low, high, resolution)
    snapped_low = np.ceil(low / resolution - _SNAP) * resolution + 0.0  # + 0.0 turns -0.0 into 0.0
    with np.errstate(invalid="ignore"):
        snapped_high = np.where(np.isfinite(high), np.floor(high / resolution + _SNAP) * resolution, np.inf)
    if distribution is None:
        risk = np.asarray(uniform_risk(np.maximum(m, 1.0)), dtype=float).reshape(-1)
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
        risk[i] = entropy_risk(weights)
    return snapped_low, snapped_high, m, risk


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
    """
    if not isinstance(table, PublishedTable):
        raise InputError("table must be a PublishedTable (see published_table_from_frame)")
    resolution = check_scalar("resolution", resolution)
    _check_distribution(distribution)
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
    low, high = _lp_bounds(matrix, rhs, lower_bounds)
    low, high, m, risk = _risks(low, high, resolution, distribution)
    return TableBounds(("row", "column"), labels, low, high, m, risk,
                       method="insider" if lower else "suppression",
                       config={"resolution": resolution, "distribution": "uniform" if distribution is None else "given"})


def paper_table1_bounds() -> TableBounds:
    """:func:`suppression_bounds` of :func:`paper_table1` (Table 1 of Domingo-Ferrer, Oganian & Torra)."""
    return suppression_bounds(paper_table1())


# ---------------------------------------------------------------------------------------------------------------
# insiders
# ---------------------------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class InsiderView:
    """What an insider and an outsider know about the rest of a cell.

    An insider who contributed ``contribution`` to a cell known to lie in
    [cell_min, cell_max] knows the other contributors' total lies in
    [max(cell_min - contribution, 0), cell_max - contribution]; an outsider
    only knows it lies in [0, cell_max].

    Parameters
    ----------
    cell_min, cell_max, contribution : float
    insider_min, insider_max, outsider_min, outsider_max : float
        The two ranges for the other contributors' total.
    insider_values, outsider_values : float
        m for each range.
    insider_risk, outsider_risk : float
        1 / log2 m.
    """

    cell_min: float
    cell_max: float
    contribution: float
    insider_min: float
    insider_max: float
    outsider_min: float
    outsider_max: float
    insider_values: float
    outsider_values: float
    insider_risk: float
    outsider_risk: float

    @property
    def insider_relative_width(self) -> float:
        """Width of the insider's range over its midpoint (the paper's "within 1%" for 595..604)."""
        mid = (self.insider_min + self.insider_max) / 2
        return (self.insider_max - self.insider_min) / mid if mid > 0 else math.inf

    @property
    def outsider_relative_width(self) -> float:
        """Width of the outsider's range over the insider's midpoint (the paper's "almost 170%")."""
        mid = (self.insider_min + self.insider_max) / 2
        return (self.outsider_max - self.outsider_min) / mid if mid > 0 else math.inf

    def to_frame(self) -> pd.DataFrame:
        """Two rows, insider and outsider: min, max, values, risk."""
        return pd.DataFrame({
            "intruder": ["insider", "outsider"], "min": [self.insider_min, self.outsider_min],
            "max": [self.insider_max, self.outsider_max], "values": [self.insider_values, self.outsider_values],
            "risk": [self.insider_risk, self.outsider_risk],
            "relative_width": [self.insider_relative_width, self.outsider_relative_width]})

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dictionary."""
        return json_safe({**{k: getattr(self, k) for k in self.__dataclass_fields__},
                          "insider_relative_width": self.insider_relative_width,
                          "outsider_relative_width": self.outsider_relative_width})


def insider_view(cell_min: float, cell_max: float, contribution: float, resolution: float = 1.0) -> InsiderView:
    """Ranges and risks of the other contributors' total for an insider and an outsider.

    Parameters
    ----------
    cell_min, cell_max : float
        The cell's bounds from the published tables (e.g. from LP bounds).
    contribution : float
        The insider's own contribution, at most ``cell_max``.
    resolution : float, default 1

    Returns
    -------
    InsiderView

    Notes
    -----
    The paper's example: 995 <= z <= 1004 and company A contributes 400; A
    knows company B's turnover lies in [595, 604] (m = 10, DR = 0.301) while
    an outsider only knows it lies in (0, 1004] (DR = 0.100). For the
    insider, 1 / H(z | released tables) becomes 1 / H(z | released tables,
    insider's contribution).

    References
    ----------
    Domingo-Ferrer, Oganian & Torra, Section 4.4 (last paragraph).
    """
    resolution = check_scalar("resolution", resolution)
    low = check_scalar("cell_min", cell_min, PARAMETERS["own_contribution"])
    high = float(cell_max)
    if not math.isfinite(high) or high < low:
        raise InputError(f"cell_max must be a finite number >= cell_min = {low:g}, got {cell_max!r}")
    own = check_scalar("contribution", contribution, PARAMETERS["own_contribution"])
    if own > high:
        raise InputError(f"contribution {own:g} exceeds the cell's largest possible value {high:g}")
    ins_lo, ins_hi = max(low - own, 0.0), high - own
    m_in = float(count_values(ins_lo, ins_hi, resolution))
    m_out = float(count_values(0.0, high, resolution))
    return InsiderView(low, high, own, ins_lo, ins_hi, 0.0, high, m_in, m_out,
                       float(uniform_risk(max(m_in, 1.0))), float(uniform_risk(max(m_out, 1.0))))


@dataclass(frozen=True)
class InsiderBounds:
    """Bounds of a table's suppressed cells for an outsider and for an insider of one cell.

    Parameters
    ----------
    row, column : str
        The insider's cell.
    contribution : float
        The insider's own contribution to it.
    outsider, insider : TableBounds
        All suppressed cells' bounds without and with x[row, column] >= contribution.
    view : InsiderView
        The other contributors' total in the insider's cell, for both.
    """

    row: str
    column: str
    contribution: float
    outsider: TableBounds
    insider: TableBounds
    view: InsiderView

    def to_frame(self) -> pd.DataFrame:
        """One row per suppressed cell: outsider and insider min, max, values, risk."""
        out = self.outsider.to_frame()
        ins = self.insider.to_frame()
        for col in ("min", "max", "values", "risk"):
            out[f"insider_{col}"] = ins[col].to_numpy()
        return out

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dictionary."""
        return json_safe({"row": self.row, "column": self.column, "contribution": self.contribution,
                          "outsider": self.outsider.to_dict(), "insider": self.insider.to_dict(),
                          "view": self.view.to_dict()})


def insider_bounds(table: PublishedTable, row: str, column: str, contribution: float, *,
                   resolution: float = 1.0) -> InsiderBounds:
    """A posteriori risk for a respondent who knows its own contribution to a suppressed cell.

    Knowing x[row, column] >= contribution tightens that cell and, through the
    margins, the other suppressed cells; the insider's uncertainty about the
    other contributors in its cell is [min - contribution, max - contribution].

    Parameters
    ----------
    table : PublishedTable
    row, column : str
        Labels of a suppressed cell.
    contribution : float
        The insider's contribution, >= 0.
    resolution : float, default 1

    Returns
    -------
    InsiderBounds

    References
    ----------
    Domingo-Ferrer, Oganian & Torra, Sections 3 and 4.4 (insiders).
    """
    outsider = suppression_bounds(table, resolution=resolution)
    key = (str(row), str(column))
    cell = outsider.cell(*key)
    own = check_scalar("own_contribution", contribution)
    if own > cell["max"]:
        raise InputError(f"contribution {own:g} exceeds the largest value {cell['max']:g} of row {key[0]!r}, "
                         f"column {key[1]!r}")
    insider = suppression_bounds(table, resolution=resolution, lower={key: own})
    inner = insider.cell(*key)
    view = insider_view(inner["min"], inner["max"], own, resolution)
    return InsiderBounds(key[0], key[1], own, outsider, insider, view)


# ---------------------------------------------------------------------------------------------------------------
# table redesign
# ---------------------------------------------------------------------------------------------------------------

def merge_categories(table: PublishedTable, labels: Sequence[str], *, axis: str = "rows",
                     merged_label: str | None = None) -> PublishedTable:
    """Table redesign: combine rows (or columns) of a table into one.

    Parameters
    ----------
    table : PublishedTable
        The original table; the merged rows must not be suppressed.
    labels : sequence of str
        At least two row (or column) labels to combine.
    axis : {"rows", "columns"}
    merged_label : str, optional
        Default: the labels joined by commas (``"5,6"``).

    Returns
    -------
    PublishedTable
        The redesigned table, the merged row in place of the first merged one.

    References
    ----------
    Domingo-Ferrer, Oganian & Torra, Section 4.3 and Table 2.
    """
    if axis not in _AXES:
        raise InputError(f"axis must be one of {', '.join(_AXES)}, got {axis!r}")
    if axis == "columns":
        return merge_categories(table.transpose(), labels, axis="rows", merged_label=merged_label).transpose()
    parts = _part_indices(table, labels)
    block = table.values[parts]
    if np.isnan(block).any():
        raise InputError("merged rows must not contain suppressed cells")
    merged = block.sum(axis=0)
    keep = [i for i in range(len(table.row_labels)) if i not in parts[1:]]
    values = table.values.copy()
    values[parts[0]] = merged
    values = values[[*keep, len(table.row_labels)]]
    row_labels = [table.row_labels[i] for i in keep]
    row_labels[keep.index(parts[0])] = merged_label or ",".join(table.row_labels[i] for i in parts)
    return PublishedTable(tuple(row_labels), table.column_labels, values)


_AXES = ("rows", "columns")


def _part_indices(table: PublishedTable, labels: Sequence[str]) -> list[int]:
    names = [str(label) for label in labels]
    if len(names) < 2 or len(set(names)) != len(names):
        raise InputError(f"give at least two different labels to merge, got {names}")
    missing = [n for n in names if n not in table.row_labels]
    if missing:
        raise InputError(f"no row {missing[0]!r}; rows are {', '.join(table.row_labels)}")
    return sorted(table.row_labels.index(n) for n in names)


def redesign_bounds(table: PublishedTable, merged_label: str, parts: Sequence[str], *, axis: str = "rows",
                    resolution: float = 1.0,
                    distribution: Callable[[np.ndarray], Any] | None = None) -> TableBounds:
    """Risk of the original cells behind a merged row (or column) of a redesigned table.

    Parameters
    ----------
    table : PublishedTable
        The released (redesigned) table.
    merged_label : str
        The merged row's label, e.g. ``"5,6"``.
    parts : sequence of str
        Labels of the original rows combined in it (at least two).
    axis : {"rows", "columns"}
    resolution : float, default 1
    distribution : callable, optional
        As in :func:`suppression_bounds`.

    Returns
    -------
    TableBounds
        One entry per original cell (part, column), the parts' totals included
        (column ``"Total"``).

    Notes
    -----
    Unknowns: the parts' cells x[p, c] and totals t[p]. Constraints (Eq 4 of the
    paper): sum_c x[p, c] - t[p] = 0 for each part; sum_p x[p, c] = published
    merged value for each column and for the total; all >= 0. Two LPs per
    unknown give its range, then m and DR as for suppression.

    References
    ----------
    Domingo-Ferrer, Oganian & Torra, Section 4.3, Eq (4) and Table 2.
    """
    if axis not in _AXES:
        raise InputError(f"axis must be one of {', '.join(_AXES)}, got {axis!r}")
    if not isinstance(table, PublishedTable):
        raise InputError("table must be a PublishedTable")
    if axis == "columns":
        result = redesign_bounds(table.transpose(), merged_label, parts, axis="rows", resolution=resolution,
                                 distribution=distribution)
        labels = tuple((c, r) for r, c in result.labels)
        return TableBounds(("row", "column"), labels, result.min, result.max, result.values, result.risk,
                           "redesign", result.config)
    resolution = check_scalar("resolution", resolution)
    _check_distribution(distribution)
    merged_label = str(merged_label)
    if merged_label not in table.row_labels:
        raise InputError(f"no row {merged_label!r}; rows are {', '.join(table.row_labels)}")
    names = [str(p) for p in parts]
    if len(names) < 2 or len(set(names)) != len(names):
        raise InputError(f"give at least two different original rows behind {merged_label!r}, got {names}")
    merged = table.values[table.row_labels.index(merged_label)]
    if np.isnan(merged).any():
        raise InputError(f"row {merged_label!r} has suppressed entries")
    n_parts, n_cols = len(names), merged.size
    index = np.arange(n_parts * n_cols).reshape(n_parts, n_cols)
    equations = np.zeros((n_parts + n_cols, n_parts * n_cols))
    for p in range(n_parts):  # each original row adds up to its (unknown) total
        equations[p, index[p, :-1]] = 1.0
        equations[p, index[p, -1]] = -1.0
    for c in range(n_cols):  # each column of the parts adds up to the published merged value
        equations[n_parts + c, index[:, c]] = 1.0
    rhs = np.concatenate([np.zeros(n_parts), merged])
    low, high = _lp_bounds(equations, rhs, np.zeros(n_parts * n_cols))
    low, high, m, risk = _risks(low, high, resolution, distribution)
    columns = [*table.column_labels, TOTAL_LABEL]
    labels = tuple((p, c) for p in names for c in columns)
    return TableBounds(("row", "column"), labels, low, high, m, risk, "redesign",
                       {"merged": merged_label, "parts": names, "resolution": resolution})


# ---------------------------------------------------------------------------------------------------------------
# linked tables
# ---------------------------------------------------------------------------------------------------------------

def _parse_projection(spec: Any, axis_names: tuple[str, ...]) -> tuple[int, int]:
    if isinstance(spec, str):
        if len(spec) != 2 or spec[0] == spec[1] or any(ch not in axis_names for ch in spec):
            raise InputError(f"projection {spec!r} must name two different axes of {''.join(axis_names)}, "
                             "e.g. 'AS'")
        pair = (axis_names.index(spec[0]), axis_names.index(spec[1]))
    else:
        try:
            pair = tuple(int(a) for a in spec)
        except (TypeError, ValueError):
            raise InputError(f"projection {spec!r} must be two axis names or indices") from None
        if len(pair) != 2 or pair[0] == pair[1] or not all(0 <= a < 3 for a in pair):
            raise InputError(f"projection {spec!r} must be two different axes among 0, 1, 2")
    return tuple(sorted(pair))  # type: ignore[return-value]


def linked_bounds(cube: np.ndarray, released: Sequence[Any], *, axis_names: Sequence[str] = ("A", "S", "R"),
                  labels: Sequence[Sequence[str]] | None = None, resolution: float = 1.0,
                  distribution: Callable[[np.ndarray], Any] | None = None) -> TableBounds:
    """Risk of every cell of a 3-D table released only as some of its 2-D projections.

    Parameters
    ----------
    cube : array_like, shape (I, J, K)
        The unreleased table z[a, s, r] (non-negative).
    released : sequence
        The released projections, each two axis names (``"AS"``) or indices
        (``(0, 1)``): AS sums over R, AR over S, SR over A.
    axis_names : sequence of 3 str, default ("A", "S", "R")
        One-letter names of the axes (activity, size, region in the paper).
    labels : sequence of 3 sequences of str, optional
        Category labels per axis (default ``"1"``, ``"2"``, ...).
    resolution : float, default 1
    distribution : callable, optional
        As in :func:`suppression_bounds`.

    Returns
    -------
    TableBounds
        One entry per cell of the cube, axes named by ``axis_names``.

    Notes
    -----
    The released projections are linear equations on the cube's cells:
    z[a, s] = sum_r z[a, s, r] (Eq 5), adding z[a, r] = sum_s z[a, s, r] (Eq 6)
    and z[s, r] = sum_a z[a, s, r] (Eq 7). Two LPs per cell give its range.
    With all three projections the LP range may contain values no integer
    table attains, so m is an upper bound on the count of possible values
    (and DR a lower bound).

    References
    ----------
    Domingo-Ferrer, Oganian & Torra, Section 4.4, Eq (5)-(7).
    """
    resolution = check_scalar("resolution", resolution)
    _check_distribution(distribution)
    names = tuple(str(a) for a in axis_names)
    if len(names) != 3 or len(set(names)) != 3:
        raise InputError(f"axis_names must be three different names, got {list(names)}")
    try:
        z = np.asarray(cube, dtype=float)
    except (TypeError, ValueError):
        raise InputError("cube must be a numeric 3-D array") from None
    if z.ndim != 3 or z.size == 0:
        raise InputError(f"cube must be a non-empty 3-D array, got shape {z.shape}")
    if not np.all(np.isfinite(z)) or (z < 0).any():
        raise InputError("cube cells must be finite and non-negative")
    if isinstance(released, str):
        released = [released]
    pairs = sorted({_parse_projection(p, names) for p in released})
    if labels is None:
        labels = [[str(i + 1) for i in range(n)] for n in z.shape]
    labels = [[str(v) for v in axis] for axis in labels]
    if len(labels) != 3 or [len(a) for a in labels] != list(z.shape):
        raise InputError(f"labels must give {z.shape[0]}, {z.shape[1]} and {z.shape[2]} category names")
    flat = np.arange(z.size).reshape(z.shape)
    blocks, rhs = [], []
    for pair in pairs:
        summed = ({0, 1, 2} - set(pair)).pop()
        proj_index = np.moveaxis(flat, summed, -1).reshape(-1, z.shape[summed])
        block = np.zeros((proj_index.shape[0], z.size))
        np.put_along_axis(block, proj_index, 1.0, axis=1)
        blocks.append(block)
        rhs.append(z.sum(axis=summed).reshape(-1))
    equations = np.vstack(blocks) if blocks else np.zeros((0, z.size))
    values = np.concatenate(rhs) if rhs else np.zeros(0)
    if equations.shape[0] == 0:
        low, high = np.zeros(z.size), np.full(z.size, np.inf)
    else:
        low, high = _lp_bounds(equations, values, np.zeros(z.size))
    low, high, m, risk = _risks(low, high, resolution, distribution)
    cell_labels = tuple((labels[0][a], labels[1][s], labels[2][r]) for a, s, r in np.ndindex(z.shape))
    return TableBounds(names, cell_labels, low, high, m, risk, "linked",
                       {"released": ["".join(names[i] for i in p) for p in pairs], "resolution": resolution})


# ---------------------------------------------------------------------------------------------------------------
# rounding
# ---------------------------------------------------------------------------------------------------------------

def round_table(cells: np.ndarray, base: float) -> np.ndarray:
    """Conventional rounding of every cell to the nearest multiple of ``base`` (halves up).

    Returns
    -------
    ndarray, same shape as ``cells``
        n b with n = floor(x / b + 1/2), so that x lies in [(n - 1/2) b, (n + 1/2) b).
    """
    base = check_scalar("base", base, PARAMETERS["rounding_base"])
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
    base = check_scalar("base", base, PARAMETERS["rounding_base"])
    resolution = check_scalar("resolution", resolution)
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
    first = np.ceil(low / resolution - _SNAP) + 0.0
    end = np.ceil(high / resolution - _SNAP)
    m = end - first
    risk = np.asarray(uniform_risk(np.maximum(m, 1.0)), dtype=float).reshape(original.shape)
    mse = float(np.mean((rounded - original) ** 2))
    return RoundingRisk(base, original, rounded, first * resolution, (end - 1) * resolution, m, risk, mse)


def _max(values: np.ndarray) -> float:
    return float(np.max(values))


def _mean(values: np.ndarray) -> float:
    return float(np.mean(values))


#: How a table's cell risks become one R: the largest or the mean.
RISK_STATISTICS: dict[str, Callable[[np.ndarray], float]] = {"max": _max, "mean": _mean}

_STATISTIC_LABELS = {"max": "R = largest cell risk 1/log2 m", "mean": "R = mean cell risk 1/log2 m"}


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
    if statistic not in RISK_STATISTICS:
        raise InputError(f"unknown statistic {statistic!r}; choose from {', '.join(RISK_STATISTICS)}")
    grid = check_array("base", bases, PARAMETERS["rounding_base"])
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
