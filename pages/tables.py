"""Tables: sensitivity rules, the dominance rule's flaw, a posteriori risk of protected tables, protection.

A thin layer over rumap.tables (rules, dominance, bounds, insider, redesign, linked, rounding); runs
on its own (``python -m streamlit run pages/tables.py`` from the project's root) or as a page of ``app.py``.
Each tab reads its settings with a small function that returns plain values, shows the result,
and offers the Python (and, where there is one, the ``python -m rumap table`` command) that reproduces it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd
import streamlit as st

from dashboard import state
from dashboard.code import command, script
from dashboard.files import kept_file
from dashboard.markdown import plain
from dashboard.pagemaps import PageMapSpec, page_analysis
from dashboard.table_hierarchies import hierarchical_section
from dashboard.table_protection import microdata_section
from dashboard.widgets import (
    errors_shown,
    keep_controls,
    multiselect,
    number,
    plot,
    remembered,
    reproduce_code,
    selectbox,
    slider,
)
from rumap.io.tables import contributions_from_frame, published_table_from_frame
from rumap.maps.tables import default_rounding_base
from rumap.present.plotting import ru_map_figure
from rumap.present.table_figures import bounds_figure, constructions_figure, theorem_figure
from rumap.tables.bounds import suppression_bounds
from rumap.tables.dominance import dominance_flaw, example1, theorem1_scan
from rumap.tables.insider import insider_bounds
from rumap.tables.linked import linked_bounds
from rumap.tables.published import PublishedTable, paper_table1, paper_table1_completed
from rumap.tables.redesign import merge_categories, redesign_bounds
from rumap.tables.rounding import rounding_ru_map
from rumap.tables.rules import RULES, apply_rule, example_contributions

TABLE_TYPES = ["csv", "txt", "tsv", "xlsx", "parquet"]
#: Why an example built into rumap has no command line.
BUILT_IN = "the command line reads a file; this example is built into rumap"
#: Rounding bases of the R-U map: this many values from 2 to the largest base, evenly spaced on a log scale.
ROUNDING_POINTS = 25
#: The rows the Redesign tab merges at first: the paper's Table 2.
MERGED_ROWS = ["5", "6"]


@dataclass(frozen=True)
class Upload:
    """A file given on a tab: its table and its name (the reproduce panel reads it by that name)."""

    frame: pd.DataFrame
    name: str


def upload_block(label: str, key: str, help_text: str) -> Upload | None:
    """A file uploader whose file the session keeps; ``None`` without one (the tab then uses its example).

    Parameters
    ----------
    label, key, help_text : str
        The uploader's label, key and help.

    Returns
    -------
    Upload or None
    """
    file = kept_file(label, key, type=TABLE_TYPES, help=help_text)  # kept in memory across pages
    return None if file is None else Upload(file.frame, file.name)


def _fmt(value: float) -> str:
    return "∞" if not np.isfinite(value) else f"{value:.4g}"


def _table_lines(upload: Upload | None, example: str) -> tuple[dict[str, list[str]], list[str]]:
    """Imports and the line that build the tab's table: the example, or the uploaded file."""
    if upload is None:
        return {"rumap.tables.published": [example]}, [f"table = {example}()"]
    return {"rumap.io.tables": ["read_published_table"]}, [f"table = read_published_table({upload.name!r})"]


# --------------------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class RuleSettings:
    """A sensitivity rule, its parameters and the contributions' columns."""

    rule: str
    params: dict
    cell_column: str = "cell"
    value_column: str = "value"


