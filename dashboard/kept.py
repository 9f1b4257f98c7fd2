"""The session's kept analyses (for Compare, Pareto, Report and Presentation), each page's current one, and names.

Everything lives in ``st.session_state``, i.e. in this browser session's memory only.
"""

from __future__ import annotations

import streamlit as st

from dashboard.widget_memory import STORE, init_widget, set_widgets
from rumap.fingerprint import config_digest
from rumap.specs import Analysis

__all__ = ["ANALYSES", "CURRENT", "KEPT_CHOICES", "analyses", "keep", "focus", "kept_choice", "set_current", "current",
           "set_name_hint", "name_hint"]

ANALYSES = "rumap_analyses"
CURRENT = "rumap_current"


def analyses() -> list[Analysis]:
    """The kept analyses (a list owned by the session).

    Returns
    -------
    list of Analysis
    """
    return st.session_state.setdefault(ANALYSES, [])


#: The widgets (on Compare, Pareto and Report) that choose among the kept analyses.
KEPT_CHOICES = ("compare_maps", "pareto_maps", "report_maps")


def keep(analysis: Analysis) -> str:
    """Keep an analysis for Compare, Pareto, Report and Presentation; returns the name it is kept under.

    Names stay unique: keeping the same map again replaces it, while a
    different map whose name is taken gets " (2)", " (3)", ... The new
    analysis is added to the maps chosen on those pages.

    Parameters
    ----------
    analysis : Analysis

    Returns
    -------
    str
    """
    kept = analyses()
    digest = config_digest(analysis.spec.to_dict())
    same = [a for a in kept if a.name == analysis.name and config_digest(a.spec.to_dict()) == digest]
    if not same and any(a.name == analysis.name for a in kept):
        names = {a.name for a in kept}
        number = 2
        while f"{analysis.name} ({number})" in names:
            number += 1
        analysis = analysis.renamed(f"{analysis.name} ({number})")
    kept[:] = [a for a in kept if a.name != analysis.name] + [analysis]
    store = st.session_state.setdefault(STORE, {})
    for key in KEPT_CHOICES:
        chosen = store.get(key, st.session_state.get(key, [a.name for a in kept[:-1]]))
        set_widgets({key: [*[n for n in chosen if n != analysis.name], analysis.name]})
    return analysis.name


def focus(names: list[str]) -> None:
    """Choose exactly these kept analyses on Compare and Pareto (e.g. after loading an example).

    Parameters
    ----------
    names : list of str
        Names of kept analyses.
    """
    set_widgets({"compare_maps": list(names), "pareto_maps": list(names)})


def kept_choice(key: str) -> list[str]:
    """Prepare a multiselect of kept analyses: its remembered choice, limited to the kept names.

    Parameters
    ----------
    key : str
        The multiselect's key.

    Returns
    -------
    list of str
        The kept analyses' names (its options).
    """
    names = [a.name for a in analyses()]
    init_widget(key, names)
    st.session_state[key] = [n for n in st.session_state[key] if n in names]
    return names


def set_current(page: str, analysis: Analysis | None) -> None:
    """Remember the analysis a page shows (for when the page is drawn again).

    Parameters
    ----------
    page : str
    analysis : Analysis or None
    """
    st.session_state.setdefault(CURRENT, {})[page] = analysis


def current(page: str) -> Analysis | None:
    """The analysis a page showed last.

    Parameters
    ----------
    page : str

    Returns
    -------
    Analysis or None
    """
    return st.session_state.get(CURRENT, {}).get(page)


def set_name_hint(spec, name: str) -> None:
    """Propose ``name`` (e.g. an example's title) for maps made with exactly this specification.

    Parameters
    ----------
    spec : AnalyticSpec or EmpiricalSpec
    name : str
    """
    st.session_state.setdefault("rumap_name_hints", {})[config_digest(spec.to_dict())] = name


def name_hint(digest: str) -> str | None:
    """The name proposed for maps made with the specification of this digest.

    Parameters
    ----------
    digest : str
        :func:`rumap.fingerprint.config_digest` of a specification.

    Returns
    -------
    str or None
    """
    return st.session_state.get("rumap_name_hints", {}).get(digest)
