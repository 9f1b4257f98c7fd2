"""Files larger than memory: a lazy source over CSV or Parquet, and a chunked record-wise pass with progress.

The out-of-core engine is Polars (its lazy and streaming engine): a
:class:`Source` names a file and its columns without reading it; group-bys
over it run in Polars' streaming engine, and record-wise work goes through
:func:`rumap.scale.passes.apply_chunks`, which reads ``chunk_size`` records at a time in file
order, transforms them and writes each chunk before reading the next. No
pandas frame of the whole file is ever built.

Values read as missing are those pandas reads as missing (the in-memory path
reads CSV files with pandas): empty fields and the strings of
:data:`NA_STRINGS`.
"""

from __future__ import annotations

import math
import os
import re
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rumap._validation import InstanceOf, assumes_valid, validate_params
from rumap.errors import InputError
from rumap.examples import persons_file
from rumap.io.formats import (
    NA_STRINGS,
    SCALE_EXTRA,
    check_text_file,
    lazy_frame,
    polars_module,
    text_separator,
)
from rumap.io.outputs import atomic_outputs, check_outputs
from rumap.io.text_rows import refuse_duplicates

if TYPE_CHECKING:
    import polars as pl

__all__ = ["Source", "scan", "Progress", "progress_to", "SCALE_EXTRA", "DEFAULT_CHUNK_SIZE", "NA_STRINGS",
           "SCAN_FORMATS", "polars_module"]

#: Records per chunk of a record-wise pass unless told otherwise.
DEFAULT_CHUNK_SIZE = 1_000_000
#: File extension -> format the engine scans.
SCAN_FORMATS = {".parquet": "parquet", ".pq": "parquet", ".csv": "csv", ".txt": "csv", ".tsv": "tsv", ".tab": "tsv"}


@dataclass(frozen=True)
class Source:
    """A data file scanned lazily: its path, format and columns.

    Build it with :func:`scan`. ``lazy()`` is a Polars LazyFrame of the
    chosen columns; ``batches(chunk_size)`` yields them as DataFrames of
    ``chunk_size`` records in file order.

    Parameters
    ----------
    path : str
        The file.
    format : str
        ``"parquet"``, ``"csv"`` or ``"tsv"``.
    columns : tuple of str
        The columns used (all the file's columns unless chosen).
    separator : str
        The field separator of a text file.
    """

    path: str
    format: str
    columns: tuple[str, ...]
    separator: str = ","

    def lazy(self, columns: Sequence[str] | None = None) -> pl.LazyFrame:
        """The file as a Polars LazyFrame of ``columns`` (default: the source's columns).

        Parameters
        ----------
        columns : sequence of str, optional

        Returns
        -------
        polars.LazyFrame
        """
        frame = lazy_frame(self.path, self.format, self.separator)
        return frame.select(list(self.columns if columns is None else columns))

    def batches(self, chunk_size: int = DEFAULT_CHUNK_SIZE, columns: Sequence[str] | None = None
                ) -> Iterator[pl.DataFrame]:
        """The records in file order, ``chunk_size`` at a time.

        Parameters
        ----------
        chunk_size : int
        columns : sequence of str, optional

        Yields
        ------
        polars.DataFrame

        Notes
        -----
        A Parquet file is read one slice of rows per query (the footer finds
        its row groups): Polars' streaming batches read the whole file ahead
        of a slower consumer, so memory would follow the file, not the chunk.
        """
        if self.format == "parquet":
            total = self.count()
            for start in range(0, total, chunk_size):
                yield from _collected([self.lazy(columns).slice(start, chunk_size)], self, run=True)
            return
        pending = None
        for batch in _collected(self.lazy(columns).collect_batches(chunk_size=chunk_size, maintain_order=True),
                                self):
            pending = batch if pending is None else pending.vstack(batch)
            while pending.height >= chunk_size:
                yield pending.slice(0, chunk_size)
                pending = pending.slice(chunk_size)
        if pending is not None and pending.height:
            yield pending

    def collect(self, frame: pl.LazyFrame) -> pl.DataFrame:
        """Run a query over this source in the streaming engine, with the file named in any error.

        Parameters
        ----------
        frame : polars.LazyFrame
            A query built from :meth:`lazy`.

        Returns
        -------
        polars.DataFrame
        """
        return next(iter(_collected([frame], self, run=True)))

    def count(self) -> int:
        """The number of records (from the Parquet footer, or a streaming count of a text file).

        Returns
        -------
        int
        """
        pl = polars_module()
        return int(self.collect(self.lazy(self.columns[:1]).select(pl.len())).item())