def rule_block(upload: Upload | None) -> RuleSettings:
    """The contributions' columns, the rule and its parameters.

    Parameters
    ----------
    upload : Upload or None
        The contributions file, if one is given.

    Returns
    -------
    RuleSettings
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
            params["p"] = slider("p_percent", "p (%)", "p_percent", 10.0, 1.0, 100.0, 1.0)
    with cols[1]:
        if rule == "dominance":
            params["k"] = slider("dominance_k", "k (fraction of the total)", "dominance_k", 0.6, 0.05, 1.0, 0.01)
        elif rule == "pq":
            params["q"] = slider("q_percent", "q (%)", "q_percent", 50.0, 1.0, 100.0, 1.0)
    return RuleSettings(rule, params, cell_col, value_col)


def rules_code(upload: Upload | None, s: RuleSettings) -> tuple[str, str | None]:
    """The Python and (for a file) the command line of the sensitivity rule.

    Parameters
    ----------
    upload : Upload or None
    s : RuleSettings

    Returns
    -------
    python : str
    command : str or None
    """
    arguments = "".join(f", {name}={value!r}" for name, value in s.params.items())
    if upload is None:
        imports = {"rumap.tables.rules": ["apply_rule", "example_contributions"]}
        first = "contributions = example_contributions()"
    else:
        imports = {"rumap.tables.rules": ["apply_rule"], "rumap.io.tables": ["read_contributions"]}
        first = f"contributions = read_contributions({upload.name!r}, {s.cell_column!r}, {s.value_column!r})"
    python = script(imports,
                    [first, f"result = apply_rule(contributions, rule={s.rule!r}{arguments})",
                     "print(result.to_frame())"])
    if upload is None:
        return python, None
    flags = [part for name, value in s.params.items() for part in (f"--{name}", value)]
    return python, command("table", "rules", "--contributions", upload.name, "--rule", s.rule, *flags,
                           "--cell-column", s.cell_column, "--value-column", s.value_column)


def rules_section() -> None:
    """A priori: a sensitivity rule applied to each cell of a magnitude table."""
    st.subheader("A priori: sensitivity rules, cell by cell")
    st.caption("One row per respondent: the cell it falls in and its contribution (columns `cell` and `value` "
               "by default). The example holds Example 1's cells A = (59, 40, 1) and B = (61, 20, 19).")
    upload = upload_block("contributions file", "rules_upload", "one row per respondent")
    s = rule_block(upload)
    contributions = example_contributions() if upload is None else \
        contributions_from_frame(upload.frame, s.cell_column, s.value_column, source=upload.name)
    result = apply_rule(contributions, rule=s.rule, **s.params)
    sensitive = result.sensitive_cells
    st.markdown(f"**{len(sensitive)} of {len(result.cells)} cells sensitive**"
                + (f": {', '.join(sensitive)}" if sensitive else ""))
    st.dataframe(result.to_frame().style.apply(
        lambda row: ["background-color: #fde0dd" if row["sensitive"] else "" for _ in row], axis=1),
        hide_index=True, width="stretch")
    python, cli = rules_code(upload, s)
    reproduce_code(python, cli, what="these cells", no_command=BUILT_IN, key="tables_rules")


# --------------------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class FlawSettings:
    """Example 1's k, and n, k, N of Lemma 1, Constructions 1-2 and Theorem 1."""

    example_k: float
    n: int
    k: float
    cells: int


def example1_block() -> float:
    """Example 1's k.

    Returns
    -------
    float
    """
    return float(slider("dominance_k", "k for Example 1", "example1_k", 0.6, 0.41, 0.99, 0.01))


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
        n = slider("dominance_n", "n", "flaw_n", 1, 1, 10, 1)
    with c3:
        cells = slider("contributions_n", "N (contributions per cell)", "flaw_cells", 3, 2, 60, 1)
    with c2:
        k = slider("dominance_k", "k", "flaw_k", 0.369, 0.05, 0.99, 0.001, format="%.3f")
    return int(n), float(k), int(cells)


def flaw_code(s: FlawSettings) -> tuple[str, str]:
    """The Python and the command line of the flaw's constructions.

    Parameters
    ----------
    s : FlawSettings

    Returns
    -------
    python, command : str
    """
    python = script({"numpy as np": [], "rumap.tables.dominance": ["dominance_flaw", "example1", "theorem1_scan"]},
                    [f"print(example1({s.example_k!r}).to_frame())",
                     f"flaw = dominance_flaw({s.n}, {s.k!r}, {s.cells})",
                     "print(flaw.r, flaw.nonsensitive_tail, flaw.sensitive_tail, flaw.theorem_holds)",
                     f"scan = theorem1_scan({s.n}, {s.k!r}, np.arange({s.n + 1}, {max(s.cells, 40) + 1}))"])
    return python, command("table", "dominance-flaw", "--n", s.n, "--k", s.k, "--cells", s.cells)


