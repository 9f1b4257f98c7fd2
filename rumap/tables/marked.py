"""A protected table as it is published: each value as text, each suppressed cell written with a chosen mark.

Statistical offices print a suppressed cell as a blank, as ``x`` or as a code
(``..``, ``C``, ``-999``). :func:`marked_table` writes a
:class:`rumap.tables.published.PublishedTable` that way, with its totals: every
published value as the shortest text that reads back to the same number, so a
file made from it (:func:`rumap.io.data.table_bytes`) loses no digit.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from rumap._validation import InstanceOf, validate_params
from rumap.errors import InputError
from rumap.tables.published import TOTAL_LABEL, PublishedTable

__all__ = ["SUPPRESSION_MARKS", "marked_table"]

#: The usual marks of a suppressed cell, by name; any other text is a code of the user's.
SUPPRESSION_MARKS = {"blank": "", "x": "x"}


def _text(value: float) -> str:
    """The shortest text that reads back to ``value`` (``253`` for 253.0)."""
    return str(int(value)) if float(value).is_integer() and abs(value) < 2**53 else repr(float(value))


def _example_table() -> PublishedTable:
    return PublishedTable(("a", "b"), ("u", "v"), np.array([[1.5, np.nan, 9.5], [3.0, np.nan, 7.0],
                                                            [4.5, 12.0, 16.5]]))


@validate_params({"table": InstanceOf(PublishedTable, "a PublishedTable"), "mark": InstanceOf(str, "text"),
                  "row_header": InstanceOf(str, "text")},
                 example=lambda: {"table": _example_table(), "mark": "x"})
def marked_table(table: PublishedTable, mark: str = "x", row_header: str = "") -> pd.DataFrame:
    """The table as text: row labels first, then each column with the totals, suppressed cells as ``mark``.

    Parameters
    ----------
    table : PublishedTable
        The protected table; a NaN entry is suppressed.
    mark : str, default "x"
        What a suppressed cell shows: ``""`` (blank), ``"x"`` or a code of at
        most 20 characters on one line.
    row_header : str, default ""
        The header of the row labels' column.

    Returns
    -------
    DataFrame
        Text only (object columns), one row per row of the table and its total row.

    Raises
    ------
    InputError
        A mark on more than one line, longer than 20 characters, or that
        reads as a number the table publishes (a reader could not tell them apart).

    Examples
    --------
    >>> marked_table(_example_table(), "x", row_header="region").to_dict("list")
    {'region': ['a', 'b', 'Total'], 'u': ['1.5', '3', '4.5'], 'v': ['x', 'x', '12'], 'Total': ['9.5', '7', '16.5']}
    """
    if "\n" in mark or "\r" in mark or len(mark) > 20:
        raise InputError(f"mark must be at most 20 characters on one line, got {mark!r}")
    values = np.asarray(table.values, dtype=float)
    published = {_text(v) for v in values[~np.isnan(values)]}
    if mark.strip() and mark.strip() in published:
        raise InputError(f"mark {mark!r} is also a published value of the table: choose another code")
    text = np.array([[mark if np.isnan(v) else _text(v) for v in row] for row in values], dtype=object)
    columns = [str(c) for c in (*table.column_labels, TOTAL_LABEL)]
    frame = pd.DataFrame(text, columns=columns)
    frame.insert(0, row_header if row_header not in columns else f"{row_header} ",
                 [*table.row_labels, TOTAL_LABEL])
    return frame
