"""Statistical queries over a set of records: SUM, MEAN, MIN, MAX and COUNT (with a condition).

A query names an aggregation function and its query set T, the records it
covers (seed 004, Mas, "Audits for Databases": logical formula and aggregation
function). Records are numbered from 1, as in the seed's EMP example. The text
form is ``KIND:RECORDS``, with records as numbers and ranges (``SUM:1,2,3``,
``MEAN:4-9``, ``MAX:*`` for every record); a COUNT may carry a condition on
the confidential value, ``COUNT>=100:1-9`` (operators ``<``, ``<=``, ``>``,
``>=``).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from rumap._validation import InstanceOf, assumes_valid, parse_integer, parse_number, validate_params
from rumap.errors import InputError

__all__ = ["KINDS", "CONDITIONS", "Query", "parse_query", "parse_queries", "queries_from_text"]

#: Aggregation function -> what it returns, for help texts.
KINDS: dict[str, str] = {
    "SUM": "the sum of the values",
    "MEAN": "the mean of the values",
    "MIN": "the smallest value",
    "MAX": "the largest value",
    "COUNT": "the number of records (meeting the condition, if one is given)",
}

#: Condition operator of a COUNT -> the test it makes of a value against the threshold.
CONDITIONS: dict[str, Callable[[Any, float], Any]] = {
    "<=": np.less_equal,
    ">=": np.greater_equal,
    "<": np.less,
    ">": np.greater,
}

_PATTERN = re.compile(r"^\s*([A-Za-z]+)\s*(?:(<=|>=|<|>)\s*([^:]+?))?\s*:\s*(.*?)\s*$")


@dataclass(frozen=True)
class Query:
    """One statistical query: an aggregation function over a set of records.

    Parameters
    ----------
    kind : str
        One of :data:`KINDS`.
    records : tuple of int
        The query set T: record numbers from 1, increasing, without repeats.
    operator : str, optional
        COUNT only: one of :data:`CONDITIONS`.
    threshold : float, optional
        COUNT only: the value the condition compares with.
    """

    kind: str
    records: tuple[int, ...]
    operator: str | None = None
    threshold: float | None = None

    @property
    def text(self) -> str:
        """The query in the text form :func:`parse_query` reads, with ranges of consecutive records."""
        condition = f"{self.operator}{self.threshold:g}" if self.operator is not None else ""
        return f"{self.kind}{condition}:{_ranges(self.records)}"

    @property
    def index(self) -> np.ndarray:
        """The query set as 0-based positions."""
        return np.asarray(self.records, dtype=np.int64) - 1


def _ranges(records: Sequence[int]) -> str:
    parts: list[str] = []
    start = prev = None
    for r in records:
        if start is None:
            start = prev = r
        elif r == prev + 1:
            prev = r
        else:
            parts.append(str(start) if start == prev else f"{start}-{prev}")
            start = prev = r
    if start is not None:
        parts.append(str(start) if start == prev else f"{start}-{prev}")
    return ",".join(parts)


def _record_numbers(text: str, n: int, query: str) -> tuple[int, ...]:
    if text == "*":
        return tuple(range(1, n + 1))
    chosen: set[int] = set()
    for part in text.split(","):
        part = part.strip()
        bounds = part.split("-")
        try:
            if not part or len(bounds) > 2 or any(b.strip().startswith(("+", "-")) for b in bounds):
                raise ValueError(part)
            low, high = parse_integer(bounds[0]), parse_integer(bounds[-1])
        except ValueError:
            raise InputError(f"query {query!r}: {part!r} is not a record number or a range a-b in ASCII digits "
                             f"(records are numbered 1 to {n})") from None
        if low > high:
            raise InputError(f"query {query!r}: the range {part!r} runs backwards")
        if low < 1 or high > n:
            raise InputError(f"query {query!r}: record {low if low < 1 else high} does not exist "
                             f"(records are numbered 1 to {n})")
        if high - low > n:
            raise InputError(f"query {query!r}: the range {part!r} is longer than the data")
        chosen.update(range(low, high + 1))
    return tuple(sorted(chosen))


@validate_params({"text": InstanceOf(str, "a query such as 'SUM:1,2,3'"),
                  "n": "records"},
                 example=lambda: {"text": "SUM:1,2,3", "n": 9})
def parse_query(text: str, n: int) -> Query:
    """Read one query ``KIND[CONDITION]:RECORDS`` over a database of ``n`` records.

    Parameters
    ----------
    text : str
        ``SUM:1,2,3``, ``MEAN:4-9``, ``MAX:*``, ``COUNT>=100:1-9``; the kind
        is case-insensitive.
    n : int
        The number of records; record numbers run from 1 to n.

    Returns
    -------
    Query

    Raises
    ------
    InputError
        An unknown kind, a malformed or missing record, an empty query set, a
        condition on anything but a COUNT.

    Examples
    --------
    >>> parse_query("sum:1-3,7", 9)
    Query(kind='SUM', records=(1, 2, 3, 7), operator=None, threshold=None)
    >>> parse_query("COUNT>=3.5:*", 4).text
    'COUNT>=3.5:1-4'
    """
    match = _PATTERN.match(text)
    if match is None or len(text) > 100_000:
        raise InputError(f"query {text[:60]!r} is not KIND:RECORDS, e.g. 'SUM:1,2,3' or 'COUNT>=100:1-9'")
    kind, operator, threshold_text, records_text = match.groups()
    kind = kind.upper()
    if kind not in KINDS:
        raise InputError(f"query {text!r}: the kind must be one of {', '.join(KINDS)}, got {kind!r}")
    threshold = None
    if operator is not None:
        if kind != "COUNT":
            raise InputError(f"query {text!r}: only a COUNT takes a condition")
        try:
            threshold = parse_number(threshold_text)
        except ValueError:
            raise InputError(f"query {text!r}: the condition's threshold {threshold_text!r} is not a number "
                             "in ASCII digits") from None
        if not np.isfinite(threshold) or abs(threshold) > 1e300:
            raise InputError(f"query {text!r}: the condition's threshold must be a finite number")
    if not records_text:
        raise InputError(f"query {text!r} has no records after ':'")
    return Query(kind, _record_numbers(records_text, n, text), operator, threshold)


@assumes_valid
def parse_queries(texts: Sequence[str | Query], n: int) -> tuple[Query, ...]:
    """Read several queries (:func:`parse_query`); a :class:`Query` is checked against ``n`` and kept.

    Parameters
    ----------
    texts : sequence of str or Query
        The queries.
    n : int
        The number of records.

    Returns
    -------
    tuple of Query

    Examples
    --------
    >>> [q.text for q in parse_queries(["SUM:1,2", "max:3"], 3)]
    ['SUM:1-2', 'MAX:3']
    """
    if isinstance(texts, (str, Query)) or not isinstance(texts, Sequence):
        raise InputError("queries must be a list of queries such as ['SUM:1,2,3', 'MEAN:4-9']")
    if not texts:
        raise InputError("queries is empty: give at least one query")
    out = []
    for item in texts:
        if isinstance(item, Query):
            if item.kind not in KINDS or not item.records or min(item.records) < 1 or max(item.records) > n:
                raise InputError(f"query {item.text!r} does not fit a database of {n} records")
            out.append(item)
        elif isinstance(item, str):
            out.append(parse_query(item, n))
        else:
            raise InputError(f"queries must be texts such as 'SUM:1,2,3', got {type(item).__name__}")
    return tuple(out)


@validate_params({"text": InstanceOf(str, "the text of a list of queries")},
                 example=lambda: {"text": "SUM:1,2,3\nMEAN:4-9\n"})
def queries_from_text(text: str) -> list[str]:
    """The queries of a text: a JSON list of strings, or one query per line (``#`` starts a comment).

    Parameters
    ----------
    text : str
        The file's or the text box's content.

    Returns
    -------
    list of str
        The queries, not parsed yet (see :func:`parse_queries`).

    Raises
    ------
    InputError
        Malformed JSON, a JSON that is not a list of strings, or no query.

    Examples
    --------
    >>> queries_from_text("SUM:1,2,3  # the total\\n\\nSUM:1,2")
    ['SUM:1,2,3', 'SUM:1,2']
    >>> queries_from_text('["MEAN:*", "MAX:2-4"]')
    ['MEAN:*', 'MAX:2-4']
    """
    stripped = text.strip()
    if stripped.startswith("["):
        import json

        try:
            loaded = json.loads(stripped)
        except (ValueError, RecursionError) as exc:
            raise InputError(f"the queries are not valid JSON ({str(exc)[:80]})") from None
        if not isinstance(loaded, list) or not all(isinstance(q, str) for q in loaded):
            raise InputError("the queries' JSON must be a list of strings such as [\"SUM:1,2,3\"]")
        found = [q.strip() for q in loaded if q.strip()]
    else:
        found = [line.split("#", 1)[0].strip() for line in stripped.splitlines()]
        found = [q for q in found if q]
    if not found:
        raise InputError("no query given: write one per line, such as SUM:1,2,3")
    return found
