"""Loading and validating microdata files.

Files are read into memory only: uploads arrive as bytes and are never written
to disk. Every problem raises :class:`rumap.errors.InputError` with a message
that names the file, column or value.
"""

from __future__ import annotations

import csv
import io
import os
import re
import stat
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from rumap._validation import PARAMETERS, InstanceOf, ListOf, NumberArray, StrOptions, validate_params
from rumap._validation.data import check_magnitude
from rumap.errors import InputError, optional_module
from rumap.io.text_rows import check_text_rows, refuse_duplicates, text_head
from rumap.io.writers import FORMATS_EXTRA, WRITERS, table_bytes, write_bytes, write_files, write_table

__all__ = ["READERS", "MAX_BYTES", "read_file_bytes", "read_table", "read_table_bytes", "numeric_column", "numeric_columns",
           "numeric_column_names", "summary_table", "BUNDLED_DATA", "WRITERS", "table_bytes", "write_table", "write_bytes",
           "write_files", "number_format", "TextAmongNumbers", "text_among_numbers", "identifier_columns"]

#: Missing-value policies: refuse the data (naming the first missing value) or drop the rows that have one.
MISSING = ("refuse", "drop")

#: Largest file accepted (bytes).
MAX_BYTES = 200 * 1024 * 1024


def _bundled_folder() -> Path:
    """The bundled data sets: ``rumap/data/`` as installed, else the project's top-level ``data/`` (a checkout)."""
    package = Path(__file__).resolve().parent.parent
    installed = package / "data"
    return installed if installed.is_dir() else package.parent / "data"


_BUNDLED = _bundled_folder()

#: Data sets shipped with rumap, by name: the top-level ``data/`` folder, installed as ``rumap/data/``
#: (``setup.py`` maps it), so a core install has them too.
BUNDLED_DATA = {"income (synthetic, Table 1)": _BUNDLED / "income.csv",
                "persons (synthetic, categorical keys)": _BUNDLED / "persons.csv",
                "survey (synthetic, households and weights)": _BUNDLED / "survey.csv"}




_DECIMAL_COMMA = re.compile(r"^[+-]?(\d{1,3}(\.\d{3})+|\d+),\d+$")  # 420,1576 or 1.234,5
_THOUSANDS_DOT = re.compile(r"^[+-]?\d{1,3}(\.\d{3})+(,\d+)?$")  # 1.234.567 (with a decimal comma elsewhere)
_DECIMAL_DOT = re.compile(r"^[+-]?\d*\.\d+([eE][+-]?\d+)?$")


@validate_params({"head": InstanceOf(str, "text"), "sep": InstanceOf(str, "a delimiter")},
                 example=lambda: {"head": "a;b\n1,5;2\n", "sep": ";"})
def number_format(head: str, sep: str) -> tuple[str, str | None]:
    r"""The decimal mark and thousands separator of a delimited text's numbers, detected from its first lines.

    European files (``income;age`` / ``420,1576;33``) write a decimal comma
    and may group thousands with a dot; a comma can be the decimal mark only
    when it is not the delimiter. Where both readings are possible (``1.234``
    and no decimal comma anywhere), the dot is the decimal mark.

    Parameters
    ----------
    head : str
        The text's first lines.
    sep : str
        Its delimiter.

    Returns
    -------
    decimal : str
        ``"."`` or ``","``.
    thousands : str or None
        ``"."`` when a decimal comma goes with dot-grouped thousands.

    Examples
    --------
    >>> number_format("income;age\n420,1576;33\n1.200,5;41\n", ";")
    (',', '.')
    >>> number_format("income,age\n420.15,33\n", ",")
    ('.', None)
    """
    if sep == ",":
        return ".", None
    cells = [c.strip().strip('"') for line in head.splitlines()[1:200] for c in line.split(sep)]
    comma = sum(bool(_DECIMAL_COMMA.match(c)) for c in cells)
    dot = sum(bool(_DECIMAL_DOT.match(c)) and not _THOUSANDS_DOT.match(c) for c in cells)
    if comma == 0 or dot > 0:
        return ".", None
    return ",", ("." if any(_THOUSANDS_DOT.match(c) for c in cells) else None)


