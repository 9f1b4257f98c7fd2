"""The Tables page's section that protects a table built from microdata: rule, suppression, rounding, R-U map.

The table comes from the bundled or an uploaded microdata file
(:func:`rumap.tables.microdata.table_from_microdata`); its primaries from a
sensitivity rule, its secondary suppressions from
:func:`rumap.tables.secondary.suppress_secondary`, each suppressed cell with
its audit interval; controlled rounding as the alternative; and the table's
R-U map (:mod:`rumap.maps.tables`), which can be kept like the other maps.
Every user-supplied name is shown through :func:`dashboard.markdown.plain`.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
import streamlit as st

from dashboard import state
from dashboard.files import PageFile, example_or_upload
from dashboard.markdown import plain
from dashboard.pagemaps import PageMapSpec, page_analysis
from dashboard.provenance import show_page_file
from dashboard.table_download import marked_download
from dashboard.widgets import keep_controls, number, plot, remembered, reproduce, selectbox
from rumap.io.data import numeric_column_names
from rumap.maps.table_common import table_common_curve
from rumap.maps.table_grids import PROTECTION_GRID, rounding_base_grid, rule_grid
from rumap.maps.tables import (
    TABLE_RISKS,
    TABLE_UTILITIES,
    default_rounding_base,
    meeting_requirement,
)
from rumap.present.plotting import ru_map_figure
from rumap.present.reproduce import to_python
from rumap.release.from_map import TABLE_SWEEPS
from rumap.specs.table_protection import TableMapSpec, TableProtectionSpec
from rumap.tables.controlled_rounding import controlled_round
from rumap.tables.published import TOTAL_LABEL, code_order
from rumap.tables.rules import RULES
from rumap.tables.secondary import COSTS

EXAMPLE = "persons (synthetic, categorical keys)"
NONE = "(none)"
COUNTS = "(counts: a frequency table)"
#: Colours of the cells by status.
STATUS_COLOURS = {"primary": "#f4a6a6", "secondary": "#f7d794", "published": ""}
#: Default values of the rules' parameters.
RULE_DEFAULTS = {"p": 10.0, "q": 50.0, "n": 1, "k": 0.8, "threshold": 3}
#: What the map sweeps.
SWEEPS = ["rule parameter", "protection level", "rounding base"]
#: Seconds given to each suppression of the map.
MAP_TIME_LIMIT = 5.0




def _optional(label: str, options: list[str], key: str, default: str | None, none: str = NONE) -> str | None:
    chosen = selectbox(label, [none, *options], key, default if default in options else none)
    return None if chosen == none else chosen


def settings_block(file: PageFile, layer_labels: Any = None) -> TableProtectionSpec:
    """The spanning variables, response, shadow, rule and its parameters, protection level and cost.

    Parameters
    ----------
    file : PageFile
        The microdata.
    layer_labels : callable, optional
        Gives the layer labels of a layer variable (to choose the layer protected).

    Returns
    -------
    TableProtectionSpec
        The protection of the table built from ``file``.
    """
    columns = [str(c) for c in file.frame.columns]
    numeric = numeric_column_names(file.frame)
    c1, c2, c3 = st.columns(3)
    with c1:
        rows = selectbox("rows", columns, "micro_rows", "region" if "region" in columns else columns[0])
    with c2:
        cols = _optional("columns", [c for c in columns if c != rows], "micro_columns", "marital")
    with c3:
        layers = _optional("layers", [c for c in columns if c not in (rows, cols)], "micro_layers", None) \
            if cols is not None else None
    c1, c2, c3 = st.columns(3)
    with c1:
        response = _optional("response", [c for c in numeric if c not in (rows, cols, layers)], "micro_response",
                             "income", none=COUNTS)
    with c2:
        shadow = _optional("shadow (the rules look at it)", [c for c in numeric if c not in (rows, cols, layers)],
                           "micro_shadow", None)
    with c3:
        layer = None
        if layers is not None and layer_labels is not None:
            labels = list(layer_labels(layers))
            layer = selectbox("layer protected", labels, "micro_layer", TOTAL_LABEL)
            layer = None if layer == TOTAL_LABEL else layer
    c1, c2, c3, c4 = st.columns(4)
    with c1:
        rule = selectbox("rule", list(RULES), "micro_rule", "p-percent")
    params = {}
    for (name, parameter), column in zip(RULES[rule].parameters.items(), (c2, c3), strict=False):
        with column:
            params[name] = number(parameter, name, f"micro_{rule}_{name}", RULE_DEFAULTS[name])
    with c4:
        protection = float(number("protection", "protection level P (%)", "micro_protection", 10.0, step=0.5,
                                  help="each primary must lie in an interval at least P% of its value wide "
                                       "on each side"))
        cost = selectbox("cost of a suppression", list(COSTS), "micro_cost", "value")
    return TableProtectionSpec(file.path, rows, cols, layers, layer, response, shadow, rule, params, protection, cost)


def _status_frame(result, row_labels, column_labels, statuses: bool) -> pd.DataFrame:
    index, columns = [*row_labels, TOTAL_LABEL], [*column_labels, TOTAL_LABEL]
    values = np.array(result.status if statuses else result.values, dtype=object).reshape(len(index), len(columns))
    return pd.DataFrame(values, index=index, columns=columns)


def styled_table(result, row_labels, column_labels):
    """The table's values coloured by status (primary red, secondary amber).

    Parameters
    ----------
    result : SecondarySuppression
    row_labels, column_labels : sequence of str

    Returns
    -------
    pandas.io.formats.style.Styler
    """
    values = _status_frame(result, row_labels, column_labels, statuses=False).astype(float)
    statuses = _status_frame(result, row_labels, column_labels, statuses=True)
    colours = statuses.map(lambda s: f"background-color: {STATUS_COLOURS[s]}" if STATUS_COLOURS[s] else "")
    return values.style.apply(lambda _: colours, axis=None).format(cell_number)


def cell_number(value: float) -> str:
    """A cell's value: with thousands separators, whole numbers without decimals."""
    return f"{value:,.0f}" if float(value).is_integer() else f"{value:,.6g}"


