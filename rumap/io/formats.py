"""The engines' readers of a data file: Polars' lazy scans, pyarrow's batches, Dask's frames, text read as a table.

Every data file rumap reads is opened in :mod:`rumap.io`: a whole file as a
pandas frame in :mod:`rumap.io.data`, a Parquet file's numeric columns alone in
:mod:`rumap.io.parquet`, and here what the other engines need: a lazy Polars
scan (:func:`lazy_frame`, the out-of-core engine of :mod:`rumap.scale`), a
Parquet file's records as pandas frames a chunk at a time (:func:`parquet_batches`,
the streamed release), a Dask frame (:func:`dask_frame`, a cluster's workers),
the chosen columns of a delimited text (:func:`text_columns`), CSV text already
in memory (:func:`text_frame`, a parent,child hierarchy) and a file's digest
(:func:`file_digest`). Each message names the file.
"""

from __future__ import annotations

import csv
import hashlib
import io
import os
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rumap._validation import InstanceOf, assumes_valid, validate_params
from rumap.errors import InputError, optional_module
from rumap.io.data import number_format, numeric_columns
from rumap.io.parquet import open_parquet
from rumap.io.text_rows import HEAD_BYTES, check_text_rows, text_head

if TYPE_CHECKING:
    import numpy as np
    import pandas as pd
    import polars as pl

__all__ = ["NA_STRINGS", "SCALE_EXTRA", "polars_module", "lazy_frame", "text_separator", "check_text_file",
           "parquet_batches", "parquet_schema", "dask_frame", "text_columns", "text_frame", "file_digest"]

#: The extra of rumap that installs the out-of-core engine (Polars).
SCALE_EXTRA = "scale"
#: The strings pandas reads as missing in a CSV file (``pandas.read_csv``'s defaults).
NA_STRINGS = ("", "#N/A", "#N/A N/A", "#NA", "-1.#IND", "-1.#QNAN", "-NaN", "-nan", "1.#IND", "1.#QNAN", "<NA>",
              "N/A", "NA", "NULL", "NaN", "None", "n/a", "nan", "null")
#: Rows of a CSV file read to infer its columns' types.
CSV_SCHEMA_ROWS = 100_000
#: Bytes a file's digest reads at a time.
_DIGEST_BLOCK = 1 << 20


@assumes_valid
def polars_module(purpose: str = "working on files larger than memory") -> Any:
    """The ``polars`` module, or an :class:`~rumap.errors.InputError` naming the extra that installs it.

    Parameters
    ----------
    purpose : str
        What needs it, for the message.

    Returns
    -------
    module

    Examples
    --------
    >>> polars_module().__name__
    'polars'
    """
    return optional_module("polars", purpose, SCALE_EXTRA)


@assumes_valid
def lazy_frame(path: str | os.PathLike, fmt: str, separator: str = ",", infer: bool = True) -> pl.LazyFrame:
    """A Polars LazyFrame over a Parquet or delimited text file: nothing is read until it is collected.

    Parameters
    ----------
    path : str or path-like
    fmt : str
        ``"parquet"``, or a text format (``"csv"``, ``"tsv"``).
    separator : str
        A text's delimiter.
    infer : bool
        Whether a text's column types are inferred from its first :data:`CSV_SCHEMA_ROWS` rows
        (False: every column is text).

    Returns
    -------
    polars.LazyFrame
        Missing values are those pandas reads as missing (:data:`NA_STRINGS`).
    """
    pl = polars_module()
    if fmt == "parquet":
        return pl.scan_parquet(path)
    types = {"infer_schema_length": CSV_SCHEMA_ROWS} if infer else {"infer_schema": False}
    return pl.scan_csv(path, separator=separator, null_values=list(NA_STRINGS), encoding="utf8-lossy", **types)


@assumes_valid
def check_text_file(path: str | os.PathLike, separator: str, exact: bool = False) -> list[str]:
    """A delimited text file's header, once it and every row pass :func:`rumap.io.text_rows.check_text_rows`.

    Parameters
    ----------
    path : str or path-like
    separator : str
    exact : bool
        Whether a row's width is counted exactly (quotes and all).

    Returns
    -------
    list of str
    """
    with Path(path).open("rb") as handle:
        return check_text_rows(handle, separator, exact=exact)


@assumes_valid
def text_separator(path: str | os.PathLike, fmt: str) -> str:
    """The text's delimiter, once its header and rows pass the in-memory reader's check (:mod:`rumap.io.text_rows`).

    Parameters
    ----------
    path : str or path-like
    fmt : str
        ``"tsv"`` (a tab), else the usual delimiters sniffed as the in-memory reader sniffs them.

    Returns
    -------
    str
    """
    with Path(path).open("rb") as handle:
        if fmt == "tsv":
            separator = "\t"
        else:
            try:  # the usual delimiters only, as the in-memory reader sniffs
                separator = csv.Sniffer().sniff(text_head(handle), delimiters=",;\t|").delimiter
            except csv.Error:
                separator = ","
        check_text_rows(handle, separator)
    return separator


