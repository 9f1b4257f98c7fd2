"""Report: export the kept maps (HTML, CSV, JSON, images, configuration) and load a configuration back."""

from __future__ import annotations

from dataclasses import replace

import streamlit as st

from dashboard import images, state
from dashboard.markdown import plain, plain_list
from dashboard.pagemaps import is_reproducible
from dashboard.risk_bound import analysis_key, bound_for, describe
from dashboard.widgets import errors_shown
from rumap.io.data import summary_table
from rumap.present.figures import analysis_figure
from rumap.present.numbers import format_number
from rumap.present.report import config_json, curves_csv, curves_json, load_config, report_html
from rumap.specs import Analysis

st.title("Report")
kept = state.analyses()

st.subheader("Load a configuration")
st.caption("A configuration file (or an HTML report made here) reproduces its maps exactly. Maps computed on "
           "uploaded data need the same data loaded on the Data page, unless the file includes the data.")
config_file = st.file_uploader("Configuration (.json or .html)", type=["json", "html"], key="report_config")
if config_file is not None and st.button("Reproduce the maps in this file", key="report_load"):
    with errors_shown():
        current = state.selection()
        loaded = load_config(config_file.getvalue(),
                             data_values={current.source.digest: current.values} if current is not None else None)
        bar = st.progress(0.0, text="Reproducing…")
        for i, (name, spec) in enumerate(loaded):
            analysis = state.run_cached(spec, state.data_for(spec))
            state.keep(analysis.renamed(name) if name else analysis)
            bar.progress((i + 1) / len(loaded), text=f"Reproduced {plain(name)}")
        st.success(f"Reproduced {len(loaded)} map(s); they are now kept.")
        kept = state.analyses()

st.subheader("Export")
if not kept:
    st.info("No map kept yet: keep maps on the Analytic or Empirical page, or load an example on the Home page.")
    st.stop()

