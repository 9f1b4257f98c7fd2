"""The session's data: the loaded data set, the chosen columns, and what was refused.

Everything lives in ``st.session_state``, i.e. in this browser session's memory
only: nothing is written to disk and everything ends with the session.

The session's other state has a module per job, whose names this module also
gives to the pages: the kept analyses (:mod:`dashboard.kept`), the caches of
results (:mod:`dashboard.caches`) and the widgets' remembered values
(:mod:`dashboard.widget_memory`).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np
import pandas as pd
import streamlit as st

from dashboard.caches import (
    CACHE,
    FIGURES,
    cache,
    figure_cached,
    frame_cached,
    is_cached,
    keep_result,
    run_cached,
    shared_cache,
    shared_figures,
)
from dashboard.kept import (
    ANALYSES,
    CURRENT,
    KEPT_CHOICES,
    analyses,
    current,
    focus,
    keep,
    kept_choice,
    name_hint,
    set_current,
    set_name_hint,
)
from dashboard.widget_memory import STORE, init_widget, keep_shown, remember, set_widgets
from rumap import check_varies
from rumap.errors import InputError
from rumap.fingerprint import bytes_digest, frame_digest
from rumap.io.data import (
    BUNDLED_DATA,
    numeric_column_names,
    numeric_columns,
    read_file_bytes,
    read_table_bytes,
    text_among_numbers,
)
from rumap.specs import DataSource

__all__ = ["DATA", "SELECTION", "REFUSED", "LoadedData", "Selection", "Refusal", "load_bytes", "refuse", "refusal",
           "load_bundled", "loaded_data", "select", "selection", "ensure_default_data", "data_for",
           "FINGERPRINTS", "fingerprint_of", "file_fingerprint",
           # the session's other state, by job
           "CACHE", "FIGURES", "cache", "shared_cache", "is_cached", "run_cached", "keep_result", "shared_figures",
           "figure_cached", "frame_cached",
           "ANALYSES", "CURRENT", "KEPT_CHOICES", "analyses", "keep", "focus", "kept_choice", "set_current", "current",
           "set_name_hint", "name_hint",
           "STORE", "init_widget", "keep_shown", "remember", "set_widgets"]

DATA = "rumap_data"
SELECTION = "rumap_selection"
REFUSED = "rumap_refused"
#: The fingerprint of the table each selection was chosen from, by the selection's digest.
FINGERPRINTS = "rumap_fingerprints"


@dataclass(frozen=True)
class LoadedData:
    """A data set held in memory: where it came from, its table and a digest of its bytes."""

    kind: str
    name: str
    frame: pd.DataFrame
    digest: str

    @cached_property
    def fingerprint(self) -> str:
        """The table's fingerprint (:func:`rumap.fingerprint.frame_digest`), what a release plan's step records."""
        return frame_digest(self.frame)


@dataclass(frozen=True)
class Selection:
    """The chosen numeric column(s) of the loaded data, after the missing-value policy."""

    source: DataSource
    values: np.ndarray  # shape (n, d)

    @property
    def column(self) -> np.ndarray:
        """The first chosen column, shape (n,).

        Returns
        -------
        ndarray, shape (n,)
        """
        return self.values[:, 0]


def load_bytes(kind: str, name: str, content: bytes, filename: str | None = None,
               require_numeric: bool = True) -> LoadedData:
    """Read a file held in memory (raises InputError naming the problem) and make it the session's data.

    ``filename`` (default ``name``) chooses the reader by its extension; with
    ``require_numeric`` a file without a numeric column is refused.

    Parameters
    ----------
    kind : {"bundled", "upload"}
        Where the file comes from.
    name : str
        The data set's name.
    content : bytes
        The file's bytes.
    filename : str, optional
        The name whose extension chooses the reader.
    require_numeric : bool
        Refuse a file without a numeric column (the maps need one; categorical keys do not).

    Returns
    -------
    LoadedData
    """
    try:
        frame = read_table_bytes(content, filename or name)
        if require_numeric and not numeric_column_names(frame) and not text_among_numbers(frame):
            raise InputError(f"{name}: no numeric column; the maps need numbers")
    except InputError as exc:
        refuse(f"the new file {name}", str(exc))
        raise
    data = LoadedData(kind=kind, name=name, frame=frame, digest=bytes_digest(content))
    st.session_state[DATA] = data
    return data


@dataclass(frozen=True)
class Refusal:
    """Data the user asked for and did not get: what it was and why it was refused."""

    what: str
    reason: str


def refuse(what: str, reason: str) -> None:
    """Note that ``what`` was refused (the earlier selection stays, and the pages say so).

    Parameters
    ----------
    what : str
        What was refused, e.g. ``"the new file x.csv"``.
    reason : str
        The error message.
    """
    st.session_state[REFUSED] = Refusal(what=what, reason=reason)


def refusal() -> Refusal | None:
    """The last refused file or column, while the earlier selection is still in use.

    Returns
    -------
    Refusal or None
    """
    return st.session_state.get(REFUSED)


def load_bundled(name: str) -> LoadedData:
    """Load a data set shipped with rumap.

    Parameters
    ----------
    name : str
        A key of :data:`rumap.io.data.BUNDLED_DATA`.

    Returns
    -------
    LoadedData
    """
    path = BUNDLED_DATA[name]
    return load_bytes("bundled", name, read_file_bytes(path), filename=path.name)


def loaded_data() -> LoadedData | None:
    """The session's data set, if one is loaded.

    Returns
    -------
    LoadedData or None
    """
    return st.session_state.get(DATA)


def select(columns: list[str], missing: str) -> Selection:
    """Choose the column(s) of the loaded data (raises InputError for a bad choice).

    Parameters
    ----------
    columns : list of str
        Numeric columns of the loaded data.
    missing : {"refuse", "drop"}
        The missing-value policy.

    Returns
    -------
    Selection
    """
    data = loaded_data()
    try:
        values = numeric_columns(data.frame, list(columns), source=data.name, missing=missing)
        check_varies(values, data.name, list(columns))  # refused here, so no page draws a map of a constant
    except InputError as exc:
        refuse(f"{', '.join(map(str, columns))} of {data.name}", str(exc))
        raise
    source = DataSource.of(data.kind, data.name, columns, values, missing=missing)
    selection = Selection(source=source, values=values)
    st.session_state[SELECTION] = selection
    st.session_state.setdefault(FINGERPRINTS, {})[source.digest] = data.fingerprint
    st.session_state.pop(REFUSED, None)
    return selection


def file_fingerprint(frame: pd.DataFrame, session: bool) -> str:
    """The fingerprint a page's map records of its file: the session's data's (computed once), or the table's.

    Parameters
    ----------
    frame : DataFrame
        The file the page draws its map on.
    session : bool
        Whether it is the session's data.

    Returns
    -------
    str
    """
    data = loaded_data()
    if session and data is not None and data.frame is frame:
        return data.fingerprint
    return frame_digest(frame)


def fingerprint_of(digest: str | None) -> str | None:
    """The fingerprint of the table a selection of this digest was chosen from (None: not chosen here).

    Parameters
    ----------
    digest : str or None
        A selection's :class:`~rumap.specs.DataSource` digest.

    Returns
    -------
    str or None
    """
    return st.session_state.get(FINGERPRINTS, {}).get(digest) if digest else None


def selection() -> Selection | None:
    """The chosen column(s) of the loaded data, if chosen.

    Returns
    -------
    Selection or None
    """
    return st.session_state.get(SELECTION)


def ensure_default_data() -> bool:
    """On a session's first run, load the first bundled data set and its first numeric column.

    Returns
    -------
    bool
        Whether this was the session's first run.
    """
    if DATA in st.session_state or st.session_state.get("rumap_default_tried"):
        return False
    st.session_state["rumap_default_tried"] = True
    for name, path in BUNDLED_DATA.items():
        try:
            if path.is_file():
                data = load_bundled(name)
                select(numeric_column_names(data.frame)[:1], "refuse")
        except Exception:  # a broken bundled file must not stop the app; the Data page will say why
            st.session_state.pop(DATA, None)
            st.session_state.pop(SELECTION, None)
        return True
    return True


def data_for(spec) -> np.ndarray | None:
    """The session's chosen data if they are the data ``spec`` was made for, else ``None``.

    With ``None`` a specification falls back to its stored or bundled data.

    Parameters
    ----------
    spec : AnalyticSpec or EmpiricalSpec

    Returns
    -------
    ndarray or None
    """
    source = getattr(spec, "data", None)
    sel = selection()
    if source is not None and sel is not None and sel.source.digest == source.digest:
        return sel.values
    return None
