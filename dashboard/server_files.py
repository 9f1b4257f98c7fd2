"""Files on the server, for a dashboard the agency runs itself: off unless the operator names one folder.

With the environment variable :data:`ENV` set to a folder (``RUMAP_SERVER_FILES=/srv/microdata python -m
dashboard.serve``), the pages that can work on a file larger than memory offer "a file on the server" beside
the upload: a path inside that folder (a CSV or Parquet file of any size), read where it lies through
:mod:`rumap.scale`, never copied, uploaded or listed. A path that resolves outside the folder (an absolute
path elsewhere, ``..``, a symbolic link that leads out) is refused. Without the variable no page shows the
field. The pages that need their file in memory say so (:func:`notice`).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

import streamlit as st

from dashboard.caches import digest_cached
from dashboard.markdown import plain
from dashboard.progress import ThrottledProgress
from dashboard.widgets import remembered
from rumap.errors import InputError
from rumap.io.outputs import same_file
from rumap.scale import progress_to
from rumap.scale.source import SCAN_FORMATS

__all__ = ["ENV", "READING_PAGES", "ServerFile", "allowed_folder", "resolve_inside", "resolve_output",
           "server_file_input", "notice", "file_cached", "BarReport", "progress_bar"]

T = TypeVar("T")

#: The environment variable naming the one folder whose files the dashboard may read (unset: the option is off).
ENV = "RUMAP_SERVER_FILES"
#: The pages that read a file on the server, for the other pages' notice.
READING_PAGES = "Categorical keys, Empirical map and Release"


@dataclass(frozen=True)
class ServerFile:
    """A file inside the allowed folder: its resolved path, the path as given, its size and modification time.

    The size and time are part of what the results computed on it are kept under, so a file
    replaced on the server is read again.
    """

    path: str
    name: str
    size: int
    modified: int


def allowed_folder() -> Path | None:
    """The folder :data:`ENV` names, resolved; ``None`` when the option is off (raises InputError if not a folder).

    Returns
    -------
    Path or None

    Examples
    --------
    >>> import os, tempfile
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     os.environ[ENV] = folder
    ...     allowed_folder() == Path(folder).resolve()
    True
    >>> del os.environ[ENV]
    >>> allowed_folder() is None
    True
    """
    value = os.environ.get(ENV, "").strip()
    if not value:
        return None
    folder = Path(value)
    if not folder.is_dir():
        raise InputError(f"{ENV} names {value}, which is not a folder: no file on the server can be read")
    return folder.resolve()


def _given_path(folder: Path, text: str, empty: str) -> tuple[str, Path, Path]:
    """The path as typed, the folder resolved and the path inside it (not yet resolved); refuses ``..`` and nothing.

    ``empty`` is the message for an empty field.
    """
    given = text.strip()
    if not given:
        raise InputError(empty)
    root = folder.resolve()
    candidate = Path(given)
    if ".." in candidate.parts:
        raise InputError(f"{given}: a path with '..' is refused; give one inside {root}")
    return given, root, candidate if candidate.is_absolute() else root / candidate


def resolve_inside(folder: Path, text: str) -> Path:
    """The file ``text`` names inside ``folder``, resolved (raises InputError for anything else).

    A relative path is taken from the folder. Refused: a ``..`` step, a path that resolves outside
    the folder (symbolic links followed), a missing file or a folder, a format other than CSV/TSV or
    Parquet. The message names the path as given and the folder, never where a link leads.

    Parameters
    ----------
    folder : Path
        The allowed folder (:func:`allowed_folder`).
    text : str
        The path typed on the page.

    Returns
    -------
    Path
        The file, with every symbolic link resolved (what is read, so a link changed later is not followed).

    Examples
    --------
    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as name:
    ...     folder = Path(name).resolve()
    ...     _ = (folder / "persons.csv").write_text("sex\\nf\\n")
    ...     print(resolve_inside(folder, "persons.csv").name)
    ...     try:
    ...         resolve_inside(folder, "../persons.csv")
    ...     except InputError as exc:
    ...         print("refused")
    persons.csv
    refused
    """
    given, root, candidate = _given_path(folder, text, "give the path of a file inside the folder on the server")
    try:
        resolved = candidate.resolve()
    except (OSError, RuntimeError):  # a loop of links
        raise InputError(f"{given}: the path cannot be resolved") from None
    if not resolved.is_relative_to(root):
        raise InputError(f"{given}: outside {root}, the only folder this server reads files from")
    if resolved.suffix.lower() not in SCAN_FORMATS:
        raise InputError(f"{given}: files on the server are read as CSV or Parquet "
                         f"({', '.join(sorted(SCAN_FORMATS))}), not {resolved.suffix or '(no extension)'!r}")
    if not resolved.is_file():
        raise InputError(f"{given}: no such file in {root}")
    return resolved


def resolve_output(folder: Path, text: str, original: Path, suffixes: tuple[str, ...] = (".parquet",),
                   replace: bool = False) -> Path:
    """The file ``text`` names inside ``folder`` for a file to write (raises InputError for anything else).

    A relative path is taken from the folder. Refused: a ``..`` step, a folder that is missing or resolves
    outside ``folder``, a symbolic link (whether it leads in or out), an extension other than ``suffixes``,
    the file read (``original``, by its resolved path or as the same file), a folder, and an existing file
    unless ``replace``. The message names the path as given and the folder, never where a link leads.

    Parameters
    ----------
    folder : Path
        The allowed folder (:func:`allowed_folder`).
    text : str
        The path typed on the page.
    original : Path
        The file read (:func:`resolve_inside`): never written.
    suffixes : tuple of str
        The formats that may be written.
    replace : bool
        Whether an existing file (not ``original``) may be replaced.

    Returns
    -------
    Path
        The file to write, its folder resolved.

    Examples
    --------
    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as name:
    ...     folder = Path(name).resolve()
    ...     _ = (folder / "persons.parquet").write_bytes(b"PAR1")
    ...     print(resolve_output(folder, "released.parquet", folder / "persons.parquet").name)
    ...     for text in ("persons.parquet", "../released.parquet", "released.csv"):
    ...         try:
    ...             resolve_output(folder, text, folder / "persons.parquet")
    ...         except InputError:
    ...             print("refused")
    released.parquet
    refused
    refused
    refused
    """
    given, root, candidate = _given_path(folder, text,
                                         "give the path of the file to write, inside the folder on the server")
    if candidate.suffix.lower() not in suffixes:
        raise InputError(f"{given}: the file written is {' or '.join(suffixes)}, not "
                         f"{candidate.suffix or '(no extension)'!r}")
    try:
        parent = candidate.parent.resolve(strict=True)
    except (OSError, RuntimeError):
        raise InputError(f"{given}: its folder does not exist in {root}") from None
    if not parent.is_relative_to(root) or not parent.is_dir():
        raise InputError(f"{given}: outside {root}, the only folder this server writes files to")
    target = parent / candidate.name
    if target.is_symlink():
        raise InputError(f"{given}: a symbolic link; give the path of a file, not of a link")
    if same_file(target, original):
        raise InputError(f"{given}: the file read; the released file needs another name")
    if target.exists() and not target.is_file():
        raise InputError(f"{given}: not a file")
    if target.exists() and not replace:
        raise InputError(f"{given}: the file exists; choose another name, or allow it to be replaced")
    return target


def server_file_input(key: str, instead: str = "the data chosen above") -> ServerFile | None:
    """The path field of a file on the server; ``None`` when the option is off or the field is empty.

    Draw it where the page's upload is. A refused path raises InputError (the page's error box); a
    setting that names no folder is said in an error box here, and the field is not drawn.

    Parameters
    ----------
    key : str
        The field's key.
    instead : str
        What the file is used instead of, for the caption under the field.

    Returns
    -------
    ServerFile or None
    """
    try:
        folder = allowed_folder()
    except InputError as exc:  # the operator's setting: said where the field would be, the page goes on
        st.error(plain(str(exc)))
        return None
    if folder is None:
        return None
    text = remembered(st.text_input, f"or a file on the server: its path inside {folder} (CSV or Parquet, any size)",
                      key, "", help="read where it lies, in chunks; nothing of it is copied or written")
    if not text.strip():
        return None
    path = resolve_inside(folder, text)
    status = path.stat()
    st.caption(f"In use instead of {instead}; empty the field to use those again.")
    return ServerFile(str(path), text.strip(), int(status.st_size), int(status.st_mtime_ns))


def notice() -> None:
    """On a page that needs its file in memory: say which pages read a file on the server (nothing when off)."""
    if os.environ.get(ENV, "").strip():
        st.caption(f"Files on the server are read on the {READING_PAGES} pages; this page needs its file "
                   "uploaded (it holds the whole file in memory).")


def file_cached(file: ServerFile, page: str, what: str, settings: dict, compute: Callable[[], T]) -> T:
    """:func:`dashboard.caches.digest_cached` for a file on the server, named by its path, size and time.

    Parameters
    ----------
    file : ServerFile
    page, what : str
    settings : dict
    compute : callable

    Returns
    -------
    object
    """
    return digest_cached(f"server:{file.path}:{file.size}:{file.modified}", page, what, settings, compute)


class BarReport:
    """The receiver of :func:`rumap.scale.progress_to` that moves a progress bar: each pass's records done
    over the file's records, with the pass's label.

    Parameters
    ----------
    bar : object
        Has ``progress(value, text=...)``, as the element ``st.progress`` returns.
    records : int
        The file's records.
    """

    def __init__(self, bar, records: int) -> None:
        self._shown = ThrottledProgress(bar)
        self._records = max(1, int(records))

    def __call__(self, label: str, done: int, total: int | None) -> None:
        """Show that the pass ``label`` has read ``done`` records (of ``total``, or of the file's)."""
        of = max(1, total or self._records)
        self._shown.update(done / of, f"{plain(label)}: {done:,} of {max(done, of):,} records")


@contextmanager
def progress_bar(file: ServerFile, records: int) -> Iterator[None]:
    """A progress bar fed by the passes of :mod:`rumap.scale` run inside the block.

    Parameters
    ----------
    file : ServerFile
        The file read (named in the bar's text).
    records : int
        Its number of records (each pass's share is its records done over these).

    Yields
    ------
    None
    """
    bar = st.progress(0.0, text=f"reading {plain(file.name)}")
    with progress_to(BarReport(bar, records)):
        yield
    bar.progress(1.0, text=f"done: {records:,} records of {plain(file.name)} read")
