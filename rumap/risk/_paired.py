"""An original file and its masked version, row by row: shared checks for the risk measures.

Row ``i`` of the masked file is the masked version of row ``i`` of the original
file. Both may be numpy arrays of shape ``(n, p)`` (or ``(n,)``) or pandas
DataFrames with the same columns.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from rumap.errors import InputError

__all__ = ["as_frame", "paired_frames", "select_columns", "numeric_matrix"]


def as_frame(data: Any, source: str) -> pd.DataFrame:
    """A DataFrame view of ``data``; arrays get columns ``x1 .. xp``.

    Raises
    ------
    InputError
        If ``data`` is neither a DataFrame nor a 1-D/2-D array.
    """
    if isinstance(data, pd.DataFrame):
        frame = data.copy()
        frame.columns = [str(c) for c in frame.columns]
        return frame.reset_index(drop=True)
    try:
        arr = np.asarray(data)
    except Exception as exc:  # anything numpy cannot hold
        raise InputError(f"{source}: cannot be read as a table ({exc})") from None
    if arr.ndim == 1:
        arr = arr.reshape(-1, 1)
    if arr.ndim != 2:
        raise InputError(f"{source}: must be a table of shape (n, p), got shape {arr.shape}")
    return pd.DataFrame(arr, columns=[f"x{j + 1}" for j in range(arr.shape[1])])


def paired_frames(original: Any, masked: Any, original_name: str = "original",
                  masked_name: str = "masked") -> tuple[pd.DataFrame, pd.DataFrame]:
    """Both files as DataFrames with the same number of rows (at least 2) and the same columns.

    Raises
    ------
    InputError
        Different numbers of rows, fewer than 2 rows, or a column of the
        original that the masked file lacks.
    """
    orig = as_frame(original, original_name)
    mask = as_frame(masked, masked_name)
    if orig.shape[0] != mask.shape[0]:
        raise InputError(f"{original_name} has {orig.shape[0]} rows but {masked_name} has {mask.shape[0]}: "
                         "row i of the masked file must be the masked version of row i of the original")
    if orig.shape[0] < 2:
        raise InputError(f"{original_name}: needs at least 2 rows, got {orig.shape[0]}")
    missing = [c for c in orig.columns if c not in mask.columns]
    if missing:
        raise InputError(f"{masked_name}: no column {missing[0]!r} (the original has it)")
    return orig, mask[list(orig.columns)]


def select_columns(frame: pd.DataFrame, columns: Sequence[str | int] | None, source: str,
                   what: str = "key") -> list[str]:
    """Resolve column names or positions; ``None`` means every column.

    Raises
    ------
    InputError
        An unknown name, a position out of range, a repeated column or an empty list.
    """
    if columns is None:
        return list(frame.columns)
    names: list[str] = []
    for col in columns:
        if isinstance(col, (int, np.integer)) and not isinstance(col, bool):
            if not 0 <= int(col) < frame.shape[1]:
                raise InputError(f"{source}: {what} column position {col} is out of range (0..{frame.shape[1] - 1})")
            name = frame.columns[int(col)]
        else:
            name = str(col)
            if name not in frame.columns:
                raise InputError(f"{source}: no column {name!r}; columns are {', '.join(frame.columns)}")
        if name in names:
            raise InputError(f"{source}: {what} column {name!r} is given twice")
        names.append(name)
    if not names:
        raise InputError(f"{source}: no {what} column chosen")
    return names


def numeric_matrix(frame: pd.DataFrame, columns: Sequence[str], source: str) -> np.ndarray:
    """The columns as a finite float array of shape ``(n, len(columns))``.

    Raises
    ------
    InputError
        A non-numeric column or a missing/non-finite value (named with its row).
    """
    out = np.empty((frame.shape[0], len(columns)), dtype=float)
    for j, col in enumerate(columns):
        values = pd.to_numeric(frame[col], errors="coerce").to_numpy(dtype=float)
        bad = ~np.isfinite(values)
        if bad.any():
            row = int(np.argmax(bad))
            raw = frame[col].iloc[row]
            if pd.isna(raw) or isinstance(raw, (float, np.floating)):
                raise InputError(f"{source}: column {col!r} has {int(bad.sum())} missing or non-finite "
                                 f"value(s), first in row {row + 1}")
            raise InputError(f"{source}: column {col!r} is not numeric (e.g. {raw!r} in row {row + 1})")
        out[:, j] = values
    return out