def _collected(batches: Any, source: Source, run: bool = False) -> Iterator[pl.DataFrame]:
    """The frames of ``batches`` (collected in the streaming engine when ``run``), a reading error named by the file.

    A text's row too long, or its text among the numbers of a column whose type the first
    :data:`rumap.io.formats.CSV_SCHEMA_ROWS` rows set, is named as the in-memory reader names it: the line, or the column,
    value and row.
    """
    pl = polars_module()
    try:
        for batch in batches:
            yield batch.collect(engine="streaming") if run else batch
    except (pl.exceptions.ComputeError, pl.exceptions.SchemaError, pl.exceptions.InvalidOperationError,
            OSError) as exc:
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        if source.format != "parquet":
            _explain(source, first)
        raise InputError(f"{source.path}: cannot read the file: {first}") from None


_NOT_PARSED = re.compile(r"could not parse `(.*)` as dtype `[^`]*` at column '(.*)' \(column number \d+\)")


def _explain(source: Source, error: str) -> None:
    """Raise the in-memory reader's message for the text reading error ``error`` of Polars, when it has one."""
    pl = polars_module()
    if "more fields than" in error:
        try:
            check_text_file(source.path, source.separator, exact=True)
        except InputError as exc:
            raise InputError(f"{source.path}: {exc}") from None
    found = _NOT_PARSED.match(error)
    if found is not None:
        value, column = found.groups()
        text = lazy_frame(source.path, source.format, source.separator, infer=False)
        rows = text.select(pl.col(column)).with_row_index("row").filter(pl.col(column) == value).head(1)
        row = rows.collect(engine="streaming")["row"]
        where = f" in row {row.item() + 1}" if row.len() else ""
        raise InputError(f"{source.path}: column {column!r} is not numeric (e.g. {value!r}{where})")




@validate_params({"path": InstanceOf((str, os.PathLike), "a file path"),
                  "columns": [None, InstanceOf((list, tuple), "a list of column names")]},
                 example=lambda: {"path": persons_file()})
def scan(path: str | os.PathLike, columns: Sequence[str] | None = None) -> Source:
    """A lazy source over a CSV/TSV or Parquet file: nothing is read but its header (and a text's line breaks).

    A text file passes the in-memory reader's check first (:func:`rumap.io.text_rows.check_text_rows`): its
    whole header, no column named twice, every row as wide as the header, refused with the same message.

    Parameters
    ----------
    path : str or path-like
        The file (``.parquet``, ``.pq``, ``.csv``, ``.txt``, ``.tsv``, ``.tab``).
    columns : sequence of str, optional
        The columns to use (default: every column).

    Returns
    -------
    Source

    Raises
    ------
    InputError
        Missing file, a format the engine does not scan, no such column, a
        column named twice, a row with more or fewer fields than the header.

    Examples
    --------
    >>> source = scan(persons_file(), columns=["sex", "region"])
    >>> source.format, source.columns, source.count()
    ('csv', ('sex', 'region'), 4)
    """
    file = Path(path)
    name = str(path)
    fmt = SCAN_FORMATS.get(file.suffix.lower())
    if fmt is None:
        raise InputError(f"{name}: files larger than memory are read from {', '.join(sorted(SCAN_FORMATS))}, "
                         f"not {file.suffix or '(no extension)'!r}")
    if not file.is_file():
        raise InputError(f"{name}: no such file" if not file.exists() else f"{name}: not a regular file")
    if file.stat().st_size == 0:
        raise InputError(f"{name}: the file is empty")
    try:
        separator = "," if fmt == "parquet" else text_separator(file, fmt)
    except InputError as exc:
        raise InputError(f"{name}: {exc}") from None
    frame = lazy_frame(name, fmt, separator)
    try:
        names = tuple(frame.collect_schema().names())
    except Exception as exc:  # every format has its own errors
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise InputError(f"{name}: cannot read the file: {first}") from None
    try:
        refuse_duplicates(names)
    except InputError as exc:
        raise InputError(f"{name}: {exc}") from None
    chosen = names if columns is None else tuple(str(c) for c in columns)
    for column in chosen:
        if column not in names:
            raise InputError(f"{name}: no column {column!r}; columns are {', '.join(names)}")
    return Source(name, fmt, chosen, separator)