with errors_shown():
    names = state.kept_choice("report_maps")
    chosen_names = st.multiselect("Maps in the report", names, key="report_maps")
    state.remember("report_maps")
    chosen: list[Analysis] = [a for a in kept if a.name in chosen_names]
    if not chosen:
        st.warning("Choose at least one map.")
        st.stop()
    # each map's bound is the session's for its own risk measure and units, never another measure's
    current = {a.name: bound_for(a) for a in chosen}
    differing = [a for a in chosen if a.max_risk is not None and is_reproducible(a)
                 and current[a.name] is not None and current[a.name] != a.max_risk]
    if differing:
        shown = "; ".join(f"{a.name}: {describe(current[a.name], analysis_key(a))} (kept with "
                          f"{format_number(a.max_risk)})" for a in differing)
        state.keep_shown("report_session_bound", True)  # a run stopped above leaves it drawn at its default else
        if st.checkbox("Draw every map with the session's bound of its own risk measure",
                       key="report_session_bound", help=shown):
            chosen = [state.run_cached(replace(a.spec, max_risk=current[a.name]), state.data_for(a.spec))
                      .renamed(a.name) if a in differing else a for a in chosen]
    elif any(a.max_risk is not None for a in chosen):
        st.caption("Every map is drawn with the bound of its own risk measure: " + "; ".join(
            f"{a.name}: {describe(a.max_risk, analysis_key(a))}" for a in chosen if a.max_risk is not None))
    for key, default in (("report_title", "R-U confidentiality maps"), ("report_include_data", False),
                         ("report_include_aggregates", False), ("report_include_summary", False),
                         ("report_image_format", "PNG")):
        state.keep_shown(key, default)  # shown as they are after a run that stopped above (no map chosen)
    title = st.text_input("Title", key="report_title")
    include_data = st.checkbox("Include the data in the report and the configuration",
                               key="report_include_data",
                               help="off by default: the report then names the data set and records a digest of "
                                    "it, but holds none of its values")
    sel = state.selection()
    data_values = None
    if include_data:
        data_values = {sel.source.digest: sel.values} if sel is not None else {}
        missing = [a.name for a in chosen if getattr(a.spec, "data", None) is not None
                   and a.spec.data.digest not in data_values and a.spec.data.kind != "bundled"]
        if missing:
            st.warning("The data of " + ", ".join(missing) + " are no longer loaded and cannot be included.")
    include_aggregates = st.checkbox("Include statistics of the data (mean, variance, target values, extremes)",
                                     key="report_include_aggregates",
                                     help="off by default: analytic maps computed from the data then record σ², μ "
                                          "and τ as 'from the data' (recomputed when the file is loaded with the "
                                          "same data), and no target's value or data extreme is written")
    include_summary = st.checkbox("Include the data's summary table (n, mean, sd, min, percentiles, max)",
                                  key="report_include_summary",
                                  help="off by default: the summary shows values of the data, such as the maximum")
    data_summary = None
    if include_summary and sel is not None and any(getattr(a.spec, "data", None) is not None
                               and a.spec.data.digest == sel.source.digest for a in chosen):
        data_summary = summary_table(sel.column).rename(columns={"value": sel.source.columns[0]})

    # maps drawn by the Identity and Tables pages have no specification that loads back: they go in the
    # curves (CSV, JSON) with the Python that reproduces them, not in the configuration or the HTML report
    loadable = [a for a in chosen if is_reproducible(a)]
    page_maps = [a.name for a in chosen if not is_reproducible(a)]
    cols = st.columns(4)
    cols[1].download_button("Curves (CSV)", curves_csv(chosen), file_name="rumap_curves.csv", mime="text/csv",
                            on_click="ignore", key="dl_csv")
    cols[2].download_button("Curves (JSON)", curves_json(chosen, include_aggregates, include_aggregates), file_name="rumap_curves.json",
                            mime="application/json", on_click="ignore", key="dl_json")
    if page_maps:
        st.caption("In the curves (CSV, JSON) only, with the Python that reproduces them: "
                   + plain_list(page_maps, separator="; ") + ". The configuration and the HTML report hold the maps whose "
                   "settings load back on this page.")
    if loadable:
        html_text = report_html(loadable, title=title, data_values=data_values, data_summary=data_summary,
                                aggregates=include_aggregates)
        cols[0].download_button("HTML report", html_text, file_name="rumap_report.html", mime="text/html",
                                on_click="ignore", type="primary", key="dl_html")
        cols[3].download_button("Configuration (JSON)", config_json(loadable, data_values, include_aggregates),
                                file_name="rumap_config.json", mime="application/json", on_click="ignore",
                                key="dl_config")
        st.caption(f"The HTML report is one file ({len(html_text) / 1e6:.1f} MB) that works offline, with "
                   "interactive figures. Every figure's toolbar (camera icon) also saves it as SVG.")

    st.markdown("**Figures as image files**")
    images.warm_in_background()
    fmt = st.radio("Format", ["PNG", "SVG"], horizontal=True, key="report_image_format").lower()
    figs = [analysis_figure(a, title=a.name) for a in chosen]
    todo = images.missing(figs, fmt)
    slot = st.empty()
    if todo and slot.button(f"Make {len(todo)} {fmt.upper()} file(s)", key="report_make_images"):
        with st.spinner(f"Drawing {len(todo)} figure(s) as {fmt.upper()}…"):
            images.make(figs, fmt)
        slot.empty()
    if images.missing(figs, fmt):
        st.caption("Image files are made when asked, once per figure: a change elsewhere on this page "
                   "does not draw them again.")
    else:
        made = [(i, a, images.cached(fig, fmt)) for i, (a, fig) in enumerate(zip(chosen, figs, strict=True))]
        if all(image is None for _, _, image in made):
            st.info("This server has no image engine (kaleido) for PNG/SVG files; use the camera icon "
                    "in each figure's toolbar instead.")
        c = st.columns(min(len(made), 3))
        mime = {"png": "image/png", "svg": "image/svg+xml"}[fmt]
        for i, a, image in made:
            if image is not None:
                c[i % len(c)].download_button(f"{a.name} ({fmt.upper()})", image,
                                              file_name=f"rumap_map_{i + 1}.{fmt}", mime=mime,
                                              on_click="ignore", key=f"dl_{fmt}_{i}")

    if loadable:
        with st.expander("Preview: configuration"):
            st.code(config_json(loadable, data_values, include_aggregates), language="json")
