"""A published 2-D table with its margins, suppressed entries marked, and the paper's Table 1."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from rumap._validation import MAX_MAGNITUDE, assumes_valid
from rumap.errors import InputError
from rumap.result import json_safe

__all__ = ["SUPPRESSED_MARKS", "TOTAL_LABEL", "PublishedTable", "paper_table1", "paper_table1_completed", "code_order"]


#: Written in a table file for a suppressed cell (case-insensitive).
SUPPRESSED_MARKS = frozenset({"x"})


#: Label given to the totals row and column when a table is built from cells.
TOTAL_LABEL = "Total"



def _check_labels(labels: tuple[str, ...], kind: str) -> None:
    """Refuse repeated labels, and a total among the inner rows or columns (totals come last)."""
    seen: set[str] = set()
    for position, label in enumerate(labels, start=1):
        if label.strip().lower() == TOTAL_LABEL.lower():
            raise InputError(f"{kind} {position} is labelled {label!r} but is not the last {kind}: "
                             f"the total {kind} must come last, once")
        if label in seen:
            raise InputError(f"{kind} label {label!r} appears more than once: each {kind} needs its own label")
        seen.add(label)


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
        published = values[~np.isnan(values)]
        if published.size and np.abs(published).max() > MAX_MAGNITUDE:
            r, c = np.argwhere(np.abs(np.nan_to_num(values)) > MAX_MAGNITUDE)[0]
            raise InputError(f"row {self._label(r, rows)!r}, column {self._label(c, cols)!r} has magnitude "
                             f"{abs(values[r, c]):.3g}, beyond {MAX_MAGNITUDE:.0e}: rescale the table")
        if (values < 0).any():
            r, c = np.argwhere(values < 0)[0]
            raise InputError(f"row {self._label(r, rows)!r}, column {self._label(c, cols)!r} is negative "
                             f"({values[r, c]:g}); tables here are of non-negative counts or magnitudes")
        _check_labels(rows, "row")
        _check_labels(cols, "column")
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
        try:
            arr = np.asarray(cells, dtype=float)
        except (TypeError, ValueError):
            raise InputError("cells must be a 2-D array of numbers (suppress cells with `suppressed`, "
                             "not with text)") from None
        if arr.ndim != 2 or arr.size == 0:
            raise InputError(f"cells must be a non-empty 2-D array, got shape {arr.shape}")
        if not np.isfinite(arr).all():
            r, c = np.argwhere(~np.isfinite(arr))[0]
            raise InputError(f"cells must be finite numbers; row {r + 1}, column {c + 1} is {arr[r, c]} "
                             "(mark suppressed cells with `suppressed`)")
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


@assumes_valid
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


@assumes_valid
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


@assumes_valid
def code_order(code: str) -> tuple:
    """Sort key of a code: numbers in numeric order (2 before 10), then text with its digits read as numbers.

    Parameters
    ----------
    code : str

    Returns
    -------
    tuple

    Examples
    --------
    >>> sorted(["10", "2", "1", "-3", "2.5"], key=code_order)
    ['-3', '1', '2', '2.5', '10']
    >>> sorted(["R10", "R2", "b", "R1", "7"], key=code_order)
    ['7', 'R1', 'R2', 'R10', 'b']
    """
    try:
        number = float(code)
    except ValueError:
        number = None
    if number is not None and np.isfinite(number):
        return (0, number, code)
    parts = re.split(r"(\d+)", code)
    return (1, tuple((0, int(part), "") if part.isdigit() else (1, 0, part) for part in parts if part), code)