def _read_csv(buffer: io.BytesIO) -> pd.DataFrame:
    # Sniff among the usual delimiters only: a free sniff takes a letter of a
    # one-column header (e.g. the "o" of "income") for the delimiter.
    head = text_head(buffer)
    try:
        sep = csv.Sniffer().sniff(head, delimiters=",;\t|").delimiter
    except csv.Error:
        sep = ","
    return _read_text(buffer, head, sep)


def _read_text(buffer: io.BytesIO, head: str, sep: str) -> pd.DataFrame:
    names = check_text_rows(buffer, sep)  # the out-of-core reader's check: whole header, no column twice, no ragged row
    decimal, thousands = number_format(head, sep)
    try:
        frame = pd.read_csv(buffer, sep=sep, encoding="utf-8-sig", decimal=decimal, thousands=thousands)
    except pd.errors.ParserError:
        check_text_rows(buffer, sep, exact=True)  # a row too long, beside one too short: named by its line
        raise
    if frame.shape[1] != len(names) or not isinstance(frame.index, pd.RangeIndex):
        check_text_rows(buffer, sep, exact=True)  # pandas takes the surplus leading fields of longer rows as an index
        raise InputError(f"some rows have more fields than the header's {len(names)} columns")
    return frame


def _read_tsv(buffer: io.BytesIO) -> pd.DataFrame:
    return _read_text(buffer, text_head(buffer), "\t")


def _read_excel(buffer: io.BytesIO) -> pd.DataFrame:
    optional_module("openpyxl", "reading Excel files", FORMATS_EXTRA)
    refuse_duplicates(pd.read_excel(buffer, engine="openpyxl", header=None, nrows=1).iloc[0].tolist())
    buffer.seek(0)
    return pd.read_excel(buffer, engine="openpyxl")


def _read_parquet(buffer: io.BytesIO) -> pd.DataFrame:
    optional_module("pyarrow", "reading Parquet files", FORMATS_EXTRA)
    return pd.read_parquet(buffer, engine="pyarrow")


def _read_dta(buffer: io.BytesIO) -> pd.DataFrame:
    return pd.read_stata(buffer)


def _pyreadstat_sas7bdat(buffer: io.BytesIO) -> pd.DataFrame:
    pyreadstat = optional_module("pyreadstat", "reading .sas7bdat files", FORMATS_EXTRA)
    frame, _meta = pyreadstat.read_sas7bdat(buffer)
    return frame


def _pyreadstat_xport(buffer: io.BytesIO) -> pd.DataFrame:
    pyreadstat = optional_module("pyreadstat", "reading .xpt files", FORMATS_EXTRA)
    frame, _meta = pyreadstat.read_xport(buffer)
    return frame


def _pyreadstat_sav(buffer: io.BytesIO) -> pd.DataFrame:
    pyreadstat = optional_module("pyreadstat", "reading .sav files", FORMATS_EXTRA)
    frame, _meta = pyreadstat.read_sav(buffer)
    return frame


#: Readers by file extension.
READERS: dict[str, Callable[[io.BytesIO], pd.DataFrame]] = {
    ".csv": _read_csv,
    ".txt": _read_csv,
    ".tsv": _read_tsv,
    ".tab": _read_tsv,
    ".xlsx": _read_excel,
    ".xlsm": _read_excel,
    ".parquet": _read_parquet,
    ".pq": _read_parquet,
    ".dta": _read_dta,
    ".sav": _pyreadstat_sav,
    ".sas7bdat": _pyreadstat_sas7bdat,
    ".xpt": _pyreadstat_xport,
}


@validate_params({"content": InstanceOf((bytes, bytearray), "bytes"), "name": InstanceOf(str, "a file name")},
                 example=lambda: {"content": b"x\n1\n2\n", "name": "x.csv"})
