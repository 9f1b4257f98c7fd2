"""Empirical map: simulate masking of the chosen data M times per parameter value and attack each copy."""

from __future__ import annotations

import numpy as np
import streamlit as st

from dashboard import state
from dashboard.widgets import errors_shown, keep_controls, number, plot, reproduce
from rumap.errors import InputError
from rumap.maps.attacks import KNOWLEDGE
from rumap.maps.simulation import DATASET_RISK_MEASURES, METHODS
from rumap.maps.utility import UTILITIES
from rumap.masking.microaggregation import ALGORITHMS
from rumap.present.figures import analysis_figure
from rumap.present.statements import summary_lines
from rumap.specs import EmpiricalSpec

st.title("Empirical R-U map: simulated masking")
st.caption("Duncan, Keller-McNulty & Stokes (2001), Section 4: the data are masked M times per parameter value; "
           "R = 1 / the snooper's mean squared error (Eq 12), U from the data user's estimates (Eq 13-14). "
           "Bands are ± 1.96 Monte-Carlo standard errors.")

sel = state.selection()
if sel is None:
    st.info("Choose a data set and column(s) on the Data page first.")
    st.stop()

x = sel.values
first = x[:, 0]
sd = float(np.std(first, ddof=1))
st.caption(f"Data: {sel.source.name} [{', '.join(sel.source.columns)}], n = {x.shape[0]}.")

TARGETS = ["max", "min", "p1", "p10", "p50", "p90", "p99"]
#: What R measures: the snooper's error on targets (Eq 12), or a share of records re-identified or disclosed.
RISK_KINDS = ["snooper's MSE on targets (Eq 12)", "share of records re-identified or disclosed"]
KEYS = ["em_method", "em_relative", "em_start", "em_stop", "em_num", "em_trunc_on", "em_trunc", "em_unequal_on",
        "em_unequal_above", "em_unequal_factor", "em_correlated", "em_algorithm", "em_k_start", "em_k_stop",
        "em_standardize", "em_swap_start", "em_swap_stop", "em_swap_num", "em_targets", "em_target_column",
        "em_knowledge", "em_utility", "em_replicates", "em_seed", "em_error", "em_log_x", "em_log_y",
        "em_risk_kind", "em_measures", "em_max_share"]
defaults = {"em_method": "noise", "em_relative": True, "em_trunc_on": bool(first.min() >= 0), "em_unequal_on": False,
            "em_correlated": False, "em_algorithm": "mdav", "em_standardize": False, "em_targets": ["max", "p99"],
            "em_knowledge": ["index", "position"], "em_utility": "mean", "em_log_x": False, "em_log_y": True,
            "em_k_start": 2, "em_k_stop": 10, "em_risk_kind": RISK_KINDS[0], "em_measures": ["record-linkage"],
            "em_max_share": 0.05, "em_swap_start": 1.0, "em_swap_stop": 20.0, "em_target_column": 0,
            "em_error": float(5000.0 if sd > 5000 else (round(0.375 * sd, 6) or 1.0))}
if st.session_state.get("rumap_empirical_prefilled_for") != sel.source.digest:  # new data: rescale
    st.session_state["rumap_empirical_prefilled_for"] = sel.source.digest
    state.set_widgets({key: defaults[key] for key in ("em_error", "em_trunc_on")}
                      | {"em_unequal_above": float(np.percentile(first, 80)), "em_target_column": 0})
for key, value in defaults.items():
    state.init_widget(key, value)

