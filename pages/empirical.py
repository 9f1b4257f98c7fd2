"""Empirical map: simulate masking of the chosen data M times per parameter value and attack each copy."""

from __future__ import annotations

import numpy as np
import streamlit as st

from dashboard import jobs, state
from dashboard.markdown import plain_list
from dashboard.progress import ThrottledProgress
from dashboard.provenance import show_session_data
from dashboard.risk_bound import MSE_MEASURE, bound_key, data_units, max_risk_input, prefill_for_data, set_bound
from dashboard.widgets import errors_shown, keep_controls, multiselect, number, plot, remembered, reproduce, selectbox
from dashboard.words import show_glossary, show_plain_language, show_terms
from rumap.errors import InputError
from rumap.maps.attacks import KNOWLEDGE
from rumap.maps.methods import METHODS
from rumap.maps.recommend import error_of_max_risk
from rumap.maps.utility import UTILITIES
from rumap.masking.microaggregation import ALGORITHMS
from rumap.present.figures import analysis_figure
from rumap.present.glossary import both_names
from rumap.present.numbers import readable_risks
from rumap.present.report import csv_text
from rumap.risk.measures import DATASET_RISK_MEASURES
from rumap.specs import EmpiricalSpec

#: The page's name for its runs and the map it shows.
PAGE = "empirical"
TARGETS = ["max", "min", "p1", "p10", "p50", "p90", "p99"]
#: What R measures: the snooper's error on targets (Eq 12), or a share of records re-identified or disclosed.
RISK_KINDS = ["snooper's MSE on targets (Eq 12)", "share of records re-identified or disclosed"]
#: The threshold of the unequal-variance masking starts at this percentile of the data (records above it
#: are sensitive; the user moves it, e.g. to the paper's $35K).
SENSITIVE_PERCENTILE = 80


def masking_block(sel: state.Selection) -> tuple[str, list, dict]:
    """The masking method, its grid of parameter values and its options.

    Parameters
    ----------
    sel : Selection
        The chosen data.

    Returns
    -------
    method : str
    values : list
        The masking parameter's values.
    options : dict
        The method's options (``SimulationConfig.method_options``).
    """
    x, first = sel.values, sel.column
    st.header("Masking")
    method = selectbox("Method", list(METHODS), "em_method", "noise")
    options: dict = {}
    if method == "noise":
        relative = remembered(st.checkbox, "λ² as a fraction of the variance", "em_relative", True,
                              help="noise variance λ² × S² (the paper's grid is 0.05 to 1.0)")
        start = number("lambda2", "smallest λ²" + (" / S²" if relative else ""), "em_start", 0.05)
        stop = number("lambda2", "largest λ²" + (" / S²" if relative else ""), "em_stop", 1.0)
        num = number("grid_num", "number of λ² values", "em_num", 20)
        values = np.linspace(start, stop, int(num)).tolist()
        options["relative"] = relative
        if remembered(st.checkbox, "Truncate released values from below (Eq 11)", "em_trunc_on", False,
                      help="off by default, as on the command line: released values keep the noise's sign"):
            options["truncate_below"] = number("truncate_below", "lower bound", "em_trunc", 0.0)
        if remembered(st.checkbox, "Unequal variance for sensitive values", "em_unequal_on", False,
                      help="the paper's Figure 7 doubles the noise variance above $35K"):
            options["unequal_column"] = int(st.session_state.get("em_target_column", 0))
            options["unequal_above"] = number("unequal_above", "sensitive above", "em_unequal_above",
                                              float(np.percentile(first, SENSITIVE_PERCENTILE)))
            options["unequal_factor"] = number("unequal_factor", "variance factor", "em_unequal_factor", 2.0)
        if x.shape[1] > 1:
            options["correlated"] = remembered(st.checkbox, "Noise correlated like the data", "em_correlated", False)
    elif method == "microaggregation":
        options["algorithm"] = selectbox("Algorithm", list(ALGORITHMS), "em_algorithm", "mdav")
        k_start = number("k", "smallest k", "em_k_start", 2)
        k_stop = number("k", "largest k", "em_k_stop", 10)
        values = list(range(int(k_start), int(k_stop) + 1))
        options["standardize"] = remembered(st.checkbox, "Standardize the variables", "em_standardize", False)
        st.caption(f"Variables: {plain_list(sel.source.columns)} (choose them on the Data page).")
    else:
        s_start = number("swap_percent", "smallest swap %", "em_swap_start", 1.0)
        s_stop = number("swap_percent", "largest swap %", "em_swap_stop", 20.0)
        s_num = number("grid_num", "number of values", "em_swap_num", 10)
        values = np.linspace(s_start, s_stop, int(s_num)).tolist()
    return method, values, options