def read_table_bytes(content: bytes, name: str) -> pd.DataFrame:
    """Read a data file held in memory.

    Parameters
    ----------
    content : bytes
        The file's bytes.
    name : str
        Its name; the extension chooses the reader (:data:`READERS`).

    Returns
    -------
    pandas.DataFrame

    Raises
    ------
    InputError
        Unknown format, empty file, over :data:`MAX_BYTES`, bad encoding, or a
        file the reader cannot parse; the message names the file.
    """
    suffix = Path(name).suffix.lower()
    if suffix not in READERS:
        raise InputError(f"{name}: unknown file format {suffix or '(no extension)'!r}; "
                         f"use one of {', '.join(sorted(READERS))}")
    if len(content) == 0:
        raise InputError(f"{name}: the file is empty")
    if len(content) > MAX_BYTES:
        raise InputError(f"{name}: the file is {len(content) / 2**20:.0f} MB, over the "
                         f"{MAX_BYTES / 2**20:.0f} MB limit")
    buffer = io.BytesIO(content)
    try:
        frame = READERS[suffix](buffer)
    except UnicodeDecodeError:
        raise InputError(f"{name}: the file is not UTF-8 text (bad encoding)") from None
    except pd.errors.EmptyDataError:
        raise InputError(f"{name}: the file has no data") from None
    except InputError as exc:  # an optional reader that is not installed, or a column named twice
        raise InputError(f"{name}: {exc}") from None
    except ImportError as exc:
        raise InputError(f"{name}: reading {suffix} files needs {exc.name}, which is not installed: "
                         f"pip install 'rumap[{FORMATS_EXTRA}]'") from None
    except Exception as exc:  # every reader has its own error types
        raise InputError(f"{name}: cannot read the file as {suffix}: {str(exc).splitlines()[0] if str(exc) else type(exc).__name__}") from None
    if frame.shape[0] == 0 or frame.shape[1] == 0:
        raise InputError(f"{name}: the file has no rows or no columns")
    frame.columns = [str(c) for c in frame.columns]
    return frame


@validate_params({"path": InstanceOf((str, os.PathLike), "a file path")},
                 example=lambda: {"path": BUNDLED_DATA["income (synthetic, Table 1)"]})
def read_table(path: str | os.PathLike) -> pd.DataFrame:
    """Read a data file from disk (CSV/TSV, Excel, Parquet, Stata, SPSS, SAS).

    Parameters
    ----------
    path : str or path-like
        The file; its extension chooses the reader (:data:`READERS`).

    Returns
    -------
    pandas.DataFrame

    Raises
    ------
    InputError
        Missing or unreadable file, or any problem of :func:`read_table_bytes`.
    """
    return read_table_bytes(read_file_bytes(path), str(path))


@validate_params({"frame": InstanceOf(pd.DataFrame, "a pandas DataFrame")}, example=lambda: {"frame": pd.DataFrame({"a": [1.0, 2.0], "b": ["x", "y"]})})
def numeric_column_names(frame: pd.DataFrame) -> list[str]:
    """Names of the columns that hold numbers.

    Parameters
    ----------
    frame : pandas.DataFrame

    Returns
    -------
    list of str
    """
    return [c for c in frame.columns if pd.api.types.is_numeric_dtype(frame[c]) and not pd.api.types.is_bool_dtype(frame[c])]


@dataclass(frozen=True)
class TextAmongNumbers:
    """A column of numbers holding some text values, which :func:`numeric_columns` counts as missing.

    Attributes
    ----------
    column : str
    numbers : int
        Values read as numbers.
    texts : int
        Values that are text (neither a number nor blank).
    example : str
        The first text value.
    row : int
        Its row (from 1).
    """

    column: str
    numbers: int
    texts: int
    example: str
    row: int


