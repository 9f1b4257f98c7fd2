"""Compare: overlay kept maps on common R and U measures; the most utility under a risk bound."""

from __future__ import annotations

import numpy as np
import streamlit as st

from dashboard import state
from dashboard.markdown import plain
from dashboard.provenance import show_kept_sources
from dashboard.risk_bound import max_risk_input
from dashboard.selection import curves_on_common_measures
from dashboard.widgets import errors_shown, number, plot, remembered, table
from rumap.maps.common import COMMON_RISK_LABEL
from rumap.maps.pareto import best_under_risk
from rumap.present.figures import UTILITY_SCALES, comparison_figure, utility_on_scale
from rumap.present.numbers import format_number
from rumap.present.plotting import PARAMETER_SYMBOLS

st.title("Compare kept maps")
kept = state.analyses()
if not kept:
    st.info("No map kept yet: draw a map on the Analytic or Empirical page and press “Keep this map”, "
            "or load a worked example on the Home page.")
    st.stop()

with errors_shown():
    maps, names, owners = curves_on_common_measures(kept, "compare")
    show_kept_sources(list({id(a): a for a in owners}.values()))
    bounds = [a.max_risk for a in owners if a.max_risk is not None]
    cols = st.columns(3)
    with cols[0]:
        if all("1 / snooper's MSE" in m.risk_label for m in maps):  # the session's R_max
            max_risk = max_risk_input("compare_max_risk", label="Maximum tolerable risk")
        elif all(m.risk_label == COMMON_RISK_LABEL for m in maps):  # a share of the records, whatever the method
            max_risk = number("max_risk", "Tolerable share of records re-identified", "compare_max_share", 0.05,
                              high=1.0, format="%.4g")
        else:
            max_risk = number("max_risk", "Maximum tolerable risk", "compare_max_risk",
                              bounds[0] if bounds else 5.0)
    scale = remembered(st.radio, "Utility", "compare_utility_scale", "as computed", options=list(UTILITY_SCALES),
                       horizontal=True, help="efficiency or a normalised utility puts curves whose utilities differ "
                                             "by orders of magnitude on one scale")
    maps = utility_on_scale(maps, scale)
    log_x = cols[1].checkbox("log utility axis", value=False, key="compare_log_x")
    log_y = cols[2].checkbox("log risk axis", value=True, key="compare_log_y")
    choice = best_under_risk(maps, max_risk, labels=names)
    plot(comparison_figure(maps, names, log_x=log_x, log_y=log_y, max_risk=max_risk, choice=choice),
         key="compare_map")
    if choice.reachable:
        symbol = PARAMETER_SYMBOLS.get(choice.parameter, choice.parameter)
        st.success(f"For risk at most {max_risk:.4g}, the most utility ({choice.utility:.4g}) comes from "
                   f"**{plain(choice.map)}** with {symbol} = {choice.value:.4g} (risk {choice.risk:.4g}).")
    else:
        st.warning(f"No compared map reaches risk {max_risk:.4g} on its grid.")
    error = (f" (a tolerable average error of {format_number(1 / max_risk ** 0.5)} in data units)"
             if all("1 / snooper's MSE" in m.risk_label for m in maps) else "")
    st.markdown(f"**Where each curve reaches the threshold R ≤ {format_number(max_risk)}**{error}")
    crossings = []
    for m, name in zip(maps, names, strict=True):
        c = best_under_risk([m], max_risk)
        symbol = PARAMETER_SYMBOLS.get(m.parameter, m.parameter)
        if c.reachable:
            crossings.append(f"- {plain(name)}: reached at {symbol} = {format_number(c.value)} "
                             f"(utility {format_number(c.utility)}, risk {format_number(c.risk)})")
        else:
            crossings.append(f"- {plain(name)}: no {symbol} on the grid reaches it (lowest risk "
                             f"{format_number(float(np.nanmin(m.risk)))})")
    st.markdown("\n".join(crossings))
    rows = []
    for m, name in zip(maps, names, strict=True):
        c = best_under_risk([m], max_risk)
        rows.append({"map": name, "parameter": m.parameter, "best value": c.value if c.reachable else None,
                     "utility": c.utility if c.reachable else None, "risk": c.risk if c.reachable else None,
                     "reaches the bound": c.reachable})
    table(rows, width="stretch", hide_index=True)

with st.expander("Remove kept maps"):
    for a in list(kept):
        if st.button(f"Remove “{plain(a.name)}”", key=f"remove_{a.name}"):
            kept.remove(a)
            st.rerun()