def risk_block(sel: state.Selection) -> dict:
    """What the snooper attacks, or which share of records counts as disclosed.

    Parameters
    ----------
    sel : Selection
        The chosen data.

    Returns
    -------
    dict
        ``by_targets`` (whether R is the snooper's error on targets), and ``targets``, ``knowledge``,
        ``target_column`` and ``risk_measures`` of the simulation.
    """
    st.header("Risk")
    risk_kind = remembered(st.radio, "Risk measure", "em_risk_kind", RISK_KINDS[0], options=RISK_KINDS,
                           help="record linkage and interval disclosure (Domingo-Ferrer & Torra) measure the share "
                                "of records an intruder re-identifies or brackets, on all the chosen columns")
    out = {"by_targets": risk_kind == RISK_KINDS[0], "targets": [], "knowledge": [], "target_column": 0,
           "risk_measures": []}
    if out["by_targets"]:
        out["targets"] = remembered(st.multiselect, "Targets", "em_targets", ["max", "p99"], options=TARGETS,
                                    accept_new_options=True,
                                    help="max, min, pXX (the XX-th sample percentile) or row:I (record I)")
        if sel.values.shape[1] > 1:
            out["target_column"] = selectbox("Attacked column", list(range(sel.values.shape[1])),
                                             "em_target_column", 0, format_func=lambda j: sel.source.columns[j])
        out["knowledge"] = multiselect("Knowledge states", list(KNOWLEDGE), "em_knowledge", ["index", "position"],
                                       format_func=both_names,
                                       help="index knowledge is the Analytic page's record knowledge; position "
                                            "its percentile, maximum and minimum (formulas on the page)")
    else:
        out["risk_measures"] = multiselect(
            "Dataset risk measures", list(DATASET_RISK_MEASURES), "em_measures", ["record-linkage"],
            help="; ".join(f"{name}: {m.description}" for name, m in DATASET_RISK_MEASURES.items()))
    return out


def simulation_block(by_targets: bool, units: str, measures: list[str]) -> dict:
    """The utility measure, the replicates, the seed, the risk bound and the axes.

    Parameters
    ----------
    by_targets : bool
        Whether R is the snooper's error on targets (the bound is then an error in data units).
    units : str
        The attacked column's units (:func:`dashboard.risk_bound.data_units`): the bound of R = 1 / MSE is theirs.
    measures : list of str
        The dataset risk measures chosen (their bound is a share, stored for each of them).

    Returns
    -------
    dict
        ``utility``, ``replicates``, ``seed``, ``max_risk``, ``log_x`` and ``log_y``.
    """
    st.header("Utility and simulation")
    out = {"utility": selectbox("Utility measure", list(UTILITIES), "em_utility", "mean"),
           "replicates": int(number("replicates", "replicates M", "em_replicates", 200)),
           "seed": int(number("seed", "seed", "em_seed", 2001))}
    if by_targets:
        out["max_risk"] = max_risk_input("em_error", bound_key(MSE_MEASURE, units), as_error=True)
    else:
        out["max_risk"] = float(number("max_risk", "Tolerable share of records", "em_max_share", 0.05, high=1.0,
                                       format="%.4g", help="maximum tolerable risk R_max as a share in (0, 1]"))
        for name in measures:
            set_bound(bound_key(f"R = {name}"), out["max_risk"])
    out["log_x"] = remembered(st.checkbox, "log utility axis", "em_log_x", False)
    out["log_y"] = remembered(st.checkbox, "log risk axis", "em_log_y", True)
    return out


st.title("Empirical R-U map: simulated masking")
st.caption("Duncan, Keller-McNulty & Stokes (2001), Section 4: the data are masked M times per parameter value; "
           "R = 1 / the snooper's mean squared error (Eq 12), U from the data user's estimates (Eq 13-14). "
           "Bands are ± 1.96 Monte-Carlo standard errors.")

top = st.empty()
sel = state.selection()
if sel is None:
    show_session_data(sel, where=top)
    st.stop()

x = sel.values
first = x[:, 0]
show_session_data(sel, where=top)

