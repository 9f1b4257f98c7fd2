"""The Tables page's suppressed cells: LP bounds and risk of each, for an outsider and for an insider.

A thin layer over :class:`rumap.specs.tables.SuppressedCellsSpec`.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import streamlit as st

from dashboard.markdown import plain
from dashboard.table_uploads import risk_text, upload_block
from dashboard.widgets import number, plot, reproduce, selectbox
from rumap.present.table_figures import bounds_figure
from rumap.specs.tables import SuppressedCellsSpec


def insider_block(labels: list[tuple[str, str]], top_of: dict[tuple[str, str], float]) -> tuple[str, str, float]:
    """The insider's suppressed cell and its own contribution.

    Parameters
    ----------
    labels : list of (row, column)
        The suppressed cells.
    top_of : dict
        Each cell's upper bound (finite).

    Returns
    -------
    row, column : str
    own : float
    """
    options = [f"{r} / {c}" for r, c in labels]
    choice = selectbox("insider's cell (row / column)", options, "insider_cell", options[0])
    row, column = labels[options.index(choice)]
    top = top_of[(row, column)]
    own = number("own_contribution", "its own contribution", "insider_own", float(np.floor(top * 0.7)), high=top)
    return row, column, float(own)


def suppression_section() -> None:
    """A posteriori: LP bounds and risk of the suppressed cells, for an outsider and an insider."""
    st.subheader("A posteriori: bounds and risk of suppressed cells")
    st.caption("First column row labels, last row and last column totals, suppressed cells written `x`. "
               "Each suppressed cell's range comes from one LP minimization and one maximization (HiGHS); "
               "m = max - min + 1 and DR = 1/log2 m. The example is Table 1 of Domingo-Ferrer, Oganian & Torra.")
    upload = upload_block("published table", "bounds_upload", "a 2-D table with totals, x = suppressed")
    spec = SuppressedCellsSpec(None if upload is None else upload.name)
    table = spec.table(None if upload is None else upload.frame)
    with st.expander("published table", expanded=upload is None):
        st.dataframe(table.to_text_frame(), width="stretch")
    bounds = spec.bounds(table)
    if not bounds.labels:
        st.info("The table has no suppressed cell.")
        return
    a, b = st.columns(2)
    a.metric("largest cell risk", risk_text(bounds.max_risk))
    b.metric("mean cell risk", risk_text(bounds.mean_risk))
    st.dataframe(bounds.to_frame(), hide_index=True, width="stretch")
    plot(bounds_figure(bounds), key="tables_bounds")

    st.markdown("**The insider** knows its own contribution to a suppressed cell.")
    tops = {(r, c): float(bounds.cell(r, c)["max"]) for r, c in bounds.labels}
    bounded = [cell for cell in bounds.labels if np.isfinite(tops[cell])]
    if not bounded:
        st.info("No suppressed cell has an upper bound.")
    else:
        spec = replace(spec, insider=insider_block(bounded, tops))
        result = spec.insider_bounds(table)
        row, column, _own = spec.insider
        v = result.view
        st.markdown(f"The other contributors to cell {plain(row)} / {plain(column)} total **{v.insider_min:g} .. "
                    f"{v.insider_max:g}** for the insider (DR = {risk_text(v.insider_risk)}), **0 .. "
                    f"{v.outsider_max:g}** for an outsider (DR = {risk_text(v.outsider_risk)}).")
        st.dataframe(result.to_frame(), hide_index=True, width="stretch")
    reproduce(spec, what="these bounds", key="tables_suppression")
