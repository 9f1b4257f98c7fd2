"""Data: upload a file or pick a bundled data set, preview it, choose the numeric column(s)."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from dashboard import resume, state
from dashboard.files import offer_everywhere
from dashboard.forms import prefill_from_data
from dashboard.markdown import plain, plain_list
from dashboard.provenance import show_session_data
from dashboard.server_files import notice as server_notice
from dashboard.widgets import errors_shown, remembered
from rumap.errors import InputError
from rumap.fingerprint import bytes_digest
from rumap.io.data import (
    BUNDLED_DATA,
    MAX_BYTES,
    READERS,
    identifier_columns,
    numeric_column_names,
    summary_table,
    text_among_numbers,
)

st.title("Data")
st.caption("Files are read in this session's memory only: never written to disk or logs, kept "
           f"{resume.LIFETIME // 60} minutes after the tab is closed so that a reload brings them back, then gone. "
           "Formats: " + ", ".join(sorted(READERS)) + f"; at most {MAX_BYTES // 2**20} MB.")

loaded = state.loaded_data()
source = remembered(st.radio, "Source", "data_source",
                    "Upload a file" if loaded is not None and loaded.kind == "upload" else "Bundled data set",
                    options=["Bundled data set", "Upload a file"], horizontal=True)
if source == "Bundled data set":
    available = [name for name, path in BUNDLED_DATA.items() if path.is_file()]
    if not available:
        st.warning("No bundled data set is installed.")
    else:
        current = state.loaded_data()
        index = available.index(current.name) if current is not None and current.kind == "bundled" \
            and current.name in available else 0
        name = st.selectbox("Data set", available, index=index, key="data_bundled")
        if current is None or current.kind != "bundled" or current.name != name:
            with errors_shown():
                state.load_bundled(name)
else:
    upload = st.file_uploader("Data file", type=None, key="data_upload", max_upload_size=MAX_BYTES // 2**20,
                              help="CSV/TSV, Excel, Parquet, Stata (.dta), SPSS (.sav) or SAS (.sas7bdat)")
    server_notice()
    if upload is not None:
        content = upload.getvalue()
        current = state.loaded_data()
        if current is None or current.kind != "upload" or current.digest != bytes_digest(content) \
                or current.name != upload.name:
            with errors_shown():
                state.load_bytes("upload", upload.name, content)
                st.session_state.pop("data_columns", None)
                offer_everywhere()
            if state.loaded_data() is None or state.loaded_data().digest != bytes_digest(content):
                show_session_data(state.selection())  # the earlier selection stays, named as such
                st.stop()
    elif loaded is not None and loaded.kind == "upload":
        st.caption(f"In use: {plain(loaded.name)}, uploaded earlier in this session (kept in its memory). "
                   "Upload another file to replace it.")

data = state.loaded_data()
if data is None:
    st.info("Choose a bundled data set or upload a file.")
    st.stop()

st.subheader(plain(data.name))
st.caption(f"{data.frame.shape[0]} rows × {data.frame.shape[1]} columns")
st.dataframe(data.frame.head(20), width="stretch", height=280)

mixed = text_among_numbers(data.frame)
offered = {*map(str, numeric_column_names(data.frame)), *(t.column for t in mixed)}
numeric = [c for c in data.frame.columns if str(c) in offered]
if not numeric:
    st.error(f"{plain(data.name)}: no numeric column; the maps need numbers.")
    st.stop()
for t in mixed:
    st.warning(f"Column {plain(t.column)} holds numbers and {t.texts:,} text value(s) (e.g. {plain(repr(t.example))} "
               f"in row {t.row}): chosen, those values count as missing, so their rows are refused or dropped "
               "as set below.")
identifiers = identifier_columns(data.frame)

sel = state.selection()
previous = [c for c in (sel.source.columns if sel is not None else ()) if c in numeric]
default = previous or [c for c in numeric if str(c) not in identifiers][:1]
chosen_before = st.session_state.get("data_columns")
# written on every run: a run stopped above (a refused upload) leaves a field drawn empty otherwise (init_widget)
st.session_state["data_columns"] = chosen_before if chosen_before is not None and set(chosen_before) <= set(numeric) \
    else default
columns = st.multiselect("Numeric column(s) to mask", numeric, key="data_columns",
                         help="Noise and the analytic map use the first column; microaggregation can use several.")
if identifiers:
    picked = [c for c in columns if str(c) in identifiers]
    if picked:
        st.warning(f"Record identifier(s), by name or by consecutive values all different: {plain_list(identifiers)}. "
                   f"Chosen: {plain_list(picked)}; an identifier is released as it is or masked as a number, "
                   "and neither protects anyone: leave it out unless it is a real measurement.")
    else:
        st.caption(f"Record identifier(s), by name or by consecutive values all different: {plain_list(identifiers)}. "
                   "Not chosen.")
missing = remembered(st.radio, "Rows with missing values", "data_missing", "refuse", options=["refuse", "drop"],
                     horizontal=True, format_func={"refuse": "refuse the data", "drop": "drop those rows"}.get)
if not columns:
    st.warning("Choose at least one numeric column.")
    st.stop()

with errors_shown():
    try:
        chosen = state.select(columns, missing)
    except InputError:
        show_session_data(state.selection())  # the map pages keep drawing the earlier choice, and say so
        raise
    prefill_from_data(chosen.values, chosen.source.digest)
    dropped = data.frame.shape[0] - chosen.values.shape[0]
    if dropped:
        st.info(f"{dropped} row(s) with missing values dropped; {chosen.values.shape[0]} rows used.")
    st.subheader("Summary (as Table 1 of Duncan et al. 2001)")
    tables = [summary_table(chosen.values[:, j]).set_index("statistic")["value"].rename(col)
              for j, col in enumerate(columns)]
    st.dataframe(pd.concat(tables, axis=1), width="content")
    st.success(f"Using {plain_list(columns)} (n = {chosen.values.shape[0]}). The map pages now start from these data; "
               f"the pages that assess a file offer {plain(data.name)} as the session's data.")
