"""The Tables page's dominance rule's flaw: Example 1, Lemma 1, Constructions 1-2 and Theorem 1.

A thin layer over :class:`rumap.specs.tables.DominanceFlawSpec`.
"""

from __future__ import annotations

import streamlit as st

from dashboard.widgets import plot, reproduce, slider
from rumap.present.table_figures import constructions_figure, theorem_figure
from rumap.specs.tables import DominanceFlawSpec
from rumap.tables.dominance import example1


def example1_block() -> float:
    """Example 1's k.

    Returns
    -------
    float
    """
    return float(slider("dominance_k", "k for Example 1", "example1_k", 0.6))


def flaw_block() -> tuple[int, float, int]:
    """n, k and N of the constructions.

    Returns
    -------
    n : int
    k : float
    cells : int
    """
    c1, c2, c3 = st.columns(3)
    with c1:
        n = slider("dominance_n", "n", "flaw_n", 1)
    with c3:
        cells = slider("contributions_n", "N (contributions per cell)", "flaw_cells", 3)
    with c2:
        k = slider("dominance_k", "k", "flaw_k", 0.369, format="%.3f")
    return int(n), float(k), int(cells)


def flaw_section() -> None:
    """The dominance rule's flaw: Example 1, Lemma 1, Constructions 1-2 and Theorem 1."""
    st.subheader("The dominance rule's flaw (Domingo-Ferrer & Torra 2004)")
    st.markdown("**Example 1** (Robertson & Ethier): with n = 1, the second largest contributor subtracts its "
                "own value from the total to bound the largest.")
    k1 = example1_block()
    ex = example1(k1)  # DominanceFlawSpec.example, drawn before the constructions' sliders
    st.dataframe(ex.to_frame()[["contributions", "sensitive", "largest", "upper_bound", "gap", "relative_gap",
                                "reason"]], hide_index=True, width="stretch")
    if ex.flawed:
        st.warning(f"The cell the rule lets through (59, 40, 1) is bounded within {ex.nonsensitive_cell.gap:g}; "
                   f"the sensitive one within {ex.sensitive_cell.gap:g}.")
    else:
        st.info("With this k the rule does not pass one cell and flag the other; move k back between 0.59 and 0.61.")

    st.markdown("**Lemma 1, Constructions 1-2 and Theorem 1** for any n, k and number of contributions N.")
    spec = DominanceFlawSpec(k1, *flaw_block())
    flaw = spec.flaw()
    m1, m2, m3 = st.columns(3)
    m1.metric("r (Lemma 1)", f"{flaw.r:.6f}")
    m2.metric("tail of X_ns (not sensitive)", f"{flaw.nonsensitive_tail:.6f}")
    m3.metric("tail of X_s (sensitive)", f"{flaw.sensitive_tail:.6f}")
    plot(constructions_figure(flaw), key="tables_constructions")
    if flaw.theorem_holds:
        st.warning(f"Theorem 1 holds for N = {spec.cells}: the coalition of the {spec.n} second largest contributors "
                   f"bounds the largest within {flaw.nonsensitive_tail:.4g} of the total in the cell the rule calls "
                   f"safe, and only within {flaw.sensitive_tail:.4g} in the cell it calls sensitive.")
    else:
        st.info(f"For N = {spec.cells} the sensitive cell still gives the closer bound; Theorem 1 needs more "
                "contributions.")
    plot(theorem_figure(spec.scan()), key="tables_theorem")
    reproduce(spec, what="these constructions", command_caption="Command line (the constructions, as JSON):",
              key="tables_flaw")
