"""Tables from files: a published table (row labels first, totals last, ``x`` for a suppressed cell), and the
contributions of respondents to the cells of a magnitude table.

The file itself is read by :func:`rumap.io.data.read_table` (every read of a data file is in :mod:`rumap.io`);
this module makes the table's objects (:class:`rumap.tables.published.PublishedTable`,
:class:`rumap.tables.rules.Contributions`) of the frame it gives, naming the file, row and column of a bad
entry.
"""

from __future__ import annotations

import math
import os
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from rumap._validation import InstanceOf, parse_number, validate_params
from rumap.errors import InputError
from rumap.examples import example_file
from rumap.io.data import read_table
from rumap.tables.published import SUPPRESSED_MARKS, PublishedTable
from rumap.tables.rules import Contributions

__all__ = ["published_table_from_frame", "read_published_table", "contributions_from_frame", "read_contributions"]


def _example_table() -> Path:
    return example_file("table.csv", "row,c1,c2,Total\na,x,2,5\nb,x,4,5\nTotal,4,6,10\n")


def _example_contributions() -> Path:
    return example_file("contributions.csv", "cell,value\nA,59\nA,41\nB,7\n")


def _parse_entry(value: Any) -> float:
    if isinstance(value, str):
        text = value.strip()
        if text.lower() in SUPPRESSED_MARKS:
            return math.nan
        return parse_number(text.replace(" ", ""))
    if value is None or (isinstance(value, float) and math.isnan(value)):
        raise ValueError("empty")
    return float(value)


@validate_params({"frame": InstanceOf(pd.DataFrame, "a pandas DataFrame")},
                 example=lambda: {"frame": pd.DataFrame({"row": ["a", "Total"], "c1": ["x", "3"], "Total": ["3", "3"]})})
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


@validate_params({"path": InstanceOf((str, os.PathLike), "a file path")}, example=lambda: {"path": _example_table()})
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


@validate_params({"frame": InstanceOf(pd.DataFrame, "a pandas DataFrame")},
                 example=lambda: {"frame": pd.DataFrame({"cell": ["A", "A", "B"], "value": [59.0, 41.0, 7.0]})})
def contributions_from_frame(frame: pd.DataFrame, cell_column: str = "cell", value_column: str = "value",
                             source: str = "the data") -> Contributions:
    """Contributions from a table with one row per respondent.

    Parameters
    ----------
    frame : pandas.DataFrame
        At least the two columns below; other columns are ignored.
    cell_column : str, default "cell"
        The column naming the cell each respondent falls in.
    value_column : str, default "value"
        The column with the respondent's contribution (non-negative number).
    source : str
        The file name, for messages.

    Returns
    -------
    Contributions

    Raises
    ------
    InputError
        A missing column, a missing cell label, or a value that is not a
        finite non-negative number; the message names the file and column.
    """
    for column in (cell_column, value_column):
        if column not in frame.columns:
            raise InputError(f"{source}: no column {column!r} (columns: {', '.join(map(str, frame.columns))})")
    values = pd.to_numeric(frame[value_column], errors="coerce").to_numpy(dtype=float)
    bad = np.isnan(values)
    if bad.any():
        row = int(np.argmax(bad))
        raise InputError(f"{source}: column {value_column!r} row {row + 1} is not a number "
                         f"({frame[value_column].iloc[row]!r})")
    try:
        return Contributions(frame[cell_column].to_numpy(dtype=object), values)
    except InputError as exc:
        raise InputError(f"{source}: {exc}") from None


@validate_params({"path": InstanceOf((str, os.PathLike), "a file path")}, example=lambda: {"path": _example_contributions()})
def read_contributions(path: str, cell_column: str = "cell", value_column: str = "value") -> Contributions:
    """Read contributions from a data file (CSV, Excel, ...); see :func:`contributions_from_frame`.

    Parameters
    ----------
    path : str
        The file (CSV, Excel, ...).
    cell_column, value_column : str
        The columns naming each contribution's cell and holding its value.

    Returns
    -------
    Contributions
    """
    return contributions_from_frame(read_table(path), cell_column, value_column, source=str(path))
