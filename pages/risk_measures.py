"""Record linkage and interval disclosure between an original file and its masked version.

Upload both files (row i of the masked file is the masked record i), or use the
example: the bundled persons file with additive noise on its numeric columns.
A thin layer over :mod:`rumap.risk.linkage` and :mod:`rumap.risk.interval`; runs on its
own (``python -m streamlit run pages/risk_measures.py`` from the project's root).
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd
import streamlit as st

from dashboard import state
from dashboard.code import bundled_path
from dashboard.files import SOURCE_WIDGETS, kept_file, session_file, upload_into_session
from dashboard.markdown import plain
from dashboard.provenance import show_page_file
from dashboard.server_files import notice as server_notice
from dashboard.widgets import errors_shown, multiselect, number, remembered, reproduce, selectbox, slider
from rumap.errors import InputError
from rumap.io.data import BUNDLED_DATA, numeric_column_names, read_table
from rumap.present.synthetic_measures import measures_markdown
from rumap.risk.interval import DEFAULT_P, INTERVAL_METHODS
from rumap.risk.linkage import AGGREGATIONS, LINKAGE_METHODS
from rumap.specs.risk import MaskedRiskSpec, example_masked

EXAMPLE = "persons (synthetic, categorical keys)"
SOURCES = ["example (persons + noise)", "upload two files"]
#: What each choice of :data:`SOURCES` reads on the page.
SOURCE_NAMES = {SOURCES[0]: "example (persons + noise)",
                SOURCES[1]: "the session's data and its masked version (uploaded)"}
#: Noise variances of the example, as shares of each variable's variance.
NOISE_LEVELS = [0.0, 0.001, 0.01, 0.05, 0.1, 0.25, 0.5, 1.0]
#: The file the reproduce panel saves the example's masked version to, for the command line.
MASKED_FILE = "masked.csv"


@dataclass(frozen=True)
class Files:
    """The original and masked files, and how the reproduce panel refers to them.

    ``noise`` is the example's noise level, ``None`` for uploaded files.
    """

    original: pd.DataFrame
    masked: pd.DataFrame
    label: str
    original_path: str
    masked_path: str
    noise: float | None = None


@dataclass(frozen=True)
class Linkage:
    """The record-linkage choices."""

    keys: tuple[str, ...]
    method: str
    aggregation: str
    tolerance: float


@dataclass(frozen=True)
class Intervals:
    """The interval-disclosure choices."""

    columns: tuple[str, ...]
    method: str
    p: float


def example_files(noise: float) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The bundled persons file and a copy with relative additive noise on its numeric columns.

    Parameters
    ----------
    noise : float
        Noise variance as a share of each variable's variance.

    Returns
    -------
    original, masked : DataFrame
    """
    original = read_table(BUNDLED_DATA[EXAMPLE])
    return original, example_masked(original, noise)


def files_block() -> Files | None:
    """The example, or the session's data and its masked version (kept in memory); ``None`` while one is missing.

    Returns
    -------
    Files or None
    """
    st.session_state.setdefault(SOURCE_WIDGETS, {})["risk_source"] = SOURCES[1]
    loaded = state.loaded_data()
    default = SOURCES[1] if loaded is not None and loaded.kind == "upload" else SOURCES[0]
    source = remembered(st.radio, "files", "risk_source", default, options=SOURCES, format_func=SOURCE_NAMES.get)
    if source == SOURCES[1]:
        upload_into_session("original file (it becomes the session's data)", "risk_original")
        server_notice()
        original = session_file()
        if original is not None:
            st.caption(f"Original: the session's data, {plain(original.name)} ({original.frame.shape[0]:,} rows).")
        masked = kept_file("masked file (same rows and columns)", "risk_masked")
        if original is None or masked is None:
            return None
        return Files(original.frame, masked.frame, f"{original.name} and {masked.name}", original.path,
                     masked.path)
    noise = remembered(st.select_slider, "noise variance (share of each variable's variance)", "risk_noise", 0.05,
                       options=NOISE_LEVELS)
    original, masked = example_files(noise)
    return Files(original, masked, f"persons.csv + noise {noise:g}", bundled_path(EXAMPLE), MASKED_FILE, noise)


def linkage_block(common: list[str], numeric: list[str]) -> Linkage:
    """The intruder's keys and the linkage method.

    Parameters
    ----------
    common : list of str
        Columns of both files.
    numeric : list of str
        The numeric ones among them.

    Returns
    -------
    Linkage
    """
    st.header("record linkage")
    keys = multiselect("intruder's key variables", common, "risk_keys", numeric or common[:1])
    method = remembered(st.radio, "method", "risk_method", "distance", options=list(LINKAGE_METHODS), horizontal=True)
    aggregation, tolerance = "sum_of_squares", 0.1
    if method == "distance":
        aggregation = selectbox("aggregation", list(AGGREGATIONS), "risk_aggregation", aggregation)
    else:
        tolerance = number("tolerance", "agreement tolerance (standard deviations)", "risk_tolerance", tolerance,
                           step=0.05)
    return Linkage(tuple(keys), method, aggregation, float(tolerance))