class Progress:
    """Progress of a long pass on stderr: one line per step, at most one every ``every`` seconds.

    Parameters
    ----------
    label : str
        What is being done.
    total : int or None
        Records in all (for the percentage).
    enabled : bool
        False writes nothing.
    every : float
        Seconds between lines.
    unit : str
        What is counted (``records``, ``partitions``...).
    """

    def __init__(self, label: str, total: int | None = None, enabled: bool = True, every: float = 1.0,
                 unit: str = "records") -> None:
        self.label, self.total, self.enabled, self.every, self.unit = label, total, enabled, every, unit
        self.start = time.perf_counter()
        self.last = -math.inf
        self.shown = -1

    def update(self, done: int, final: bool = False) -> None:
        """Report ``done`` records, or other units (always when ``final``, unless just reported).

        Parameters
        ----------
        done : int
        final : bool
        """
        now = time.perf_counter()
        report = _REPORT.get()
        if (not self.enabled and report is None) or (not final and now - self.last < self.every) or done == self.shown:
            return
        self.last, self.shown = now, done
        if report is not None:
            report(self.label, done, self.total)
        if not self.enabled:
            return
        share = f" ({100.0 * done / self.total:.0f}%)" if self.total else ""
        print(f"{self.label}: {done:,} {self.unit}{share}, {now - self.start:.1f} s", file=sys.stderr, flush=True)


#: The receiver of this context's progress (:func:`progress_to`), besides or instead of stderr.
_REPORT: ContextVar[Callable[[str, int, int | None], None] | None] = ContextVar("rumap_scale_progress", default=None)


@assumes_valid
@contextmanager
def progress_to(report: Callable[[str, int, int | None], None]) -> Iterator[None]:
    """Send every :class:`Progress` step of the passes run inside the block to ``report``.

    ``report(label, done, total)`` receives each step, whether or not the pass
    prints it (``progress=False`` prints nothing and still reports), at most one
    every second per pass and always the last. The receiver belongs to the
    calling thread's context: passes run at the same time in other threads (the
    dashboard's sessions) report to their own.

    Parameters
    ----------
    report : callable
        ``report(label, done, total)``: what the pass does, the records done,
        the records in all (None when the pass does not know them).

    Yields
    ------
    None

    Examples
    --------
    >>> from rumap.scale.passes import apply_chunks
    >>> steps = []
    >>> with progress_to(lambda label, done, total: steps.append((label, done))):
    ...     apply_chunks(scan(persons_file()), lambda chunk, start: None, chunk_size=3, progress=False,
    ...                  label="reading")
    4
    >>> steps[-1]
    ('reading', 4)
    """
    token = _REPORT.set(report)
    try:
        yield
    finally:
        _REPORT.reset(token)


def check_out(out: str | os.PathLike | None, inputs: Sequence[tuple[str, Any]], overwrite: bool,
              flag: str = "out") -> None:
    """Refuse, before any work, an ``out`` the chunks cannot be written to (:func:`rumap.io.outputs.check_outputs`).

    Parameters
    ----------
    out : str or path-like or None
        The ``.parquet`` or ``.csv`` file (None: nothing is written).
    inputs : sequence of (flag, path)
        The files the run reads.
    overwrite : bool
        Whether an existing ``out`` may be replaced.
    flag : str
        How messages name ``out``.
    """
    if out is None:
        return
    suffix = Path(out).suffix
    if SCAN_FORMATS.get(suffix.lower()) is None:
        raise InputError(f"{flag} {out}: records are written as .parquet or .csv, not {suffix or '(no extension)'!r}")
    check_outputs([(flag, out)], inputs, overwrite)


@contextmanager
def chunks_to(out: str | os.PathLike | None, inputs: Sequence[tuple[str, Any]] = (), overwrite: bool = False,
              flag: str = "out") -> Iterator[Callable[[pl.DataFrame], None] | None]:
    """Append chunks to ``out`` (Parquet or CSV by its extension), renamed into place when the block succeeds.

    Yields the function that writes a chunk (None when ``out`` is None). The chunks go to a hidden temporary
    file beside ``out`` (:func:`rumap.io.outputs.atomic_outputs`): a failure leaves neither a part of the
    file nor a change to an existing one.

    Parameters
    ----------
    out : str or path-like or None
    inputs : sequence of (flag, path)
        The files the run reads, which ``out`` may not be.
    overwrite : bool
        Whether an existing ``out`` may be replaced.
    flag : str
        How messages name ``out``.
    """
    if out is None:
        yield None
        return
    check_out(out, inputs, overwrite, flag)
    fmt = SCAN_FORMATS[Path(out).suffix.lower()]
    state: dict[str, Any] = {}
    with atomic_outputs(out, flag=flag) as (temporary,), open(temporary, "wb") as handle:

        def write(chunk: pl.DataFrame) -> None:
            if fmt == "parquet":
                if "writer" not in state:
                    import pyarrow.parquet as pq

                    state["writer"] = pq.ParquetWriter(handle, chunk.to_arrow().schema)
                state["writer"].write_table(chunk.to_arrow())
            else:
                chunk.write_csv(handle, separator="\t" if fmt == "tsv" else ",", include_header="header" not in state)
                state["header"] = True

        try:
            yield write
        finally:
            if "writer" in state:
                state["writer"].close()
