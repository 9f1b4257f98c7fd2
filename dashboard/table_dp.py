"""The Tables page's differential privacy: a table released with noise beside suppression and rounding.

A thin layer over :class:`rumap.specs.dp_tables.DPTableSpec` and
:func:`rumap.maps.dp_tables.dp_table_map`: the user chooses the dimensions
(flat, or with a hierarchy from their codes' prefixes), counts or a sum with
the bounds of one contribution, the mechanism and the privacy loss; the page
states the privacy in words (:func:`rumap.present.privacy.privacy_statement`),
shows the published table beside the original, what an intruder learns of the
small cells and the errors, the R-U map over epsilon (kept like the other maps,
with its curve on the measures every protection of a count table shares,
:mod:`rumap.maps.table_common`), the download and the code.
"""

from __future__ import annotations

from dataclasses import replace

import pandas as pd
import streamlit as st

from dashboard import state
from dashboard.files import example_or_upload
from dashboard.markdown import plain
from dashboard.pagemaps import PageMapSpec, page_analysis
from dashboard.provenance import show_page_file
from dashboard.table_protection import cell_number
from dashboard.widgets import keep_controls, multiselect, number, plot, remembered, reproduce, selectbox, slider
from rumap.errors import InputError
from rumap.io.data import numeric_column_names
from rumap.io.writers import table_bytes
from rumap.maps.table_common import table_common_curve
from rumap.present.plotting import ru_map_figure
from rumap.present.privacy import privacy_statement
from rumap.present.reproduce import command_or_reason, to_python
from rumap.privacy.accounting import DEFAULT_DELTA, MECHANISMS
from rumap.specs.dp_tables import DPTableMapSpec, DPTableSpec
from rumap.tables.ndtable import MAX_DIMS

EXAMPLE = "persons (synthetic, categorical keys)"
COUNTS = "(counts: a frequency table)"
#: The privacy losses of the map over epsilon.
MAP_EPSILONS = (0.1, 0.3, 1.0, 3.0, 10.0)
#: Releases per epsilon of the map.
MAP_REPLICATES = 20
#: The threshold rule's n of the suppression map drawn beside it.
SUPPRESSION_THRESHOLDS = (1, 2, 3, 4, 5)


def _prefixes(dims: list[str]) -> dict[str, tuple[int, ...]]:
    """Each dimension's code lengths of its levels, when the user gives them (else the dimension is flat)."""
    out = {}
    for dim, column in zip(dims, st.columns(len(dims)), strict=True):
        with column:
            text = remembered(st.text_input, f"levels of {plain(dim)} (code lengths, top first; empty: flat)",
                              f"dp_lengths_{dim}", "", help="e.g. 1,3 for A above A01: each code cut to each length")
        if text.strip():
            try:
                out[dim] = tuple(int(x) for x in text.split(",") if x.strip())
            except ValueError:
                raise InputError(f"the code lengths of {dim} must be whole numbers separated by commas") from None
    return out


def settings_block(path: str, frame: pd.DataFrame) -> DPTableSpec:
    """The dimensions, the value and its bounds, the mechanism, the privacy loss and the seed.

    Parameters
    ----------
    path : str
        The microdata file's name.
    frame : DataFrame
        The microdata.

    Returns
    -------
    DPTableSpec
    """
    columns = [str(c) for c in frame.columns]
    default = [c for c in ("region", "marital") if c in columns] or columns[:2]
    dims = multiselect("dimensions (1 to 5)", columns, "dp_dims", default, max_selections=MAX_DIMS)
    if not dims:
        raise InputError("choose at least one dimension")
    prefixes = _prefixes(dims)
    c1, c2, c3 = st.columns(3)
    numeric = [c for c in numeric_column_names(frame) if c not in dims]
    with c1:
        value = selectbox("value", [COUNTS, *numeric], "dp_value", COUNTS)
    bounds = None
    if value != COUNTS:
        with c2:
            low = float(number("value", "least contribution L", "dp_low", 0.0))
        with c3:
            high = float(number("value", "largest contribution U", "dp_high", float(frame[value].max())))
        bounds = (low, high)
    c1, c2, c3, c4 = st.columns(4)
    mechanisms = [m for m, (_, discrete) in MECHANISMS.items() if value == COUNTS or not discrete]
    with c1:
        mechanism = selectbox("mechanism", mechanisms, "dp_mechanism", mechanisms[0],
                              help="Laplace: pure epsilon-DP; Gaussian: rho (zCDP), also stated as (epsilon, delta); "
                                   "the discrete ones add whole numbers (counts only)")
    with c2:
        epsilon = float(slider("privacy_loss", "privacy loss epsilon", "dp_epsilon", 1.0))
    delta = None
    if MECHANISMS[mechanism][0] == "make_gaussian":
        with c3:
            delta = float(number("risk_bound", "delta", "dp_delta", DEFAULT_DELTA, format="%.1e",
                                   help="the chance, at most, that the epsilon guarantee fails"))
    with c4:
        seed = int(number("seed", "seed", "dp_seed", 0, help="the same seed, the same noise"))
    return DPTableSpec(path, tuple(dims), prefixes, {}, None if value == COUNTS else value, bounds, mechanism,
                       epsilon, None, delta, seed)