def flaw_section() -> None:
    """The dominance rule's flaw: Example 1, Lemma 1, Constructions 1-2 and Theorem 1."""
    st.subheader("The dominance rule's flaw (Domingo-Ferrer & Torra 2004)")
    st.markdown("**Example 1** (Robertson & Ethier): with n = 1, the second largest contributor subtracts its "
                "own value from the total to bound the largest.")
    k1 = example1_block()
    ex = example1(k1)
    st.dataframe(ex.to_frame()[["contributions", "sensitive", "largest", "upper_bound", "gap", "relative_gap",
                                "reason"]], hide_index=True, width="stretch")
    if ex.flawed:
        st.warning(f"The cell the rule lets through (59, 40, 1) is bounded within {ex.nonsensitive_cell.gap:g}; "
                   f"the sensitive one within {ex.sensitive_cell.gap:g}.")
    else:
        st.info("With this k the rule does not pass one cell and flag the other; move k back between 0.59 and 0.61.")

    st.markdown("**Lemma 1, Constructions 1-2 and Theorem 1** for any n, k and number of contributions N.")
    s = FlawSettings(k1, *flaw_block())
    flaw = dominance_flaw(s.n, s.k, s.cells)
    m1, m2, m3 = st.columns(3)
    m1.metric("r (Lemma 1)", f"{flaw.r:.6f}")
    m2.metric("tail of X_ns (not sensitive)", f"{flaw.nonsensitive_tail:.6f}")
    m3.metric("tail of X_s (sensitive)", f"{flaw.sensitive_tail:.6f}")
    plot(constructions_figure(flaw), key="tables_constructions")
    if flaw.theorem_holds:
        st.warning(f"Theorem 1 holds for N = {s.cells}: the coalition of the {s.n} second largest contributors "
                   f"bounds the largest within {flaw.nonsensitive_tail:.4g} of the total in the cell the rule calls "
                   f"safe, and only within {flaw.sensitive_tail:.4g} in the cell it calls sensitive.")
    else:
        st.info(f"For N = {s.cells} the sensitive cell still gives the closer bound; Theorem 1 needs more "
                "contributions.")
    scan = theorem1_scan(s.n, s.k, np.arange(s.n + 1, max(s.cells, 40) + 1))
    plot(theorem_figure(scan), key="tables_theorem")
    reproduce_code(*flaw_code(s), what="these constructions", key="tables_flaw")


# --------------------------------------------------------------------------------------------------------------
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


def suppression_code(upload: Upload | None, insider: tuple[str, str, float] | None) -> tuple[str, str | None]:
    """The Python and (for a file) the command line of the suppressed cells' bounds.

    Parameters
    ----------
    upload : Upload or None
    insider : (row, column, own) or None

    Returns
    -------
    python : str
    command : str or None
    """
    imports, lines = _table_lines(upload, "paper_table1")
    imports["rumap.tables.bounds"] = ["suppression_bounds"]
    lines += ["bounds = suppression_bounds(table)", "print(bounds.to_frame())"]
    flags: list[object] = []
    if insider is not None:
        row, column, own = insider
        imports["rumap.tables.insider"] = ["insider_bounds"]
        lines += [f"insider = insider_bounds(table, {row!r}, {column!r}, {own!r})", "print(insider.to_frame())"]
        flags = ["--insider-row", row, "--insider-column", column, "--contribution", own]
    cli = None if upload is None else command("table", "bounds", "--table", upload.name, *flags)
    return script(imports, lines), cli


