"""The columns a generator or a measure of synthetic data reads: numeric or categorical, missing values kept.

A column is numeric when pandas holds it as numbers (not booleans); any other
column is categorical, its levels sorted as text, a missing value a level of
its own (the last). Generators and the measures of
:mod:`rumap.risk.synthetic` read columns the same way through
:func:`column_kinds` and :func:`level_codes`.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from rumap._validation import assumes_valid
from rumap.errors import InputError

__all__ = ["is_categorical", "column_kinds", "level_codes", "chosen_columns"]


@assumes_valid
def is_categorical(series: pd.Series) -> bool:
    """Whether a column is categorical: anything but numbers (booleans are categorical).

    Parameters
    ----------
    series : Series

    Returns
    -------
    bool

    Examples
    --------
    >>> import pandas as pd
    >>> is_categorical(pd.Series([1.0, 2.0])), is_categorical(pd.Series(["a", "b"]))
    (False, True)
    """
    return pd.api.types.is_bool_dtype(series) or not pd.api.types.is_numeric_dtype(series)


@assumes_valid
def column_kinds(frame: pd.DataFrame, columns: Sequence[str]) -> tuple[bool, ...]:
    """For each of ``columns`` of ``frame``, whether it is categorical.

    Parameters
    ----------
    frame : DataFrame
    columns : sequence of str

    Returns
    -------
    tuple of bool
    """
    return tuple(is_categorical(frame[c]) for c in columns)


def _text(value: object) -> str:
    return str(value)


@assumes_valid
def level_codes(series: pd.Series, levels: Sequence | None = None) -> tuple[np.ndarray, list]:
    """A categorical column's integer codes and its levels (sorted as text; a missing value is a level, last).

    Parameters
    ----------
    series : Series
    levels : sequence, optional
        Levels to code by (those of another file); a value outside them gets a
        code past the last. Default: the column's own levels.

    Returns
    -------
    codes : ndarray of int
    levels : list
        The levels, a missing value as ``None``.

    Examples
    --------
    >>> import pandas as pd
    >>> codes, levels = level_codes(pd.Series(["b", None, "a", "b"]))
    >>> codes.tolist(), levels
    ([1, 2, 0, 1], ['a', 'b', None])
    """
    missing = series.isna().to_numpy()
    if levels is None:
        present = sorted(pd.unique(series[~missing]).tolist(), key=_text)
        levels = present + ([None] if missing.any() else [])
    levels = list(levels)
    missing_code = levels.index(None) if None in levels else len(levels)
    known = [_text(level) for level in levels if level is not None]
    codes = pd.Categorical(series.map(_text, na_action="ignore"), categories=known).codes.astype(np.int64)
    codes[codes < 0] = len(levels)  # a value outside the levels
    codes[missing] = missing_code
    return codes, levels


@assumes_valid
def chosen_columns(frame: pd.DataFrame, columns: Sequence[str] | None, source: str = "the data") -> list[str]:
    """The columns named (default: every column of ``frame``), each checked to be there.

    Parameters
    ----------
    frame : DataFrame
    columns : sequence of str, optional
    source : str
        The data's name, for messages.

    Returns
    -------
    list of str
    """
    names = [str(c) for c in frame.columns] if columns is None else [str(c) for c in columns]
    if not names:
        raise InputError(f"{source}: no columns to use")
    if len(set(names)) != len(names):
        raise InputError(f"{source}: a column is named twice: {', '.join(names)}")
    have = {str(c) for c in frame.columns}
    for name in names:
        if name not in have:
            raise InputError(f"{source}: no column {name!r}; columns are {', '.join(map(str, frame.columns))}")
    return names
