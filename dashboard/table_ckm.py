"""The Tables page's cell key method: a frequency table perturbed consistently, its perturbation table drawn.

A thin layer over :class:`rumap.specs.calls.CallSpec` of
:func:`rumap.tables.cellkey.cell_key_method`: the perturbation table of D, V
and js (R's ptable), each cell's perturbation picked by its cell key, the
published table and how far its totals are from the sums of their children;
its R-U map over V (:func:`rumap.maps.cellkey_map.ckm_map`), kept like the
other maps with its curve on the measures every protection of a count table
shares (:mod:`rumap.maps.table_common`).
"""

from __future__ import annotations

import pandas as pd
import streamlit as st

from dashboard import state
from dashboard.files import PageFile, example_or_upload
from dashboard.markdown import plain
from dashboard.pagemaps import PageMapSpec, page_analysis
from dashboard.provenance import show_page_file
from dashboard.widgets import keep_controls, number, plot, remembered, reproduce
from rumap.maps.table_common import SMALL, table_common_curve
from rumap.present.plotting import ru_map_figure
from rumap.present.ptable_figure import ptable_figure
from rumap.present.reproduce import command_or_reason, to_python
from rumap.specs.calls import CallSpec

EXAMPLE = "persons (synthetic, categorical keys)"
#: Columns with at most this many codes are offered as dimensions.
MAX_CODES = 50
#: The variances V of the map (each needs a perturbation table for the chosen D and js).
MAP_VARIANCES = (1.1, 1.5, 2.0, 3.0, 4.0)
#: Draws of the record keys per V.
MAP_REPLICATES = 10


def map_block(file: PageFile, arguments: dict) -> None:
    """The R-U map over V of the table just published, kept with its curve on the common table measures.

    Parameters
    ----------
    file : PageFile
        The microdata.
    arguments : dict
        The published table's dims, D, js and seed.
    """
    grid = list(MAP_VARIANCES)
    spec = CallSpec("rumap.maps.cellkey_map.ckm_map", file.name,
                    {"dims": list(arguments["dims"]), "variances": grid,
                     "max_perturbation": arguments["max_perturbation"], "js": arguments["js"],
                     "replicates": MAP_REPLICATES, "seed": arguments["seed"]}, source=file.name)
    ru = state.frame_cached(file.frame, "tables", "ckm_map", dict(spec.arguments), lambda: spec.run(file.frame))
    plot(ru_map_figure([ru]), key="tables_ckm_map")
    out = pd.DataFrame({"V": ru.values, "R": ru.risk, "U": ru.utility,
                        f"small counts recovered (1-{SMALL})": ru.config["common_risk"],
                        "relative error kept (cells and totals)": ru.config["common_utility"]})
    st.dataframe(out, hide_index=True, width="stretch")
    st.caption(f"{MAP_REPLICATES} draws of the record keys per V. R: {ru.risk_label}; U: {ru.utility_label}. "
               "Kept, the map also carries the measures every protection of a count table shares (the last two "
               "columns): Compare overlays it with suppression's and differential privacy's maps of the table.")
    reproduce(spec, key="tables_ckm_map", what="this map")
    kept = PageMapSpec(page="tables", label=f"cell key method over V, {file.name}: {' x '.join(arguments['dims'])}",
                       settings={"file": file.name, "fingerprint": state.file_fingerprint(file.frame, file.session),
                                 **spec.arguments}, python=to_python(spec), command=command_or_reason(spec)[0])
    keep_controls(page_analysis([ru], kept, common=table_common_curve(ru)), "tables_ckm")


def ckm_section() -> None:
    """The cell key method on a table built from microdata, beside suppression and rounding."""
    st.subheader("The cell key method")
    st.caption("Each record gets a random key in [0, 1); a cell's key is the fractional part of the sum of its "
               "records' keys, and picks the cell's perturbation v from the perturbation table's row for its count "
               "(maximum entropy under mean 0, variance V, |v| <= D, no published count in 1..js). The same cell "
               "gets the same v in every table; totals no longer add up.")
    file = example_or_upload(EXAMPLE, "ckm", "microdata file (CSV, Excel, Parquet, Stata, SPSS, SAS)")
    if file is None:
        st.info("Upload a microdata file, or choose the bundled example.")
        return
    show_page_file(file.name, int(file.frame.shape[0]), "Microdata", session=file.session)
    candidates = [str(c) for c in file.frame.columns if file.frame[c].nunique() <= MAX_CODES]
    if not candidates:
        st.info(f"No column has {MAX_CODES} codes or fewer to span the table.")
        return
    default = [c for c in ("region", "marital") if c in candidates] or candidates[:1]  # the same table as the other tabs
    dims = remembered(st.multiselect, "dimensions", "ckm_dims", default, options=candidates, max_selections=3)
    if not dims:
        st.info("Choose one to three dimensions.")
        return
    c1, c2, c3, c4 = st.columns(4)
    with c1:
        d = number("ckm_max_perturbation", "largest perturbation D", "ckm_d", 3, high=10)
    with c2:
        v = number("lambda2", "variance V", "ckm_v", 1.08, step=0.1, help="variance V of the perturbation")
    with c3:
        js = number("ckm_js", "never publish 1..js", "ckm_js", 1, high=10)
    with c4:
        seed = number("seed", "seed of the record keys", "ckm_seed", 1)
    spec = CallSpec("rumap.tables.cellkey.cell_key_method", file.name,
                    {"dims": list(dims), "max_perturbation": int(d), "variance": float(v), "js": int(js),
                     "seed": int(seed)}, source=file.name)
    if not remembered(st.toggle, "publish the table by the cell key method", "ckm_run", False):
        st.info("Choose the dimensions, D, V and js, then publish the table.")
        return
    result = state.frame_cached(file.frame, "tables", "ckm", dict(spec.arguments), lambda: spec.run(file.frame))
    plot(ptable_figure(result.ptable), key="tables_ckm_ptable")
    add = result.additivity()
    published = result.to_frame()
    st.markdown(f"**Published table** ({result.table.size} cells over {plain(' x '.join(dims))}): "
                f"{add['non_additive']} of {add['equations']} totals differ from the sum of their children, by "
                f"{add['max_abs']:g} at most and {add['mean_abs']:.3g} on average.")
    st.dataframe(published, hide_index=True, width="stretch")
    changed = int((result.perturbation != 0).sum())
    st.caption(f"{changed} of {result.table.size} cells perturbed; original counts are not shown.")
    reproduce(spec, key="tables_ckm", what="this table")
    if remembered(st.toggle, "R-U map over the variance V", "ckm_map", False,
                  help=f"V = {', '.join(f'{v:g}' for v in MAP_VARIANCES)}, {MAP_REPLICATES} draws of the keys each"):
        map_block(file, dict(spec.arguments))