def suppression_section() -> None:
    """A posteriori: LP bounds and risk of the suppressed cells, for an outsider and an insider."""
    st.subheader("A posteriori: bounds and risk of suppressed cells")
    st.caption("First column row labels, last row and last column totals, suppressed cells written `x`. "
               "Each suppressed cell's range comes from one LP minimization and one maximization (HiGHS); "
               "m = max - min + 1 and DR = 1/log2 m. The example is Table 1 of Domingo-Ferrer, Oganian & Torra.")
    upload = upload_block("published table", "bounds_upload", "a 2-D table with totals, x = suppressed")
    table = paper_table1() if upload is None else published_table_from_frame(upload.frame, source=upload.name)
    with st.expander("published table", expanded=upload is None):
        st.dataframe(table.to_text_frame(), width="stretch")
    bounds = suppression_bounds(table)
    if not bounds.labels:
        st.info("The table has no suppressed cell.")
        return
    a, b = st.columns(2)
    a.metric("largest cell risk", _fmt(bounds.max_risk))
    b.metric("mean cell risk", _fmt(bounds.mean_risk))
    st.dataframe(bounds.to_frame(), hide_index=True, width="stretch")
    plot(bounds_figure(bounds), key="tables_bounds")

    st.markdown("**The insider** knows its own contribution to a suppressed cell.")
    tops = {(r, c): float(bounds.cell(r, c)["max"]) for r, c in bounds.labels}
    bounded = [cell for cell in bounds.labels if np.isfinite(tops[cell])]
    insider = insider_block(bounded, tops) if bounded else None
    if insider is None:
        st.info("No suppressed cell has an upper bound.")
    else:
        row, column, own = insider
        result = insider_bounds(table, row, column, own)
        v = result.view
        st.markdown(f"The other contributors to cell {plain(row)} / {plain(column)} total **{v.insider_min:g} .. "
                    f"{v.insider_max:g}** for the insider (DR = {_fmt(v.insider_risk)}), **0 .. {v.outsider_max:g}** "
                    f"for an outsider (DR = {_fmt(v.outsider_risk)}).")
        st.dataframe(result.to_frame(), hide_index=True, width="stretch")
    python, cli = suppression_code(upload, insider)
    reproduce_code(python, cli, what="these bounds", no_command=BUILT_IN, key="tables_suppression")


# --------------------------------------------------------------------------------------------------------------
def redesign_code(parts: list[str]) -> str:
    """The Python of the redesigned table's bounds.

    Parameters
    ----------
    parts : list of str
        The merged rows.

    Returns
    -------
    str
    """
    return script({"rumap.tables.published": ["paper_table1_completed"],
                   "rumap.tables.redesign": ["merge_categories", "redesign_bounds"]},
                  ["table = paper_table1_completed()", f"parts = {parts!r}",
                   "merged = merge_categories(table, parts)",
                   "label = next(r for r in merged.row_labels if r not in table.row_labels)",
                   "bounds = redesign_bounds(merged, label, parts)", "print(bounds.to_frame())"])


def redesign_section() -> None:
    """Table redesign: merged rows and the risk of the original cells."""
    st.subheader("Table redesign: merged rows")
    st.caption("The example is Table 1 with one feasible completion of its suppressed cells; merging rows 5 "
               "and 6 gives the paper's Table 2.")
    table = paper_table1_completed()
    parts = multiselect("rows to merge", list(table.row_labels), "merge_rows", MERGED_ROWS)
    if len(parts) < 2:
        st.info("Choose at least two rows.")
        return
    merged = merge_categories(table, parts)
    label = next(r for r in merged.row_labels if r not in table.row_labels)
    st.dataframe(merged.to_frame(), width="stretch")
    bounds = redesign_bounds(merged, label, parts)
    st.metric("largest risk of an original cell", _fmt(bounds.max_risk))
    st.dataframe(bounds.to_frame(), hide_index=True, width="stretch")
    reproduce_code(redesign_code(list(parts)), what="these bounds", no_command=BUILT_IN, key="tables_redesign")


# --------------------------------------------------------------------------------------------------------------
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
        largest = slider("rounding_base", "largest rounding base b", "rounding_max_base", scale, 2.0, top, 1.0,
                         format="%d", help=f"{scale:g} by default: ten times a base on the table's own scale")
    with c2:
        log_axes = remembered(st.checkbox, "logarithmic axes", "rounding_log", True)
    return float(largest), bool(log_axes)


