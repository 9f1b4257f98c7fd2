"""The Empirical page on a file on the server: its chosen numeric columns read alone, the map on subsamples only.

What is read: the chosen numeric columns of the file, and nothing else. A Parquet file's columns are read
by themselves (:func:`rumap.io.parquet.read_parquet_numeric`, what ``python -m rumap simulate --data``
reads); a CSV or TSV file is parsed as the upload is (the same separator, decimal mark and reader), keeping
those columns only. The memory is n records x the chosen columns as floats (twice while they are checked),
never the file's other columns. The subsamples are drawn from these columns by the core
(:func:`rumap.maps.simulation.simulate_subsampled`), as for an upload: the targets (``max``, ``p99``) are found
in the whole column, which is why the columns are read whole rather than a row sample. So the map equals the
one computed on the same columns loaded in memory with the same seed, and the reproduce panel's command,
run on the same path, gives it too. The values are kept for the session only (its cache in memory).
"""

from __future__ import annotations

import numpy as np
import streamlit as st

from dashboard import state
from dashboard.markdown import plain, plain_list
from dashboard.provenance import show_source
from dashboard.server_files import ServerFile, file_cached, server_file_input
from dashboard.widgets import multiselect
from rumap.errors import InputError
from rumap.io.formats import text_columns
from rumap.io.parquet import read_parquet_numeric
from rumap.scale import scan
from rumap.specs import DataSource

__all__ = ["numeric_names", "read_columns", "server_selection", "show_server_source", "SUBSAMPLES_ONLY"]

PAGE = "empirical"
#: Why a file on the server is mapped on subsamples only.
SUBSAMPLES_ONLY = ("A file on the server is mapped on subsamples only: B subsamples of m records are masked M times "
                   "per value instead of all its records, and each point is their mean with a stated standard "
                   "error. Only the choices a subsample estimates are offered.")


def numeric_names(file: ServerFile) -> list[str]:
    """The file's numeric columns, from its schema (a CSV's from its first rows): nothing else is read.

    Parameters
    ----------
    file : ServerFile

    Returns
    -------
    list of str
    """
    schema = scan(file.path).lazy().collect_schema()
    return [name for name, kind in schema.items() if kind.is_numeric()]


def _first_measured(file: ServerFile, names: list[str]) -> list[str]:
    """The first column of decimal numbers (a measurement, not a code or an identifier), else the first numeric."""
    schema = scan(file.path).lazy().collect_schema()
    return [next((name for name in names if schema[name].is_float()), names[0])]


def read_columns(file: ServerFile, columns: list[str]) -> np.ndarray:
    """The chosen columns of the file as floats, shape (n, len(columns)), checked as an upload's are.

    Parameters
    ----------
    file : ServerFile
    columns : list of str

    Returns
    -------
    ndarray
        The values :func:`rumap.io.data.numeric_columns` gives for the file read whole (a missing
        value refused, naming its row).
    """
    source = scan(file.path, columns)  # a missing column is refused here, naming the file's columns
    if source.format == "parquet":
        return read_parquet_numeric(file.path, list(columns), source=file.name)[0]
    return text_columns(file.path, source.separator, list(columns), source=file.name)


def server_selection() -> state.Selection | None:
    """The field of a file on the server and its columns (sidebar); the chosen columns read, or ``None``.

    ``None`` when the option is off or the field empty (the page draws the session's data). A refused
    path or column is an error box and the page stops: nothing of another file is drawn in its place.

    Returns
    -------
    Selection or None
        Its source is of kind ``"server"``, named by the file's resolved path (what the command reads).
    """
    try:
        with st.sidebar:
            file = server_file_input("em_server", "the data chosen on the Data page")
            if file is None:
                return None
            names = numeric_names(file)
            if not names:
                raise InputError(f"{file.name}: no numeric column; the maps need numbers")
            first = _first_measured(file, names)
            columns = multiselect("numeric column(s) of the file on the server", names, "em_server_columns",
                                  first, help="only these columns are read, each whole")
        if not columns:  # the page goes on drawing its widgets (a page stopped here loses their values)
            st.info(f"No column of the file chosen: the map is of {plain(first[0])}.")
            columns = first
        with st.spinner(f"reading {', '.join(columns)} of {file.name}"):
            values = file_cached(file, PAGE, "columns", {"columns": list(columns)},
                                 lambda: read_columns(file, list(columns)))
        return state.Selection(source=DataSource.of("server", file.path, columns, values), values=values)
    except InputError as exc:
        st.error(plain(str(exc)))
        st.stop()


def show_server_source(sel: state.Selection, where=None) -> None:
    """The page's first line for a file on the server: its path, columns and records, and what was read.

    Parameters
    ----------
    sel : Selection
        From :func:`server_selection`.
    where : streamlit container, optional
    """
    source = sel.source
    show_source(f"Data: a file on the server, {plain(source.name)} \\[{plain_list(source.columns)}\\], "
                f"n = {source.n:,} (its chosen columns read, nothing of it copied or written).", None,
                uses_data=False, where=where)
