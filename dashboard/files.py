"""One data set per session: the file a page assesses is the session's data or the page's example.

A file uploaded on any page becomes the session's data (:func:`adopt_upload`,
held in ``st.session_state`` only, never on disk), and every page that takes a
file offers it (:func:`example_or_upload`). A page's second file (the masked
version on the Linkage page, a published table) is kept in the session's
memory as well (:func:`kept_file`), so it is still there after a change of page.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import pandas as pd
import streamlit as st

from dashboard import state
from dashboard.code import bundled_path
from dashboard.markdown import plain
from dashboard.server_files import notice as server_notice
from dashboard.widgets import remembered
from rumap.errors import InputError
from rumap.fingerprint import bytes_digest
from rumap.io.data import BUNDLED_DATA, numeric_column_names, read_table, read_table_bytes

#: The choices of :func:`example_or_upload`: the session's data or the page's bundled example.
SESSION, EXAMPLE = "session", "example"
#: Session-state key: each page's source widget -> the value that chooses the session's data.
SOURCE_WIDGETS = "rumap_source_widgets"
#: Session-state key: the files a page keeps besides the session's data, by widget key.
KEPT_FILES = "rumap_kept_files"
#: The Data page's source widget and its choice for an uploaded file.
DATA_SOURCE, DATA_UPLOADED = "data_source", "Upload a file"


@dataclass(frozen=True)
class PageFile:
    """The file a page assesses: its table, its name (for messages), how code refers to it, and whose it is.

    ``session`` is true for the session's data, false for the page's example or a page's own second file.
    """

    frame: pd.DataFrame
    name: str
    path: str
    session: bool = False


def offer_everywhere() -> None:
    """Make every page that takes a file choose the session's data the next time it is drawn.

    A widget that shows that choice already (e.g. the Data page's, drawn in this run) is left as it is.
    """
    wanted = {DATA_SOURCE: DATA_UPLOADED, **st.session_state.get(SOURCE_WIDGETS, {})}
    store = st.session_state.setdefault(state.STORE, {})
    for key, value in wanted.items():
        if st.session_state.get(key) == value:
            store[key] = value
        else:
            state.set_widgets({key: value})


def adopt_upload(name: str, content: bytes) -> state.LoadedData:
    """Make an uploaded file the session's data: every page offers it from now on (raises InputError if unreadable).

    Its first numeric column becomes the map pages' choice; a file without one (categorical
    keys only) is the session's data all the same, and the map pages say they keep the earlier choice.

    Parameters
    ----------
    name : str
        The file's name.
    content : bytes
        Its bytes (kept in memory only).

    Returns
    -------
    LoadedData
    """
    data = state.load_bytes("upload", name, content, require_numeric=False)
    numeric = numeric_column_names(data.frame)
    if numeric:
        try:
            state.select(numeric[:1], "refuse")
        except InputError:
            pass  # the refusal is noted; the map pages say which earlier choice they keep
    else:
        state.refuse(f"the new file {name} for the map pages", "it has no numeric column; the maps need numbers")
    st.session_state.pop("data_columns", None)
    offer_everywhere()
    return data


def session_file() -> PageFile | None:
    """The session's data as a page's file; ``None`` before any is loaded.

    Returns
    -------
    PageFile or None
    """
    data = state.loaded_data()
    if data is None:
        return None
    path = bundled_path(data.name) if data.kind == "bundled" and data.name in BUNDLED_DATA else data.name
    return PageFile(data.frame, data.name, path, session=True)


def upload_into_session(label: str, key: str) -> None:
    """An uploader whose file becomes the session's data (draw it before the widgets that choose the data).

    Parameters
    ----------
    label : str
        The uploader's label.
    key : str
        Its key.
    """
    upload = st.file_uploader(label, key=key, help="kept in this session's memory only; every page offers it")
    if upload is None:
        return
    content = upload.getvalue()
    data = state.loaded_data()
    if data is None or data.kind != "upload" or data.digest != bytes_digest(content) or data.name != upload.name:
        adopt_upload(upload.name, content)


def example_or_upload(example: str, key: str, label: str, server_files: bool = False) -> PageFile | None:
    """The session's data or the page's bundled ``example``, and an uploader whose file becomes the session's data.

    The session's data is chosen by default once it is an uploaded file; ``None`` is never
    returned now (kept for the pages that check it).

    Parameters
    ----------
    example : str
        A key of :data:`rumap.io.data.BUNDLED_DATA`.
    key : str
        Prefix of the widgets' keys (``{key}_source``, ``{key}_upload``).
    label : str
        The uploader's label.
    server_files : bool
        Whether the page offers a file on the server itself (:mod:`dashboard.server_files`); if not,
        and the server offers them, a caption says which pages do.

    Returns
    -------
    PageFile or None
    """
    st.session_state.setdefault(SOURCE_WIDGETS, {})[f"{key}_source"] = SESSION
    choice, uploader = st.container(), st.container()  # the choice is shown first but drawn after an upload
    with uploader:
        upload_into_session(f"or upload a {label} (it becomes the session's data)", f"{key}_upload")
        if not server_files:
            server_notice()
    session = session_file()
    path = BUNDLED_DATA[example]
    options = [SESSION, EXAMPLE] if session is not None else [EXAMPLE]
    default = SESSION if session is not None and state.loaded_data().kind == "upload" else EXAMPLE
    if st.session_state.get(f"{key}_source", default) not in options:
        state.set_widgets({f"{key}_source": default})
    names = {SESSION: f"the session's data: {plain(session.name)}" if session is not None else "", EXAMPLE:
             f"this page's example: {path.name}"}
    with choice:
        source = remembered(st.radio, "data", f"{key}_source", default, options=options, format_func=names.get)
    if source == SESSION and session is not None:
        return session
    return PageFile(read_table(path), path.name, bundled_path(example))


def kept_file(label: str, key: str, reader: Callable[[bytes, str], pd.DataFrame] = read_table_bytes,
              **uploader) -> PageFile | None:
    """A page's own second file, kept in the session's memory until replaced or forgotten; ``None`` before one.

    Parameters
    ----------
    label : str
        The uploader's label.
    key : str
        Its key (and the file's key in the session's memory).
    reader : callable
        ``reader(content, name)`` reads the file into a table (raises InputError).
    **uploader
        Further arguments of ``st.file_uploader`` (e.g. ``type``, ``help``).

    Returns
    -------
    PageFile or None
    """
    kept = st.session_state.setdefault(KEPT_FILES, {})
    upload = st.file_uploader(label, key=key, **uploader)
    if upload is not None:
        content = upload.getvalue()
        digest = bytes_digest(content)
        if key not in kept or kept[key][0] != digest:
            kept[key] = (digest, PageFile(reader(content, upload.name), upload.name, upload.name))
    if key not in kept:
        return None
    file = kept[key][1]
    if upload is None:
        st.caption(f"Kept for this session: {plain(file.name)} ({file.frame.shape[0]:,} rows). "
                   "Upload another file to replace it.")
        if st.button("Forget this file", key=f"{key}_forget"):
            kept.pop(key, None)
            st.rerun()
    return file
