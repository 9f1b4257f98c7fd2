"""Reading JSON objects (configurations) field by field: every bad field is named by its path.

:class:`Fields` wraps one JSON object and reads typed fields from it; a
missing field, a wrong type or a number out of range raises
:class:`~rumap.errors.InputError` naming the field's path, e.g.
``analyses[1].spec.lambda2.num must be an integer, got 'ten'``.
:func:`parse_json` reads JSON text with the limits a hostile file needs:
bounded nesting, and no ``NaN``, ``Infinity`` or number that overflows.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping
from typing import Any

import numpy as np

from rumap.errors import InputError

__all__ = ["Fields", "parse_json", "MAX_DEPTH"]

#: The deepest nesting of objects and lists a configuration may have.
MAX_DEPTH = 64
_MISSING = object()


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else f"a {type(value).__name__}"


class Fields:
    """Typed access to the fields of one JSON object, with messages that name each field's path.

    Parameters
    ----------
    data : object
        The parsed JSON value expected to be an object.
    path : str
        Where it is, for messages (e.g. ``"analyses[0].spec"``).

    Examples
    --------
    >>> from rumap._validation.fields import Fields
    >>> spec = Fields({"n": 200, "grid": {"num": "ten"}}, "spec")
    >>> spec.integer("n", low=2)
    200
    >>> spec.object("grid").integer("num")
    Traceback (most recent call last):
    ...
    rumap.errors.InputError: spec.grid.num must be an integer, got 'ten'
    """

    def __init__(self, data: Any, path: str) -> None:
        if not isinstance(data, Mapping):
            raise InputError(f"{path} must be an object, got {_shown(data)}")
        self.data = data
        self.path = path

    def _where(self, key: str) -> str:
        return f"{self.path}.{key}" if self.path else key

    def _get(self, key: str, default: Any) -> Any:
        value = self.data.get(key, _MISSING)
        if value is _MISSING:
            if default is _MISSING:
                raise InputError(f"{self._where(key)} is missing")
            return default
        return value

    def has(self, key: str) -> bool:
        """Whether the field is present and not null."""
        return self.data.get(key) is not None

    def integer(self, key: str, default: Any = _MISSING, low: int | None = None) -> Any:
        """An integer field (a whole number; not a boolean)."""
        value = self._get(key, default)
        if value is default and default is not _MISSING:
            return value
        if isinstance(value, bool) or not isinstance(value, (int, float)) or \
                (isinstance(value, float) and not (math.isfinite(value) and value.is_integer())):
            raise InputError(f"{self._where(key)} must be an integer, got {_shown(value)}")
        if low is not None and value < low:
            raise InputError(f"{self._where(key)} must be an integer >= {low}, got {int(value)}")
        return int(value)

    def number(self, key: str, default: Any = _MISSING) -> Any:
        """A finite number field (``null`` allowed when the default is ``None``)."""
        value = self._get(key, default)
        if value is None and default is None:
            return None
        if value is default and default is not _MISSING:
            return value
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
            raise InputError(f"{self._where(key)} must be a finite number, got {_shown(value)}")
        return float(value)

    def boolean(self, key: str, default: Any = _MISSING) -> Any:
        """A true/false field."""
        value = self._get(key, default)
        if not isinstance(value, bool):
            raise InputError(f"{self._where(key)} must be true or false, got {_shown(value)}")
        return value

    def text(self, key: str, default: Any = _MISSING) -> Any:
        """A string field."""
        value = self._get(key, default)
        if value is None and default is None:
            return None
        if not isinstance(value, str):
            raise InputError(f"{self._where(key)} must be text, got {_shown(value)}")
        return value

    def texts(self, key: str, default: Any = _MISSING) -> Any:
        """A list of strings."""
        value = self._get(key, default)
        if value is default and default is not _MISSING:
            return value
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise InputError(f"{self._where(key)} must be a list of names, got {_shown(value)}")
        return tuple(value)

    def object(self, key: str, default: Any = _MISSING) -> Any:
        """A nested object, as :class:`Fields` (``None`` when null and the default is ``None``)."""
        value = self._get(key, default)
        if value is None and default is None:
            return None
        return Fields(value, self._where(key))


def parse_json(text: str, what: str = "the configuration") -> Any:
    """JSON text parsed with bounded nesting and finite numbers only.

    Parameters
    ----------
    text : str
    what : str
        The document's name in messages.

    Returns
    -------
    object

    Raises
    ------
    InputError
        Not JSON, nested deeper than :data:`MAX_DEPTH`, or holding ``NaN``,
        ``Infinity`` or a number too large for a float (named by its path;
        an integer of thousands of digits, unnamed).

    Examples
    --------
    >>> parse_json('{"a": [1, 2.5]}')
    {'a': [1, 2.5]}
    >>> parse_json('{"a": {"b": 1e400}}')
    Traceback (most recent call last):
    ...
    rumap.errors.InputError: the configuration: a.b is a number out of range (too large for a float)
    """
    depth = _nesting(text)
    if depth > MAX_DEPTH:
        raise InputError(f"{what} is nested {depth} levels deep; at most {MAX_DEPTH} are allowed")

    def constant(name: str) -> Any:
        raise InputError(f"{what} holds {name}, which is not a number (JSON has no NaN or Infinity)")

    try:
        data = json.loads(text, parse_constant=constant)
    except json.JSONDecodeError as exc:
        raise InputError(f"{what} is not valid JSON: {exc.msg} (line {exc.lineno})") from None
    except InputError:  # a NaN or Infinity, named by parse_constant (an InputError is a ValueError)
        raise
    except ValueError:  # an integer of more digits than Python converts (sys.get_int_max_str_digits)
        raise InputError(f"{what} holds an integer with too many digits to read (a number out of range)") from None
    except RecursionError:  # _nesting bounds the depth; kept for safety
        raise InputError(f"{what} is nested too deeply") from None
    _check_numbers(data, what)
    return data


#: Integers of more bits than this are beyond the largest float (about 1.8e308).
_FLOAT_BITS = 1024

_STRING = re.compile(r'"(?:[^"\\]|\\.)*"')


def _nesting(text: str) -> int:
    """The deepest nesting of brackets outside strings (vectorised: no recursion, linear time)."""
    codes = np.frombuffer(_STRING.sub('""', text).encode("utf-8", "replace"), dtype=np.uint8)
    if codes.size == 0:
        return 0
    step = (np.isin(codes, (ord("["), ord("{"))).astype(np.int64)
            - np.isin(codes, (ord("]"), ord("}"))).astype(np.int64))
    return int(max(np.cumsum(step).max(), 0))


def _check_numbers(data: Any, what: str) -> None:
    stack: list[tuple[Any, str]] = [(data, "")]
    while stack:
        value, path = stack.pop()
        if (isinstance(value, float) and not math.isfinite(value)) or \
                (isinstance(value, int) and abs(value).bit_length() > _FLOAT_BITS):
            raise InputError(f"{what}: {path or 'the value'} is a number out of range (too large for a float)")
        if isinstance(value, dict):
            stack.extend((v, f"{path}.{k}" if path else str(k)) for k, v in value.items())
        elif isinstance(value, list):
            stack.extend((v, f"{path}[{i}]") for i, v in enumerate(value))
