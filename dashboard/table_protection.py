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

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
import streamlit as st

from dashboard import state
from dashboard.code import script
from dashboard.files import PageFile, example_or_upload
from dashboard.markdown import plain
from dashboard.pagemaps import PageMapSpec, page_analysis
from dashboard.provenance import show_page_file
from dashboard.table_download import marked_download
from dashboard.widgets import keep_controls, number, plot, remembered, reproduce_code, selectbox
from rumap.io.data import numeric_column_names
from rumap.maps.table_grids import PROTECTION_GRID, rounding_base_grid, rule_grid
from rumap.maps.tables import (
    TABLE_RISKS,
    TABLE_UTILITIES,
    default_rounding_base,
    meeting_requirement,
    protection_map,
    rounding_base_map,
    rule_map,
)
from rumap.present.plotting import ru_map_figure
from rumap.tables.controlled_rounding import controlled_round
from rumap.tables.microdata import table_from_microdata
from rumap.tables.published import TOTAL_LABEL, code_order
from rumap.tables.rules import RULES
from rumap.tables.secondary import COSTS, suppress_secondary

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


@dataclass(frozen=True)
class TableSettings:
    """What the user chose: variables, rule, protection and cost."""

    rows: str
    columns: str | None
    layers: str | None
    layer: str | None
    response: str | None
    shadow: str | None
    rule: str
    params: dict = field(default_factory=dict)
    protection: float = 10.0
    cost: str = "value"

    def table_arguments(self) -> dict[str, Any]:
        """The keyword arguments of :func:`table_from_microdata` besides the frame."""
        return {"rows": self.rows, "columns": self.columns, "layers": self.layers, "response": self.response,
                "shadow": self.shadow}


def _optional(label: str, options: list[str], key: str, default: str | None, none: str = NONE) -> str | None:
    chosen = selectbox(label, [none, *options], key, default if default in options else none)
    return None if chosen == none else chosen


def settings_block(file: PageFile, layer_labels: Any = None) -> TableSettings:
    """The spanning variables, response, shadow, rule and its parameters, protection level and cost.

    Parameters
    ----------
    file : PageFile
        The microdata.
    layer_labels : callable, optional
        Gives the layer labels of a layer variable (to choose the layer protected).

    Returns
    -------
    TableSettings
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
        protection = float(remembered(st.number_input, "protection level P (%)", "micro_protection", 10.0,
                                      min_value=0.5, max_value=100.0, step=0.5,
                                      help="each primary must lie in an interval at least P% of its value wide "
                                           "on each side"))
        cost = selectbox("cost of a suppression", list(COSTS), "micro_cost", "value")
    return TableSettings(rows, cols, layers, layer, response, shadow, rule, params, protection, cost)


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
    return values.style.apply(lambda _: colours, axis=None).format(_number)


def _number(value: float) -> str:
    """A cell's value: with thousands separators, whole numbers without decimals."""
    return f"{value:,.0f}" if float(value).is_integer() else f"{value:,.6g}"


def protection_code(file: PageFile, s: TableSettings) -> str:
    """The Python that builds the table and protects it.

    Parameters
    ----------
    file : PageFile
    s : TableSettings

    Returns
    -------
    str
    """
    arguments = ", ".join(f"{k}={v!r}" for k, v in s.table_arguments().items() if v is not None)
    params = ", ".join(f"{k}={v!r}" for k, v in s.params.items())
    return script({"rumap.io.data": ["read_table"], "rumap.tables.microdata": ["table_from_microdata"],
                   "rumap.tables.secondary": ["suppress_secondary"]},
                  [f"frame = read_table({file.path!r})", f"table = table_from_microdata(frame, {arguments})",
                   f"primary = table.primary({s.rule!r}, {s.layer!r}, {params})",
                   f"result = suppress_secondary(table.published({s.layer!r}), primary, protection={s.protection!r}, "
                   f"cost={s.cost!r})", "print(result.to_frame())"])


