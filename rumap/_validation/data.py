"""Constraints on data: numeric matrices, tables, and their columns chosen by name or position."""

from __future__ import annotations

import math
import sys
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from numbers import Integral
from typing import Any

import numpy as np

from rumap._validation.constraints import _NO_ARGUMENTS, Arguments, Constraint, shown
from rumap.errors import InputError

__all__ = ["column_names", "resolve_columns", "check_column_index", "frame_matrix", "Columns", "ColumnIndex",
           "DataMatrix", "Table"]


def _pandas() -> Any:
    """The pandas module if it is imported (no DataFrame can exist otherwise)."""
    return sys.modules.get("pandas")


def _is_frame(value: Any) -> bool:
    pd = _pandas()
    return pd is not None and isinstance(value, pd.DataFrame)


def column_names(data: Any) -> list[str] | None:
    """A table's column names: a DataFrame's as strings, ``x1 .. xp`` for an array; None if it is no table."""
    if _is_frame(data):
        return [str(c) for c in data.columns]
    try:
        shape = np.shape(data)
    except (TypeError, ValueError):  # ragged nested lists
        return None
    if len(shape) == 1:
        return ["x1"]
    if len(shape) == 2:
        return [f"x{j + 1}" for j in range(shape[1])]
    return None


def resolve_columns(available: Sequence[str], columns: Iterable[Any], prefix: str, what: str = "") -> list[str]:
    """Names of the chosen columns, given by name or by position (0-based).

    Parameters
    ----------
    available : sequence of str
        The table's column names.
    columns : iterable of str or int
        The choice.
    prefix : str
        Starts every message, e.g. ``"columns of original"``.
    what : str
        Word before "column" in the messages, e.g. ``"key "``.

    Raises
    ------
    InputError
        An unknown name, a position out of range, a repeated column or an empty choice.
    """
    if isinstance(columns, (str, bytes, Mapping)) or not isinstance(columns, Iterable):
        raise InputError(f"{prefix}: {what}columns must be a list of names or positions, got {shown(columns)}")
    known = set(available)
    names: list[str] = []
    for col in columns:
        if isinstance(col, (int, np.integer)) and not isinstance(col, (bool, np.bool_)):
            if not 0 <= int(col) < len(available):
                raise InputError(f"{prefix}: {what}column position {col} is out of range (0..{len(available) - 1})")
            name = available[int(col)]
        else:
            name = str(col)
            if name not in known:
                raise InputError(f"{prefix}: no column {name!r}; columns are {', '.join(available)}")
        if name in names:
            raise InputError(f"{prefix}: {what}column {name!r} is given twice")
        names.append(name)
    if not names:
        raise InputError(f"{prefix}: no {what}column chosen")
    return names


@dataclass(frozen=True)
class Columns(Constraint):
    """Columns of the table in parameter ``of``, by name or position; checked into a list of names.

    ``None`` chooses every column. Array columns are named ``x1 .. xp``. The
    table's own constraint reports a table that is none or has no column.
    """

    of: str
    what: str = ""

    def check(self, name: str, value: Any, args: Arguments = _NO_ARGUMENTS) -> Any:
        available = column_names(args.raw[self.of])
        if not available:  # not a table, or one without columns: its own constraint says so
            return value
        if value is None:
            return available
        if isinstance(value, (str, bytes)) or not isinstance(value, Iterable):
            raise InputError(f"{name} must be {self.describe()}, got {value!r}")
        return resolve_columns(available, value, f"{name} of {self.of}", f"{self.what} " if self.what else "")

    def describe(self) -> str:
        return f"a list of column names or positions of {self.of}"

    def invalid_values(self, name: str, example: Mapping[str, Any]) -> list[Any]:
        available = column_names(example[self.of]) or ["x1"]
        return [["no such column"], [len(available)], [-1], [available[0], available[0]], [], available[0], 2.5]


