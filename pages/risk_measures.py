"""Record linkage and interval disclosure between an original file and its masked version.

Upload both files (row i of the masked file is the masked record i), or use the
example: the bundled persons file with additive noise on its numeric columns.
A thin layer over :mod:`rumap.risk.linkage` and :mod:`rumap.risk.interval`; runs on its
own (``streamlit run pages/risk_measures.py``).
"""

from __future__ import annotations

import pandas as pd
import streamlit as st

from rumap.errors import InputError
from rumap.io.data import BUNDLED_DATA, numeric_column_names, read_table, read_table_bytes
from rumap.masking.noise import NoiseSpec, add_noise
from rumap.risk.interval import DEFAULT_P, interval_disclosure
from rumap.risk.linkage import AGGREGATIONS, distance_linkage, probabilistic_linkage

EXAMPLE = "persons (synthetic, categorical keys)"


def example_files(noise: float) -> tuple[pd.DataFrame, pd.DataFrame]:
    original = read_table(BUNDLED_DATA[EXAMPLE])
    numeric = numeric_column_names(original)
    masked = original.copy()
    masked[numeric] = add_noise(original[numeric].to_numpy(dtype=float), noise, NoiseSpec(relative=True), seed=0)
    return original, masked


def load_files() -> tuple[pd.DataFrame, pd.DataFrame, str]:
    source = st.sidebar.radio("files", ["example (persons + noise)", "upload two files"], key="risk_source")
    if source == "upload two files":
        up_original = st.sidebar.file_uploader("original file", key="risk_original")
        up_masked = st.sidebar.file_uploader("masked file (same rows and columns)", key="risk_masked")
        if up_original is None or up_masked is None:
            st.info("Upload the original file and its masked version.")
            st.stop()
        return (read_table_bytes(up_original.getvalue(), up_original.name),
                read_table_bytes(up_masked.getvalue(), up_masked.name), f"{up_masked.name}")
    noise = st.sidebar.select_slider("noise variance (share of each variable's variance)",
                                     options=[0.0, 0.001, 0.01, 0.05, 0.1, 0.25, 0.5, 1.0], value=0.05,
                                     key="risk_noise")
    original, masked = example_files(noise)
    return original, masked, f"persons.csv + noise {noise:g}"


st.title("Disclosure risk: record linkage and interval disclosure")
st.caption("Domingo-Ferrer & Torra (2004), Sections 2.1-2.3: share of masked records linked to their own "
           "original (distance-based or Fellegi-Sunter), and share of original values inside an interval "
           "around their masked value.")

try:
    original, masked, label = load_files()
    if original.shape[0] != masked.shape[0]:
        raise InputError(f"the original has {original.shape[0]} rows but the masked file has {masked.shape[0]}")
    common = [c for c in original.columns if c in masked.columns]
    numeric = [c for c in numeric_column_names(original) if c in common]
    with st.sidebar:
        st.header("record linkage")
        keys = st.multiselect("intruder's key variables", common, default=numeric or common[:1], key="risk_keys")
        method = st.radio("method", ["distance", "probabilistic"], key="risk_method", horizontal=True)
        if method == "distance":
            aggregation = st.selectbox("aggregation", list(AGGREGATIONS), key="risk_aggregation")
        else:
            tolerance = st.number_input("agreement tolerance (standard deviations)", min_value=0.0, value=0.1,
                                        step=0.05, key="risk_tolerance")
        st.header("interval disclosure")
        columns = st.multiselect("numeric variables", numeric, default=numeric, key="risk_columns")
        interval_method = st.radio("intervals", ["rank", "sd"], key="risk_interval_method", horizontal=True)
        p = st.slider("p (% of records for rank intervals, % of a standard deviation for sd)", 0.5, 50.0,
                      float(DEFAULT_P[interval_method]), step=0.5, key="risk_p")
    st.subheader(label)
    left, right = st.columns(2)
    with left:
        st.markdown("**Record linkage**")
        if not keys:
            st.info("Choose at least one key variable.")
        else:
            if method == "distance":
                linked = distance_linkage(original[keys], masked[keys], keys, aggregation=aggregation)
            else:
                linked = probabilistic_linkage(original[keys], masked[keys], keys, tolerance=tolerance)
            st.metric("linked correctly", f"{linked.linked_correctly:.1%}")
            st.write(f"{linked.n_correct:,} of {linked.n:,} masked records linked to their own original; "
                     f"{linked.n_tied:,} ties (not counted).")
            if method == "probabilistic":
                st.dataframe(pd.DataFrame({"key": linked.keys, "m": linked.settings["m"], "u": linked.settings["u"]}),
                             hide_index=True)
    with right:
        st.markdown("**Interval disclosure**")
        if not columns:
            st.info("Choose at least one numeric variable.")
        else:
            intervals = interval_disclosure(original[columns], masked[columns], p, interval_method, columns)
            st.metric("original values inside their interval", f"{intervals.risk:.1%}")
            st.dataframe(intervals.to_frame(), hide_index=True)
except InputError as exc:
    st.error(str(exc))
except Exception as exc:  # the page shows an error box, never a traceback
    st.error(f"could not compute the risk: {type(exc).__name__}: {exc}")
