"""Maximum tolerable risks, one per risk measure and its units, shared by the pages that draw such maps.

A bound is a number in the units of one risk measure: R = 1 / the snooper's mean squared error is in
1 / (data units)², so a bound set for incomes in dollars means nothing for a score from 1 to 5; a share
of records is a share whatever the data. Each bound is therefore stored under its measure and units
(:func:`bound_key`): the snooper's 1 / MSE by the data column it attacks (or, for the analytic map of a
setting without data, by that setting's variance), any other measure by its name alone. A bound set on
one page follows to every map of the same measure and units (Analytic, Empirical, Compare, Presentation,
the report) and never to a map of another.

R = 1 / MSE is also a tolerable average error in data units, 1 / sqrt(R_max): the pages show both, and the
Empirical page asks for that error.
"""

from __future__ import annotations

import streamlit as st

from dashboard.widgets import number
from rumap.maps.recommend import error_of_max_risk, max_risk_of_error
from rumap.present.numbers import format_number

BOUNDS = "rumap_bounds"
SYNCED = "rumap_max_risk_synced"
#: The snooper's risk, whose units are those of the data column squared (inverted).
MSE_MEASURE = "R = 1 / snooper's MSE"

#: The paper's tolerable average error of the snooper, $5K (R_max = 1 / 5000² = 4.0E-08), on incomes whose
#: standard deviation is $13.3K (Duncan et al. 2001, Table 1).
PAPER_ERROR = 5000.0
#: The paper's tolerable error as a fraction of its data's standard deviation (5000 / 13300, rounded):
#: data whose standard deviation is below $5K start from this fraction of their own.
PAPER_ERROR_IN_SD = 0.375
#: The bound of the paper's analytic maps (n = 200, σ² = 1): R_max = 5, a mean squared error of 0.2 σ².
FIRST_MAX_RISK = 5.0


def is_mse(risk_label: str) -> bool:
    """Whether a map's risk is the snooper's 1 / mean squared error (its bound then has data units)."""
    return "1 / snooper's MSE" in risk_label


def bound_key(risk_label: str, units: str = "") -> str:
    """The key a bound is stored under: the risk measure and, for 1 / MSE, the units of its data.

    Parameters
    ----------
    risk_label : str
        The map's risk label (:attr:`rumap.result.RUMap.risk_label`).
    units : str
        For 1 / MSE: :func:`data_units` or :func:`setting_units`; ignored for other measures.

    Returns
    -------
    str
    """
    return f"{MSE_MEASURE} | {units}" if is_mse(risk_label) else risk_label


def data_units(digest: str, column: int = 0) -> str:
    """The units of 1 / MSE on a data set: its digest and the attacked column's position."""
    return f"data {digest}:{int(column)}"


def setting_units(sigma2: float) -> str:
    """The units of 1 / MSE of an analytic setting without data: its variance sets the scale."""
    return f"σ² = {float(sigma2):.12g}"


def spec_key(spec, risk_label: str) -> str:
    """The bound key of a specification's maps.

    Parameters
    ----------
    spec : AnalyticSpec, EmpiricalSpec or a page's map specification
    risk_label : str
        The risk label of its maps.

    Returns
    -------
    str
    """
    data = getattr(spec, "data", None)
    if getattr(spec, "kind", "") == "analytic":
        units = data_units(data.digest) if data is not None else setting_units(spec.sigma2)
    elif getattr(spec, "kind", "") == "empirical":
        units = data_units(data.digest, spec.simulation.target_column)
    else:
        units = ""
    return bound_key(risk_label, units)


def analysis_key(analysis, curve: int | None = None) -> str:
    """The bound key of a kept analysis: by its first map's risk measure, or by curve ``curve``'s."""
    maps = analysis.maps
    return spec_key(analysis.spec, maps[curve or 0].risk_label if maps else "")


def default_error(sd: float) -> float:
    """The tolerable average error a new data set starts from (in data units).

    Parameters
    ----------
    sd : float
        The attacked column's standard deviation.

    Returns
    -------
    float
        The paper's $5K for data spread more widely than that, else :data:`PAPER_ERROR_IN_SD` standard
        deviations (1 for constant data).
    """
    return float(PAPER_ERROR if sd > PAPER_ERROR else (round(PAPER_ERROR_IN_SD * sd, 6) or 1.0))


