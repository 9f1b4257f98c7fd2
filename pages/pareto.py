"""Pareto: across the kept maps, the (U, R) points no other point beats."""

from __future__ import annotations

import streamlit as st

from dashboard import state
from dashboard.provenance import show_kept_sources
from dashboard.selection import curves_on_common_measures
from dashboard.widgets import errors_shown, plot
from rumap.maps.pareto import map_points, pareto_frontier
from rumap.present.figures import pareto_figure
from rumap.present.report import csv_text

st.title("Pareto frontier")
st.caption("A point beats another if it has at least the utility and at most the risk. The frontier holds the "
           "points no other point beats: the only settings worth considering, whatever the risk bound.")
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
    plot(pareto_figure(points, frontier, log_x=log_x, log_y=log_y, risk_label=maps[0].risk_label,
                       utility_label=maps[0].utility_label), key="pareto_map")
    st.subheader(f"{len(frontier)} frontier point(s) of {len(points)}")
    st.dataframe(frontier, width="stretch", hide_index=True)
    st.download_button("Frontier as CSV", csv_text(frontier), file_name="pareto_frontier.csv",
                       mime="text/csv", on_click="ignore")