@dataclass(frozen=True)
class ColumnIndex(Constraint):
    """One column position, an integer >= 0; below the column count of parameter ``of`` when given."""

    of: str | None = None

    @property
    def depends_on(self) -> tuple[str, ...]:
        return (self.of,) if self.of else ()

    def check(self, name: str, value: Any, args: Arguments = _NO_ARGUMENTS) -> int:
        if isinstance(value, (bool, np.bool_)) or not isinstance(value, (Integral, np.integer)) or value < 0:
            raise InputError(f"{name} must be {self.describe()}, got {value!r}")
        if self.of is not None:
            check_column_index(name, int(value), len(column_names(args.checked[self.of]) or ()))
        return int(value)

    def describe(self) -> str:
        return "a column index >= 0"

    def invalid_values(self, name: str, example: Mapping[str, Any]) -> list[Any]:
        out: list[Any] = [-1, 1.5, "0", True, None]
        if self.of is not None:
            out.append(len(column_names(example[self.of]) or ()))
        return out


def check_column_index(name: str, index: int, n_columns: int) -> None:
    """Raise :class:`InputError` unless column ``index`` exists among ``n_columns``."""
    if index >= n_columns:
        raise InputError(f"{name} {index} is out of range for {n_columns} column(s)")


def _check_pairing(name: str, n_rows: int, labels: Sequence[str], chosen: Sequence[str] | None,
                   other: str, args: Arguments) -> None:
    """Row ``i`` of parameter ``name`` is the masked version of row ``i`` of ``other``."""
    n_other = len(args.checked[other])
    if n_rows != n_other:
        raise InputError(f"{other} has {n_other} rows but {name} has {n_rows}: "
                         f"row i of {name} must be the masked version of row i of {other}")
    known = set(labels)
    missing = [c for c in (chosen or ()) if c not in known]
    if missing:
        raise InputError(f"{name}: no column {missing[0]!r} (the {other} has it)")


@dataclass(frozen=True)
class DataMatrix(Constraint):
    """Finite numbers in rows (records) and columns: an array or a DataFrame; checked into a float array.

    Parameters
    ----------
    min_rows : int
        Least number of records.
    ndim : tuple of int
        Accepted dimensions of an array (a DataFrame is 2-D).
    columns : str, optional
        Parameter (a :class:`Columns`) holding the chosen column names.
    masked_of : str, optional
        Parameter holding the original data of which this is the masked
        version: same number of rows, and the original's columns (or the chosen
        ones) present.

    The checked value has the input's shape, or ``(n, q)`` for the ``q`` chosen
    columns when ``columns`` or ``masked_of`` is given.
    """

    min_rows: int = 1
    ndim: tuple[int, ...] = (1, 2)
    columns: str | None = None
    masked_of: str | None = None

    @property
    def depends_on(self) -> tuple[str, ...]:
        return tuple(p for p in (self.columns, self.masked_of) if p)

    def _chosen(self, args: Arguments) -> list[str] | None:
        if self.columns is not None:
            return list(args.checked[self.columns])
        if self.masked_of is not None:
            return column_names(args.raw[self.masked_of])
        return None

    def check(self, name: str, value: Any, args: Arguments = _NO_ARGUMENTS) -> np.ndarray:
        chosen = self._chosen(args)
        if _is_frame(value):
            if 2 not in self.ndim:
                raise InputError(f"{name} must be {self.describe()}, got a table of shape {value.shape}")
            labels = [str(c) for c in value.columns]
            self._check_size(name, value.shape)
            if self.masked_of is not None:
                _check_pairing(name, value.shape[0], labels, chosen, self.masked_of, args)
            # row-major, as every kernel's sums run: the same numbers give the same result whatever the layout
            return np.ascontiguousarray(frame_matrix(value, labels if chosen is None else chosen, name))
        try:
            x = np.asarray(value, dtype=float)
        except (TypeError, ValueError) as exc:
            raise InputError(f"{name} must be numeric: {exc}") from None
        if x.ndim not in self.ndim:
            got = f"shape {x.shape}" if x.ndim else repr(value)
            raise InputError(f"{name} must be {self.describe()}, got {got}")
        self._check_size(name, x.shape)
        if self.masked_of is not None:
            _check_pairing(name, x.shape[0], column_names(x) or [], chosen, self.masked_of, args)
        if chosen is not None:
            labels = column_names(x) or []
            position = {label: j for j, label in enumerate(labels)}
            unknown = [c for c in chosen if c not in position]
            if unknown:
                raise InputError(f"{name}: no column {unknown[0]!r}; columns are {', '.join(labels)}")
            x = x.reshape(x.shape[0], -1)[:, [position[c] for c in chosen]]
        finite = np.isfinite(x)
        if not finite.all():
            row, col = (np.argwhere(~finite)[0].tolist() + [0])[:2]
            raise InputError(f"{name} has {int((~finite).sum())} missing or infinite value(s), "
                             f"first in row {row + 1}, column {col + 1}")
        check_magnitude(x, name, chosen)
        return np.ascontiguousarray(x)

    def _check_size(self, name: str, shape: tuple[int, ...]) -> None:
        if shape[0] < self.min_rows or (len(shape) == 2 and shape[1] < 1):
            records = "record" if self.min_rows == 1 else "records"
            raise InputError(f"{name} needs at least {self.min_rows} {records} and 1 column, got shape {shape}")

    def describe(self) -> str:
        dims = " or ".join(f"{d}-D" for d in self.ndim)
        return f"a {dims} array of numbers"

    def invalid_values(self, name: str, example: Mapping[str, Any]) -> list[Any]:
        value = example[name]
        out: list[Any] = [None, "text", [], 3.0]
        if _is_frame(value):
            strings, gaps = value.astype(object), value.astype(object)
            strings.iloc[:, :] = "a"
            gaps.iloc[0, :] = math.nan
            return [*out, value.iloc[:0], value.iloc[: self.min_rows - 1], strings, gaps]
        x = np.array(value, dtype=float)
        columns = x.reshape(x.shape[0], -1)
        gaps, infinite = x.copy(), x.copy()
        gaps[0], infinite[0] = math.nan, math.inf
        out += [gaps, infinite, np.full(x.shape, "a", dtype=object), columns[:, :, None], columns[:, :0],
                x[: self.min_rows - 1]]
        if 1 not in self.ndim:
            out.append(columns[:, 0])
        if 2 not in self.ndim:
            out.append(columns)
        if self.masked_of is not None:
            out.append(x[:-1])
        return out


