"""An original file and its masked version, row by row: shared checks for the risk measures.

Row ``i`` of the masked file is the masked version of row ``i`` of the original
file. Both may be numpy arrays of shape ``(n, p)`` (or ``(n,)``) or pandas
DataFrames with the same columns. The checks are those of :mod:`rumap._validation`
(:class:`~rumap._validation.Table`, :func:`~rumap._validation.resolve_columns`,
:func:`~rumap._validation.frame_matrix`), with the file's name in the messages.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from rumap._validation import Arguments, Table, assumes_valid, frame_matrix, resolve_columns

__all__ = ["as_frame", "paired_frames", "select_columns", "numeric_matrix"]

_TABLE = Table()
_FILE = Table(min_rows=2)


@assumes_valid
def as_frame(data: Any, source: str) -> pd.DataFrame:
    """A DataFrame view of ``data``; arrays get columns ``x1 .. xp``.

    Parameters
    ----------
    data : DataFrame or array_like, shape (n,) or (n, p)
        The table.
    source : str
        Its name in messages.

    Raises
    ------
    InputError
        If ``data`` is neither a DataFrame nor a 1-D/2-D array.
    """
    return _TABLE.check(source, data)


@assumes_valid
def paired_frames(original: Any, masked: Any, original_name: str = "original",
                  masked_name: str = "masked") -> tuple[pd.DataFrame, pd.DataFrame]:
    """Both files as DataFrames with the same number of rows (at least 2) and the same columns.

    Parameters
    ----------
    original, masked : DataFrame or array_like
        The two files.
    original_name, masked_name : str
        Their names in messages.

    Raises
    ------
    InputError
        Different numbers of rows, fewer than 2 rows, or a column of the
        original that the masked file lacks.
    """
    orig = _FILE.check(original_name, original)
    args = Arguments({original_name: original}, {original_name: orig})
    mask = Table(min_rows=2, masked_of=original_name).check(masked_name, masked, args)
    return orig, mask[list(orig.columns)]


@assumes_valid
def select_columns(frame: pd.DataFrame, columns: Sequence[str | int] | None, source: str,
                   what: str = "key") -> list[str]:
    """Resolve column names or positions; ``None`` means every column.

    Parameters
    ----------
    frame : DataFrame
        The table (string column names, as :func:`as_frame` gives).
    columns : sequence of str or int, optional
        Names or 0-based positions.
    source, what : str
        The table's name and the kind of column, for messages.

    Raises
    ------
    InputError
        An unknown name, a position out of range, a repeated column or an empty list.
    """
    if columns is None:
        return list(frame.columns)
    return resolve_columns(list(frame.columns), columns, source, f"{what} ")


@assumes_valid
def numeric_matrix(frame: pd.DataFrame, columns: Sequence[str], source: str) -> np.ndarray:
    """The columns as a finite float array of shape ``(n, len(columns))``.

    Parameters
    ----------
    frame : DataFrame
        The table.
    columns : sequence of str
        The columns.
    source : str
        The table's name in messages.

    Raises
    ------
    InputError
        A non-numeric column or a missing/infinite value (named with its row).
    """
    return frame_matrix(frame, columns, source)
