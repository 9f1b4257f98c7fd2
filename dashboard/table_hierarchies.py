"""The Tables page's hierarchical tables: dimensions and their hierarchies, protected at every level, audited.

A thin layer over :func:`rumap.tables.ndtable.build_table` and
:func:`rumap.tables.table_suppression.suppress_table`: the user chooses up to
five dimensions, each flat, with a hierarchy derived from its codes' prefixes
or read from an uploaded ``.hrc`` or parent,child file (in memory), a rule
(threshold on counts; dominance, p% or pq too on a magnitude table) and a
protection level; the page shows any level of the protected table (the
children of a chosen code in the rows and in the columns, the other
dimensions at a chosen code) with suppressed cells coloured, every primary's
audit interval, and the protected table's download.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
import streamlit as st

from dashboard import state
from dashboard.files import PageFile, example_or_upload
from dashboard.markdown import plain
from dashboard.provenance import show_page_file
from dashboard.table_protection import RULE_DEFAULTS, STATUS_COLOURS, cell_number
from dashboard.widgets import multiselect, number, remembered, reproduce, selectbox
from rumap.errors import InputError
from rumap.io.data import numeric_column_names
from rumap.io.writers import table_bytes
from rumap.specs.tables import HierarchicalTableSpec, hierarchy_format, prefix_codes
from rumap.tables.hierarchy import TOTAL, Hierarchy, read_hrc, read_parent_child
from rumap.tables.ndtable import MAX_DIMS
from rumap.tables.rules import RULES
from rumap.tables.secondary import COSTS
from rumap.tables.table_suppression import TABLE_SUPPRESSION_METHODS

EXAMPLE = "persons (synthetic, categorical keys)"
#: Where a dimension's hierarchy comes from.
SOURCES = ("flat", "code prefixes", "file (.hrc or parent,child CSV)")
COUNTS = "(counts: a frequency table)"
#: The method chosen by size (suppress_table's default).
BY_SIZE = "by size (optimal, heuristic for large tables)"


@dataclass(frozen=True)
class DimensionHierarchy:
    """One dimension's hierarchy as chosen: its code lengths, or its file (name, format) and the file's hierarchy."""

    lengths: tuple[int, ...] | None = None
    file: tuple[str, str] | None = None
    read: Hierarchy | None = None
    waiting: bool = False


def _hierarchy(frame: pd.DataFrame, dim: str) -> DimensionHierarchy:
    """One dimension's hierarchy widgets: its source, the prefix lengths or the file."""
    source = selectbox(f"hierarchy of {plain(dim)}", list(SOURCES), f"nd_source_{dim}", SOURCES[0])
    if source == SOURCES[1]:
        longest = max((len(c) for c in prefix_codes(frame, dim)), default=1)
        lengths = remembered(st.text_input, f"code lengths of {plain(dim)}'s levels, top first", f"nd_lengths_{dim}",
                             f"{max(1, longest - 1)},{longest}",
                             help="e.g. 1,3,4 for A, A01, A011: each code is cut to each shorter length")
        try:
            return DimensionHierarchy(lengths=tuple(int(x) for x in lengths.split(",") if x.strip()))
        except ValueError:
            raise InputError(f"the code lengths of {dim} must be whole numbers separated by commas") from None
    if source == SOURCES[2]:
        upload = st.file_uploader(f"hierarchy file of {plain(dim)}", type=["hrc", "csv", "txt"], key=f"nd_file_{dim}")
        if upload is None:
            st.info(f"Upload {plain(dim)}'s hierarchy: a tau-Argus .hrc file or a parent,child CSV.")
            return DimensionHierarchy(waiting=True)
        text = upload.getvalue().decode("utf-8-sig")
        kind = hierarchy_format(upload.name, text)
        return DimensionHierarchy(file=(upload.name, kind), read=read_hrc(text) if kind == "hrc"
                                  else read_parent_child(text))
    return DimensionHierarchy()