#: The largest magnitude a data value may have: squares and sums of squares of 10^8 such values stay finite
#: in float64 (about 1.8e308). Real data are far below it; beyond it variances and distances would overflow.
MAX_MAGNITUDE = 1e150


def _column_label(columns: Sequence[str] | None, col: int) -> str:
    return repr(columns[col]) if columns is not None and col < len(columns) else str(col + 1)


def check_magnitude(values: np.ndarray, name: str, columns: Sequence[str] | None = None) -> None:
    """Refuse values whose magnitude exceeds :data:`MAX_MAGNITUDE`, naming the column and row.

    Parameters
    ----------
    values : ndarray, shape (n,) or (n, p)
        Finite values.
    name : str
        Starts the message (the parameter or file).
    columns : sequence of str, optional
        Column names for the message (default: positions).

    Raises
    ------
    InputError

    Examples
    --------
    >>> import numpy as np
    >>> check_magnitude(np.array([1.0, 2e9]), "x")
    >>> check_magnitude(np.array([[1.0], [1e308]]), "data.csv", ["a"])
    Traceback (most recent call last):
    ...
    rumap.errors.InputError: data.csv: column 'a' has a value of magnitude 1e+308 in row 2, beyond 1e+150: sums of squares would overflow; rescale the column
    """
    big = np.abs(values) > MAX_MAGNITUDE
    if big.any():
        row, col = (np.argwhere(big)[0].tolist() + [0])[:2]
        raise InputError(f"{name}: column {_column_label(columns, col)} has a value of magnitude {abs(float(values.reshape(values.shape[0], -1)[row, col])):.3g} "
                         f"in row {row + 1}, beyond {MAX_MAGNITUDE:.0e}: sums of squares would overflow; rescale the column")


def check_varies(values: np.ndarray, name: str, columns: Sequence[str] | None = None) -> None:
    """Refuse a constant column: an R-U map needs values that vary (its variance is a divisor).

    Parameters
    ----------
    values : ndarray, shape (n,) or (n, p)
        Finite values.
    name : str
        Starts the message (the parameter or file).
    columns : sequence of str, optional
        Column names for the message (default: positions).

    Raises
    ------
    InputError

    Examples
    --------
    >>> import numpy as np
    >>> check_varies(np.array([[1.0, 5.0], [2.0, 5.0]]), "data.csv", ["a", "b"])
    Traceback (most recent call last):
    ...
    rumap.errors.InputError: data.csv: column 'b' is constant (every value is 5): an R-U map needs values that vary
    """
    matrix = values.reshape(values.shape[0], -1)
    constant = np.flatnonzero(np.ptp(matrix, axis=0) == 0)
    if constant.size:
        col = int(constant[0])
        raise InputError(f"{name}: column {_column_label(columns, col)} is constant (every value is {matrix[0, col]:g}): "
                         "an R-U map needs values that vary")


