"""Presentation: one kept map per slide with all its curves (or one curve per slide), in large type, one sentence."""

from __future__ import annotations

import html

import streamlit as st

from dashboard import state
from dashboard.provenance import show_kept_sources
from dashboard.risk_bound import analysis_key, bound_for, max_risk_input
from dashboard.widgets import errors_shown, plot, remembered
from rumap.present.figures import comparison_figure, presentation_figure
from rumap.present.glossary import slide_words
from rumap.present.statements import (
    one_sentence,
    recommendation,
    recommendation_on_curve,
    recommendation_sentence,
)

st.html("""<style>
.stMainBlockContainer p, .stMainBlockContainer li {font-size: 1.6rem; line-height: 1.4;}
.rumap-statement {font-size: 2.1rem; line-height: 1.35; font-weight: 500; margin: 0.4em 0 0.8em 0;}
</style>""")

kept = state.analyses()
if not kept:
    st.title("Presentation")
    st.info("No map kept yet: keep maps on the Analytic or Empirical page, or load an example on the Home page.")
    st.stop()

with st.sidebar:
    st.header("Presentation")
    per_curve = remembered(st.checkbox, "One slide per curve", "present_per_curve", False,
                           help="by default each kept map is one slide with all its curves")
#: Each slide: an analysis and the curve it shows (None: all its curves).
slides = [(a, i) for a in kept for i in range(len(a.maps))] if per_curve else [(a, None) for a in kept]

state.init_widget("present_index", 0)
if st.session_state["present_index"] >= len(slides):
    st.session_state["present_index"] = 0
index = st.session_state["present_index"]
analysis, curve = slides[index]


def bound_block(index: int, count: int, analysis) -> float | None:
    """The maximum tolerable risk of the map shown, in the units of its own risk measure (None: no bound).

    The bound is the one of the map's risk measure and units in this session
    (:mod:`dashboard.risk_bound`), else the map's own; changing it here changes
    it for every map of that measure and units, never for another. A map whose
    measure has no bound anywhere gets no recommendation until the user sets one.

    Parameters
    ----------
    index, count : int
        Which slide is shown, of how many.
    analysis : Analysis
        The map shown.

    Returns
    -------
    float or None
    """
    st.caption(f"Slide {index + 1} of {count}")
    key, bound = analysis_key(analysis, curve), bound_for(analysis, curve)
    measure = analysis.maps[curve or 0].risk_label
    if bound is None and not remembered(st.checkbox, "Set a maximum tolerable risk", f"present_bound_on_{key}", False,
                                        help=f"no bound is set for {measure}"):
        st.caption(f"No maximum tolerable risk is set for {measure}: no recommendation.")
        return None
    if bound is None:
        shown = analysis.maps if curve is None else [analysis.maps[curve]]
        finite = [r for m in shown for r in m.risk.tolist() if r == r and abs(r) != float("inf")]
        bound = sorted(finite)[len(finite) // 2] if finite else 1.0  # the median risk: never one every value meets
    return max_risk_input("present_max_risk", key, default=bound, label="Maximum tolerable risk")


def statement(text: str) -> None:
    """The slide's sentence in large type."""
    st.markdown(f"<div class='rumap-statement'>{html.escape(text)}</div>", unsafe_allow_html=True)


with errors_shown():
    with st.sidebar:
        override = bound_block(index, len(slides), analysis)
    if curve is not None:
        m = analysis.maps[curve]
        # the map's one recommendation read on this curve, never this curve's own best value alone
        choice = None if override is None else recommendation_on_curve(analysis, curve, max_risk=override)
        title = f"{analysis.name}: {m.label}" if len(analysis.maps) > 1 else analysis.name
        none_for_the_map = choice is not None and not choice.reachable and m.risk_label == analysis.maps[0].risk_label
        statement(recommendation_sentence(analysis, max_risk=override) if none_for_the_map
                  else one_sentence(m, choice))
        fig = presentation_figure(m, choice, title=title, log_x=analysis.spec.log_x, log_y=analysis.spec.log_y)
    else:
        choice = None if override is None else recommendation(analysis, max_risk=override)
        statement((override is not None and recommendation_sentence(analysis, max_risk=override))
                  or one_sentence(analysis.maps[0], None))
        fig = comparison_figure(list(analysis.maps), [m.label for m in analysis.maps], log_x=analysis.spec.log_x,
                                log_y=analysis.spec.log_y, max_risk=override, choice=choice)
        fig.update_layout(title={"text": html.escape(analysis.name), "y": 0.98, "yanchor": "top"},
                          font={"size": 22}, height=720, margin={"t": 70, "b": 170},
                          legend={"orientation": "h", "x": 0, "xanchor": "left", "y": -0.2, "yanchor": "top"})
    plot(fig, key=f"present_map_{index}_{curve}")
    shown_maps = list(analysis.maps) if curve is None else [analysis.maps[curve]]
    st.markdown("**The words on this slide**\n\n" + "\n".join(
        f"- **{html.escape(word)}**: {html.escape(meaning)}" for word, meaning in slide_words(shown_maps)))
    show_kept_sources([analysis])

prev, _, nxt = st.columns([1, 4, 1])
if prev.button("◀ Previous", disabled=index == 0, key="present_prev", width="stretch"):
    st.session_state["present_index"] = index - 1
    state.remember("present_index")
    st.rerun()
if nxt.button("Next ▶", disabled=index >= len(slides) - 1, key="present_next", width="stretch"):
    st.session_state["present_index"] = index + 1
    state.remember("present_index")
    st.rerun()
