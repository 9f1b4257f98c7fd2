"""Empirical map: simulate masking of the chosen data M times per parameter value and attack each copy."""

from __future__ import annotations

import numpy as np
import streamlit as st

from dashboard import jobs, server_empirical, state
from dashboard.markdown import plain, plain_list
from dashboard.method_widgets import data_defaults, method_settings
from dashboard.progress import ThrottledProgress
from dashboard.provenance import show_session_data
from dashboard.risk_bound import MSE_MEASURE, bound_key, data_units, max_risk_input, prefill_for_data, set_bound
from dashboard.synthetic_widgets import generator_names, synthetic_settings, synthetic_spec
from dashboard.widgets import errors_shown, keep_controls, multiselect, number, plot, remembered, reproduce, selectbox
from dashboard.words import show_glossary, show_plain_language, show_terms
from rumap.errors import InputError
from rumap.maps.attacks import KNOWLEDGE
from rumap.maps.methods import METHODS
from rumap.maps.recommend import error_of_max_risk
from rumap.maps.subsample import SUGGESTED_RECORDS, allowed, error_sentence
from rumap.maps.utility import UTILITIES
from rumap.present.figures import analysis_figure
from rumap.present.glossary import both_names
from rumap.present.numbers import readable_risks
from rumap.present.report import csv_text
from rumap.present.synthetic_measures import measures_markdown
from rumap.risk.measures import DATASET_RISK_MEASURES
from rumap.specs import EmpiricalSpec
from rumap.synthesis import GENERATORS

#: The page's name for its runs and the map it shows.
PAGE = "empirical"
TARGETS = ["max", "min", "p1", "p10", "p50", "p90", "p99"]
#: What R measures: the snooper's error on targets (Eq 12), or a share of records re-identified or disclosed.
RISK_KINDS = ["snooper's MSE on targets (Eq 12)", "share of records re-identified or disclosed"]
#: The prefix of the page's session-state keys.
PREFIX = "em_"


def offered(kind: str, names: list[str], subsampled: bool) -> list[str]:
    """The names of a registry to offer: on subsamples only those a subsample estimates (the core says which)."""
    return allowed(kind, names) if subsampled else names


