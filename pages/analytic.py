"""Analytic map: the paper's formulas (Eq 1-10) for additive noise, with the optimum under a risk bound."""

from __future__ import annotations

import streamlit as st

from dashboard import state
from dashboard.forms import prefill_from_data
from dashboard.markdown import plain
from dashboard.provenance import data_words, example_name, setting_words, show_source
from dashboard.risk_bound import FIRST_MAX_RISK, MSE_MEASURE, bound_key, data_units, max_risk_input, setting_units
from dashboard.widgets import (
    errors_shown,
    keep_controls,
    multiselect,
    number,
    plot,
    remembered,
    reproduce,
    selectbox,
    table,
)
from dashboard.words import show_glossary, show_plain_language, show_terms
from rumap.maps.analytic import STATES
from rumap.maps.families import FAMILIES
from rumap.present.figures import analysis_figure
from rumap.present.glossary import both_names
from rumap.present.numbers import readable_risks
from rumap.specs import AnalyticSpec, inputs_from_data

#: The knowledge states drawn at first: the paper's Figure 4.
DEFAULT_STATES = ["record", "population", "percentile", "maximum"]


def setting_block(sel: state.Selection | None) -> dict:
    """The data's setting: n, σ², μ, the target, the percentile and the distribution family.

    Parameters
    ----------
    sel : Selection or None
        The chosen data column, whose observed values the map may use.

    Returns
    -------
    dict
        :class:`rumap.specs.AnalyticSpec` arguments (``n``, ``sigma2``, ``mu``, ``tau``, ``p``, ``family``,
        ``shape``, ``data``).
    """
    st.header("Setting")
    n = number("n", "n (records)", "an_n", 200)
    sigma2 = number("sigma2", "σ² (variance of the data)", "an_sigma2", 1.0)
    mu = number("mu", "μ (mean of the data)", "an_mu", 0.0)
    tau_on = remembered(st.checkbox, "Specific target τ (Eq 1)", "an_tau_on", False)
    tau = number("tau", "τ (target value)", "an_tau", 0.0, disabled=not tau_on)
    p = number("p", "p (percentile, as a fraction)", "an_p", 0.99, format="%.4f")
    family = selectbox("Distribution of the data (percentile state)", list(FAMILIES), "an_family", "normal",
                       help="normal uses Eq 8; the others evaluate Eq 5 numerically")
    shaped = FAMILIES[family].shape_name is not None
    shape = number("shape", "Shape parameter of the family", "an_shape", 1.0, disabled=not shaped)
    use_data = remembered(st.checkbox, "Use the data's observed values (Eq 3, Eq 9)", "an_use_data",
                          sel is not None, disabled=sel is None,
                          help="the sample state and the observed maximum/minimum need the data column")
    data = sel.source if (use_data and sel is not None) else None
    setting = {"n": int(n), "sigma2": float(sigma2), "mu": float(mu), "tau": float(tau) if tau_on else None,
               "p": float(p), "family": family, "shape": float(shape) if shaped else None, "data": data}
    return {**setting, "from_data": inputs_from_data(setting, sel.column) if data is not None else ()}


def map_block(has_tau: bool, has_data: bool, units: str, sigma2: float) -> dict:
    """The knowledge states, the grid of noise variances, the risk bound and the axes.

    Parameters
    ----------
    has_tau : bool
        Whether a target τ is set (the mean-target state needs it).
    has_data : bool
        Whether the data's values are used (the sample state needs them).
    units : str
        The units of R = 1 / MSE here (the data column, or the setting's variance): the bound is theirs.
    sigma2 : float
        The setting's variance (a bound not yet set starts from the paper's 5 / σ²).

    Returns
    -------
    dict
        :class:`rumap.specs.AnalyticSpec` arguments (``states``, ``lambda2_start``, ``lambda2_stop``,
        ``lambda2_num``, ``max_risk``, ``log_x``, ``log_y``).
    """
    st.header("Map")
    available = [s for s in STATES if (s != "mean-target" or has_tau) and (s != "sample" or has_data)]
    states = multiselect("Knowledge states", available, "an_states", DEFAULT_STATES,
                         format_func=lambda s: f"{both_names(s)} ({STATES[s].equation})",
                         help="record knowledge is the Empirical page's index knowledge; percentile, maximum "
                              "and minimum its position knowledge")
    lam_start = number("lambda2", "smallest λ²", "an_lam_start", 0.0)
    lam_stop = number("lambda2", "largest λ²", "an_lam_stop", 3.0)
    lam_num = number("grid_num", "number of λ² values", "an_lam_num", 301)
    max_risk_on = remembered(st.checkbox, "Maximum tolerable risk", "an_max_risk_on", True)
    max_risk = max_risk_input("an_max_risk", bound_key(MSE_MEASURE, units), default=FIRST_MAX_RISK / sigma2,
                              disabled=not max_risk_on)
    log_x = remembered(st.checkbox, "log utility axis", "an_log_x", False)
    log_y = remembered(st.checkbox, "log risk axis", "an_log_y", True)
    return {"states": tuple(states), "lambda2_start": float(lam_start), "lambda2_stop": float(lam_stop),
            "lambda2_num": int(lam_num), "max_risk": float(max_risk) if max_risk_on else None, "log_x": log_x,
            "log_y": log_y}


