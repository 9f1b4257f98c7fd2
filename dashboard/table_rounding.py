"""The Tables page's R-U map of rounding a table, which can be kept for Compare, Pareto and Report.

A thin layer over :class:`rumap.specs.tables.RoundingMapSpec`.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import streamlit as st

from dashboard import state
from dashboard.pagemaps import PageMapSpec, page_analysis
from dashboard.table_uploads import upload_block
from dashboard.widgets import keep_controls, plot, remembered, reproduce, slider
from rumap.maps.tables import default_rounding_base
from rumap.present.plotting import ru_map_figure
from rumap.present.reproduce import to_python
from rumap.specs.tables import RoundingMapSpec
from rumap.tables.published import PublishedTable

#: Rounding bases of the R-U map: this many values from 2 to the largest base, evenly spaced on a log scale.
ROUNDING_POINTS = 25


def rounding_block(table: PublishedTable) -> tuple[float, bool]:
    """The largest rounding base (from the table's scale until the user moves it) and the axes.

    Parameters
    ----------
    table : PublishedTable
        The table rounded.

    Returns
    -------
    largest : float
    log_axes : bool
    """
    largest_cell = float(np.nanmax(np.abs(table.values))) if table.values.size else 1.0
    top = float(max(1000.0, 10.0 ** math.ceil(math.log10(max(largest_cell, 1.0)))))
    scale = min(top, 10.0 * default_rounding_base(table))
    if st.session_state.get("rounding_max_base_scale") != scale:  # another table: start from its own scale
        state.set_widgets({"rounding_max_base": scale})
        st.session_state["rounding_max_base_scale"] = scale
    c1, c2 = st.columns(2)
    with c1:
        largest = slider("rounding_base", "largest rounding base b", "rounding_max_base", scale, high=top,
                         format="%d", help=f"{scale:g} by default: ten times a base on the table's own scale")
    with c2:
        log_axes = remembered(st.checkbox, "logarithmic axes", "rounding_log", True)
    return float(largest), bool(log_axes)


def rounding_section() -> None:
    """The R-U map of rounding a table, which can be kept for Compare, Pareto and Report."""
    st.subheader("R-U map of rounding")
    st.caption("Cells rounded to a multiple of b (no margins): each original lies in [(n - 1/2) b, (n + 1/2) b), "
               "so DR = 1/log2 b for integer cells (fewer values for cells rounded to 0). "
               "U = 1 / mean squared error of the rounded table.")
    upload = upload_block("table to round", "rounding_upload", "a 2-D table with totals, no x")
    data, frame = (None, None) if upload is None else (upload.name, upload.frame)
    table = RoundingMapSpec((), data).table(frame)  # the table first: its scale gives the bases
    largest, log_axes = rounding_block(table)
    bases = np.unique(np.round(np.geomspace(2, largest, ROUNDING_POINTS))).astype(float)
    spec = RoundingMapSpec(tuple(bases), data)
    maps = spec.run(table=table)
    plot(ru_map_figure(maps, log_x=log_axes, log_y=log_axes), key="tables_rounding")
    out = pd.DataFrame({"b": bases, "largest risk": maps[0].risk, "mean risk": maps[1].risk,
                        "U = 1/MSE": maps[0].utility})
    st.dataframe(out, hide_index=True, width="stretch")
    reproduce(spec, key="tables_rounding")
    name = "Table 1 completed" if upload is None else upload.name
    kept = PageMapSpec(page="tables", label=f"rounding, {name}: b up to {largest:g}",
                       settings={"table": name, "bases": bases}, python=to_python(spec), log_x=log_axes,
                       log_y=log_axes)
    keep_controls(page_analysis(maps, kept), "tables_rounding")
