"""Writing tables: the file formats of ``--out`` and of the dashboard's downloads, made as bytes in memory.

The same table gives the same bytes (formats that store a time of writing get
a fixed one); only :func:`write_bytes` and :func:`write_table` touch the disk,
and only where the user named a file.
"""

from __future__ import annotations

import datetime
import io
import os
import re
import tempfile
import zipfile
from collections.abc import Callable, Sequence
from pathlib import Path

import pandas as pd

from rumap._validation import Boolean, InstanceOf, validate_params
from rumap.errors import InputError, optional_module
from rumap.io.outputs import atomic_outputs, check_outputs

__all__ = ["WRITERS", "table_bytes", "write_table", "write_bytes", "write_files", "FORMATS_EXTRA"]

#: The extra of rumap that installs the readers' optional packages (pyreadstat, pyarrow, openpyxl).
FORMATS_EXTRA = "formats"


#: A fixed time written where a format stores the time of writing, so the same table gives the same bytes.
_FIXED_TIME = datetime.datetime(2000, 1, 1)


def _csv_bytes(frame: pd.DataFrame, sep: str = ",") -> bytes:
    return frame.to_csv(index=False, sep=sep, lineterminator="\n").encode("utf-8")


def _parquet_bytes(frame: pd.DataFrame) -> bytes:
    optional_module("pyarrow", "writing Parquet files", FORMATS_EXTRA)
    buffer = io.BytesIO()
    frame.to_parquet(buffer, index=False, engine="pyarrow")
    return buffer.getvalue()


def _xlsx_bytes(frame: pd.DataFrame) -> bytes:
    optional_module("openpyxl", "writing Excel files", FORMATS_EXTRA)
    written = io.BytesIO()
    frame.to_excel(written, index=False, engine="openpyxl")
    stamp = _FIXED_TIME.strftime("%Y-%m-%dT%H:%M:%SZ").encode("ascii")
    out = io.BytesIO()  # the same archive with the times of writing fixed (entries' dates, document properties)
    with zipfile.ZipFile(written) as source, zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as target:
        for info in source.infolist():
            content = source.read(info.filename)
            if info.filename == "docProps/core.xml":
                content = re.sub(rb"(<dcterms:(?:created|modified)[^>]*>)[^<]*", rb"\g<1>" + stamp, content)
            target.writestr(zipfile.ZipInfo(info.filename, date_time=_FIXED_TIME.timetuple()[:6]), content,
                            compress_type=zipfile.ZIP_DEFLATED)
    return out.getvalue()


def _dta_bytes(frame: pd.DataFrame) -> bytes:
    buffer = io.BytesIO()
    frame.to_stata(buffer, write_index=False, time_stamp=_FIXED_TIME)
    return buffer.getvalue()


def _sav_bytes(frame: pd.DataFrame) -> bytes:
    pyreadstat = optional_module("pyreadstat", "writing .sav files", FORMATS_EXTRA)
    # pyreadstat writes to a path only: an anonymous file in memory (Linux), never a file on disk
    memfd = getattr(os, "memfd_create", None)
    if memfd is None:
        raise InputError("writing .sav files needs an in-memory file (Linux); write .dta, .csv or .parquet instead")
    fd = memfd("rumap-sav")
    try:
        pyreadstat.write_sav(frame, f"/proc/self/fd/{fd}")
        with os.fdopen(os.dup(fd), "rb") as handle:
            handle.seek(0)
            content = bytearray(handle.read())
    finally:
        os.close(fd)
    # the header's creation date (9 bytes) and time (8 bytes), after the record type, product name and 5 fields
    content[_SAV_DATE:_SAV_DATE + 17] = _FIXED_TIME.strftime("%d %b %y%H:%M:%S").encode("ascii")
    return bytes(content)


#: Offset of the creation date in a .sav file's header.
_SAV_DATE = 4 + 60 + 4 * 5 + 8

#: Encoders of the file formats the command line can write (``--out``), by extension: ``frame -> bytes``.
#: The same table gives the same bytes (formats that store a time of writing get a fixed one).
WRITERS: dict[str, Callable[[pd.DataFrame], bytes]] = {
    ".csv": _csv_bytes,
    ".tsv": lambda frame: _csv_bytes(frame, "\t"),
    ".parquet": _parquet_bytes,
    ".xlsx": _xlsx_bytes,
    ".dta": _dta_bytes,
    ".sav": _sav_bytes,
}


@validate_params({"frame": InstanceOf(pd.DataFrame, "a pandas DataFrame"), "name": InstanceOf(str, "a file name"),
                  "flag": InstanceOf(str)},
                 example=lambda: {"frame": pd.DataFrame({"a": [1]}), "name": "out.csv"})