def frame_matrix(frame: Any, chosen: Sequence[str], name: str) -> np.ndarray:
    """Columns of a DataFrame as a finite float array of shape ``(n, len(chosen))``.

    Parameters
    ----------
    frame : DataFrame
        The table; its column labels are compared as strings.
    chosen : sequence of str
        The columns.
    name : str
        Starts every message (the parameter or file).

    Raises
    ------
    InputError
        An unknown column, a non-numeric value or a missing/infinite value (named with its row).
    """
    pd = _pandas()
    labels = [str(c) for c in frame.columns]
    position = {label: j for j, label in reversed(list(enumerate(labels)))}
    out = np.empty((frame.shape[0], len(chosen)), dtype=float)
    for j, col in enumerate(chosen):
        if col not in position:
            raise InputError(f"{name}: no column {col!r}; columns are {', '.join(labels)}")
        raw = frame.iloc[:, position[col]]
        values = pd.to_numeric(raw, errors="coerce").to_numpy(dtype=float)
        bad = ~np.isfinite(values)
        if bad.any():
            row = int(np.argmax(bad))
            cell = raw.iloc[row]
            if pd.isna(cell) or isinstance(cell, (float, np.floating)):
                raise InputError(f"{name}: column {col!r} has {int(bad.sum())} missing or infinite "
                                 f"value(s), first in row {row + 1}")
            raise InputError(f"{name}: column {col!r} is not numeric (e.g. {cell!r} in row {row + 1})")
        out[:, j] = values
    check_magnitude(out, name, list(chosen))
    return out


@dataclass(frozen=True)
class Table(Constraint):
    """A table of any values, a DataFrame or a 1-D/2-D array; checked into a DataFrame with string column names.

    Array columns are named ``x1 .. xp``. ``masked_of`` as in :class:`DataMatrix`. Two columns with the
    same name (as strings: ``1`` and ``"1"`` too) are refused: a column chosen by its name would be two.
    """

    min_rows: int = 1
    masked_of: str | None = None

    @property
    def depends_on(self) -> tuple[str, ...]:
        return (self.masked_of,) if self.masked_of else ()

    def check(self, name: str, value: Any, args: Arguments = _NO_ARGUMENTS) -> Any:
        import pandas as pd

        if isinstance(value, pd.DataFrame):
            frame = value.copy()
            frame.columns = [str(c) for c in frame.columns]
            frame = frame.reset_index(drop=True)
        else:
            try:
                arr = np.asarray(value)
            except Exception as exc:  # anything numpy cannot hold
                raise InputError(f"{name}: cannot be read as a table ({exc})") from None
            if arr.ndim == 1:
                arr = arr.reshape(-1, 1)
            if arr.ndim != 2:
                raise InputError(f"{name}: must be a table of shape (n, p), got shape {arr.shape}")
            frame = pd.DataFrame(arr, columns=column_names(arr))
        repeated = frame.columns[frame.columns.duplicated()]
        if len(repeated):  # a column chosen by name would be two
            raise InputError(f"{name}: the column name {repeated[0]!r} is given to more than one column")
        if self.masked_of is not None:
            _check_pairing(name, frame.shape[0], list(frame.columns), column_names(args.checked[self.masked_of]),
                           self.masked_of, args)
        if frame.shape[0] < self.min_rows:
            raise InputError(f"{name}: needs at least {self.min_rows} rows, got {frame.shape[0]}")
        return frame

    def describe(self) -> str:
        return "a table (a DataFrame or an array of shape (n, p))"

    def invalid_values(self, name: str, example: Mapping[str, Any]) -> list[Any]:
        out: list[Any] = [np.zeros((2, 2, 2)), "text", None]
        value = example[name]
        if _is_frame(value) and value.shape[1]:
            out.append(_pandas().concat([value.iloc[:, :1], value.iloc[:, :1]], axis=1))  # one name, two columns
        if self.min_rows > 0:
            out.append(np.empty((0, 1)))
        if self.masked_of is not None:
            out.append(self.check(name, example[name])[:-1])
        return out
