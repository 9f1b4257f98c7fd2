"""Home: what an R-U map is, and the paper's worked examples in one click."""

from __future__ import annotations

import streamlit as st

from dashboard import state
from dashboard.forms import apply_analytic_spec, run_and_keep
from dashboard.selection import EACH
from dashboard.widgets import errors_shown, preload_interactive_figures
from rumap.present.examples import EXAMPLES, example_specs
from rumap.present.plotting import curve_color_name
from rumap.present.sketch import map_svg
from rumap.specs import AnalyticSpec

#: The home map's knowledge states, in drawing order (their colours are named in the text from the same list).
HOME_STATES = ("record", "population")
HOME_MAP = AnalyticSpec(n=200, sigma2=1.0, states=HOME_STATES, lambda2_stop=3.0, max_risk=5.0)


@st.cache_resource
def home_svg() -> str:
    """The home map as SVG, drawn once for every session (it depends on no one's data)."""
    return map_svg(HOME_MAP.run())


st.title("R-U confidentiality maps")
st.markdown(
    "A statistical agency that releases microdata must keep **disclosure risk R** low and **data utility U** "
    "high. Masking the data (adding noise, microaggregating) lowers both. An **R-U confidentiality map** "
    "(Duncan, Keller-McNulty & Stokes 2001) draws the pair (U, R) as the masking parameter changes, once for "
    "each thing a data snooper may know about a target record. A **maximum tolerable risk** is a horizontal "
    "line: the best parameter is the one that keeps the most utility below it.")

left, right = st.columns([3, 2])
with left:
    st.markdown("**Additive noise, n = 200, σ² = 1**")
    # a still picture: the page shows at once, without loading the interactive figures' script
    st.markdown(f"<div class='rumap-home-map'>{home_svg()}</div>", unsafe_allow_html=True)
    st.caption("The same map, interactive, is Figure 2 below.")
with right:
    st.markdown(
        "**Reading the map.** Utility is on the horizontal axis, risk on the vertical one. Each curve starts at "
        "the right (no noise: full utility, highest risk) and moves left as the noise variance λ² grows. "
        f"A snooper who can link a target to its masked record ({curve_color_name(HOME_STATES.index('record'))}) "
        "is stopped only by noise; one who knows only that the target comes from the population "
        f"({curve_color_name(HOME_STATES.index('population'))}) learns little even from the raw data. "
        "With a maximum tolerable risk of 5 (dashed line) the agency needs λ² = 0.2 (star) and keeps 83% "
        "of the utility.")
    st.markdown("**Pages.** *Data*: upload or pick a data set. *Analytic map*: the paper's formulas. "
                "*Empirical map*: simulate masking on your data. *Compare* and *Pareto*: choose among kept maps. "
                "*Report*: export everything. *Presentation*: one map per screen for a committee.")

#: The Compare widgets that draw each view of rumap.present.examples.VIEWS like the paper's figure.
EXAMPLE_VIEWS = {
    "analytic": lambda named: {},
    "each-curve": lambda named: {"compare_knowledge": EACH},
}

st.header("Worked examples from the paper")
st.caption("Each button loads the example's settings and draws its map.")
cols = st.columns(3)
for i, (key, example) in enumerate(EXAMPLES.items()):
    with cols[i % 3], st.container(border=True):
        st.markdown(f"**{example.figures}: {example.title}**")
        st.caption(example.description)
        if st.button(f"Load {example.figures}", key=f"example_{key}"):
            with errors_shown():
                named = example_specs(key)
                if isinstance(named[0][1], AnalyticSpec):
                    apply_analytic_spec(named[0][1], named[0][0])
                    st.switch_page("pages/analytic.py")
                run_and_keep([spec for _, spec in named], [name for name, _ in named])
                state.set_widgets(EXAMPLE_VIEWS[example.view](named))
                st.switch_page("pages/compare.py")

preload_interactive_figures()  # the home map is a still picture: the maps' script loads meanwhile
