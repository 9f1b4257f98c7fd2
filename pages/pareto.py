"""Pareto: across the kept maps, the (U, R) points no other point beats."""

from __future__ import annotations

import math

import streamlit as st

from dashboard import state
from dashboard.decisions import best_choice, map_decisions, scaled_utility, session_bound, unprotected
from dashboard.markdown import plain
from dashboard.provenance import show_kept_sources
from dashboard.risk_bound import describe, spec_key
from dashboard.selection import curves_on_common_measures
from dashboard.widgets import errors_shown, plot
from rumap.maps.pareto import map_points, pareto_frontier
from rumap.present.figures import pareto_figure
from rumap.present.numbers import format_number
from rumap.present.plotting import PARAMETER_SYMBOLS
from rumap.present.report import csv_text

st.title("Pareto frontier")
st.caption("A point beats another if it has at least the utility and at most the risk. The frontier holds the "
           "points no other point beats: the only settings worth considering, whatever the risk bound; the dashed "
           "line is the bound and the star the recommended point.")
kept = state.analyses()
if not kept:
    st.info("No map kept yet: keep maps on the Analytic or Empirical page, or load an example on the Home page.")
    st.stop()

with errors_shown():
    maps, names, owners = curves_on_common_measures(kept, "pareto")
    show_kept_sources(list({id(a): a for a in owners}.values()))
    cols = st.columns(2)
    log_x = cols[0].checkbox("log utility axis", value=False, key="pareto_log_x")
    log_y = cols[1].checkbox("log risk axis", value=True, key="pareto_log_y")
    points = map_points(maps, names).to_frame()
    frontier = pareto_frontier(maps, names)
    keys = [spec_key(a.spec, m.risk_label) for a, m in zip(owners, maps, strict=True)]
    bound = session_bound(keys[0], owners, keys) if len(set(keys)) == 1 else None
    choice, missing = None, []
    if bound is not None:  # Compare's bound and recommendation: the one each map's page gives on its own measures
        decisions = map_decisions(owners, maps, [bound] * len(maps),
                                  st.session_state.get(state.STORE, {}).get("compare_decision", "upper"))
        utilities = [scaled_utility(d.chosen, maps[d.curve], "as computed") if d.chosen.feasible else math.nan
                     for d in decisions]
        choice = best_choice(decisions, utilities, maps, names)
        missing = [unprotected(d, maps) for d in decisions if not d.chosen.feasible]
    plot(pareto_figure(points, frontier, log_x=log_x, log_y=log_y, risk_label=maps[0].risk_label,
                       utility_label=maps[0].utility_label, max_risk=bound, choice=choice), key="pareto_map")
    if bound is None:
        st.caption("No maximum tolerable risk is drawn: " + ("the maps' risks are in different units."
                   if len(set(keys)) > 1 else "none is set for this measure (set it on Compare)."))
    else:
        st.caption(f"Dashed line: {plain(describe(bound, keys[0]))}, the bound Compare judges these maps by.")
        if choice.reachable:
            symbol = PARAMETER_SYMBOLS.get(choice.parameter, choice.parameter)
            st.caption(f"Star: the recommended point, {plain(choice.map)} with {symbol} = "
                       f"{format_number(choice.value)}, the most utility at or below the bound (as on Compare).")
        if missing:
            st.warning(plain("; ".join(missing) + "."))
    st.subheader(f"{len(frontier)} frontier point(s) of {len(points)}")
    st.dataframe(frontier, width="stretch", hide_index=True)
    st.download_button("Frontier as CSV", csv_text(frontier), file_name="pareto_frontier.csv",
                       mime="text/csv", on_click="ignore")
