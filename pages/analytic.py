"""Analytic map: the paper's formulas (Eq 1-10) for additive noise, with the optimum under a risk bound."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from dashboard import state
from dashboard.forms import prefill_from_data
from dashboard.widgets import errors_shown, keep_controls, number, plot, reproduce
from rumap.maps.analytic import STATES
from rumap.maps.families import FAMILIES
from rumap.present.figures import analysis_figure
from rumap.present.statements import summary_lines
from rumap.specs import AnalyticSpec

st.title("Analytic R-U map: additive noise")
st.caption("Duncan, Keller-McNulty & Stokes (2001), Equations 1-10. Released values Y = x + e with noise "
           "variance λ²; risk R = 1 / snooper's mean squared error, utility U = n / (σ² + λ²).")

sel = state.selection()
if sel is not None:
    prefill_from_data(sel.values, sel.source.digest)

KEYS = ["an_n", "an_sigma2", "an_mu", "an_tau_on", "an_tau", "an_p", "an_family", "an_shape", "an_states",
        "an_lam_start", "an_lam_stop", "an_lam_num", "an_max_risk_on", "an_max_risk", "an_log_x", "an_log_y",
        "an_use_data"]
for key, default in {"an_tau_on": False, "an_family": "normal", "an_shape": 1.0,
                     "an_states": ["record", "population", "percentile", "maximum"], "an_max_risk_on": True,
                     "an_log_x": False, "an_log_y": True, "an_use_data": sel is not None}.items():
    state.init_widget(key, default)

with st.sidebar:
    st.header("Setting")
    if sel is not None:
        st.caption(f"Prefilled from {sel.source.name} [{sel.source.columns[0]}]; edit freely.")
    n = number("n", "n (records)", "an_n", 200)
    sigma2 = number("sigma2", "σ² (variance of the data)", "an_sigma2", 1.0)
    mu = number("mu", "μ (mean of the data)", "an_mu", 0.0)
    tau_on = st.checkbox("Specific target τ (Eq 1)", key="an_tau_on")
    tau = number("tau", "τ (target value)", "an_tau", 0.0, disabled=not tau_on)
    p = number("p", "p (percentile, as a fraction)", "an_p", 0.99, format="%.4f")
    family = st.selectbox("Distribution of the data (percentile state)", list(FAMILIES), key="an_family",
                          help="normal uses Eq 8; the others evaluate Eq 5 numerically")
    shape = st.number_input("Shape parameter of the family", min_value=1e-6, key="an_shape",
                            disabled=FAMILIES[family].shape_name is None)
    use_data = st.checkbox("Use the data's observed values (Eq 3, Eq 9)", key="an_use_data", disabled=sel is None,
                           help="the sample state and the observed maximum/minimum need the data column")
    st.header("Map")
    available = [s for s in STATES if s != "mean-target" or tau_on]
    available = [s for s in available if s != "sample" or (use_data and sel is not None)]
    st.session_state["an_states"] = [s for s in st.session_state["an_states"] if s in available]
    states = st.multiselect("Knowledge states", available, key="an_states",
                            format_func=lambda s: f"{s} ({STATES[s].equation})")
    lam_start = number("lambda2", "smallest λ²", "an_lam_start", 0.0)
    lam_stop = number("lambda2", "largest λ²", "an_lam_stop", 3.0)
    lam_num = number("grid_num", "number of λ² values", "an_lam_num", 301)
    max_risk_on = st.checkbox("Maximum tolerable risk", key="an_max_risk_on")
    max_risk = number("max_risk", "R_max", "an_max_risk", 5.0, disabled=not max_risk_on)
    log_x = st.checkbox("log utility axis", key="an_log_x")
    log_y = st.checkbox("log risk axis", key="an_log_y")
state.remember(*KEYS)

if not states:
    st.info("Choose at least one knowledge state in the sidebar.")
    st.stop()

with errors_shown():
    spec = AnalyticSpec(
        n=int(n), sigma2=float(sigma2), mu=float(mu), tau=float(tau) if tau_on else None, p=float(p), family=family,
        shape=float(shape) if FAMILIES[family].shape_name is not None else None, states=tuple(states),
        lambda2_start=float(lam_start), lambda2_stop=float(lam_stop), lambda2_num=int(lam_num),
        max_risk=float(max_risk) if max_risk_on else None, log_x=log_x, log_y=log_y,
        data=sel.source if (use_data and sel is not None) else None)
    analysis = state.run_cached(spec, state.data_for(spec))
    state.set_current("analytic", analysis)

    plot(analysis_figure(analysis), key="analytic_map")
    if analysis.optima:
        st.subheader(f"Optimum for R_max = {spec.max_risk:g}")
        st.dataframe(pd.DataFrame([{
            "state": o.state, "λ²": o.lambda2, "R": o.risk, "U": o.utility, "efficiency": o.efficiency,
            "reachable": o.reachable} for o in analysis.optima]), width="stretch", hide_index=True)
    st.subheader("In plain language")
    st.markdown("\n".join(f"- {line}" for line in summary_lines(analysis)))

    st.subheader("Formulas of the selected states")
    st.latex(r"U = \frac{n}{\sigma^2 + \lambda^2}")
    for s in states:
        st.markdown(f"**{s}** ({STATES[s].equation}): {STATES[s].description}")
        st.latex(STATES[s].latex)
    if {"maximum", "minimum"} & set(states):
        st.latex(r"K_1 = \sqrt{2\ln n} - \frac{\ln\ln n + \ln 4\pi - 2\gamma}{2\sqrt{2\ln n}},\quad "
                 r"K_2 = \frac{\pi^2}{12 \ln n}")

    reproduce(spec)
    with st.expander("Table of the curves"):
        st.dataframe(analysis.to_frame(), width="stretch", hide_index=True)
    keep_controls(analysis, "analytic")