def settings_block(file: PageFile) -> tuple[HierarchicalTableSpec, dict[str, Hierarchy], bool]:
    """The dimensions and their hierarchies, the value column, the rule, protection, cost and method.

    Parameters
    ----------
    file : PageFile
        The microdata.

    Returns
    -------
    spec : HierarchicalTableSpec
    read : dict of str to Hierarchy
        The hierarchies of the uploaded files, read in memory.
    waiting : bool
        Whether a dimension's hierarchy file is still to be uploaded.
    """
    columns = [str(c) for c in file.frame.columns]
    numeric = numeric_column_names(file.frame)
    default = [c for c in ("region", "marital") if c in columns] or columns[:2]
    dims = multiselect("dimensions (1 to 5)", columns, "nd_dims", default, max_selections=MAX_DIMS)
    if not dims:
        raise InputError("choose at least one dimension")
    chosen = {}
    for dim, column in zip(dims, st.columns(len(dims)), strict=True):
        with column:
            chosen[dim] = _hierarchy(file.frame, dim)
    c1, c2, c3, c4 = st.columns(4)
    with c1:
        values = [COUNTS, *[c for c in numeric if c not in dims]]
        value = selectbox("value", values, "nd_value", "income" if "income" in values else COUNTS)
    with c2:  # the rules on contributions need a magnitude table
        rule = selectbox("rule", list(RULES) if value != COUNTS else ["threshold"], "nd_rule", "threshold",
                         help="threshold: fewer than n records; dominance (n, k), p% and pq look at each cell's "
                              "largest contributions of the value")
    threshold, parameters = 3, {}
    if rule == "threshold":
        with c3:
            threshold = int(number("threshold", "threshold: primary below n records", "nd_threshold", 3))
    else:
        for (name, parameter), column in zip(RULES[rule].parameters.items(), (c3, c4), strict=False):
            with column:
                parameters[name] = number(parameter, name, f"nd_{rule}_{name}", RULE_DEFAULTS[name])
    c1, c2, c3 = st.columns(3)
    with c1:
        protection = float(number("protection", "protection level P (%)", "nd_protection", 10.0, step=0.5))
    with c2:
        cost = selectbox("cost of a suppression", list(COSTS), "nd_cost", "value")
    with c3:
        method = selectbox("method", [BY_SIZE, *TABLE_SUPPRESSION_METHODS], "nd_method", BY_SIZE)
    spec = HierarchicalTableSpec(file.path, tuple(dims), {d: h.lengths for d, h in chosen.items() if h.lengths},
                                 {d: h.file for d, h in chosen.items() if h.file}, None if value == COUNTS else value,
                                 threshold, protection, cost, None if method == BY_SIZE else method, rule, parameters)
    read = {d: h.read for d, h in chosen.items() if h.read is not None}
    return spec, read, any(h.waiting for h in chosen.values())


def _children(table, dim: str, parent: str) -> list[str]:
    """The parent and its children in ``dim``: the rows or columns of a level's view."""
    return [parent, *table.hierarchy(dim).children(parent)]


def view_block(result, s: HierarchicalTableSpec) -> tuple[pd.DataFrame, pd.DataFrame]:
    """A level of the protected table: the values and the statuses of the chosen subtable.

    Parameters
    ----------
    result : TableSuppression
    s : HierarchicalTableSpec

    Returns
    -------
    values, statuses : DataFrame
        Rows: a code of the first dimension and its children; columns: a code
        of the second and its children (a 1-D table has one column).
    """
    table = result.table
    chosen: dict[str, str] = {}
    columns = st.columns(len(s.dims))
    for i, (dim, column) in enumerate(zip(s.dims, columns, strict=True)):
        h = table.hierarchy(dim)
        options = [TOTAL, *h.subtotals] if i < 2 else [TOTAL, *h.codes]
        label = f"{plain(dim)}: children of" if i < 2 else f"{plain(dim)} at"
        with column:
            chosen[dim] = selectbox(label, options, f"nd_view_{dim}", TOTAL)
    rows = _children(table, s.dims[0], chosen[s.dims[0]])
    cols = _children(table, s.dims[1], chosen[s.dims[1]]) if len(s.dims) > 1 else [TOTAL]
    values = np.empty((len(rows), len(cols)))
    statuses = np.empty((len(rows), len(cols)), dtype=object)
    for r, row in enumerate(rows):
        for c, col in enumerate(cols):
            codes = {**chosen, s.dims[0]: row, **({s.dims[1]: col} if len(s.dims) > 1 else {})}
            index = table.cell_index(codes)
            values[r, c] = table.values[index]
            statuses[r, c] = result.cell_status[index]
    header = s.dims[1] if len(s.dims) > 1 else "value"
    return (pd.DataFrame(values, index=pd.Index(rows, name=s.dims[0]), columns=pd.Index(cols, name=header)),
            pd.DataFrame(statuses, index=rows, columns=cols))


