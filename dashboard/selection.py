"""Choosing which curves of the kept analyses to compare, on common R and U measures.

A kept map can be drawn on its own measures of R and U or, when it was
simulated, on the measures every masking method shares (:mod:`rumap.maps.common`);
the chosen maps that the chosen measures leave out are listed with the reason.
"""

from __future__ import annotations

import streamlit as st

from dashboard import state
from dashboard.markdown import plain
from dashboard.pagemaps import PageMapSpec
from rumap.errors import InputError
from rumap.maps.optimum import envelope
from rumap.present.glossary import GLOSSARY, both_names
from rumap.result import RUMap
from rumap.specs import Analysis, AnalyticSpec

WORST = "worst case over each map's curves"
EACH = "each curve on its own"


def _measure(m: RUMap) -> str:
    return f"R: {m.risk_label} | U: {m.utility_label}"


def curves_of(analysis: Analysis) -> tuple[RUMap, ...]:
    """Every curve an analysis can be drawn with: its own, then its common curve if it has one.

    Parameters
    ----------
    analysis : Analysis

    Returns
    -------
    tuple of RUMap
    """
    return (*analysis.maps, *((analysis.common,) if analysis.common is not None else ()))


def measures_by_coverage(chosen: list[Analysis]) -> list[str]:
    """The chosen analyses' pairs of R and U measures, those that most of them have first (ties: first seen).

    Maps of different methods meet on the common measures only, which then come first.

    Parameters
    ----------
    chosen : list of Analysis

    Returns
    -------
    list of str
    """
    seen = list(dict.fromkeys(_measure(m) for a in chosen for m in curves_of(a)))
    coverage = {name: sum(any(_measure(m) == name for m in curves_of(a)) for a in chosen) for name in seen}
    return sorted(seen, key=lambda name: -coverage[name])


def left_out_reason(analysis: Analysis, measure: str, which: str) -> str:
    """Why the curves drawn for ``measure`` and knowledge ``which`` leave ``analysis`` out (plain words).

    Parameters
    ----------
    analysis : Analysis
    measure : str
        The chosen pair of measures (:func:`_measure`).
    which : str
        The chosen knowledge state, :data:`WORST` or :data:`EACH`.

    Returns
    -------
    str
    """
    if any(_measure(m) == measure for m in curves_of(analysis)):
        return f"it has no curve for the snooper's knowledge “{which}”"
    words = " or ".join(dict.fromkeys(f"{m.risk_label}, {m.utility_label}" for m in analysis.maps)) or "no curve"
    if analysis.common is not None:
        return f"it measures {words}; choose its common measures to overlay it"
    if isinstance(analysis.spec, PageMapSpec):
        return f"it measures {words}, a measure of its own page that no masking method shares"
    if isinstance(analysis.spec, AnalyticSpec):
        return f"it measures {words}; an analytic map has no masked copies of data to measure on the common footing"
    return f"it measures {words} only"


def knowledge_label(label: str, knowledge: str | None) -> str:
    """A curve's label with both maps' names of its knowledge state (``rumap.present.glossary``).

    ``"record"`` reads ``"record = index"``; ``"noise / position / max"`` reads
    ``"noise / position / max (position = percentile / maximum / minimum)"``.

    Parameters
    ----------
    label : str
        The curve's label.
    knowledge : str, optional
        The curve's knowledge state.

    Returns
    -------
    str
        The label alone when the state has no other name.
    """
    if knowledge not in GLOSSARY or not GLOSSARY[knowledge].synonyms:
        return label
    return both_names(knowledge) if label == knowledge else f"{label} ({both_names(knowledge)})"


def curves_on_common_measures(kept: list[Analysis], key: str) -> tuple[list[RUMap], list[str], list[Analysis]]:
    """Widgets that pick kept analyses, a pair of R/U measures and a knowledge state; returns the curves.

    The measures open on those most of the chosen analyses have (their own when they all share them), again
    whenever the choice of analyses changes.

    Parameters
    ----------
    kept : list of Analysis
    key : str
        Prefix of the widgets' keys.

    Returns
    -------
    maps, names, analyses
        One curve per chosen analysis and state (or each analysis's worst case),
        the curve names, and the analysis each curve comes from.
    """
    names = state.kept_choice(f"{key}_maps")
    chosen_names = st.multiselect("Kept maps", names, key=f"{key}_maps")
    state.remember(f"{key}_maps")
    chosen = [a for a in kept if a.name in chosen_names]
    if not chosen:
        raise InputError("choose at least one kept map")
    measures = measures_by_coverage(chosen)
    chosen_now = [a.name for a in chosen]
    if st.session_state.get(f"{key}_measure_for") != chosen_now:  # other maps: open on the measures they share
        st.session_state[f"{key}_measure_for"] = chosen_now
        st.session_state.pop(f"{key}_measure", None)
    state.keep_shown(f"{key}_measure", measures[0])
    measure = st.selectbox("Risk and utility measures", measures, key=f"{key}_measure",
                           help="only curves that measure R and U the same way can be compared; simulated maps "
                                "of any method also have the common measures (share of records re-identified by "
                                "distance linkage, relative change of means, variances and correlations)")
    candidates = [(a, m) for a in chosen for m in curves_of(a) if _measure(m) == measure]
    knowledge = [WORST, EACH, *dict.fromkeys(m.label for _, m in candidates)]
    state.init_widget(f"{key}_knowledge", WORST)
    if st.session_state[f"{key}_knowledge"] not in knowledge:
        st.session_state[f"{key}_knowledge"] = WORST
    states = {m.label: m.knowledge for _, m in candidates}
    which = st.selectbox("Snooper's knowledge", knowledge, key=f"{key}_knowledge",
                         format_func=lambda label: knowledge_label(label, states.get(label)),
                         help="the worst case is, at each parameter value, the largest risk of a map's curves "
                              "(the rational snooper); each curve on its own draws every state of every map")
    state.remember(f"{key}_knowledge")
    maps, curve_names, owners = [], [], []
    for a in chosen:
        mine = [m for aa, m in candidates if aa is a]
        if not mine:
            continue
        if which == EACH:
            for m in mine:
                maps.append(m)
                curve_names.append(f"{a.name}: {m.label}" if len(mine) > 1 else a.name)
                owners.append(a)
        elif which == WORST:
            if len(mine) == 1:
                maps.append(mine[0])
            else:
                try:
                    maps.append(envelope(mine))
                except InputError:  # curves over different grids: compare each one
                    for m in mine:
                        maps.append(m)
                        curve_names.append(f"{a.name}: {m.label}")
                        owners.append(a)
                    continue
            curve_names.append(a.name)
            owners.append(a)
        else:
            for m in mine:
                if m.label == which:
                    maps.append(m)
                    curve_names.append(f"{a.name}: {m.label}")
                    owners.append(a)
    drawn = {id(a) for a in owners}
    left_out = [a for a in chosen if id(a) not in drawn]
    if left_out:
        st.info(f"{len(chosen) - len(left_out)} of {len(chosen)} chosen maps drawn. Not drawn: "
                + "; ".join(f"{plain(a.name)}: {plain(left_out_reason(a, measure, which))}" for a in left_out)
                + ".", icon=":material/visibility_off:")
    if not maps:
        raise InputError(f"no chosen map has a curve for {which!r}")
    return maps, curve_names, owners
