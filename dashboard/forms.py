"""Between specifications and the pages' widgets: fill the widgets from a specification, run and keep examples."""

from __future__ import annotations

import numpy as np
import streamlit as st

from dashboard import state
from dashboard.progress import ThrottledProgress
from dashboard.risk_bound import MSE_MEASURE, analysis_key, prefill_for_data, set_bound, spec_key
from rumap.maps.setting import sample_variance
from rumap.specs import AnalyticSpec

PREFILLED = "rumap_analytic_prefilled_for"


def analytic_widget_values(spec: AnalyticSpec) -> dict:
    """The Analytic page's widget values that describe ``spec``.

    Parameters
    ----------
    spec : AnalyticSpec

    Returns
    -------
    dict
        Widget key -> value.
    """
    return {
        "an_n": int(spec.n), "an_sigma2": float(spec.sigma2), "an_mu": float(spec.mu),
        "an_tau_on": spec.tau is not None, "an_tau": float(spec.tau if spec.tau is not None else spec.mu),
        "an_p": float(spec.p), "an_family": spec.family,
        "an_shape": float(spec.shape) if spec.shape is not None else 1.0,
        "an_states": list(spec.states),
        "an_lam_start": float(spec.lambda2_start), "an_lam_stop": float(spec.lambda2_stop),
        "an_lam_num": int(spec.lambda2_num),
        "an_max_risk_on": spec.max_risk is not None,
        "an_max_risk": float(spec.max_risk if spec.max_risk is not None else 5.0),
        "an_log_x": bool(spec.log_x), "an_log_y": bool(spec.log_y), "an_use_data": spec.data is not None,
    }


def apply_analytic_spec(spec: AnalyticSpec, name: str | None = None) -> None:
    """Fill the Analytic page's widgets from a specification (an example, or a loaded map).

    Parameters
    ----------
    spec : AnalyticSpec
    name : str, optional
        The name proposed for the map.
    """
    state.set_widgets(analytic_widget_values(spec))
    if spec.max_risk is not None:
        set_bound(spec_key(spec, MSE_MEASURE), spec.max_risk)
    if name:
        state.set_name_hint(spec, name)
    sel = state.selection()
    st.session_state[PREFILLED] = sel.source.digest if sel is not None else None


def prefill_from_data(values: np.ndarray, digest: str) -> None:
    """Set n, sigma^2 and mu of the Analytic page from a newly chosen column (once per column).

    Parameters
    ----------
    values : ndarray, shape (n,) or (n, d)
        The chosen data (the first column is used).
    digest : str
        The data's digest.
    """
    if st.session_state.get(PREFILLED) == digest:
        return
    st.session_state[PREFILLED] = digest
    column = np.asarray(values, dtype=float).reshape(len(values), -1)[:, 0]
    sigma2 = sample_variance(column)
    # the grid and the bound scale with the variance: the paper's n = 200, sigma^2 = 1 map has lambda^2 up to
    # 3 sigma^2 and R_max = 5 / sigma^2 (a snooper's mean squared error of 0.2 sigma^2)
    state.set_widgets({"an_n": int(column.size), "an_sigma2": sigma2, "an_mu": float(np.mean(column)),
                       "an_tau": float(np.max(column)), "an_use_data": True, "an_lam_start": 0.0,
                       "an_lam_stop": 3.0 * sigma2})
    prefill_for_data(digest, float(np.sqrt(sigma2)))


def run_and_keep(specs: list, names: list[str]) -> list:
    """Run specifications with a progress bar and keep their analyses; returns them.

    Parameters
    ----------
    specs : list of AnalyticSpec or EmpiricalSpec
    names : list of str

    Returns
    -------
    list of Analysis
    """
    done = []
    bar = st.progress(0.0, text="Simulating…")
    shown = ThrottledProgress(bar)
    for i, (spec, name) in enumerate(zip(specs, names, strict=True)):
        data = state.data_for(spec)

        def progress(fraction: float | None, i: int = i, name: str = name) -> None:
            if fraction is None:
                shown.update(i / len(specs), f"{name}: waiting for a free worker…")
            else:
                shown.update((i + float(fraction)) / len(specs), f"Simulating {name}…")

        analysis = state.run_cached(spec, data, progress=progress, in_pool=not isinstance(spec, AnalyticSpec))
        analysis = analysis.renamed(name)
        state.keep(analysis)
        if analysis.max_risk is not None and analysis.maps:  # its bound, for the maps of its measure and units
            set_bound(analysis_key(analysis), analysis.max_risk)
        done.append(analysis)
    bar.empty()
    state.focus([a.name for a in done])
    return done