def subsample_block(n: int, forced: bool = False) -> dict:
    """Whether the map is computed on subsamples, of how many records and how many of them.

    Parameters
    ----------
    n : int
        The data's number of records (from :data:`rumap.maps.subsample.SUGGESTED_RECORDS` on, subsampling is
        suggested).
    forced : bool, default False
        Subsamples only (a file on the server): no choice, the reason said.

    Returns
    -------
    dict
        ``subsample`` (m, or None for the whole data) and ``subsamples`` (B).
    """
    st.header("Subsamples")
    if forced:
        st.caption(server_empirical.SUBSAMPLES_ONLY)
    on = forced or remembered(st.checkbox, "Compute on subsamples", "em_subsample_on", False,
                    help="the map of B simple random subsamples of m records, each point their mean with the "
                         "between-subsample standard error; only the choices a subsample estimates are offered")
    if n >= SUGGESTED_RECORDS and not on:
        st.info(f"The data have {n:,} records: computing on subsamples is much faster.")
    if not on:
        return {}
    return {"subsample": int(number("subsample", "records per subsample m", "em_subsample",
                                    max(2, min(10_000, n // 10)))),
            "subsamples": int(number("subsamples", "subsamples B", "em_subsamples", 10))}


def masking_block(sel: state.Selection, subsampled: bool = False, chosen_where: str = "on the Data page",
                  also: dict[str, str] | None = None) -> tuple[str, list, dict]:
    """The masking method, its grid of parameter values and its options (drawn from the method's record).

    Parameters
    ----------
    sel : Selection
        The chosen data.
    subsampled : bool, default False
        Offer only the methods a subsample estimates.
    chosen_where : str
        Where the variables are chosen, for the caption.
    also : dict, optional
        The synthetic-data generators offered after the masking methods (name -> description).

    Returns
    -------
    method : str
    values : list
        The masking parameter's values.
    options : dict
        The method's options (``SimulationConfig.method_options``).
    """
    st.header("Masking")
    method, values, options = method_settings(sel.values, PREFIX, int(st.session_state.get("em_target_column", 0)),
                                              allowed("method", list(METHODS)) if subsampled else None, also)
    st.caption(f"Variables: {plain_list(sel.source.columns)} (choose them {chosen_where}).")
    return method, values, options


def risk_block(sel: state.Selection, subsampled: bool = False) -> dict:
    """What the snooper attacks, or which share of records counts as disclosed.

    Parameters
    ----------
    sel : Selection
        The chosen data.
    subsampled : bool, default False
        Offer only the knowledge states and measures a subsample estimates.

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
        out["knowledge"] = multiselect("Knowledge states", offered("knowledge", list(KNOWLEDGE), subsampled),
                                       "em_knowledge", ["index", "position"],
                                       format_func=both_names,
                                       help="index knowledge is the Analytic page's record knowledge; position "
                                            "its percentile, maximum and minimum (formulas on the page)")
    else:
        out["risk_measures"] = multiselect(
            "Dataset risk measures", offered("risk_measure", list(DATASET_RISK_MEASURES), subsampled), "em_measures",
            ["record-linkage"],
            help="; ".join(f"{name}: {m.description}" for name, m in DATASET_RISK_MEASURES.items()))
    return out


def simulation_block(by_targets: bool, units: str, measures: list[str], subsampled: bool = False) -> dict:
    """The utility measure, the replicates, the seed, the risk bound and the axes.

    Parameters
    ----------
    by_targets : bool
        Whether R is the snooper's error on targets (the bound is then an error in data units).
    units : str
        The attacked column's units (:func:`dashboard.risk_bound.data_units`): the bound of R = 1 / MSE is theirs.
    measures : list of str
        The dataset risk measures chosen (their bound is a share, stored for each of them).
    subsampled : bool, default False
        Offer only the utilities a subsample estimates.

    Returns
    -------
    dict
        ``utility``, ``replicates``, ``seed``, ``max_risk``, ``log_x`` and ``log_y``.
    """
    st.header("Utility and simulation")
    out = {"utility": selectbox("Utility measure", offered("utility", list(UTILITIES), subsampled), "em_utility",
                                "mean"),
           "replicates": int(number("replicates", "replicates M", "em_replicates", 200)),
           "seed": int(number("seed", "seed", "em_seed", 2001))}
    if by_targets:
        out["max_risk"] = max_risk_input("em_error", bound_key(MSE_MEASURE, units), as_error=True)
    else:
        out["max_risk"] = float(number("share_bound", "Tolerable share of records", "em_max_share", 0.05,
                                       format="%.4g", help="maximum tolerable risk R_max as a share in (0, 1]"))
        for name in measures:
            set_bound(bound_key(f"R = {name}"), out["max_risk"])
    out["log_x"] = remembered(st.checkbox, "log utility axis", "em_log_x", False)
    out["log_y"] = remembered(st.checkbox, "log risk axis", "em_log_y", True)
    return out


st.title("Empirical R-U map: simulated masking")
st.caption("Duncan, Keller-McNulty & Stokes (2001), Section 4: the data are masked M times per parameter value; "
           "R = 1 / the snooper's mean squared error (Eq 12), U from the data user's estimates (Eq 13-14). "
           "Bands are ± 1.96 standard errors: Monte-Carlo ones, or between-subsample ones for a map computed on "
           "subsamples (said under the map).")

top = st.empty()
on_server = server_empirical.server_selection()  # a file on the server (an operator's option), or None
sel = on_server or state.selection()
if sel is None:
    show_session_data(sel, where=top)
    st.stop()

x = sel.values
if on_server is not None:
    server_empirical.show_server_source(on_server, where=top)
else:
    show_session_data(sel, where=top)

if st.session_state.get("rumap_empirical_prefilled_for") != sel.source.digest:  # new data: rescale
    st.session_state["rumap_empirical_prefilled_for"] = sel.source.digest
    state.set_widgets({**data_defaults(x, PREFIX), "em_target_column": 0})

with st.sidebar:
    sampling = subsample_block(x.shape[0], forced=on_server is not None)
    method, values, options = masking_block(sel, bool(sampling),
                                            "on the Data page" if on_server is None else "above, for the file",
                                            None if sampling else generator_names())
    synthetic = synthetic_settings(list(sel.source.columns), method) if method in GENERATORS else None
    if synthetic is None:
        risk = risk_block(sel, bool(sampling))
        by_targets = risk["by_targets"]
        attacked = int(risk["target_column"])
        prefill_for_data(sel.source.digest, float(np.std(x[:, attacked], ddof=1)), attacked)
        run_settings = simulation_block(by_targets, data_units(sel.source.digest, attacked),
                                        list(risk["risk_measures"]), bool(sampling))

with errors_shown():
    if synthetic is not None:
        spec = synthetic_spec(sel, synthetic)
    elif by_targets and (not risk["targets"] or not risk["knowledge"]):
        raise InputError("choose at least one target and one knowledge state")
    if synthetic is None and not by_targets and not risk["risk_measures"]:
        raise InputError("choose at least one dataset risk measure")
    if synthetic is None:
        config = {"method": method, "values": values, "method_options": options, "targets": list(risk["targets"]),
                  "knowledge": list(risk["knowledge"]), "target_column": int(risk["target_column"]),
                  "utility": run_settings["utility"], "replicates": run_settings["replicates"],
                  "seed": run_settings["seed"], "risk_measures": list(risk["risk_measures"]), **sampling}
        spec = EmpiricalSpec(simulation=config, data=sel.source, max_risk=float(run_settings["max_risk"]),
                             log_x=run_settings["log_x"], log_y=run_settings["log_y"])
        spec.config()  # validates now, so a bad setting shows before the run

    run = st.button("Run simulation", type="primary", key="em_run")
    if run and state.is_cached(spec):
        jobs.cancel(PAGE)  # the map asked for is at hand: a run for other settings is no longer wanted
    elif run:
        spec.check_budget(x)  # refused here, at once, not by a worker once one is free
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

        try:
            finished = jobs.follow(PAGE, show_progress)
        finally:  # a refused run leaves its error box alone, not a progress bar beside it
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
        if synthetic is None:
            st.subheader("Knowledge states chosen")
            show_terms(["risk", *risk["knowledge"]])
        st.stop()

    plot(analysis_figure(analysis), key="empirical_map")
    simulated = analysis.spec.simulation if isinstance(analysis.spec, EmpiricalSpec) else None
    if simulated is None:
        st.caption(f"R_max = {analysis.max_risk:.4g} ({plain(analysis.maps[0].risk_label)}). Each replicate fits "
                   "the generator on part of the records and measures its synthetic copies against them and "
                   "against the records held out.")
        with st.expander("What the measures of synthetic data mean"):
            st.markdown(measures_markdown())
    elif simulated.risk_measures:
        st.caption(f"R_max = {analysis.max_risk:.4g} (a share of the records).")
    else:
        st.caption(f"R_max = {analysis.max_risk:.4g} (an average error of {error_of_max_risk(analysis.max_risk):.4g}).")
    if analysis.subsample is not None:
        st.caption(error_sentence(analysis.subsample.to_dict()))
    show_plain_language(analysis)
    knowledge = list(simulated.knowledge) if simulated is not None else []
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
