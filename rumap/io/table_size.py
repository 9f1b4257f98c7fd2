"""How large a data file is as a table, found cheaply: its rows and columns, and the memory they would take.

The file's bytes on disk say little about the memory its table takes once read:
a Parquet file of small integer codes is compressed ten times and more, a text
file's numbers are wider on disk than in memory. :func:`table_shape` finds the
rows and the columns without reading the values: a Parquet file's from its
metadata (exact), a delimited text's header, and its rows counted in a sample of
its first bytes and extrapolated to the file's size (exact when the sample
holds the whole file). :func:`in_memory_bytes` turns them into the memory the
in-memory engine would take for the columns a step uses, which is what the
command line's ``--engine auto`` decides from (:func:`rumap.cli.engine.scale_engine`).
"""

from __future__ import annotations

import csv
import io
import os
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import BinaryIO

from rumap._validation import InstanceOf, validate_params

__all__ = ["TableShape", "table_shape", "in_memory_bytes", "BYTES_PER_VALUE", "SAMPLE_BYTES"]

#: Bytes one value of a column a step uses takes in the in-memory engine: the pandas frame and the step's arrays.
#: Measured as whole processes of ``risk individual --engine memory`` on census-like files of 8 keys (685 MB for
#: 10^6 records, 2.95 GB for 10^7, less the interpreter's 150 MB: 67 and 35 bytes a key value).
BYTES_PER_VALUE = 40
#: Bytes of a delimited text read to count its rows.
SAMPLE_BYTES = 1 << 20

_PARQUET = (".parquet", ".pq")
_TEXT = {".csv": None, ".txt": None, ".tsv": "\t", ".tab": "\t"}


@dataclass(frozen=True)
class TableShape:
    """The rows and columns of a data file.

    Parameters
    ----------
    rows : int
        Records (exact, or extrapolated from a sample of a text file).
    columns : tuple of str
        The header's names, in order.
    exact : bool
        Whether ``rows`` was counted (Parquet metadata, a text read whole) rather than extrapolated.
    """

    rows: int
    columns: tuple[str, ...]
    exact: bool

    def to_dict(self) -> dict:
        """``{"rows", "columns", "exact"}``, the columns as a list."""
        return {**asdict(self), "columns": list(self.columns)}


def _parquet_shape(path: Path) -> TableShape | None:
    try:
        import pyarrow.parquet as pq

        metadata = pq.read_metadata(path)
    except Exception:  # noqa: BLE001 - no pyarrow, or not a Parquet file: the reader names the problem
        return None
    return TableShape(int(metadata.num_rows), tuple(metadata.schema.to_arrow_schema().names), True)


def _line_rate(handle: BinaryIO, start: int, length: int) -> tuple[int, int]:
    """Line breaks and the bytes they span in the whole lines of ``length`` bytes read from ``start``."""
    handle.seek(start)
    block = handle.read(length)
    first, last = block.find(b"\n"), block.rfind(b"\n")
    return (0, 0) if first == last else (block.count(b"\n", first + 1, last + 1), last - first)


def _text_shape(path: Path, separator: str | None, sample: int) -> TableShape | None:
    size = path.stat().st_size
    with path.open("rb") as handle:
        head = handle.read(sample)
        end = head.find(b"\n")
        if end < 0:
            return TableShape(0, (), True) if len(head) >= size and not head.strip() else None
        header = head[:end + 1].decode("utf-8-sig", errors="replace")
        if separator is None:
            try:
                separator = csv.Sniffer().sniff(head[:65536].decode("utf-8", errors="ignore"),
                                                delimiters=",;\t|").delimiter
            except csv.Error:
                separator = ","
        try:
            names = tuple(next(csv.reader(io.StringIO(header, newline=""), delimiter=separator), []))
        except csv.Error:  # the reader names what is wrong with the header
            return None
        if len(head) >= size:  # read whole: counted
            body = head[end + 1:]
            return TableShape(body.count(b"\n") + (1 if body and not body.endswith(b"\n") else 0), names, True)
        # the rows' width may drift through the file: a third of the sample at its start, middle and end
        third = max(sample // 3, 2)
        spans = [_line_rate(handle, at, third) for at in (end, end + (size - end - third) // 2, size - third)]
    lines, width = sum(s[0] for s in spans), sum(s[1] for s in spans)
    if lines == 0:  # rows longer than the sample: no rate to extrapolate
        return TableShape(1, names, False)
    return TableShape(max(1, round(lines * (size - end - 1) / width)), names, False)


@validate_params({"path": InstanceOf((str, os.PathLike), "a file path"), "sample": InstanceOf(int)},
                 example=lambda: {"path": "x.csv"})
def table_shape(path: str | os.PathLike, sample: int = SAMPLE_BYTES) -> TableShape | None:
    """The rows and columns of a Parquet or delimited text file, without reading its values.

    Parameters
    ----------
    path : str or path-like
        The file: ``.parquet``/``.pq`` (rows and columns from its metadata) or
        ``.csv``/``.txt``/``.tsv``/``.tab`` (the header, and the rows of its
        first ``sample`` bytes times the file's size over theirs).
    sample : int
        Bytes of a text file read to count its rows.

    Returns
    -------
    TableShape or None
        None for another format, a missing or unreadable file, or a text whose
        first line is longer than ``sample``: the reader then names the problem.

    Examples
    --------
    >>> import tempfile, os
    >>> path = os.path.join(tempfile.mkdtemp(), "x.csv")
    >>> _ = open(path, "w").write("sex,region\\nf,a\\nm,b\\n")
    >>> table_shape(path)
    TableShape(rows=2, columns=('sex', 'region'), exact=True)
    """
    file = Path(path)
    suffix = file.suffix.lower()
    try:
        if not file.is_file():
            return None
        if suffix in _PARQUET:
            return _parquet_shape(file)
        if suffix in _TEXT:
            return _text_shape(file, _TEXT[suffix], max(int(sample), 2))
    except OSError:
        return None
    return None


@validate_params({"shape": InstanceOf(TableShape), "columns": [None, InstanceOf((list, tuple), "column names")]},
                 example=lambda: {"shape": TableShape(10, ("a", "b"), True)})
def in_memory_bytes(shape: TableShape, columns: Sequence[str] | None = None) -> int:
    """The memory the in-memory engine would take for the columns a step uses: rows x columns x bytes a value.

    Parameters
    ----------
    shape : TableShape
        The file's rows and columns (:func:`table_shape`).
    columns : sequence of str, optional
        The columns the step uses (default: every column of the file); names
        the file does not have still count (the reader will name them).

    Returns
    -------
    int
        Bytes, :data:`BYTES_PER_VALUE` a value.

    Examples
    --------
    >>> in_memory_bytes(TableShape(10_000_000, tuple("abcdefghijk"), True), list("abcdefgh"))
    3200000000
    """
    used = len(shape.columns) if columns is None else len(set(columns))
    return int(shape.rows) * used * BYTES_PER_VALUE