def table_bytes(frame: pd.DataFrame, name: str, flag: str = "the output") -> bytes:
    """The bytes of ``frame`` in the format the extension of ``name`` names (:data:`WRITERS`), made in memory.

    Parameters
    ----------
    frame : DataFrame
    name : str
        A file name; only its extension is used.
    flag : str
        How the name was given, for messages (e.g. ``"--out"``).

    Returns
    -------
    bytes
        The same table always gives the same bytes.

    Raises
    ------
    InputError
        Unknown extension, or a table the format cannot hold.

    Examples
    --------
    >>> import pandas as pd
    >>> table_bytes(pd.DataFrame({"a": [1, 2]}), "out.csv")
    b'a\\n1\\n2\\n'
    """
    suffix = Path(name).suffix.lower()
    writer = WRITERS.get(suffix)
    if writer is None:
        raise InputError(f"{flag} {name}: unknown format {suffix or '(no extension)'!r}; use one of {', '.join(WRITERS)}")
    try:
        return writer(frame)
    except InputError:
        raise
    except ImportError as exc:
        raise InputError(f"{flag} {name}: writing {suffix} files needs {exc.name}, which is not installed: "
                         f"pip install 'rumap[{FORMATS_EXTRA}]'") from None
    except (ValueError, TypeError, OverflowError, KeyError) as exc:  # the format cannot hold a column
        first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise InputError(f"{flag} {name}: cannot write the table as {suffix}: {first}") from None


@validate_params({"frame": InstanceOf(pd.DataFrame, "a pandas DataFrame"), "flag": InstanceOf(str),
                  "overwrite": Boolean()},
                 example=lambda: {"frame": pd.DataFrame({"a": [1]}),
                                  "path": Path(tempfile.gettempdir()) / "rumap-write-table-example.csv",
                                  "overwrite": True})
def write_table(frame: pd.DataFrame, path: str | os.PathLike, flag: str = "the output",
                overwrite: bool = False) -> bytes:
    """Write ``frame`` to ``path`` in the format its extension names (:data:`WRITERS`).

    The file is written whole or not at all (:func:`rumap.io.outputs.atomic_outputs`).

    Parameters
    ----------
    frame : DataFrame
    path : str or path-like
    flag : str
        How the path was given, for messages (e.g. ``"--out"``).
    overwrite : bool
        Replace an existing file (default: refuse it).

    Returns
    -------
    bytes
        What was written (:func:`table_bytes`).

    Raises
    ------
    InputError
        Unknown extension, an existing file without ``overwrite``, or a file that cannot be written.
    """
    check_outputs([(flag, path)], overwrite=overwrite)
    content = table_bytes(frame, str(path), flag)
    write_bytes(content, path, flag, overwrite)
    return content


@validate_params({"content": InstanceOf((bytes, bytearray), "bytes"), "flag": InstanceOf(str),
                  "overwrite": Boolean()},
                 example=lambda: {"content": b"a\n1\n",
                                  "path": Path(tempfile.gettempdir()) / "rumap-write-bytes-example.csv",
                                  "overwrite": True})
def write_bytes(content: bytes, path: str | os.PathLike, flag: str = "the output", overwrite: bool = False) -> None:
    """Write bytes made in memory to the file the user named, whole or not at all.

    Parameters
    ----------
    content : bytes
    path : str or path-like
    flag : str
        How the path was given, for messages (e.g. ``"--report"``).
    overwrite : bool
        Replace an existing file (default: refuse it).

    Raises
    ------
    InputError
        An existing file without ``overwrite``, or a file that cannot be written (named with the flag).
    """
    write_files([(flag, path, content)], overwrite)


@validate_params({"files": InstanceOf((list, tuple), "a list of (flag, path, bytes)"), "overwrite": Boolean()},
                 example=lambda: {"files": [("out", Path(tempfile.gettempdir()) / "rumap-write-files-example.csv",
                                             b"a\n1\n")], "overwrite": True})
def write_files(files: Sequence[tuple[str, str | os.PathLike, bytes]], overwrite: bool = False) -> None:
    """Write several files made in memory: all of them or none (a run's data and its report, linked tables).

    Parameters
    ----------
    files : sequence of (flag, path, bytes)
        Each file's flag (for messages), path and content.
    overwrite : bool
        Replace existing files (default: refuse them).

    Raises
    ------
    InputError
        An existing file without ``overwrite``, two files at one path, or a file that cannot be written; then
        none is written.
    """
    check_outputs([(flag, path) for flag, path, _ in files], overwrite=overwrite)
    with atomic_outputs(*(path for _, path, _ in files), flag=files[0][0] if files else "the output") as temporaries:
        for (flag, path, content), temporary in zip(files, temporaries, strict=True):
            _write(temporary, content, flag, path)


def _write(temporary: Path, content: bytes, flag: str, path: str | os.PathLike) -> None:
    """Write ``content`` to the temporary file of ``path`` (:func:`rumap.io.outputs.atomic_outputs`)."""
    try:
        temporary.write_bytes(content)
    except OSError as exc:
        raise InputError(f"{flag} {path}: cannot write the file ({exc.strerror or exc})") from None
