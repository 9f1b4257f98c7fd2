"""Digests of data and configurations, and a small bounded cache keyed on them.

The dashboard caches results per session under a key made of a digest of the
data's bytes and the configuration. Hashing every byte (rather than sampling a
large frame, as Streamlit's own hasher does) means two data sets that differ in
one value never share a cache entry.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections import OrderedDict
from collections.abc import Callable, Mapping
from typing import Any, Generic, TypeVar

import numpy as np

from rumap._validation import PARAMETERS, InstanceOf, Table, check_scalar, validate_params
from rumap.errors import InputError
from rumap.result import json_safe

__all__ = ["bytes_digest", "array_digest", "frame_digest", "config_digest", "cache_key", "BoundedCache"]

T = TypeVar("T")


@validate_params({"content": InstanceOf((bytes, bytearray, memoryview), "bytes")}, example=lambda: {"content": b"abc"})
def bytes_digest(content: bytes) -> str:
    """SHA-256 of a file's bytes, as 64 hex digits.

    Parameters
    ----------
    content : bytes

    Returns
    -------
    str
    """
    return hashlib.sha256(content).hexdigest()


@validate_params({"values": InstanceOf((np.ndarray, list, tuple), "an array of numbers")},
                 example=lambda: {"values": np.arange(6.0).reshape(3, 2)})
def array_digest(values: np.ndarray) -> str:
    """SHA-256 of an array's shape, dtype and every value (C order).

    Two arrays get the same digest only if they have the same shape and the
    same values (as float64).

    Parameters
    ----------
    values : array_like
        Numbers of any shape (compared as float64).

    Returns
    -------
    str
        64 hexadecimal digits.
    """
    arr = np.ascontiguousarray(np.asarray(values, dtype=float))
    h = hashlib.sha256()
    h.update(repr(arr.shape).encode())
    h.update(arr.tobytes())
    return h.hexdigest()


def _example_frame() -> dict[str, Any]:
    import pandas as pd

    return {"frame": pd.DataFrame({"a": [1, 2], "b": ["x", "y"]})}


@validate_params({"frame": Table(min_rows=0)}, example=_example_frame)
def frame_digest(frame: Any) -> str:
    """SHA-256 of every value of a table and its column names (not its index).

    Two tables get the same digest only if their values and column names are
    the same (pandas' hash of each row); the results computed on a table are
    cached under it.

    Parameters
    ----------
    frame : DataFrame
        Or an array of shape (n, p), read as a table with columns ``x1 .. xp``.

    Returns
    -------
    str
        64 hexadecimal digits.

    Examples
    --------
    >>> import pandas as pd
    >>> a = frame_digest(pd.DataFrame({"a": [1, 2], "b": ["x", "y"]}))
    >>> a == frame_digest(pd.DataFrame({"a": [1, 2], "b": ["x", "y"]}, index=[5, 6]))
    True
    >>> a == frame_digest(pd.DataFrame({"a": [1, 3], "b": ["x", "y"]}))
    False
    """
    import pandas as pd

    hashed = pd.util.hash_pandas_object(frame, index=False).to_numpy()
    return bytes_digest(hashed.tobytes() + "\x1f".join(map(str, frame.columns)).encode())


def _canonical(obj: Any) -> Any:
    """``obj`` for JSON with every value kept apart: non-finite floats become tagged strings, not ``None``."""
    if isinstance(obj, Mapping):
        return {str(k): _canonical(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple, np.ndarray)):
        return [_canonical(v) for v in (obj.tolist() if isinstance(obj, np.ndarray) else obj)]
    if isinstance(obj, (float, np.floating)) and not math.isfinite(obj):
        return {"non-finite float": repr(float(obj))}  # 'inf', '-inf' or 'nan'
    return json_safe(obj)


@validate_params({"config": InstanceOf(Mapping, "a mapping")}, example=lambda: {"config": {"a": 1}})
def config_digest(config: Mapping[str, Any]) -> str:
    """SHA-256 of a configuration's canonical JSON (sorted keys).

    Infinite and NaN values have digests of their own (``inf``, ``-inf``,
    ``nan`` and ``None`` all differ).

    Parameters
    ----------
    config : mapping
        A JSON-like configuration (numpy values allowed).

    Returns
    -------
    str
        64 hexadecimal digits.

    Raises
    ------
    InputError
        If the configuration holds a value that JSON cannot write.

    Examples
    --------
    >>> from rumap.fingerprint import config_digest
    >>> config_digest({"a": 1, "b": 2}) == config_digest({"b": 2, "a": 1})
    True
    >>> config_digest({"r": float("inf")}) == config_digest({"r": None})
    False
    """
    try:
        text = json.dumps(_canonical(config), sort_keys=True, separators=(",", ":"), allow_nan=False)
    except (TypeError, ValueError) as exc:
        raise InputError(f"the configuration cannot be written as JSON: {exc}") from None
    return hashlib.sha256(text.encode()).hexdigest()


@validate_params({"data_digest": [None, InstanceOf(str)], "config": InstanceOf(Mapping, "a mapping")},
                 example=lambda: {"data_digest": "d1", "config": {"a": 1}})
def cache_key(data_digest: str | None, config: Mapping[str, Any]) -> str:
    """The cache key of a result: the data's digest plus the configuration's digest.

    Parameters
    ----------
    data_digest : str or None
        :func:`array_digest` of the data, or None for a map without data.
    config : mapping
        The configuration (:func:`config_digest`).

    Returns
    -------
    str
    """
    return f"{data_digest or 'no-data'}:{config_digest(config)}"


class BoundedCache(Generic[T]):
    """A least-recently-used cache holding at most ``max_entries`` results.

    It lives wherever its owner keeps it (the dashboard keeps one in each
    session's state, so it ends with the session).

    Parameters
    ----------
    max_entries : int, default 16
    """

    def __init__(self, max_entries: int = 16) -> None:
        self.max_entries = int(check_scalar("max_entries", max_entries, PARAMETERS["cache_entries"]))
        self._entries: OrderedDict[str, T] = OrderedDict()
        self.hits = 0
        self.misses = 0

    def __len__(self) -> int:
        return len(self._entries)

    def __contains__(self, key: str) -> bool:
        return key in self._entries

    def get_or_compute(self, key: str, compute: Callable[[], T]) -> T:
        """The cached value for ``key``, computing and storing it on a miss."""
        if key in self._entries:
            self.hits += 1
            self._entries.move_to_end(key)
            return self._entries[key]
        self.misses += 1
        value = compute()
        self._entries[key] = value
        while len(self._entries) > self.max_entries:
            self._entries.popitem(last=False)
        return value

    def clear(self) -> None:
        """Forget every entry."""
        self._entries.clear()
