"""Choosing which curves of the kept analyses to compare, on common R and U measures."""

from __future__ import annotations

import streamlit as st

from dashboard import state
from rumap.errors import InputError
from rumap.maps.optimum import envelope
from rumap.present.glossary import GLOSSARY, both_names
from rumap.result import RUMap
from rumap.specs import Analysis

WORST = "worst case over each map's curves"
EACH = "each curve on its own"


def _measure(m: RUMap) -> str:
    return f"R: {m.risk_label} | U: {m.utility_label}"


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
    measures = list(dict.fromkeys(_measure(m) for a in chosen for m in a.maps))
    measure = st.selectbox("Risk and utility measures", measures, key=f"{key}_measure",
                           help="only curves that measure R and U the same way can be compared")
    candidates = [(a, m) for a in chosen for m in a.maps if _measure(m) == measure]
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
    if not maps:
        raise InputError(f"no chosen map has a curve for {which!r}")
    return maps, curve_names, owners
