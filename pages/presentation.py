"""Presentation: one map per screen in large type, the chosen parameter annotated, one sentence."""

from __future__ import annotations

import html

import streamlit as st

from dashboard import state
from dashboard.widgets import errors_shown, number, plot
from rumap.present.figures import presentation_figure
from rumap.present.statements import map_choice, one_sentence

st.html("""<style>
.stMainBlockContainer p, .stMainBlockContainer li {font-size: 1.6rem; line-height: 1.4;}
.rumap-statement {font-size: 2.1rem; line-height: 1.35; font-weight: 500; margin: 0.4em 0 0.8em 0;}
</style>""")

kept = state.analyses()
slides = [(a, i) for a in kept for i in range(len(a.maps))]
if not slides:
    st.title("Presentation")
    st.info("No map kept yet: keep maps on the Analytic or Empirical page, or load an example on the Home page.")
    st.stop()

state.init_widget("present_index", 0)
if st.session_state["present_index"] >= len(slides):
    st.session_state["present_index"] = 0
index = st.session_state["present_index"]
analysis, curve = slides[index]
m = analysis.maps[curve]



def bound_block(index: int, count: int, bound: float | None) -> float:
    """The maximum tolerable risk of the map shown (the analysis's own at first).

    Parameters
    ----------
    index, count : int
        Which map is shown, of how many.
    bound : float or None
        The analysis's maximum tolerable risk.

    Returns
    -------
    float
    """
    st.header("Presentation")
    st.caption(f"Map {index + 1} of {count}")
    return float(number("max_risk", "Maximum tolerable risk", f"present_bound_{index}",
                        float(bound) if bound is not None else 1.0, format="%.4g"))


with errors_shown():
    with st.sidebar:
        override = bound_block(index, len(slides), analysis.max_risk)
    choice = map_choice(analysis, curve, max_risk=override)
    title = f"{analysis.name}: {m.label}" if len(analysis.maps) > 1 else analysis.name
    st.markdown(f"<div class='rumap-statement'>{html.escape(one_sentence(m, choice))}</div>",
                unsafe_allow_html=True)
    plot(presentation_figure(m, choice, title=title, log_x=analysis.spec.log_x, log_y=analysis.spec.log_y),
         key=f"present_map_{index}")

prev, _, nxt = st.columns([1, 4, 1])
if prev.button("◀ Previous", disabled=index == 0, key="present_prev", width="stretch"):
    st.session_state["present_index"] = index - 1
    state.remember("present_index")
    st.rerun()
if nxt.button("Next ▶", disabled=index >= len(slides) - 1, key="present_next", width="stretch"):
    st.session_state["present_index"] = index + 1
    state.remember("present_index")
    st.rerun()