def requirement_statement(ru, sweep: str) -> None:
    """Which values of the map protect every primary as required, or that none does (infeasible on the grid).

    Parameters
    ----------
    ru : RUMap
        A table map.
    sweep : str
        One of :data:`SWEEPS`.
    """
    met = meeting_requirement(ru)
    symbol = {"rule parameter": ru.parameter, "protection level": "P", "rounding base": "b"}[sweep]
    need = f"every primary's interval at least {met.required:g}% of its value wide on each side"
    if met.feasible:
        st.success(f"Meets the requirement ({need}) at {symbol} = "
                   + ", ".join(f"{v:g}" for v in met.values) + ".")
    else:
        st.warning(f"Infeasible on this grid: no value of {symbol} ("
                   + ", ".join(f"{v:g}" for v in ru.values) + f") leaves {need}.")


def map_block(file: PageFile, s: TableProtectionSpec, table, primary: list) -> None:
    """The table's R-U map over the chosen parameter, drawn on demand and kept like other maps.

    Parameters
    ----------
    file : PageFile
    s : TableProtectionSpec
    table : MicrodataTable
    primary : list of (str, str)
    """
    st.markdown("**R-U map of the table**")
    c1, c2, c3 = st.columns(3)
    with c1:
        sweep = selectbox("over", SWEEPS, "micro_sweep", SWEEPS[1])
    with c2:
        risk = selectbox("R", list(TABLE_RISKS), "micro_risk",
                         "max_cell_risk" if sweep == SWEEPS[2] else "underprotected")
    with c3:
        utility = selectbox("U", list(TABLE_UTILITIES), "micro_utility", "total_kept")
    if not remembered(st.checkbox, "draw the R-U map (one protection per value)", "micro_draw_map", False):
        return
    if sweep == SWEEPS[0]:
        swept, grid = rule_grid(s.rule)
    elif sweep == SWEEPS[1]:
        grid = list(PROTECTION_GRID)
    else:
        grid = rounding_base_grid(table.published(s.layer))
    if sweep != SWEEPS[0] and sweep != SWEEPS[2] and not primary:
        st.info("No cell is sensitive under this rule: there is nothing to protect.")
        return
    spec = TableMapSpec(s, dict(zip(SWEEPS, TABLE_SWEEPS, strict=True))[sweep], grid, risk, utility, MAP_TIME_LIMIT)
    settings = {**s.table_arguments(), "layer": s.layer, "rule": s.rule, "params": dict(s.rule_parameters),
                "protection": s.protection, "cost": s.cost, "sweep": sweep, "grid": grid, "risk": risk,
                "utility": utility}
    ru = state.frame_cached(file.frame, "tables", "table map", settings, lambda: spec.map(table))
    plot(ru_map_figure([ru]), key="tables_micro_map")
    requirement_statement(ru, sweep)
    st.dataframe(ru.to_frame(), hide_index=True, width="stretch")
    reproduce(spec, what="this map", command_caption="Command line:", key="tables_micro_map")
    kept = PageMapSpec(page="tables", label=f"{sweep} map, {file.name}: {s.rule}",
                       settings={"file": file.name, "fingerprint": state.file_fingerprint(file.frame, file.session),
                                 **settings}, python=to_python(spec))
    common = table_common_curve(ru)
    if common is not None:
        st.caption("Kept, this map also carries the measures every protection of a count table shares (share of "
                   "small counts recovered exactly, relative error of cells and totals): Compare overlays it with "
                   "the cell key method's and differential privacy's maps of the table.")
    keep_controls(page_analysis([ru], kept, common=common), "tables_micro")