def hierarchical_section() -> None:
    """Build an n-D table with hierarchies from microdata, protect it at every level, and show any level."""
    st.subheader("Hierarchical tables: every level protected at once")
    st.caption("Each dimension is flat or has a hierarchy (from its codes' prefixes, or an uploaded tau-Argus .hrc "
               "or parent,child file); the table holds every subtotal. Primaries by a rule (threshold; dominance, p% or "
               "pq on a magnitude table); secondary "
               "suppressions over every equation at every level (optimal MILP, or HiTaS' pass over the subtables "
               "for large tables), each primary's attacker interval audited by LP.")
    file = example_or_upload(EXAMPLE, "nd", "microdata file (CSV, Excel, Parquet, Stata, SPSS, SAS)")
    if file is None:
        return
    show_page_file(file.name, int(file.frame.shape[0]), "Microdata", session=file.session)
    s, read, waiting = settings_block(file)
    if waiting:
        return
    if not remembered(st.toggle, "build and protect the table", "nd_run", False):
        st.info("Choose the dimensions and their hierarchies, then build and protect the table.")
        return
    hierarchies = s.hierarchies(file.frame, read)
    key = {"dims": list(s.dims), "hierarchies": {d: h.to_dict() for d, h in hierarchies.items()},
           "value": s.value_column}
    table = state.frame_cached(file.frame, "tables", "nd_table", key, lambda: s.table(file.frame, hierarchies))
    settings = {**key, "rule": s.rule, "parameters": s.primary_parameters(), "protection": s.protection,
                "cost": s.cost, "method": s.method}
    result = state.frame_cached(file.frame, "tables", "nd_suppression", settings, lambda: s.protect(table))
    counts = result.counts()
    a, b, c, d = st.columns(4)
    a.metric("cells", f"{table.size:,}", help=" x ".join(f"{n} {plain(dim)}" for n, dim in zip(table.shape, s.dims,
                                                                                           strict=True)))
    b.metric("primary cells", counts["primary"])
    c.metric("secondary cells", counts["secondary"])
    d.metric("cost", cell_number(result.cost),
             help=f"{result.method}: " + ("proven optimal" if result.optimal else
                                           f"gap {result.gap:.1%} to the proven lower bound"
                                           + (", stopped on its solve limit (the same pattern on any machine)"
                                              if result.stopped_on == "solve_limit" else "")))
    st.caption("Choose a level: the rows are a code of the first dimension and its children, the columns a code of "
               "the second and its children. Primary cells are red, secondary ones amber, the others published.")
    values, statuses = view_block(result, s)
    colours = statuses.map(lambda x: f"background-color: {STATUS_COLOURS[x]}" if STATUS_COLOURS[x] else "")
    st.dataframe(values.style.apply(lambda _: colours.to_numpy(), axis=None).format(cell_number), width="stretch")
    st.markdown("**Audit: each primary's interval** (an intruder who reads every published cell and every "
                "equation can narrow it to min..max; it must cover the required interval):")
    audit = result.audit_frame()
    numbers = [c for c in ("value", "required_min", "required_max", "min", "max") if c in audit.columns]
    st.dataframe(audit.style.format(cell_number, subset=numbers), hide_index=True, width="stretch")
    if not result.all_protected:
        st.warning("Some primaries are not protected at this level.")
    st.download_button("Protected table (CSV, suppressed cells empty)", table_bytes(result.published(), "protected_table.csv"),
                       file_name="protected_table.csv", mime="text/csv", key="nd_download", on_click="ignore")
    reproduce(s, what="this protection", key="tables_nd")