def map_code(file: PageFile, s: TableSettings, sweep: str, grid: list[float], risk: str, utility: str) -> str:
    """The Python of the table's R-U map.

    Parameters
    ----------
    file : PageFile
    s : TableSettings
    sweep : str
        One of :data:`SWEEPS`.
    grid : list of float
    risk, utility : str

    Returns
    -------
    str
    """
    arguments = ", ".join(f"{k}={v!r}" for k, v in s.table_arguments().items() if v is not None)
    lines = [f"frame = read_table({file.path!r})", f"table = table_from_microdata(frame, {arguments})"]
    common = f"risk={risk!r}, utility={utility!r}"
    if sweep == SWEEPS[0]:
        swept = next(iter(RULES[s.rule].parameters))
        fixed = {k: v for k, v in s.params.items() if k != swept}
        lines.append(f"m = rule_map(table, {s.rule!r}, {grid!r}, rule_parameters={fixed!r}, layer={s.layer!r}, "
                     f"protection={s.protection!r}, cost={s.cost!r}, {common}, time_limit={MAP_TIME_LIMIT!r})")
    elif sweep == SWEEPS[1]:
        params = ", ".join(f"{k}={v!r}" for k, v in s.params.items())
        lines += [f"primary = table.primary({s.rule!r}, {s.layer!r}, {params})",
                  f"m = protection_map(table.published({s.layer!r}), primary, {grid!r}, cost={s.cost!r}, {common}, "
                  f"time_limit={MAP_TIME_LIMIT!r}, required={s.protection!r})"]
    else:
        params = ", ".join(f"{k}={v!r}" for k, v in s.params.items())
        lines += [f"primary = table.primary({s.rule!r}, {s.layer!r}, {params})",
                  f"m = rounding_base_map(table.published({s.layer!r}), {grid!r}, primary=primary, "
                  f"protection={s.protection!r}, {common})"]
    lines.append("print(m.to_frame())")
    return script({"rumap.io.data": ["read_table"], "rumap.tables.microdata": ["table_from_microdata"],
                   "rumap.maps.tables": ["rule_map", "protection_map", "rounding_base_map"]}, lines)


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


def map_block(file: PageFile, s: TableSettings, table, primary: list) -> None:
    """The table's R-U map over the chosen parameter, drawn on demand and kept like other maps.

    Parameters
    ----------
    file : PageFile
    s : TableSettings
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
    published = table.published(s.layer)
    if sweep == SWEEPS[0]:
        swept, grid = rule_grid(s.rule)
    elif sweep == SWEEPS[1]:
        grid = list(PROTECTION_GRID)
    else:
        grid = rounding_base_grid(published)
    if sweep != SWEEPS[0] and sweep != SWEEPS[2] and not primary:
        st.info("No cell is sensitive under this rule: there is nothing to protect.")
        return
    settings = {**s.table_arguments(), "layer": s.layer, "rule": s.rule, "params": s.params,
                "protection": s.protection, "cost": s.cost, "sweep": sweep, "grid": grid, "risk": risk,
                "utility": utility}

    def compute():
        if sweep == SWEEPS[0]:
            fixed = {k: v for k, v in s.params.items() if k != swept}
            return rule_map(table, s.rule, grid, rule_parameters=fixed, layer=s.layer, protection=s.protection,
                            cost=s.cost, risk=risk, utility=utility, time_limit=MAP_TIME_LIMIT)
        if sweep == SWEEPS[1]:
            return protection_map(published, primary, grid, cost=s.cost, risk=risk, utility=utility,
                                  time_limit=MAP_TIME_LIMIT, required=s.protection)
        return rounding_base_map(published, grid, primary=primary, protection=s.protection, risk=risk,
                                 utility=utility)

    ru = state.frame_cached(file.frame, "tables", "table map", settings, compute)
    plot(ru_map_figure([ru]), key="tables_micro_map")
    requirement_statement(ru, sweep)
    st.dataframe(ru.to_frame(), hide_index=True, width="stretch")
    python = map_code(file, s, sweep, grid, risk, utility)
    reproduce_code(python, no_command="the command line protects a table file, not microdata", key="tables_micro_map")
    spec = PageMapSpec(page="tables", label=f"{sweep} map, {file.name}: {s.rule}",
                       settings={"file": file.name, **settings}, python=python)
    keep_controls(page_analysis([ru], spec), "tables_micro")


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
                               lambda: table_from_microdata(file.frame, **s.table_arguments()))
    primary = table.primary(s.rule, s.layer, **s.params)
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
                                    lambda: suppress_secondary(published, primary, protection=s.protection,
                                                               cost=s.cost))
        a, b, c = st.columns(3)
        a.metric("primary cells", len(result.primary))
        b.metric("secondary cells", len(result.secondary))
        c.metric("cost", _number(result.cost), help=("proven optimal" if result.optimal
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
        reproduce_code(protection_code(file, s), what="this protection",
                       no_command="the command line protects a table file, not microdata", key="tables_micro_protection")
    if remembered(st.checkbox, "controlled rounding instead", "micro_round", False):
        scale = default_rounding_base(published)
        if st.session_state.get("micro_base_scale") != scale:  # a new table: start from its own scale
            state.set_widgets({"micro_base": scale})
            st.session_state["micro_base_scale"] = scale
        base = number("rounding_base", "rounding base b", "micro_base", scale,
                      help=f"{scale:g} by default: a tenth of the typical cell's power of ten, so a cell keeps its "
                           "first two digits")
        rounding = state.frame_cached(file.frame, "tables", "rounding",
                                      {**s.table_arguments(), "layer": s.layer, "base": base},
                                      lambda: controlled_round(published, float(base)))
        st.metric("largest deviation", _number(rounding.max_absolute_deviation),
                  help="controlled rounding keeps the table additive; every entry moves by less than b")
        st.dataframe(rounding.table().to_frame(), width="stretch")
    map_block(file, s, table, primary)