@assumes_valid
def parquet_batches(path: str | os.PathLike, chunk_size: int, source: str,
                    columns: list[str] | None = None) -> Iterator[pd.DataFrame]:
    """The file's records as pandas frames of ``chunk_size`` records, converted as a whole file would be.

    Only ``columns`` when given (all by default). Without pyarrow's read-ahead (``pre_buffer``), which holds
    several row groups: the memory is that of one row group being decoded and one chunk.

    Parameters
    ----------
    path : str or path-like
    chunk_size : int
    source : str
        How messages name the file.
    columns : list of str, optional

    Returns
    -------
    iterator of pandas.DataFrame
    """
    import pyarrow.parquet as pq

    open_parquet(path, source)  # the checks and messages of reading the whole file
    reader = pq.ParquetFile(path, pre_buffer=False)
    return (batch.to_pandas() for batch in reader.iter_batches(batch_size=chunk_size, columns=columns))


@assumes_valid
def parquet_schema(path: str | os.PathLike) -> Any:
    """The Arrow schema of a Parquet file (its columns and their types), read from its footer.

    Parameters
    ----------
    path : str or path-like

    Returns
    -------
    pyarrow.Schema
    """
    import pyarrow.parquet as pq

    return pq.read_schema(path)


@assumes_valid
def dask_frame(path: str) -> Any:
    """A Dask frame over a ``.parquet`` or a ``.csv``/``.tsv`` file (every text column as text), for a cluster.

    Parameters
    ----------
    path : str
        A file the workers can read.

    Returns
    -------
    dask.dataframe.DataFrame
    """
    dd = optional_module("dask.dataframe", "working on a Dask cluster", "dask")
    suffix = os.path.splitext(path)[1].lower()
    if not os.path.isfile(path):
        raise InputError(f"{path}: no such file")
    if suffix in (".parquet", ".pq"):
        return dd.read_parquet(path)
    if suffix in (".csv", ".txt", ".tsv", ".tab"):
        return dd.read_csv(path, sep="\t" if suffix in (".tsv", ".tab") else ",", dtype=object)
    raise InputError(f"{path}: a Dask cluster reads .parquet or .csv files, not {suffix or '(no extension)'!r}")


@assumes_valid
def text_columns(path: str | os.PathLike, separator: str, columns: list[str], source: str) -> np.ndarray:
    """The chosen numeric columns of a delimited text file, parsed as an upload is and checked as its columns are.

    The decimal mark and thousands separator are those of the file's first lines
    (:func:`rumap.io.data.number_format`); only ``columns`` are kept.

    Parameters
    ----------
    path : str or path-like
    separator : str
        The file's delimiter.
    columns : list of str
    source : str
        How messages name the file.

    Returns
    -------
    ndarray
        Shape (n, len(columns)), as :func:`rumap.io.data.numeric_columns` gives them.
    """
    import pandas as pd

    with open(path, "rb") as handle:
        head = handle.read(HEAD_BYTES).decode("utf-8-sig", errors="ignore")
    decimal, thousands = number_format(head, separator)
    try:
        frame = pd.read_csv(path, sep=separator, encoding="utf-8-sig", decimal=decimal,
                            thousands=thousands, usecols=list(columns))
    except (ValueError, UnicodeDecodeError, pd.errors.ParserError) as exc:
        raise InputError(f"{source}: cannot read the file: {str(exc).splitlines()[0]}") from None
    return numeric_columns(frame[list(columns)], list(columns), source=source)


@assumes_valid
def text_frame(text: str, what: str) -> pd.DataFrame:
    r"""CSV text with a header line as a frame of strings (an empty field is ``""``, not missing).

    Parameters
    ----------
    text : str
    what : str
        How the message of text that is no CSV names it.

    Returns
    -------
    pandas.DataFrame

    Examples
    --------
    >>> text_frame("parent,child\nA,A1\n,B\n", "the hierarchy").values.tolist()
    [['A', 'A1'], ['', 'B']]
    """
    import pandas as pd

    try:
        return pd.read_csv(io.StringIO(text), dtype=str, keep_default_na=False)
    except (pd.errors.EmptyDataError, pd.errors.ParserError) as exc:
        detail = "it is empty" if isinstance(exc, pd.errors.EmptyDataError) else str(exc).strip().splitlines()[-1]
        raise InputError(f"{what} cannot be read as CSV: {detail}") from None


@validate_params({"path": InstanceOf((str, os.PathLike), "a file path")},
                 example=lambda: {"path": Path(__file__)})
def file_digest(path: str | os.PathLike) -> str:
    """SHA-256 of a file's bytes, read a block at a time (:func:`rumap.fingerprint.bytes_digest` of its bytes).

    Parameters
    ----------
    path : str or path-like

    Returns
    -------
    str
        64 hex digits.

    Raises
    ------
    InputError
        The file cannot be read (missing, a folder, no permission).

    Examples
    --------
    >>> import tempfile, pathlib
    >>> from rumap.fingerprint import bytes_digest
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     path = pathlib.Path(folder) / "f.bin"
    ...     _ = path.write_bytes(b"abc" * 1000)
    ...     file_digest(path) == bytes_digest(b"abc" * 1000)
    True
    """
    digest = hashlib.sha256()
    try:
        with open(path, "rb") as handle:
            while block := handle.read(_DIGEST_BLOCK):
                digest.update(block)
    except OSError as exc:
        raise InputError(f"path: cannot read {os.fspath(path)!r} ({exc.strerror or exc})") from None
    return digest.hexdigest()