def _text_cells(series: pd.Series) -> tuple[pd.Series, np.ndarray]:
    """The column read as numbers (text and blanks missing), and which cells are text."""
    values = pd.to_numeric(series, errors="coerce")
    blank = series.isna() | series.astype(str).str.strip().eq("")
    return values, (values.isna() & ~blank).to_numpy()


@validate_params({"frame": InstanceOf(pd.DataFrame, "a pandas DataFrame")},
                 example=lambda: {"frame": pd.DataFrame({"income": ["10", "12", "n/a", "9"], "sex": list("mfmf")})})
def text_among_numbers(frame: pd.DataFrame) -> list[TextAmongNumbers]:
    """The columns read as text although at least half of their values (and two or more) are numbers.

    Such a column (one stray ``"n/a"`` among incomes) is offered as numeric: its
    text values count as missing (see :func:`numeric_columns`), and this says
    which and how many.

    Parameters
    ----------
    frame : pandas.DataFrame

    Returns
    -------
    list of TextAmongNumbers
        In column order.

    Examples
    --------
    >>> import pandas as pd
    >>> from rumap.io.data import text_among_numbers
    >>> text_among_numbers(pd.DataFrame({"income": ["10", "12", "n/a", "9"], "sex": list("mfmf")}))
    [TextAmongNumbers(column='income', numbers=3, texts=1, example='n/a', row=3)]
    """
    out = []
    for col in frame.columns:
        series = frame[col]
        if pd.api.types.is_numeric_dtype(series) or pd.api.types.is_bool_dtype(series):
            continue
        values, text = _text_cells(series)
        numbers = int(values.notna().sum())
        if text.any() and numbers >= 2 and numbers >= int(text.sum()):
            first = int(np.argmax(text))
            out.append(TextAmongNumbers(column=str(col), numbers=numbers, texts=int(text.sum()),
                                        example=str(series.iloc[first]), row=first + 1))
    return out


_ID_WORDS = re.compile(r"(^|[^a-z])(id|ids|ident|identifier|serial|record|row|index)([^a-z]|$)|^(hid|pid|rid)$")
_CAMEL_ID = re.compile(r"[a-z0-9](Id|ID)$")  # personId, caseID


@validate_params({"frame": InstanceOf(pd.DataFrame, "a pandas DataFrame")},
                 example=lambda: {"frame": pd.DataFrame({"id": [1, 2, 3], "income": [9.5, 3.0, 7.25]})})
def identifier_columns(frame: pd.DataFrame) -> list[str]:
    """The numeric columns that look like record identifiers, which no page should mask by default.

    A column is an identifier when its name says so (``id``, ``person_id``,
    ``serial``, ``record``, ``row``, ``index``...) and its values are all
    different, or when its values (ten or more) are consecutive different
    integers (1, 2, ..., n in any order).

    Parameters
    ----------
    frame : pandas.DataFrame

    Returns
    -------
    list of str

    Examples
    --------
    >>> import pandas as pd
    >>> from rumap.io.data import identifier_columns
    >>> identifier_columns(pd.DataFrame({"id": [7, 3, 9], "row": [2, 1, 3], "income": [9.5, 3.0, 7.25]}))
    ['id', 'row']
    >>> identifier_columns(pd.DataFrame({"n": range(101, 113), "age": [30, 31] * 6}))
    ['n']
    """
    out = []
    for col in numeric_column_names(frame):
        values = frame[col].dropna().to_numpy(dtype=float)
        if values.size < 3 or np.unique(values).size != values.size:
            continue
        named = bool(_ID_WORDS.search(str(col).lower()) or _CAMEL_ID.search(str(col)))
        integers = np.isfinite(values).all() and bool((values == np.round(values)).all())
        consecutive = integers and values.size >= 10 and float(values.max() - values.min()) == values.size - 1
        if named or consecutive:
            out.append(str(col))
    return out


@validate_params({"frame": InstanceOf(pd.DataFrame, "a pandas DataFrame"),
                  "columns": [None, ListOf((str, int), "a list of column names")], "missing": StrOptions(MISSING)},
                 example=lambda: {"frame": pd.DataFrame({"a": [1.0, 2.0]}), "columns": ["a"]})