def microdata_section() -> None:
    """Build a table from microdata, mark its primaries, protect it, round it, and draw its R-U map."""
    st.subheader("Protect a table built from microdata")
    st.caption("Spanning variables give the rows, columns and layers; a response gives sums (else counts). "
               "A sensitivity rule marks the primary cells, the secondary suppressions are chosen by a MILP of "
               "least cost (HiGHS) so that every primary's audit interval is at least P% of its value wide on each "
               "side, and every suppressed cell is audited by LP bounds.")
    file = example_or_upload(EXAMPLE, "micro", "microdata file (CSV, Excel, Parquet, Stata, SPSS, SAS)")
    if file is None:
        st.info("Upload a microdata file, or choose the bundled example.")
        return
    show_page_file(file.name, int(file.frame.shape[0]), "Microdata", session=file.session)

    def layer_labels(variable: str) -> list[str]:
        return [*sorted(file.frame[variable].dropna().astype(str).str.strip().unique(), key=code_order), TOTAL_LABEL]

    s = settings_block(file, layer_labels)
    table = state.frame_cached(file.frame, "tables", "table", s.table_arguments(),
                   lambda: s.table(file.frame))
    primary = s.primary(table)
    published = table.published(s.layer)
    st.markdown(f"**{len(primary)}** of {published.cells.size} cells sensitive under the {plain(s.rule)} rule"
                + (f" (layer {plain(s.layer)})" if s.layer is not None else "") + ".")
    if not primary:
        st.info("No cell is sensitive: the table can be published as it is.")
        st.dataframe(published.to_frame(), width="stretch")
    else:
        settings = {**s.table_arguments(), "layer": s.layer, "primary": [list(p) for p in primary],
                    "protection": s.protection, "cost": s.cost}
        result = state.frame_cached(file.frame, "tables", "suppression", settings,
                        lambda: s.protect(table))
        a, b, c = st.columns(3)
        a.metric("primary cells", len(result.primary))
        b.metric("secondary cells", len(result.secondary))
        c.metric("cost", cell_number(result.cost), help=("proven optimal" if result.optimal
                                                      else f"gap {result.gap:.2%} to the best bound"))
        st.caption("Red: primary; amber: secondary; the others are published.")
        st.dataframe(styled_table(result, published.row_labels, published.column_labels), width="stretch")
        audit = result.to_frame()
        audit = audit[audit["status"] != "published"]
        st.markdown("**Audit interval of each suppressed cell** (what an intruder can narrow it to):")
        st.dataframe(audit, hide_index=True, width="stretch")
        marked_download(result.table(published.row_labels, published.column_labels), "micro", row_header=s.rows)
        if not result.all_protected:
            st.warning("Some primaries are not protected at this level: " +
                       ", ".join(f"{plain(r)} / {plain(c)}" for (r, c), ok in
                                 zip(result.primary, result.protected, strict=True) if not ok))
        reproduce(s, what="this protection", command_caption="Command line:", key="tables_micro_protection")
    if remembered(st.checkbox, "controlled rounding instead", "micro_round", False):
        scale = default_rounding_base(published)
        if st.session_state.get("micro_base_scale") != scale:  # a new table: start from its own scale
            state.set_widgets({"micro_base": scale})
            st.session_state["micro_base_scale"] = scale
        base = number("rounding_base", "rounding base b", "micro_base", scale,
                      help=f"{scale:g} by default: a tenth of the typical cell's power of ten, so a cell keeps its "
                           "first two digits")
        rounding = state.frame_cached(file.frame, "tables", "rounding", {**s.table_arguments(), "layer": s.layer, "base": base},
                          lambda: controlled_round(published, float(base)))
        st.metric("largest deviation", cell_number(rounding.max_absolute_deviation),
                  help="controlled rounding keeps the table additive; every entry moves by less than b")
        st.dataframe(rounding.table().to_frame(), width="stretch")
    map_block(file, s, table, primary)