with st.sidebar:
    st.header("Masking")
    method = st.selectbox("Method", list(METHODS), key="em_method")
    options: dict = {}
    if method == "noise":
        relative = st.checkbox("λ² as a fraction of the variance", key="em_relative",
                               help="noise variance λ² × S² (the paper's grid is 0.05 to 1.0)")
        start = number("lambda2", "smallest λ²" + (" / S²" if relative else ""), "em_start", 0.05)
        stop = number("lambda2", "largest λ²" + (" / S²" if relative else ""), "em_stop", 1.0)
        num = number("grid_num", "number of λ² values", "em_num", 20)
        values = np.linspace(start, stop, int(num)).tolist()
        options["relative"] = relative
        if st.checkbox("Truncate released values from below (Eq 11)", key="em_trunc_on"):
            options["truncate_below"] = number("truncate_below", "lower bound", "em_trunc", 0.0)
        if st.checkbox("Unequal variance for sensitive values", key="em_unequal_on",
                       help="the paper's Figure 7 doubles the noise variance above $35K"):
            options["unequal_column"] = int(st.session_state.get("em_target_column", 0))
            options["unequal_above"] = number("unequal_above", "sensitive above", "em_unequal_above",
                                              float(np.percentile(first, 80)))
            options["unequal_factor"] = number("unequal_factor", "variance factor", "em_unequal_factor", 2.0)
        if x.shape[1] > 1:
            options["correlated"] = st.checkbox("Noise correlated like the data", key="em_correlated")
    elif method == "microaggregation":
        options["algorithm"] = st.selectbox("Algorithm", list(ALGORITHMS), key="em_algorithm")
        k_start = st.number_input("smallest k", min_value=1, step=1, key="em_k_start")
        k_stop = st.number_input("largest k", min_value=1, step=1, key="em_k_stop")
        values = list(range(int(k_start), int(k_stop) + 1))
        options["standardize"] = st.checkbox("Standardize the variables", key="em_standardize")
        st.caption(f"Variables: {', '.join(sel.source.columns)} (choose them on the Data page).")
    else:
        s_start = st.number_input("smallest swap %", min_value=0.0, max_value=100.0, key="em_swap_start")
        s_stop = st.number_input("largest swap %", min_value=0.0, max_value=100.0, key="em_swap_stop")
        s_num = number("grid_num", "number of values", "em_swap_num", 10)
        values = np.linspace(s_start, s_stop, int(s_num)).tolist()

    st.header("Risk")
    risk_kind = st.radio("Risk measure", RISK_KINDS, key="em_risk_kind",
                         help="record linkage and interval disclosure (Domingo-Ferrer & Torra) measure the share of "
                              "records an intruder re-identifies or brackets, on all the chosen columns")
    by_targets = risk_kind == RISK_KINDS[0]
    targets, knowledge, measures, target_column = [], [], [], 0
    if by_targets:
        targets = st.multiselect("Targets", TARGETS, key="em_targets", accept_new_options=True,
                                 help="max, min, pXX (the XX-th sample percentile) or row:I (record I)")
        if x.shape[1] > 1:
            target_column = st.selectbox("Attacked column", list(range(x.shape[1])), key="em_target_column",
                                         format_func=lambda j: sel.source.columns[j])
        knowledge = st.multiselect("Knowledge states", list(KNOWLEDGE), key="em_knowledge",
                                   format_func=lambda k: k, help="; ".join(f"{k}: {v.description}"
                                                                             for k, v in KNOWLEDGE.items()))
    else:
        measures = st.multiselect("Dataset risk measures", list(DATASET_RISK_MEASURES), key="em_measures",
                                  help="record-linkage: nearest original is the own record (ties are not links); "
                                       "probabilistic-linkage: Fellegi-Sunter pairing; interval-disclosure: "
                                       "original inside a rank interval of 10% of the records; sdid: within 5% "
                                       "of a standard deviation")
    st.header("Utility and simulation")
    utility = st.selectbox("Utility measure", list(UTILITIES), key="em_utility")
    replicates = number("replicates", "replicates M", "em_replicates", 200)
    seed = number("seed", "seed", "em_seed", 2001)
    if by_targets:
        error = st.number_input("Tolerable average error of the snooper (data units)", min_value=1e-12,
                                key="em_error", format="%.6g",
                                help="maximum tolerable risk R_max = 1 / error² (the paper: $5K)")
        max_risk = 1.0 / float(error) ** 2
    else:
        max_risk = st.number_input("Tolerable share of records", min_value=1e-6, max_value=1.0, key="em_max_share",
                                   format="%.4g", help="maximum tolerable risk R_max as a share in (0, 1]")
    log_x = st.checkbox("log utility axis", key="em_log_x")
    log_y = st.checkbox("log risk axis", key="em_log_y")
state.remember(*KEYS)

with errors_shown():
    if by_targets and (not targets or not knowledge):
        raise InputError("choose at least one target and one knowledge state")
    if not by_targets and not measures:
        raise InputError("choose at least one dataset risk measure")
    config = {"method": method, "values": values, "method_options": options, "targets": list(targets),
              "knowledge": list(knowledge), "target_column": int(target_column), "utility": utility,
              "replicates": int(replicates), "seed": int(seed), "risk_measures": list(measures)}
    spec = EmpiricalSpec(simulation=config, data=sel.source, max_risk=float(max_risk), log_x=log_x,
                         log_y=log_y)
    spec.config()  # validates now, so a bad setting shows before the run
    from rumap.fingerprint import cache_key

    key = cache_key(sel.source.digest, spec.to_dict())
    run = st.button("Run simulation", type="primary", key="em_run")
    if run or key in state.cache():
        bar = st.progress(0.0, text="Simulating…")
        analysis = state.run_cached(spec, x, progress=lambda f: bar.progress(min(1.0, f), text="Simulating…"))
        bar.empty()
        state.set_current("empirical", analysis)
    else:
        analysis = state.current("empirical")
        if analysis is not None:
            st.info("The settings changed: press “Run simulation” to update the map below.")

    if analysis is None:
        st.info("Set the masking and the snooper in the sidebar, then press “Run simulation”.")
        st.stop()

    plot(analysis_figure(analysis), key="empirical_map")
    if analysis.spec.simulation.get("risk_measures"):
        st.caption(f"R_max = {analysis.max_risk:.4g} (a share of the records).")
    else:
        st.caption(f"R_max = {analysis.max_risk:.4g} (an average error of {1 / np.sqrt(analysis.max_risk):.4g}).")
    st.subheader("In plain language")
    st.markdown("\n".join(f"- {line}" for line in summary_lines(analysis)))
    with st.expander("Results table", expanded=False):
        frame = analysis.to_frame()
        st.dataframe(frame, width="stretch", hide_index=True)
        st.download_button("Results as CSV", frame.to_csv(index=False), file_name="rumap_empirical.csv",
                           mime="text/csv", on_click="ignore")
    reproduce(analysis.spec)
    keep_controls(analysis, "empirical")
