"""Whose data is this: the line at the top of every map page naming the data (or the example setting) drawn.

:func:`show_source` is drawn at the top of the Analytic and Empirical pages and
of the pages over kept maps; it names the data set, its column(s) and n, or the
worked example's setting, and says when a newer file or column was refused
while the earlier selection is still shown.
"""

from __future__ import annotations

import streamlit as st

from dashboard import state
from dashboard.markdown import plain, plain_list
from rumap.fingerprint import config_digest
from rumap.specs import Analysis, AnalyticSpec, DataSource


def data_words(source: DataSource) -> str:
    """A data source as Markdown: ``name [column, ...], n = 177``.

    Parameters
    ----------
    source : DataSource

    Returns
    -------
    str
    """
    return f"{plain(source.name)} \\[{plain_list(source.columns)}\\], n = {source.n}"


def setting_words(spec: AnalyticSpec) -> str:
    """An analytic setting in words: ``n = 200, σ² = 1, μ = 0``.

    Parameters
    ----------
    spec : AnalyticSpec

    Returns
    -------
    str
    """
    return f"n = {spec.n}, σ² = {spec.sigma2:.4g}, μ = {spec.mu:.4g}"


def analysis_words(analysis: Analysis) -> str:
    """What a kept analysis was drawn for: its data, its example or its setting (Markdown).

    Parameters
    ----------
    analysis : Analysis

    Returns
    -------
    str
    """
    spec = analysis.spec
    source = getattr(spec, "data", None)
    if isinstance(source, DataSource):
        sampled = analysis.subsample
        on = "" if sampled is None else f", computed on {sampled.subsamples:,} subsamples of {sampled.m:,} records"
        return f"{plain(analysis.name)}: data {data_words(source)}{on}"
    if isinstance(spec, AnalyticSpec):
        return f"{plain(analysis.name)}: the setting {setting_words(spec)}, no data set"
    return f"{plain(analysis.name)}: its page's own file or example"


def example_name(spec) -> str | None:
    """The worked example a specification was loaded from, if any.

    Parameters
    ----------
    spec : AnalyticSpec or EmpiricalSpec

    Returns
    -------
    str or None
    """
    return state.name_hint(config_digest(spec.to_dict()))


def refusal_words(sel: state.Selection | None) -> str | None:
    """The warning for a refused file or column, naming what is still shown; ``None`` without a refusal.

    Parameters
    ----------
    sel : Selection or None

    Returns
    -------
    str or None
    """
    refused = state.refusal()
    if refused is None:
        return None
    still = f"still showing {data_words(sel.source)}" if sel is not None else "no data chosen"
    return f"{still[0].upper()}{still[1:]}: {plain(refused.what)} was refused because {plain(refused.reason)}."


def show_source(text: str, sel: state.Selection | None, uses_data: bool = True, where=None) -> None:
    """The page's first line: which data or setting it draws, and a refused file or column if there is one.

    Parameters
    ----------
    text : str
        Markdown naming the data or setting drawn (see :func:`data_words`, :func:`setting_words`).
    sel : Selection or None
        The session's chosen data.
    uses_data : bool
        Whether the page draws the session's data (a refusal concerns it only then).
    where : streamlit container, optional
        Where to draw (e.g. a placeholder at the top of the page); default: here.
    """
    box = (where or st).container()
    box.info(text, icon=":material/dataset:")
    refused = refusal_words(sel) if uses_data else None
    if refused is not None:
        box.warning(refused, icon=":material/block:")


def show_session_data(sel: state.Selection | None, where=None) -> None:
    """:func:`show_source` for a page that draws the session's chosen data.

    Parameters
    ----------
    sel : Selection or None
    where : streamlit container, optional
    """
    text = f"Data: {data_words(sel.source)}." if sel is not None else "No data chosen: choose them on the Data page."
    show_source(text, sel, where=where)


def show_kept_sources(analyses: list[Analysis]) -> None:
    """The data or setting of each kept analysis a page draws (Compare, Pareto, Presentation).

    Parameters
    ----------
    analyses : list of Analysis
    """
    if analyses:
        st.info("Drawn for " + "; ".join(analysis_words(a) for a in analyses) + ".", icon=":material/dataset:")


def show_page_file(name: str, rows: int, what: str = "Data", session: bool = False) -> None:
    """:func:`show_source` for a page that assesses a file: the session's data or the page's example.

    Parameters
    ----------
    name : str
        The file's name (shown as plain text).
    rows : int
        Its number of records.
    what : str
        What the file is, e.g. ``"Data"`` or ``"Original and masked files"``.
    session : bool
        Whether it is the session's data (else the page's own example or file).
    """
    whose = ("the session's data, as on every page" if session
             else "this page's own example; the session's data can be chosen instead")
    show_source(f"{what}: {plain(name)}, n = {rows:,} ({whose}).", None, uses_data=False)
