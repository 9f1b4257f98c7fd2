"""Reading a published table from a file: row labels first, totals last, ``x`` for a suppressed cell."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd

from rumap.errors import InputError
from rumap.io.data import read_table
from rumap.tables.published import SUPPRESSED_MARKS, PublishedTable

__all__ = ["published_table_from_frame", "read_published_table"]


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
    """Read a published table from a file (CSV, Excel, ...); see :func:`published_table_from_frame`.

    Parameters
    ----------
    path : str
        The file (CSV, TSV, Excel, Parquet, ...).

    Returns
    -------
    PublishedTable
    """
    return published_table_from_frame(read_table(path), source=str(path))