def numeric_columns(frame: pd.DataFrame, columns: list[str] | None, source: str = "the data",
                    missing: str = "refuse") -> np.ndarray:
    """The chosen numeric columns as a float array of shape ``(n, len(columns))``.

    Parameters
    ----------
    frame : DataFrame
    columns : list of str, optional
        Default: every numeric column.
    source : str
        Name of the file, for messages.
    missing : {"refuse", "drop"}
        Refuse missing values (raise), or drop the rows that have any. The text
        values of a column of numbers (:func:`text_among_numbers`) count as
        missing.

    Raises
    ------
    InputError
        Unknown or non-numeric column, missing values (or text among numbers)
        under ``"refuse"``, fewer than 2 rows.
    """
    try:
        refuse_duplicates(list(frame.columns))
    except InputError as exc:
        raise InputError(f"{source}: {exc}") from None
    if columns is None:
        columns = numeric_column_names(frame)
        if not columns:
            raise InputError(f"{source}: no numeric column")
    mixed = {t.column: t for t in text_among_numbers(frame)}
    values = np.empty((frame.shape[0], len(columns)), dtype=float)
    for j, col in enumerate(columns):
        if col not in frame.columns:
            raise InputError(f"{source}: no column {col!r}; columns are {', '.join(map(str, frame.columns))}")
        if pd.api.types.is_numeric_dtype(frame[col]) and not pd.api.types.is_bool_dtype(frame[col]):
            values[:, j] = frame[col].to_numpy(dtype=float)
        elif str(col) in mixed and missing == "drop":
            values[:, j] = _text_cells(frame[col])[0].to_numpy(dtype=float)
        elif str(col) in mixed:
            t = mixed[str(col)]
            raise InputError(f"{source}: column {col!r} has {t.texts} text value(s) among its numbers (e.g. "
                             f"{t.example!r} in row {t.row}); drop those rows as missing (missing='drop') or "
                             "correct the file")
        else:
            bad = frame[col][pd.to_numeric(frame[col], errors="coerce").isna() & frame[col].notna()]
            example = f" (e.g. {bad.iloc[0]!r} in row {bad.index[0] + 1})" if len(bad) else ""
            raise InputError(f"{source}: column {col!r} is not numeric{example}")
    bad_rows = ~np.isfinite(values).all(axis=1)
    if bad_rows.any():
        if missing == "drop":
            values = values[~bad_rows]
        else:  # refuse
            row = int(np.argmax(bad_rows))
            col = columns[int(np.argmax(~np.isfinite(values[row])))]
            raise InputError(f"{source}: column {col!r} has {int(bad_rows.sum())} missing or non-finite "
                             f"value(s), first in row {row + 1}")
    if values.shape[0] < 2:
        raise InputError(f"{source}: needs at least 2 complete rows, got {values.shape[0]}")
    check_magnitude(values, source, list(columns))
    return values


@validate_params({"frame": InstanceOf(pd.DataFrame, "a pandas DataFrame"), "missing": StrOptions(MISSING)},
                 example=lambda: {"frame": pd.DataFrame({"a": [1.0, 2.0]}), "column": "a"})
def numeric_column(frame: pd.DataFrame, column: str, source: str = "the data", missing: str = "refuse") -> np.ndarray:
    """One numeric column as a float array of shape ``(n,)`` (see :func:`numeric_columns`).

    Parameters
    ----------
    frame : pandas.DataFrame
    column : str
        The column's name.
    source : str
        The file's name, for messages.
    missing : {"refuse", "drop"}
        Refuse missing values (naming the first) or drop their rows.

    Returns
    -------
    ndarray, shape (n,)
    """
    return numeric_columns(frame, [column], source, missing)[:, 0]


@validate_params({"x": NumberArray(PARAMETERS["value"], ndim=(1,), min_size=2)},
                 example=lambda: {"x": [1.0, 2.0, 4.0]})