def _bounds() -> dict:
    return st.session_state.setdefault(BOUNDS, {})


def stored_bound(key: str) -> float | None:
    """The bound set for ``key`` in this session, or None."""
    value = _bounds().get(key)
    return None if value is None else float(value)


def set_bound(key: str, value: float) -> None:
    """Set the bound of one measure and units (an example, a loaded map, or a page's input)."""
    _bounds()[key] = float(value)


def bound_for(analysis, curve: int | None = None) -> float | None:
    """The bound a kept analysis (or its curve ``curve``) is judged by: its measure's in this session, else its own.

    The analysis's own bound counts only for the measure it was set in (its first map's); None when neither.
    """
    key = analysis_key(analysis, curve)
    stored = stored_bound(key)
    if stored is not None:
        return stored
    return analysis.max_risk if key == analysis_key(analysis) else None


def prefill_for_data(digest: str, sd: float, column: int = 0) -> None:
    """Start the 1 / MSE bound of a newly chosen column from its tolerable error (once per column).

    Parameters
    ----------
    digest : str
        The data's digest.
    sd : float
        The column's standard deviation.
    column : int
        The attacked column's position.
    """
    key = bound_key(MSE_MEASURE, data_units(digest, column))
    if stored_bound(key) is None:
        set_bound(key, max_risk_of_error(default_error(sd)))


def describe(max_risk: float, key: str = bound_key(MSE_MEASURE)) -> str:
    """The bound, its measure named beside it, and for 1 / MSE the tolerable average error it stands for."""
    if key.startswith(MSE_MEASURE):
        return (f"R_max = {format_number(max_risk)}, a tolerable average error of "
                f"{format_number(error_of_max_risk(max_risk))} in data units (R = 1 / error²)")
    return f"R_max = {format_number(max_risk)} ({key})"


def max_risk_input(key: str, bound: str, default: float | None = None, as_error: bool = False,
                   label: str | None = None, entry: str = "max_risk", **kwargs) -> float:
    """The bound of one measure and units as a number input (as R, or as the tolerable error); returns it.

    The input shows the bound stored under ``bound`` unless the user has just changed it here; what it
    holds then becomes that bound.

    Parameters
    ----------
    key : str
        The input's key.
    bound : str
        :func:`bound_key` of the maps the bound applies to.
    default : float, optional
        The bound before anything sets it (default :data:`FIRST_MAX_RISK`).
    as_error : bool, default False
        Ask for the tolerable average error in data units instead of R.
    label : str, optional
    entry : str, default "max_risk"
        The entry of :data:`rumap.PARAMETERS` whose bounds the input takes (R as a share: ``"share_bound"``).
    **kwargs
        Passed to :func:`dashboard.widgets.number`.

    Returns
    -------
    float
        R_max.
    """
    stored = stored_bound(bound)
    shared = stored if stored is not None else float(FIRST_MAX_RISK if default is None else default)
    shown = error_of_max_risk(shared) if as_error else shared
    synced = st.session_state.setdefault(SYNCED, {})
    if st.session_state.get(key) is None or st.session_state.get(key) == synced.get(key) \
            or synced.get(f"{key} bound") != bound:
        st.session_state[key] = shown  # not changed here since last drawn, or another measure: the stored bound
    measure = MSE_MEASURE if bound.startswith(MSE_MEASURE) else bound
    if as_error:
        value = number("tolerable_error", label or "Tolerable average error of the snooper (data units)", key,
                       shown, help="maximum tolerable risk R_max = 1 / error² (the paper: $5K); shared by the "
                                   "maps of this data column", **kwargs)
        max_risk = max_risk_of_error(float(value))
    else:
        value = number(entry, label or "R_max", key, shown, format="%.4g",
                       help=f"maximum tolerable risk, in the units of {measure}; shared by the maps of this "
                            "measure" + (" on this data column" if measure == MSE_MEASURE else ""), **kwargs)
        max_risk = float(value)
    synced[key], synced[f"{key} bound"] = value, bound
    if not kwargs.get("disabled"):
        set_bound(bound, max_risk)
    st.caption(describe(max_risk, bound))
    return max_risk