if st.session_state.get("rumap_empirical_prefilled_for") != sel.source.digest:  # new data: rescale
    st.session_state["rumap_empirical_prefilled_for"] = sel.source.digest
    state.set_widgets({"em_unequal_above": float(np.percentile(first, SENSITIVE_PERCENTILE)), "em_target_column": 0})

with st.sidebar:
    method, values, options = masking_block(sel)
    risk = risk_block(sel)
    by_targets = risk["by_targets"]
    attacked = int(risk["target_column"])
    prefill_for_data(sel.source.digest, float(np.std(x[:, attacked], ddof=1)), attacked)
    run_settings = simulation_block(by_targets, data_units(sel.source.digest, attacked), list(risk["risk_measures"]))

with errors_shown():
    if by_targets and (not risk["targets"] or not risk["knowledge"]):
        raise InputError("choose at least one target and one knowledge state")
    if not by_targets and not risk["risk_measures"]:
        raise InputError("choose at least one dataset risk measure")
    config = {"method": method, "values": values, "method_options": options, "targets": list(risk["targets"]),
              "knowledge": list(risk["knowledge"]), "target_column": int(risk["target_column"]),
              "utility": run_settings["utility"], "replicates": run_settings["replicates"],
              "seed": run_settings["seed"], "risk_measures": list(risk["risk_measures"])}
    spec = EmpiricalSpec(simulation=config, data=sel.source, max_risk=float(run_settings["max_risk"]),
                         log_x=run_settings["log_x"], log_y=run_settings["log_y"])
    spec.config()  # validates now, so a bad setting shows before the run

    run = st.button("Run simulation", type="primary", key="em_run")
    if run and state.is_cached(spec):
        jobs.cancel(PAGE)  # the map asked for is at hand: a run for other settings is no longer wanted
    elif run:
        jobs.start(PAGE, spec, x)  # in a worker: it goes on if the user leaves this page
    job = jobs.running(PAGE)
    cancel_slot = st.empty()  # the button goes once the run has ended
    cancelled = job is not None and cancel_slot.button("Cancel the simulation", key="em_cancel")
    if cancelled:
        jobs.cancel(PAGE)
        analysis = state.current(PAGE)
        cancel_slot.info("Simulation cancelled." + (" The map below is the last one drawn." if analysis else ""))
    elif job is not None:
        if not job.is_for(spec):
            st.info("A simulation started with other settings is running; its map is shown when it ends.")
        bar = st.progress(0.0, text="Simulating…")
        shown = ThrottledProgress(bar)

        def show_progress(fraction: float | None, seconds: float) -> None:
            if fraction is None:
                shown.update(0.0, "Waiting for a free worker (other maps are being computed)…")
            else:
                shown.update(fraction, "Simulating… (you may open other pages meanwhile: it goes on)")

        finished = jobs.follow(PAGE, show_progress)
        bar.empty()
        cancel_slot.empty()
        if finished is not None:
            state.set_current(PAGE, finished)
        analysis = state.current(PAGE)
    elif state.is_cached(spec):
        analysis = state.run_cached(spec, x)
        state.set_current(PAGE, analysis)
    else:
        analysis = state.current(PAGE)
        if analysis is not None:
            st.info("The settings changed: press “Run simulation” to update the map below.")

    if analysis is None:
        st.info("Set the masking and the snooper in the sidebar, then press “Run simulation”.")
        st.subheader("Knowledge states chosen")
        show_terms(["risk", *risk["knowledge"]])
        st.stop()

    plot(analysis_figure(analysis), key="empirical_map")
    if analysis.spec.simulation.risk_measures:
        st.caption(f"R_max = {analysis.max_risk:.4g} (a share of the records).")
    else:
        st.caption(f"R_max = {analysis.max_risk:.4g} (an average error of {error_of_max_risk(analysis.max_risk):.4g}).")
    show_plain_language(analysis)
    knowledge = list(analysis.spec.simulation.knowledge)
    if knowledge:
        st.subheader("Knowledge states of this map")
        st.markdown("The snooper estimates the target value τ from one masked data set Y; over M replicates the "
                    "risk is the inverse of its mean squared error:")
        show_terms(["risk", *knowledge])
    show_glossary("empirical")
    with st.expander("Results table", expanded=False):
        frame = analysis.to_frame()
        st.dataframe(readable_risks(frame), width="stretch", hide_index=True)
        st.download_button("Results as CSV", csv_text(frame), file_name="rumap_empirical.csv",
                           mime="text/csv", on_click="ignore")
    reproduce(analysis.spec, key="empirical_map")
    keep_controls(analysis, "empirical")
