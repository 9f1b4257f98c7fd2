"""One maximum tolerable risk for the session, shared by the Analytic, Empirical and Compare pages and the report.

R is 1 / the snooper's mean squared error, so R_max is also a tolerable average error in data units,
1 / sqrt(R_max): each page shows both. A page may ask for it as R (Analytic, Compare) or as that error
(Empirical); changing it on one page changes it on the others.
"""

from __future__ import annotations

import math

import streamlit as st

from dashboard.widgets import number
from rumap.present.numbers import format_number

MAX_RISK = "rumap_max_risk"
MAX_RISK_FOR = "rumap_max_risk_for"
SYNCED = "rumap_max_risk_synced"

#: The paper's tolerable average error of the snooper, $5K (R_max = 1 / 5000² = 4.0E-08), on incomes whose
#: standard deviation is $13.3K (Duncan et al. 2001, Table 1).
PAPER_ERROR = 5000.0
#: The paper's tolerable error as a fraction of its data's standard deviation (5000 / 13300, rounded):
#: data whose standard deviation is below $5K start from this fraction of their own.
PAPER_ERROR_IN_SD = 0.375
#: The bound before any data or example sets one: the paper's analytic maps (n = 200, σ² = 1).
FIRST_MAX_RISK = 5.0


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


def session_max_risk() -> float:
    """The session's maximum tolerable risk R_max (:data:`FIRST_MAX_RISK` until something sets it)."""
    return float(st.session_state.get(MAX_RISK, FIRST_MAX_RISK))


def set_session_max_risk(value: float) -> None:
    """Set the session's R_max (an example, a loaded map, or a page's input)."""
    st.session_state[MAX_RISK] = float(value)


def prefill_for_data(digest: str, sd: float) -> None:
    """Start R_max from a newly chosen column's tolerable error (once per data set, whichever page comes first).

    Parameters
    ----------
    digest : str
        The data's digest.
    sd : float
        The column's standard deviation.
    """
    if st.session_state.get(MAX_RISK_FOR) != digest:
        st.session_state[MAX_RISK_FOR] = digest
        set_session_max_risk(1.0 / default_error(sd) ** 2)


def tolerable_error(max_risk: float) -> float:
    """The average error in data units that R_max stands for: 1 / sqrt(R_max)."""
    return 1.0 / math.sqrt(max_risk)


def describe(max_risk: float) -> str:
    """R_max and the tolerable average error it stands for, in one phrase."""
    return (f"R_max = {format_number(max_risk)}, a tolerable average error of "
            f"{format_number(tolerable_error(max_risk))} in data units (R = 1 / error²)")


def max_risk_input(key: str, as_error: bool = False, label: str | None = None, **kwargs) -> float:
    """The session's R_max as a number input on this page (as R, or as the tolerable error); returns R_max.

    The input shows the session's value unless the user has just changed it here; what it holds then
    becomes the session's value.

    Parameters
    ----------
    key : str
        The input's key.
    as_error : bool, default False
        Ask for the tolerable average error in data units instead of R.
    label : str, optional
    **kwargs
        Passed to :func:`dashboard.widgets.number`.

    Returns
    -------
    float
        R_max.
    """
    shared = session_max_risk()
    shown = tolerable_error(shared) if as_error else shared
    synced = st.session_state.setdefault(SYNCED, {})
    if st.session_state.get(key) is None or st.session_state.get(key) == synced.get(key):
        st.session_state[key] = shown  # not changed here since last drawn: show the session's value
    if as_error:
        value = number("tolerable_error", label or "Tolerable average error of the snooper (data units)", key,
                       shown, help="maximum tolerable risk R_max = 1 / error² (the paper: $5K); shared by the "
                                   "Analytic, Empirical and Compare pages", **kwargs)
        max_risk = 1.0 / float(value) ** 2
    else:
        value = number("max_risk", label or "R_max", key, shown, format="%.4g",
                       help="maximum tolerable risk; shared by the Analytic, Empirical and Compare pages", **kwargs)
        max_risk = float(value)
    synced[key] = value
    if not kwargs.get("disabled"):
        set_session_max_risk(max_risk)
    st.caption(describe(max_risk))
    return max_risk
