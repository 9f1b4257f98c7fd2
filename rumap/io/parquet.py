"""Numeric columns of a Parquet file read by themselves: files over the upload limit, memory of those columns.

:func:`rumap.io.data.read_table` reads a whole file's bytes, up to
:data:`rumap.io.data.MAX_BYTES`, into a pandas frame. A Parquet file is stored
by column, so the numeric columns a masking method needs can be read alone,
from a file of any size: the memory is that of the chosen columns (twice, while
they are checked), not that of the file. The values and the messages are those
of :func:`rumap.io.data.numeric_columns` on the same columns.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import numpy as np

from rumap._validation import assumes_valid
from rumap.errors import InputError, optional_module
from rumap.io.data import numeric_columns, regular_file_size
from rumap.io.outputs import atomic_outputs, check_outputs
from rumap.io.writers import FORMATS_EXTRA

__all__ = ["is_parquet", "open_parquet", "read_parquet_frame", "read_parquet_numeric", "write_parquet_replacing"]


@assumes_valid
def is_parquet(path: str | os.PathLike) -> bool:
    """Whether the file's extension is ``.parquet``.

    Parameters
    ----------
    path : str or path-like
    """
    return Path(path).suffix.lower() == ".parquet"


def _parquet_module() -> Any:
    optional_module("pyarrow", "reading Parquet files", FORMATS_EXTRA)
    import pyarrow.parquet as pq

    return pq


@assumes_valid
def open_parquet(path: str | os.PathLike, source: str) -> Any:
    """A Parquet file opened by pyarrow (its footer read), refused with a message naming ``source``.

    Parameters
    ----------
    path : str or path-like
    source : str
        How messages name the file.

    Returns
    -------
    pyarrow.parquet.ParquetFile
    """
    regular_file_size(path, source)
    pq = _parquet_module()
    try:
        return pq.ParquetFile(path)
    except Exception as exc:  # noqa: BLE001 - pyarrow raises several types for a damaged file
        raise InputError(f"{source}: cannot read the file as Parquet ({exc})") from None


@assumes_valid
def read_parquet_numeric(path: str | os.PathLike, columns: list[str] | None, source: str | None = None,
                         every_column: bool = False) -> tuple[np.ndarray, list[str], Any]:
    """The chosen numeric columns of a Parquet file as a float array (n, p), read without the other columns.

    Parameters
    ----------
    path : str or path-like
        The Parquet file, of any size.
    columns : list of str, optional
        The columns; default every numeric column (integers and floating
        point, not booleans), from the file's schema.
    source : str, optional
        How messages name the file (default: its path).
    every_column : bool, default False
        Also return the whole file as a ``pyarrow.Table`` (to write it back with
        the columns replaced, :func:`write_parquet_replacing`).

    Returns
    -------
    values : ndarray, shape (n, p)
    names : list of str
    table : pyarrow.Table or None
        The whole file when ``every_column``.

    Raises
    ------
    InputError
        A missing or unreadable file, an unknown or non-numeric column,
        missing values: the messages of :func:`rumap.io.data.numeric_columns`.

    Examples
    --------
    >>> read_parquet_numeric("missing.parquet", ["a"])
    Traceback (most recent call last):
    ...
    rumap.errors.InputError: missing.parquet: no such file
    """
    source = str(path) if isinstance(path, (str, os.PathLike)) and source is None else source
    handle = open_parquet(path, source)  # a path that is not one is refused by regular_file_size
    import pyarrow as pa

    schema = handle.schema_arrow
    if columns is None:
        columns = [f.name for f in schema if pa.types.is_integer(f.type) or pa.types.is_floating(f.type)]
        if not columns:
            raise InputError(f"{source}: no numeric column")
    unknown = [c for c in columns if c not in schema.names]
    if unknown:
        raise InputError(f"{source}: no column {unknown[0]!r}; columns are {', '.join(schema.names)}")
    table = handle.read() if every_column else handle.read(columns=list(dict.fromkeys(columns)))
    frame = table.select(list(dict.fromkeys(columns))).to_pandas()
    values = numeric_columns(frame, list(columns), source=source)
    return values, list(columns), table if every_column else None


@assumes_valid
def read_parquet_frame(path: str | os.PathLike, source: str | None = None) -> Any:
    """A whole Parquet file as a pandas DataFrame, whatever its size (no limit of :data:`MAX_BYTES`).

    Parameters
    ----------
    path : str or path-like
        The Parquet file.
    source : str, optional
        How messages name the file (default: its path).

    Returns
    -------
    pandas.DataFrame

    Examples
    --------
    >>> read_parquet_frame("missing.parquet")
    Traceback (most recent call last):
    ...
    rumap.errors.InputError: missing.parquet: no such file
    """
    source = str(path) if isinstance(path, (str, os.PathLike)) and source is None else source
    return open_parquet(path, source).read().to_pandas()


@assumes_valid
def write_parquet_replacing(table: Any, names: list[str], values: np.ndarray, path: str | os.PathLike,
                            overwrite: bool = False, flag: str = "path") -> None:
    """Write ``table`` to a Parquet file with the columns ``names`` replaced by the columns of ``values``.

    The other columns pass through unchanged, in their order. The file is written whole or not at all
    (:func:`rumap.io.outputs.atomic_outputs`).

    Parameters
    ----------
    table : pyarrow.Table
        The file as read by :func:`read_parquet_numeric` with ``every_column``.
    names : list of str
        The columns to replace.
    values : ndarray, shape (n, len(names))
        Their new values (float).
    path : str or path-like
        The Parquet file written.
    overwrite : bool
        Replace an existing file (default: refuse it).
    flag : str
        How messages name the path.
    """
    check_outputs([(flag, path)], overwrite=overwrite)
    pq = _parquet_module()
    import pyarrow as pa

    for j, name in enumerate(names):
        table = table.set_column(table.schema.get_field_index(name), name, pa.array(values[:, j], type=pa.float64()))
    with atomic_outputs(path, flag=flag) as (temporary,):
        try:
            pq.write_table(table, temporary)
        except OSError as exc:
            raise InputError(f"{flag} {path}: cannot write the file ({exc})") from None
