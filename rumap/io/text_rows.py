"""The one check of a delimited text's header and rows, shared by the in-memory and the out-of-core readers.

Both readers refuse the same files with the same message: a header that names
a column twice (the name and both 1-based column positions), and a row whose
number of fields differs from the header's (its 1-based line, the header being
line 1, as a text editor or a spreadsheet shows it). The header is read whole,
however long; the rows are counted in blocks of bytes, and only a file with
quotes, blank lines or a row of the wrong width is read again field by field to
name the line.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Sequence
from typing import IO, Any

from rumap._validation import assumes_valid
from rumap.errors import InputError

__all__ = ["refuse_duplicates", "text_head", "check_text_rows", "HEAD_BYTES", "MAX_HEADER_BYTES"]

#: Bytes read to sniff a text's delimiter and number format (extended to the end of the line they end in).
HEAD_BYTES = 65536
#: The longest header accepted (bytes): a file without a line break is no table.
MAX_HEADER_BYTES = 200 * 1024 * 1024
_BLOCK = 1 << 24


@assumes_valid
def refuse_duplicates(names: Sequence[Any]) -> None:
    """Refuse a header that names a column twice (readers would rename the second one silently).

    Parameters
    ----------
    names : sequence
        The header's names, in order (compared as stripped text).

    Raises
    ------
    InputError
        Naming the first repeated name and the 1-based positions of its first two columns.

    Examples
    --------
    >>> refuse_duplicates(["income", "age", "income"])
    Traceback (most recent call last):
    ...
    rumap.errors.InputError: the header names a column more than once: 'income' (columns 1 and 3)
    """
    first: dict[str, int] = {}
    for position, name in enumerate(str(n).strip() for n in names):
        if name in first:
            raise InputError(f"the header names a column more than once: {name!r} "
                             f"(columns {first[name] + 1} and {position + 1})")
        first[name] = position


def _header_bytes(handle: IO[bytes], least: int = 0) -> bytes:
    """The file's first bytes through the end of its first record (a line break outside quotes) and of byte ``least``."""
    handle.seek(0)
    data, searched, end = b"", 0, None
    while True:
        if end is None:
            end = _record_end(data, searched)
        if end is not None:
            line = data.find(b"\n", max(end, least))
            if line >= 0:
                return data[: line + 1]
        if len(data) > MAX_HEADER_BYTES:
            raise InputError(f"the header is longer than {MAX_HEADER_BYTES / 2**20:.0f} MB: no line break ends it")
        block = handle.read(max(HEAD_BYTES, len(data)))  # doubling: a long header is read in few blocks
        if not block:
            return data
        searched, data = len(data), data + block


def _record_end(data: bytes, start: int) -> int | None:
    """The position of the first line break outside quotes in ``data`` (searched from ``start`` on), if any."""
    line = data.find(b"\n", start)
    while line >= 0:
        if data.count(b'"', 0, line) % 2 == 0:
            return line
        line = data.find(b"\n", line + 1)
    return None


@assumes_valid
def text_head(handle: IO[bytes]) -> str:
    """The text's first :data:`HEAD_BYTES` bytes, through the end of their last line and of the whole header.

    Parameters
    ----------
    handle : binary file
        Read from its start.

    Returns
    -------
    str

    Examples
    --------
    >>> text_head(io.BytesIO(b"a,b\\n1,2\\n"))
    'a,b\\n1,2\\n'
    """
    head = _header_bytes(handle, HEAD_BYTES)
    handle.seek(0)
    return head.decode("utf-8-sig", errors="ignore")


def _names(handle: IO[bytes], sep: str) -> tuple[list[str], int]:
    """The header's names and the bytes it takes."""
    header = _header_bytes(handle)
    text = header.decode("utf-8-sig", errors="replace")
    names = next(csv.reader(io.StringIO(text, newline=""), delimiter=sep), [])
    return names, len(header)


def _blank(row: list[str]) -> bool:
    return not row or (len(row) == 1 and not row[0].strip())


def _exact(handle: IO[bytes], sep: str, width: int) -> None:
    """Read the rows field by field and refuse the first whose width is not the header's, naming its line."""
    handle.seek(0)
    text = io.TextIOWrapper(handle, encoding="utf-8-sig", errors="replace", newline="")
    try:
        reader = csv.reader(text, delimiter=sep)
        next(reader, None)
        for row in reader:
            if len(row) != width and not _blank(row):
                raise InputError(f"line {reader.line_num} has {len(row)} field(s) but the header has {width} "
                                 "(line 1 is the header)")
    except csv.Error as exc:
        raise InputError(f"line {reader.line_num}: {exc}") from None
    finally:
        text.detach()  # the caller's handle stays open
        handle.seek(0)


@assumes_valid
def check_text_rows(handle: IO[bytes], sep: str, exact: bool = False) -> list[str]:
    """The header's names, once every row is known to have as many fields as the header names columns.

    Parameters
    ----------
    handle : binary file
        A delimited text, read from its start (and left at its start).
    sep : str
        The field delimiter.
    exact : bool
        Read every row field by field. The quick count of fields and lines
        cannot see a row too long beside one too short (the parsers refuse the
        long one): a reader calls this again with ``exact`` when its parser
        finds a row too long, so that its message is this one.

    Returns
    -------
    list of str
        The header's names, the whole header read.

    Raises
    ------
    InputError
        A column named twice, or a row with more or fewer fields than the
        header (blank lines are skipped, as the readers skip them).

    Examples
    --------
    >>> check_text_rows(io.BytesIO(b"sex,region\\nf,a\\nm\\n"), ",")
    Traceback (most recent call last):
    ...
    rumap.errors.InputError: line 3 has 1 field(s) but the header has 2 (line 1 is the header)
    """
    names, start = _names(handle, sep)
    refuse_duplicates(names)
    width, mark = len(names), sep.encode()
    handle.seek(start)
    lines = fields = 0
    last = b"\n"
    while not exact and (block := handle.read(_BLOCK)):
        joined = last[-2:] + block
        if b'"' in block or b"\n\n" in joined or b"\n\r\n" in joined:
            exact = True
            break
        lines += block.count(b"\n")
        fields += block.count(mark)
        last = block
    else:
        lines += not last.endswith(b"\n")  # a last line without its line break
        exact = exact or fields != (width - 1) * lines
    if exact:
        _exact(handle, sep, width)
    handle.seek(0)
    return names