def rounding_code(upload: Upload | None, largest: float) -> str:
    """The Python of the rounding map.

    Parameters
    ----------
    upload : Upload or None
    largest : float
        The largest rounding base.

    Returns
    -------
    str
    """
    imports, lines = _table_lines(upload, "paper_table1_completed")
    imports["rumap.tables.rounding"] = ["rounding_ru_map"]
    imports["numpy as np"] = []
    return script(imports, [*lines,
                            f"bases = np.unique(np.round(np.geomspace(2, {largest!r}, {ROUNDING_POINTS})))"
                            ".astype(float)",
                            'maps = [rounding_ru_map(table, bases, statistic=s) for s in ("max", "mean")]',
                            "for m in maps:", "    print(m.to_frame())"])


def rounding_section() -> None:
    """The R-U map of rounding a table, which can be kept for Compare, Pareto and Report."""
    st.subheader("R-U map of rounding")
    st.caption("Cells rounded to a multiple of b (no margins): each original lies in [(n - 1/2) b, (n + 1/2) b), "
               "so DR = 1/log2 b for integer cells (fewer values for cells rounded to 0). "
               "U = 1 / mean squared error of the rounded table.")
    upload = upload_block("table to round", "rounding_upload", "a 2-D table with totals, no x")
    table = paper_table1_completed() if upload is None else \
        published_table_from_frame(upload.frame, source=upload.name)
    largest, log_axes = rounding_block(table)
    bases = np.unique(np.round(np.geomspace(2, largest, ROUNDING_POINTS))).astype(float)
    maps = [rounding_ru_map(table, bases, statistic=s) for s in ("max", "mean")]
    plot(ru_map_figure(maps, log_x=log_axes, log_y=log_axes), key="tables_rounding")
    out = pd.DataFrame({"b": bases, "largest risk": maps[0].risk, "mean risk": maps[1].risk,
                        "U = 1/MSE": maps[0].utility})
    st.dataframe(out, hide_index=True, width="stretch")
    python = rounding_code(upload, largest)
    reproduce_code(python, no_command="the command line has no rounding map", key="tables_rounding")
    name = "Table 1 completed" if upload is None else upload.name
    spec = PageMapSpec(page="tables", label=f"rounding, {name}: b up to {largest:g}",
                       settings={"table": name, "bases": bases}, python=python, log_x=log_axes, log_y=log_axes)
    keep_controls(page_analysis(maps, spec), "tables_rounding")


# --------------------------------------------------------------------------------------------------------------
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


def linked_code(seed: int, released: list[str]) -> str:
    """The Python of the linked tables' bounds.

    Parameters
    ----------
    seed : int
    released : list of str

    Returns
    -------
    str
    """
    return script({"numpy as np": [], "rumap.tables.linked": ["linked_bounds"]},
                  [f"cube = np.random.default_rng({seed}).integers(0, 40, (3, 3, 2)).astype(float)",
                   f"bounds = linked_bounds(cube, {released!r})", "print(bounds.to_frame())"])


def linked_section() -> None:
    """Linked tables: the risk of a 3-D table's cells when some of its 2-D projections are released."""
    st.subheader("Linked tables: a 3-D table released as 2-D projections")
    st.caption("The cube z[a, s, r] (activity x size x region) is not released; some of its projections AS, AR, "
               "SR are. Each cell's range comes from two LPs under the released sums.")
    seed, released = linked_block()
    cube = np.random.default_rng(seed).integers(0, 40, (3, 3, 2)).astype(float)
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
    reproduce_code(linked_code(seed, released), what="these bounds", no_command=BUILT_IN,
                   key="tables_linked")


SECTIONS = {
    "Sensitivity rules": rules_section,
    "Dominance flaw": flaw_section,
    "Suppressed cells": suppression_section,
    "Redesign": redesign_section,
    "Linked tables": linked_section,
    "Rounding R-U map": rounding_section,
    "From microdata": microdata_section,
    "Hierarchical tables": hierarchical_section,
}

st.title("Tables: sensitivity rules and a posteriori disclosure risk")
st.caption("Domingo-Ferrer & Torra (2004), Section 3; Domingo-Ferrer, Oganian & Torra, Sections 2-4.")
for tab, section in zip(st.tabs(list(SECTIONS)), SECTIONS.values(), strict=True):
    with tab, errors_shown():
        section()