def summary_table(x: np.ndarray) -> pd.DataFrame:
    """A summary like Table 1 of Duncan et al. (2001): n, mean, sd, min, percentiles, max.

    Parameters
    ----------
    x : array_like, shape (n,)
        A numeric column of at least 2 values: ``sd`` is the sample standard
        deviation (ddof = 1), undefined for one value, which is refused rather
        than shown as NaN (as :func:`numeric_columns` refuses fewer than 2 rows).

    Returns
    -------
    pandas.DataFrame
        One row per statistic.
    """
    x = np.asarray(x, dtype=float)
    rows = {
        "n": x.size,
        "mean": float(np.mean(x)),
        "sd": float(np.std(x, ddof=1)),
        "min": float(np.min(x)),
        "1st percentile": float(np.percentile(x, 1)),
        "10th percentile": float(np.percentile(x, 10)),
        "median": float(np.median(x)),
        "90th percentile": float(np.percentile(x, 90)),
        "99th percentile": float(np.percentile(x, 99)),
        "max": float(np.max(x)),
    }
    return pd.DataFrame({"statistic": list(rows), "value": list(rows.values())})


@validate_params({"path": InstanceOf((str, os.PathLike), "a file path"), "name": [None, InstanceOf(str, "a name")]},
                 example=lambda: {"path": BUNDLED_DATA["income (synthetic, Table 1)"]})
def read_file_bytes(path: str | os.PathLike, name: str | None = None) -> bytes:
    """The bytes of a regular file of at most :data:`MAX_BYTES` (a device, pipe or directory is refused unread).

    Parameters
    ----------
    path : str or path-like
        The file.
    name : str, optional
        How errors name the file (default: its path).

    Returns
    -------
    bytes

    Raises
    ------
    InputError
        Missing, unreadable, not a regular file, or over :data:`MAX_BYTES`.

    Examples
    --------
    >>> read_file_bytes("/dev/zero")
    Traceback (most recent call last):
    ...
    rumap.errors.InputError: /dev/zero: not a regular file (a device, pipe or socket)
    """
    path = Path(path)
    name = str(path) if name is None else name
    size = regular_file_size(path, name)
    if size > MAX_BYTES:
        raise InputError(f"{name}: the file is {size / 2**20:.0f} MB, over the {MAX_BYTES / 2**20:.0f} MB limit")
    try:
        with path.open("rb") as handle:  # at most one byte over the limit, should the file grow
            return handle.read(MAX_BYTES + 1)
    except OSError as exc:
        raise InputError(f"{name}: cannot read the file ({exc.strerror})") from None


@validate_params({"path": InstanceOf((str, os.PathLike), "a file path")}, example=lambda: {"path": BUNDLED_DATA["income (synthetic, Table 1)"]})
def regular_file_size(path: str | os.PathLike, name: str | None = None) -> int:
    """The size in bytes of a regular file, checked without opening it (a FIFO would block, a device never end).

    Parameters
    ----------
    path : str or path-like
        The file.
    name : str, optional
        How errors name the file (default: its path).

    Returns
    -------
    int

    Raises
    ------
    InputError
        Missing, unreadable, a directory, or not a regular file.

    Examples
    --------
    >>> regular_file_size("/dev/null")
    Traceback (most recent call last):
    ...
    rumap.errors.InputError: /dev/null: not a regular file (a device, pipe or socket)
    """
    path = Path(path)
    name = str(path) if name is None else name
    try:
        info = path.stat()
    except FileNotFoundError:
        raise InputError(f"{name}: no such file") from None
    except OSError as exc:
        raise InputError(f"{name}: cannot read the file ({exc.strerror})") from None
    if stat.S_ISDIR(info.st_mode):
        raise InputError(f"{name}: is a directory, not a file")
    if not stat.S_ISREG(info.st_mode):
        raise InputError(f"{name}: not a regular file (a device, pipe or socket)")
    return int(info.st_size)