def _results_block(release) -> None:
    """The privacy in words, the published table beside the original, the disclosure measures and the errors."""
    st.info(privacy_statement(release.privacy.to_dict()))
    disclosure, utility = release.disclosure(), release.utility()
    a, b, c, d = st.columns(4)
    a.metric("cells", f"{release.table.size:,}", help=f"noise on the {int(release.finest.sum()):,} finest cells; "
                                                      "every subtotal is the sum of its noisy children")
    b.metric("noise scale", cell_number(release.privacy.scale),
             help=f"{release.privacy.mechanism}, sensitivity {release.privacy.sensitivity:g}; from OpenDP's measurement")
    share = disclosure["small_recovered"]
    c.metric(f"small cells recovered (1-{disclosure['small_cell']} records)",
             "-" if share is None else f"{share:.0%}",
             help="the share of small cells whose true count rounding the published value gives exactly")
    error = utility["cell_relative_error"]
    d.metric("mean relative error of the cells", "-" if error is None else f"{error:.1%}",
             help="over the non-empty finest cells: |published - original| / original")
    st.dataframe(release.to_frame().style.format(cell_number, subset=["value", "original"]), hide_index=True,
                 width="stretch")
    if disclosure["audit"]:
        st.markdown("**What an intruder learns of each small cell**: min..max, the published value -+ the 95% "
                    "spread of its noise (a count from 0); recovered: rounding the published value gives the count")
        audit = pd.DataFrame([{**row["codes"], **{k: v for k, v in row.items() if k != "codes"}}
                              for row in disclosure["audit"]])
        st.dataframe(audit.style.format(cell_number, subset=["value", "original", "min", "max"]), hide_index=True,
                     width="stretch")
    st.download_button("Published table (CSV)", table_bytes(release.published_frame(), "dp_table.csv"),
                       file_name="dp_table.csv", mime="text/csv", key="dp_download", on_click="ignore")


def _keep_block(file, spec: DPTableMapSpec, settings: dict, m, label: str, key: str) -> None:
    """Keep one map of the released table, with the code that draws it and its curve on the shared measures."""
    kept = PageMapSpec(page="tables", label=f"{label}, {file.name}: {' x '.join(spec.table.dims)}",
                       settings={"file": file.name, "fingerprint": state.file_fingerprint(file.frame, file.session),
                                 **settings}, python=to_python(spec), command=command_or_reason(spec)[0])
    keep_controls(page_analysis([m], kept, common=table_common_curve(m)), key)


def dp_section() -> None:
    """Build a table from microdata and release it with differential privacy; its map over epsilon."""
    st.subheader("Differential privacy: noise instead of suppression or rounding")
    st.caption("Noise of a mechanism (OpenDP's accounting) on the finest cells of a table built from microdata; every "
               "subtotal and the total are sums of the noisy cells, so the table adds up; counts are published as "
               "non-negative whole numbers. The codes of the dimensions are taken as public.")
    file = example_or_upload(EXAMPLE, "dp", "microdata file (CSV, Excel, Parquet, Stata, SPSS, SAS)")
    if file is None:
        return
    show_page_file(file.name, int(file.frame.shape[0]), "Microdata", session=file.session)
    spec = settings_block(file.path, file.frame)
    if not remembered(st.toggle, "release the table", "dp_run", False):
        st.info("Choose the dimensions, the mechanism and epsilon, then release the table.")
        return
    release = state.frame_cached(file.frame, "tables", "dp_release", spec.to_dict(), lambda: spec.run(file.frame))
    _results_block(release)
    reproduce(spec, what="this release", key="tables_dp")
    if release.counts and remembered(st.toggle, "R-U map over epsilon", "dp_map", False):
        settings = {**spec.to_dict(), "epsilons": MAP_EPSILONS, "replicates": MAP_REPLICATES}
        map_spec = DPTableMapSpec(spec, MAP_EPSILONS, MAP_REPLICATES)
        beside_spec = replace(map_spec, thresholds=SUPPRESSION_THRESHOLDS, curve="suppression")
        m = state.frame_cached(file.frame, "tables", "dp_map", settings, lambda: map_spec.run(file.frame))
        maps = [m]
        beside = remembered(st.toggle, "beside cell suppression (threshold rule, protection 10%)", "dp_beside", False,
                            help="the same table protected by cell suppression instead, on the same R and U: a small "
                                 "cell is recovered when published or narrowed below 1 by the equations; a suppressed "
                                 "cell loses all of its value")
        if beside:
            maps.append(state.frame_cached(file.frame, "tables", "dp_beside", {**settings,
                                                                               "thresholds": SUPPRESSION_THRESHOLDS},
                                           lambda: beside_spec.run(file.frame)))
        plot(ru_map_figure(maps), key="tables_dp_map")
        out = pd.DataFrame({"epsilon": m.values, "R": m.risk, "U": m.utility,
                            "attacker's interval, half-width": m.config["interval_half_width"],
                            "unit cells recovered": m.config["unit_recovered"]})
        st.dataframe(out, hide_index=True, width="stretch")
        st.caption(f"{MAP_REPLICATES} releases per epsilon. R: {m.risk_label}; U: {m.utility_label}. Kept, each map "
                   "also carries the measures every protection of a count table shares (share of small counts "
                   "recovered exactly, relative error of cells and totals): Compare overlays it with the other "
                   "protections' maps of the table (the cell key method's, suppression's).")
        reproduce(replace(map_spec, thresholds=SUPPRESSION_THRESHOLDS) if beside else map_spec,
                  key="tables_dp_map", what="this map")
        _keep_block(file, map_spec, settings, m, "DP noise over epsilon", "tables_dp")
        if beside:
            st.markdown("**The suppression map** (threshold rule's n, protection 10%)")
            _keep_block(file, beside_spec, {**settings, "thresholds": SUPPRESSION_THRESHOLDS}, maps[1],
                        "cell suppression over n", "tables_dp_suppression")
