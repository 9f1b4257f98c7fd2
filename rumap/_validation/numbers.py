"""Numbers written as text: ASCII digits only, so that what a reader sees is what is computed.

Python's ``float`` and ``int`` read any Unicode decimal digit (``float("١٢")``
is 12.0, ``int("１２")`` is 12) and words such as ``nan``, ``inf`` and
``1_000``; ``str.isdigit`` accepts superscripts that ``int`` then refuses.
Files, flags and queries are read here instead: an optional sign, ASCII
digits with an optional decimal point, an optional ASCII exponent.
"""

from __future__ import annotations

import re

__all__ = ["ASCII_NUMBER", "ASCII_INTEGER", "parse_number", "parse_integer"]

#: A decimal number in ASCII: ``12``, ``-3.5``, ``.5``, ``1e-3``.
ASCII_NUMBER = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?", re.ASCII)
#: An integer in ASCII: ``12``, ``-3``.
ASCII_INTEGER = re.compile(r"[+-]?[0-9]+", re.ASCII)


def parse_number(text: str) -> float:
    """``text`` (surrounding blanks allowed) as a float, or ``ValueError`` unless it is an ASCII decimal number.

    Parameters
    ----------
    text : str

    Returns
    -------
    float
        Possibly infinite when the exponent overflows (``1e999``); callers bound it.

    Examples
    --------
    >>> parse_number(" 2.5e3 ")
    2500.0
    >>> parse_number("١٢")
    Traceback (most recent call last):
    ...
    ValueError: '١٢' is not a number written in ASCII digits
    """
    if not isinstance(text, str) or ASCII_NUMBER.fullmatch(text.strip()) is None:
        raise ValueError(f"{text!r} is not a number written in ASCII digits")
    return float(text)


def parse_integer(text: str) -> int:
    """``text`` (surrounding blanks allowed) as an int, or ``ValueError`` unless it is an ASCII integer.

    Parameters
    ----------
    text : str

    Returns
    -------
    int

    Examples
    --------
    >>> parse_integer("-7")
    -7
    >>> parse_integer("²")
    Traceback (most recent call last):
    ...
    ValueError: '²' is not an integer written in ASCII digits
    """
    if not isinstance(text, str) or ASCII_INTEGER.fullmatch(text.strip()) is None:
        raise ValueError(f"{text!r} is not an integer written in ASCII digits")
    return int(text)
