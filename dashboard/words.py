"""The glossary on the pages: the terms of a map with both maps' names, definitions and formulas.

The Analytic and Empirical pages draw their knowledge states and glossary from
:data:`rumap.present.glossary.GLOSSARY`, so both speak the same words and show
the other page's name wherever the two meet.
"""

from __future__ import annotations

from collections.abc import Sequence

import streamlit as st

from dashboard.markdown import plain
from dashboard.widget_memory import keep_shown
from rumap.present.glossary import GLOSSARY, both_names, glossary_frame
from rumap.present.statements import crossing_lines, map_lines, recommendation_sentence
from rumap.specs import Analysis


def show_terms(names: Sequence[str]) -> None:
    """Each term's both names, definition and formula (rendered), one after the other.

    Parameters
    ----------
    names : sequence of str
        Keys of :data:`rumap.present.glossary.GLOSSARY`.
    """
    for name in names:
        t = GLOSSARY[name]
        source = f" ({t.source})" if t.source else ""
        st.markdown(f"**{both_names(name)}**{source}: {t.definition}")
        if t.formula:
            st.latex(t.formula)


def show_glossary(map_name: str) -> None:
    """A switch that shows the glossary of one map's vocabulary and the shared terms.

    Parameters
    ----------
    map_name : {"analytic", "empirical"}
    """
    # drawn only when asked: a page redraw then sends no formulas nobody reads
    keep_shown(f"{map_name}_glossary", False)  # shown as set after a run that stopped above
    if st.toggle("Glossary: the words of both maps", key=f"{map_name}_glossary"):
        st.caption("Record knowledge on the Analytic page is index knowledge on the Empirical page; the percentile, "
                   "maximum and minimum states are position knowledge.")
        show_terms(list(glossary_frame(map_name)["term"]))


def show_plain_language(analysis: Analysis) -> None:
    """The recommendation first, then one sentence per curve; where the curves cross folds into an expander.

    Parameters
    ----------
    analysis : Analysis
    """
    st.subheader("In plain language")
    first = recommendation_sentence(analysis)
    if first is not None:
        st.markdown(f"**{plain(first)}**")
    st.markdown("\n".join(f"- {plain(line)}" for line in map_lines(analysis)))
    crossings = crossing_lines(analysis)
    if crossings:
        with st.expander(f"Where the curves cross ({len(crossings)})"):
            st.markdown("\n".join(f"- {plain(line)}" for line in crossings))
