"""The Tables page's sensitivity rules: a rule applied to each cell of a magnitude table.

A thin layer over :class:`rumap.specs.tables.RuleSpec`: the contributions
(the example or a file), the rule and its parameters.
"""

from __future__ import annotations

import streamlit as st

from dashboard.table_protection import cell_number
from dashboard.table_uploads import Upload, upload_block
from dashboard.widgets import number, reproduce, selectbox, slider
from rumap.specs.tables import RuleSpec
from rumap.tables.rules import RULES


def rule_block(upload: Upload | None) -> RuleSpec:
    """The contributions' columns, the rule and its parameters.

    Parameters
    ----------
    upload : Upload or None
        The contributions file, if one is given.

    Returns
    -------
    RuleSpec
    """
    cell_col, value_col = "cell", "value"
    if upload is not None:
        columns = list(upload.frame.columns)
        left, right = st.columns(2)
        with left:
            cell_col = selectbox("cell column", columns, "rules_cell_column",
                                 "cell" if "cell" in columns else columns[0])
        with right:
            value_col = selectbox("value column", columns, "rules_value_column",
                                  "value" if "value" in columns else columns[min(1, len(columns) - 1)])
    rules = list(RULES)
    rule = selectbox("rule", rules, "rule", rules[1], help="; ".join(f"{r}: {spec.description}"
                                                                   for r, spec in RULES.items()))
    params: dict[str, float] = {}
    cols = st.columns(2)
    with cols[0]:
        if rule == "threshold":
            params["threshold"] = number("threshold", "threshold (least contributors)", "threshold", 3)
        elif rule == "dominance":
            params["n"] = number("dominance_n", "n (largest contributions)", "dominance_n", 1)
        else:
            params["p"] = slider("rule_percent", "p (%)", "p_percent", 10.0)
    with cols[1]:
        if rule == "dominance":
            params["k"] = slider("dominance_k", "k (fraction of the total)", "dominance_k", 0.6)
        elif rule == "pq":
            params["q"] = slider("rule_percent", "q (%)", "q_percent", 50.0)
    return RuleSpec(rule, params, None if upload is None else upload.name, cell_col, value_col)


def rules_section() -> None:
    """A priori: a sensitivity rule applied to each cell of a magnitude table."""
    st.subheader("A priori: sensitivity rules, cell by cell")
    st.caption("One row per respondent: the cell it falls in and its contribution (columns `cell` and `value` "
               "by default). The example holds Example 1's cells A = (59, 40, 1) and B = (61, 20, 19).")
    upload = upload_block("contributions file", "rules_upload", "one row per respondent")
    spec = rule_block(upload)
    result = spec.run(None if upload is None else upload.frame)
    sensitive = result.sensitive_cells
    st.markdown(f"**{len(sensitive)} of {len(result.cells)} cells sensitive**"
                + (f": {', '.join(sensitive)}" if sensitive else ""))
    frame = result.to_frame()
    numbers = list(frame.select_dtypes("float").columns)
    st.dataframe(frame.style.apply(
        lambda row: ["background-color: #fde0dd" if row["sensitive"] else "" for _ in row], axis=1)
        .format(cell_number, subset=numbers), hide_index=True, width="stretch")
    reproduce(spec, what="these cells", key="tables_rules")
