"""The Tables page's linked tables: a 3-D table's cells when some of its 2-D projections are released.

A thin layer over :class:`rumap.specs.tables.LinkedTablesSpec`.
"""

from __future__ import annotations

import streamlit as st

from dashboard.table_uploads import risk_text
from dashboard.widgets import multiselect, number, reproduce
from rumap.specs.tables import LinkedTablesSpec


def linked_block() -> tuple[int, list[str]]:
    """The example cube's seed and the released projections.

    Returns
    -------
    seed : int
    released : list of str
    """
    c1, c2 = st.columns(2)
    with c1:
        seed = number("seed", "seed of the example cube", "linked_seed", 1)
    with c2:
        released = multiselect("released projections", ["AS", "AR", "SR"], "linked_released", ["AS", "AR"])
    return int(seed), list(released)


def linked_section() -> None:
    """Linked tables: the risk of a 3-D table's cells when some of its 2-D projections are released."""
    st.subheader("Linked tables: a 3-D table released as 2-D projections")
    st.caption("The cube z[a, s, r] (activity x size x region) is not released; some of its projections AS, AR, "
               "SR are. Each cell's range comes from two LPs under the released sums.")
    seed, released = linked_block()
    if not released:
        st.info("Release at least one projection.")
        return
    spec = LinkedTablesSpec(seed, tuple(released))
    bounds = spec.run()
    m1, m2 = st.columns(2)
    m1.metric("largest cell risk", risk_text(bounds.max_risk), help="1/log2 m of the most closely bounded cell")
    m2.metric("mean cell risk", risk_text(bounds.mean_risk))
    frame = bounds.to_frame()
    frame.insert(3, "true value", spec.cube().reshape(-1))
    st.dataframe(frame, hide_index=True, width="stretch")
    reproduce(spec, what="these bounds", key="tables_linked")
