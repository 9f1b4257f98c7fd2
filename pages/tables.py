"""Tables: sensitivity rules, the dominance rule's flaw, a posteriori risk of protected tables.

A thin layer over rumap.tables.rules, rumap.tables.dominance and rumap.tables.bounds; runs
on its own (``streamlit run pages/tables.py``) or as a page of ``app.py``.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import streamlit as st

from rumap.errors import InputError
from rumap.io.data import read_table_bytes
from rumap.io.tables import published_table_from_frame
from rumap.present.plotting import ru_map_figure
from rumap.present.table_figures import bounds_figure, constructions_figure, theorem_figure
from rumap.tables.bounds import suppression_bounds
from rumap.tables.dominance import dominance_flaw, example1, theorem1_scan
from rumap.tables.insider import insider_bounds
from rumap.tables.linked import linked_bounds
from rumap.tables.published import paper_table1, paper_table1_completed
from rumap.tables.redesign import merge_categories, redesign_bounds
from rumap.tables.rounding import rounding_ru_map
from rumap.tables.rules import RULES, apply_rule, contributions_from_frame, example_contributions

TABLE_TYPES = ["csv", "txt", "tsv", "xlsx", "parquet"]


def _uploaded_frame(label: str, key: str, help_text: str) -> tuple[pd.DataFrame | None, str]:
    upload = st.file_uploader(label, type=TABLE_TYPES, key=key, help=help_text)
    if upload is None:
        return None, ""
    return read_table_bytes(upload.getvalue(), upload.name), upload.name


def _fmt(value: float) -> str:
    return "∞" if not np.isfinite(value) else f"{value:.4g}"


# --------------------------------------------------------------------------------------------------------------
def rules_section() -> None:
    st.subheader("A priori: sensitivity rules, cell by cell")
    st.caption("One row per respondent: the cell it falls in and its contribution (columns `cell` and `value` "
               "by default). The example holds Example 1's cells A = (59, 40, 1) and B = (61, 20, 19).")
    frame, name = _uploaded_frame("contributions file", "rules_upload", "one row per respondent")
    if frame is None:
        contributions = example_contributions()
    else:
        columns = list(frame.columns)
        left, right = st.columns(2)
        cell_col = left.selectbox("cell column", columns, index=columns.index("cell") if "cell" in columns else 0,
                                  key="rules_cell_column")
        value_col = right.selectbox("value column", columns,
                                    index=columns.index("value") if "value" in columns else min(1, len(columns) - 1),
                                    key="rules_value_column")
        contributions = contributions_from_frame(frame, cell_col, value_col, source=name)
    rule = st.selectbox("rule", list(RULES), index=1, key="rule", help="; ".join(
        f"{r}: {spec.description}" for r, spec in RULES.items()))
    params: dict[str, float] = {}
    cols = st.columns(2)
    if rule == "threshold":
        params["threshold"] = cols[0].number_input("threshold (least contributors)", 1, 1000, 3, key="threshold")
    elif rule == "dominance":
        params["n"] = cols[0].number_input("n (largest contributions)", 1, 100, 1, key="dominance_n")
        params["k"] = cols[1].slider("k (fraction of the total)", 0.05, 1.0, 0.6, 0.01, key="dominance_k")
    else:
        params["p"] = cols[0].slider("p (%)", 1.0, 100.0, 10.0, 1.0, key="p_percent")
        if rule == "pq":
            params["q"] = cols[1].slider("q (%)", 1.0, 100.0, 50.0, 1.0, key="q_percent")
    result = apply_rule(contributions, rule=rule, **params)
    sensitive = result.sensitive_cells
    st.markdown(f"**{len(sensitive)} of {len(result.cells)} cells sensitive**"
                + (f": {', '.join(sensitive)}" if sensitive else ""))
    st.dataframe(result.to_frame().style.apply(
        lambda row: ["background-color: #fde0dd" if row["sensitive"] else "" for _ in row], axis=1),
        hide_index=True, width="stretch")


# --------------------------------------------------------------------------------------------------------------
def flaw_section() -> None:
    st.subheader("The dominance rule's flaw (Domingo-Ferrer & Torra 2004)")
    st.markdown("**Example 1** (Robertson & Ethier): with n = 1, the second largest contributor subtracts its "
                "own value from the total to bound the largest.")
    k1 = st.slider("k for Example 1", 0.41, 0.99, 0.6, 0.01, key="example1_k")
    ex = example1(k1)
    st.dataframe(ex.to_frame()[["contributions", "sensitive", "largest", "upper_bound", "gap", "relative_gap",
                                "reason"]], hide_index=True, width="stretch")
    if ex.flawed:
        st.warning(f"The cell the rule lets through (59, 40, 1) is bounded within {ex.nonsensitive_cell.gap:g}; "
                   f"the sensitive one within {ex.sensitive_cell.gap:g}.")
    else:
        st.info("With this k the rule does not pass one cell and flag the other; move k back between 0.59 and 0.61.")

    st.markdown("**Lemma 1, Constructions 1-2 and Theorem 1** for any n, k and number of contributions N.")
    c1, c2, c3 = st.columns(3)
    n = c1.slider("n", 1, 10, 1, key="flaw_n")
    cells = c3.slider("N (contributions per cell)", 2, 60, 3, key="flaw_cells")
    k = c2.slider("k", 0.05, 0.99, 0.369, 0.001, format="%.3f", key="flaw_k")
    flaw = dominance_flaw(n, k, cells)
    m1, m2, m3 = st.columns(3)
    m1.metric("r (Lemma 1)", f"{flaw.r:.6f}")
    m2.metric("tail of X_ns (not sensitive)", f"{flaw.nonsensitive_tail:.6f}")
    m3.metric("tail of X_s (sensitive)", f"{flaw.sensitive_tail:.6f}")
    st.plotly_chart(constructions_figure(flaw), width="stretch")
    if flaw.theorem_holds:
        st.warning(f"Theorem 1 holds for N = {cells}: the coalition of the {n} second largest contributors bounds "
                   f"the largest within {flaw.nonsensitive_tail:.4g} of the total in the cell the rule calls safe, "
                   f"and only within {flaw.sensitive_tail:.4g} in the cell it calls sensitive.")
    else:
        st.info(f"For N = {cells} the sensitive cell still gives the closer bound; Theorem 1 needs more "
                "contributions.")
    scan = theorem1_scan(n, k, np.arange(n + 1, max(cells, 40) + 1))
    st.plotly_chart(theorem_figure(scan), width="stretch")


# --------------------------------------------------------------------------------------------------------------
def suppression_section() -> None:
    st.subheader("A posteriori: bounds and risk of suppressed cells")
    st.caption("First column row labels, last row and last column totals, suppressed cells written `x`. "
               "Each suppressed cell's range comes from one LP minimization and one maximization (HiGHS); "
               "m = max - min + 1 and DR = 1/log2 m. The example is Table 1 of Domingo-Ferrer, Oganian & Torra.")
    frame, name = _uploaded_frame("published table", "bounds_upload", "a 2-D table with totals, x = suppressed")
    table = paper_table1() if frame is None else published_table_from_frame(frame, source=name)
    with st.expander("published table", expanded=frame is None):
        st.dataframe(table.to_text_frame(), width="stretch")
    bounds = suppression_bounds(table)
    if not bounds.labels:
        st.info("The table has no suppressed cell.")
        return
    a, b = st.columns(2)
    a.metric("largest cell risk", _fmt(bounds.max_risk))
    b.metric("mean cell risk", _fmt(bounds.mean_risk))
    st.dataframe(bounds.to_frame(), hide_index=True, width="stretch")
    st.plotly_chart(bounds_figure(bounds), width="stretch")

    st.markdown("**The insider** knows its own contribution to a suppressed cell.")
    options = [f"{r} / {c}" for r, c in bounds.labels]
    choice = st.selectbox("insider's cell (row / column)", options, key="insider_cell")
    row, column = bounds.labels[options.index(choice)]
    top = bounds.cell(row, column)["max"]
    if not np.isfinite(top):
        st.info("That cell has no upper bound.")
        return
    own = st.number_input("its own contribution", 0.0, float(top), float(np.floor(top * 0.7)), key="insider_own")
    result = insider_bounds(table, row, column, own)
    v = result.view
    st.markdown(f"The other contributors to cell {row} / {column} total **{v.insider_min:g} .. {v.insider_max:g}** "
                f"for the insider (DR = {_fmt(v.insider_risk)}), **0 .. {v.outsider_max:g}** for an outsider "
                f"(DR = {_fmt(v.outsider_risk)}).")
    st.dataframe(result.to_frame(), hide_index=True, width="stretch")


# --------------------------------------------------------------------------------------------------------------
def redesign_section() -> None:
    st.subheader("Table redesign: merged rows")
    st.caption("The example is Table 1 with one feasible completion of its suppressed cells; merging rows 5 "
               "and 6 gives the paper's Table 2.")
    table = paper_table1_completed()
    parts = st.multiselect("rows to merge", list(table.row_labels), default=["5", "6"], key="merge_rows")
    if len(parts) < 2:
        st.info("Choose at least two rows.")
        return
    merged = merge_categories(table, parts)
    label = next(r for r in merged.row_labels if r not in table.row_labels)
    st.dataframe(merged.to_frame(), width="stretch")
    bounds = redesign_bounds(merged, label, parts)
    st.metric("largest risk of an original cell", _fmt(bounds.max_risk))
    st.dataframe(bounds.to_frame(), hide_index=True, width="stretch")


# --------------------------------------------------------------------------------------------------------------
def rounding_section() -> None:
    st.subheader("R-U map of rounding")
    st.caption("Cells rounded to a multiple of b (no margins): each original lies in [(n - 1/2) b, (n + 1/2) b), "
               "so DR = 1/log2 b for integer cells (fewer values for cells rounded to 0). "
               "U = 1 / mean squared error of the rounded table.")
    frame, name = _uploaded_frame("table to round", "rounding_upload", "a 2-D table with totals, no x")
    table = paper_table1_completed() if frame is None else published_table_from_frame(frame, source=name)
    c1, c2 = st.columns(2)
    largest = c1.slider("largest rounding base b", 2, 1000, 100, key="rounding_max_base")
    log_axes = c2.checkbox("logarithmic axes", value=True, key="rounding_log")
    bases = np.unique(np.round(np.geomspace(2, largest, 25))).astype(float)
    maps = [rounding_ru_map(table, bases, statistic=s) for s in ("max", "mean")]
    st.plotly_chart(ru_map_figure(maps, log_x=log_axes, log_y=log_axes), width="stretch")
    out = pd.DataFrame({"b": bases, "largest risk": maps[0].risk, "mean risk": maps[1].risk,
                        "U = 1/MSE": maps[0].utility})
    st.dataframe(out, hide_index=True, width="stretch")


def linked_section() -> None:
    st.subheader("Linked tables: a 3-D table released as 2-D projections")
    st.caption("The cube z[a, s, r] (activity x size x region) is not released; some of its projections AS, AR, "
               "SR are. Each cell's range comes from two LPs under the released sums.")
    c1, c2 = st.columns(2)
    seed = c1.number_input("seed of the example cube", 0, 10_000, 1, key="linked_seed")
    released = c2.multiselect("released projections", ["AS", "AR", "SR"], default=["AS", "AR"], key="linked_released")
    cube = np.random.default_rng(int(seed)).integers(0, 40, (3, 3, 2)).astype(float)
    if not released:
        st.info("Release at least one projection.")
        return
    bounds = linked_bounds(cube, released)
    m1, m2 = st.columns(2)
    m1.metric("largest cell risk", _fmt(bounds.max_risk), help="1/log2 m of the most closely bounded cell")
    m2.metric("mean cell risk", _fmt(bounds.mean_risk))
    frame = bounds.to_frame()
    frame.insert(3, "true value", cube.reshape(-1))
    st.dataframe(frame, hide_index=True, width="stretch")


SECTIONS = {
    "Sensitivity rules": rules_section,
    "Dominance flaw": flaw_section,
    "Suppressed cells": suppression_section,
    "Redesign": redesign_section,
    "Linked tables": linked_section,
    "Rounding R-U map": rounding_section,
}

st.title("Tables: sensitivity rules and a posteriori disclosure risk")
st.caption("Domingo-Ferrer & Torra (2004), Section 3; Domingo-Ferrer, Oganian & Torra, Sections 2-4.")
for tab, section in zip(st.tabs(list(SECTIONS)), SECTIONS.values(), strict=True):
    with tab:
        try:
            section()
        except InputError as exc:
            st.error(str(exc))
