"""Categories as the tables of granularity read them: text, in their natural order (numbers first by value).

The order decides which categories are adjacent for an ordered variable
(:mod:`rumap.tables.granularity_types`, :mod:`rumap.masking.granularity`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

import pandas as pd

from rumap._validation import assumes_valid

__all__ = ["starts_with_number", "category_order", "text_values"]

_NUMBER = re.compile(r"^\s*[-+]?(\d+(\.\d*)?|\.\d+)")


@assumes_valid
def starts_with_number(value: Any) -> bool:
    """Whether a category begins with a number (``"5-19"``, ``"66+"``, ``3``): an ordered variable's by default.

    Parameters
    ----------
    value : object

    Returns
    -------
    bool

    Examples
    --------
    >>> starts_with_number("20-34"), starts_with_number("66+"), starts_with_number("female")
    (True, True, False)
    """
    return _NUMBER.match(str(value)) is not None


@assumes_valid
def category_order(categories: Sequence[Any]) -> list[str]:
    """Categories as text in their natural order: by a leading number first (``"5-19"`` before ``"20-34"``), then
    as text.

    Parameters
    ----------
    categories : sequence

    Returns
    -------
    list of str

    Examples
    --------
    >>> category_order(["66+", "20-34", "5-19", "b", "a"])
    ['5-19', '20-34', '66+', 'a', 'b']
    """
    def key(text: str) -> tuple:
        found = _NUMBER.match(text)
        return (0, float(found.group(0)), text) if found else (1, 0.0, text)

    return sorted({str(c) for c in categories}, key=key)


@assumes_valid
def text_values(column: pd.Series) -> pd.Series:
    """A key's values as text (``3`` for a whole number read as 3.0), missing values kept missing.

    Parameters
    ----------
    column : Series

    Returns
    -------
    Series of object

    Examples
    --------
    >>> text_values(pd.Series([3.0, None, 2.5])).tolist()
    ['3', None, '2.5']
    """
    def text(value: Any) -> str:
        if isinstance(value, float) and value.is_integer():
            return str(int(value))
        return str(value)

    out = column.astype(object).map(text, na_action="ignore").astype(object)
    out[column.isna().to_numpy()] = None
    return out