def drawn_for(spec: AnalyticSpec, sel) -> str:
    """Which data, example or setting the map is drawn for, said at the top of the page.

    Parameters
    ----------
    spec : AnalyticSpec
    sel : Selection or None
        The session's chosen data.

    Returns
    -------
    str
    """
    setting = setting_words(spec)
    if spec.data is not None:
        statistics = " (σ² and μ of the data)" if {"sigma2", "mu"} <= dict(spec.from_data).keys() else ""
        return f"Drawn for the data {data_words(spec.data)}: {setting}{statistics}."
    example = example_name(spec)
    if example is not None:
        return f"Drawn for the worked example “{plain(example)}”: {setting}; no data set is used."
    if sel is not None and {"sigma2", "mu"} <= dict(inputs_from_data({"sigma2": spec.sigma2, "mu": spec.mu},
                                                                     sel.column)).keys():
        return (f"Drawn for {setting}, the values of {plain(sel.source.name)} \\[{plain(sel.source.columns[0])}\\] "
                "(its observed values are not used).")
    return f"Drawn for the setting {setting}; no data set is used."


st.title("Analytic R-U map: additive noise")
st.caption("Duncan, Keller-McNulty & Stokes (2001), Equations 1-10. Released values Y = x + e with noise "
           "variance λ²; risk R = 1 / snooper's mean squared error, utility U = n / (σ² + λ²).")

top = st.empty()  # which data or setting is drawn, filled in once the sidebar has set it
sel = state.selection()
if sel is not None:
    prefill_from_data(sel.values, sel.source.digest)

with st.sidebar:
    setting = setting_block(sel)
    units = data_units(setting["data"].digest) if setting["data"] is not None else setting_units(setting["sigma2"])
    drawn = map_block(setting["tau"] is not None, setting["data"] is not None, units, setting["sigma2"])

if not drawn["states"]:
    st.info("Choose at least one knowledge state in the sidebar.")
    st.stop()

with errors_shown():
    spec = AnalyticSpec(**setting, **drawn)
    analysis = state.run_cached(spec, state.data_for(spec))
    state.set_current("analytic", analysis)
    show_source(drawn_for(spec, sel), sel, uses_data=spec.data is not None, where=top)

    plot(state.figure_cached(spec, lambda: analysis_figure(analysis)), key="analytic_map")
    if analysis.optima:
        st.subheader(f"Optimum for R_max = {spec.max_risk:g} (R = 1 / snooper's MSE)")
        table([{"state": o.state, "λ²": o.lambda2, "R": o.risk, "U": o.utility, "efficiency": o.efficiency,
                "reachable": o.reachable} for o in analysis.optima], width="stretch", hide_index=True)
    show_plain_language(analysis)

    st.subheader("Formulas of the selected states")
    st.latex(r"U = \frac{n}{\sigma^2 + \lambda^2}")
    show_terms(spec.states)
    if {"maximum", "minimum"} & set(spec.states):
        st.latex(r"K_1 = \sqrt{2\ln n} - \frac{\ln\ln n + \ln 4\pi - 2\gamma}{2\sqrt{2\ln n}},\quad "
                 r"K_2 = \frac{\pi^2}{12 \ln n}")

    show_glossary("analytic")
    reproduce(spec, key="analytic_map")
    state.keep_shown("an_show_table", False)
    if st.toggle("Table of the curves", key="an_show_table"):  # built only when asked
        st.dataframe(readable_risks(analysis.to_frame()), width="stretch", hide_index=True)
    keep_controls(analysis, "analytic")
