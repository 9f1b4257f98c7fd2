"""The Tables page's table redesign: rows merged, and the risk of their original cells.

A thin layer over :class:`rumap.specs.tables.RedesignSpec`.
"""

from __future__ import annotations

import streamlit as st

from dashboard.table_uploads import risk_text
from dashboard.widgets import multiselect, reproduce
from rumap.specs.tables import RedesignSpec
from rumap.tables.published import paper_table1_completed

#: The rows the Redesign tab merges at first: the paper's Table 2.
MERGED_ROWS = ["5", "6"]


def redesign_section() -> None:
    """Table redesign: merged rows and the risk of the original cells."""
    st.subheader("Table redesign: merged rows")
    st.caption("The example is Table 1 with one feasible completion of its suppressed cells; merging rows 5 "
               "and 6 gives the paper's Table 2.")
    parts = multiselect("rows to merge", list(paper_table1_completed().row_labels), "merge_rows", MERGED_ROWS)
    if len(parts) < 2:
        st.info("Choose at least two rows.")
        return
    spec = RedesignSpec(tuple(parts))
    merged = spec.merged()
    st.dataframe(merged.to_frame(), width="stretch")
    bounds = spec.run(merged)
    st.metric("largest risk of an original cell", risk_text(bounds.max_risk))
    st.dataframe(bounds.to_frame(), hide_index=True, width="stretch")
    reproduce(spec, what="these bounds", key="tables_redesign")