def intervals_block(numeric: list[str]) -> Intervals:
    """The variables and the intervals of interval disclosure.

    Parameters
    ----------
    numeric : list of str
        The numeric columns of both files.

    Returns
    -------
    Intervals
    """
    st.header("interval disclosure")
    columns = multiselect("numeric variables", numeric, "risk_columns", numeric)
    method = remembered(st.radio, "intervals", "risk_interval_method", "rank", options=list(INTERVAL_METHODS),
                        horizontal=True)
    p = slider("interval_percent", "p (% of records for rank intervals, % of a standard deviation for sd)", "risk_p",
               float(DEFAULT_P[method]))
    return Intervals(tuple(columns), method, float(p))


def masked_risk_spec(files: Files, linkage: Linkage, intervals: Intervals) -> MaskedRiskSpec:
    """The specification of the page's shares: the files as the reproduce panel names them, and the choices.

    Parameters
    ----------
    files : Files
    linkage : Linkage
    intervals : Intervals

    Returns
    -------
    MaskedRiskSpec
    """
    return MaskedRiskSpec(files.original_path, files.masked_path, keys=linkage.keys, method=linkage.method,
                          aggregation=linkage.aggregation, tolerance=linkage.tolerance, columns=intervals.columns,
                          interval_method=intervals.method, p=intervals.p, noise=files.noise)


def show_linkage(files: Files, spec: MaskedRiskSpec) -> None:
    """The share of masked records linked to their own original.

    Parameters
    ----------
    files : Files
    spec : MaskedRiskSpec
    """
    st.markdown("**Record linkage**")
    if not spec.keys:
        st.info("Choose at least one key variable.")
        return
    linked = spec.linkage(files.original, files.masked)
    st.metric("linked correctly", f"{linked.linked_correctly:.1%}")
    st.write(f"{linked.n_correct:,} of {linked.n:,} masked records linked to their own original; "
             f"{linked.n_tied:,} ties (not counted).")
    if spec.method == "probabilistic":
        st.dataframe(pd.DataFrame({"key": linked.keys, "m": linked.settings["m"], "u": linked.settings["u"]}),
                     hide_index=True)


def show_intervals(files: Files, spec: MaskedRiskSpec) -> None:
    """The share of original values inside an interval around their masked value.

    Parameters
    ----------
    files : Files
    spec : MaskedRiskSpec
    """
    st.markdown("**Interval disclosure**")
    if not spec.columns:
        st.info("Choose at least one numeric variable.")
        return
    result = spec.intervals(files.original, files.masked)
    st.metric("original values inside their interval", f"{result.risk:.1%}")
    st.dataframe(result.to_frame(), hide_index=True)


st.title("Disclosure risk: record linkage and interval disclosure")
st.caption("Domingo-Ferrer & Torra (2004), Sections 2.1-2.3: share of masked records linked to their own "
           "original (distance-based or Fellegi-Sunter), and share of original values inside an interval "
           "around their masked value.")
with st.expander("Measures of a synthetic (or any) release against its original, explained"):
    st.markdown("`python -m rumap risk synthetic --original F --release G [--holdout H] [--keys A,B] [--target T]` "
                "prints each of them. The distance between two records: the square root of the sum over numeric "
                "columns of ((x - y) / s)², s the original's standard deviation, plus the number of categorical "
                "columns that differ.")
    st.markdown(measures_markdown())

with errors_shown():
    with st.sidebar:
        files = files_block()
    if files is None:
        st.info("Upload the masked version of the session's data (and the original, if it is not the session's "
                "data yet).")
        st.stop()
    show_page_file(files.label, int(files.original.shape[0]), "Original and masked files",
                   session=files.noise is None)
    if files.original.shape[0] != files.masked.shape[0]:
        raise InputError(f"the original has {files.original.shape[0]} rows but the masked file has "
                         f"{files.masked.shape[0]}")
    common = [c for c in files.original.columns if c in files.masked.columns]
    numeric = [c for c in numeric_column_names(files.original) if c in common]
    with st.sidebar:
        linkage = linkage_block(common, numeric)
        intervals = intervals_block(numeric)
    spec = masked_risk_spec(files, linkage, intervals)
    st.subheader(plain(files.label))
    left, right = st.columns(2)
    with left, errors_shown():
        show_linkage(files, spec)
    with right, errors_shown():
        show_intervals(files, spec)
    if spec.keys or spec.columns:
        reproduce(spec, what="these shares", command_caption="Command lines (print JSON):", key="risk_measures")
