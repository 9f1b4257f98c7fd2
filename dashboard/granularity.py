"""The Queries & granularity page's elimination of granularity (Mas): the three types, the moves, the map.

The page's Granularity tab measures the index of granularity of the tables of
2 and 3 keys; this section finds Mas's three types on every hyper-row
(:func:`rumap.tables.granularity_types.key_granularity_types`'s rules),
eliminates them (:func:`rumap.masking.granularity.eliminate_granularity`),
adds the elimination to the release plan, and draws its R-U map over the
critical level (:func:`rumap.maps.granularity.granularity_map`), whose
"Apply" adds it at the level chosen.
"""

from __future__ import annotations

import pandas as pd
import streamlit as st

from dashboard import release_plan, state
from dashboard.files import PageFile
from dashboard.markdown import plain
from dashboard.pagemaps import PageMapSpec, page_analysis
from dashboard.widgets import keep_controls, multiselect, number, plot, remembered, reproduce, selectbox
from rumap.io.data import table_bytes
from rumap.masking.granularity import MOVES
from rumap.present.plotting import ru_map_figure
from rumap.present.reproduce import command_or_reason, to_python
from rumap.release.granularity_step import GRANULARITY_STEP
from rumap.release.plan import Step
from rumap.specs.calls import CallSpec
from rumap.tables.granularity_types import TYPES

__all__ = ["elimination_section"]

#: How the moves are offered.
MOVE_LABELS = {"both": "merge categories or suppress values", "merge": "merge categories only",
               "suppress": "suppress values only"}

_DEFAULTS = {"types": list(TYPES), "moves": "both", "dispersed_frequency": 5, "odd_expected": 5.0}


def _moves_frame(moves) -> pd.DataFrame:
    rows = [{"move": m["move"], "variable": m["variable"],
             "what": (f"{' + '.join(m['categories'])} -> {m['into']}" if m["move"] == "merge"
                      else f"{m['values']} value(s) suppressed"),
             "table": m["hyper_row"]["table"], "hyper-row": m["hyper_row"]["fixed"],
             "index": m["hyper_row"]["index"], "types": ", ".join(m["hyper_row"]["types"]), "bits lost": m["cost"]}
            for m in moves]
    return pd.DataFrame(rows, columns=["move", "variable", "what", "table", "hyper-row", "index", "types",
                                       "bits lost"])


def elimination_section(file: PageFile, keys: list[str], level: float) -> None:
    """The types of granularity on every hyper-row, their elimination, its release step and its map.

    Parameters
    ----------
    file : PageFile
    keys : list of str
        At least two key variables.
    level : float
        The critical index of granularity (percent).
    """
    st.subheader("Types of granularity and their elimination")
    if not remembered(st.toggle, "Find Mas's three types of granularity and eliminate them", "databases_granularity_eliminate",
                      False, help="merges categories or suppresses key values until no hyper-row of the tables of "
                                  "2 and 3 keys is flagged, and draws the R-U map over the level"):
        return
    types = multiselect("types of granularity eliminated", list(TYPES), "databases_granularity_types", list(TYPES))
    if not types:
        st.info("Choose at least one type of granularity.")
        return
    cols = st.columns(3)
    with cols[0]:
        frequency = int(number("dispersed_frequency", "dispersed: least frequency of the cells around a unit cell",
                               "databases_dispersed_frequency", 5))
    with cols[1]:
        expected = float(number("odd_expected", "odd: least expected frequency of a unit cell",
                                "databases_odd_expected", 5.0))
    with cols[2]:
        moves = selectbox("moves", list(MOVES), "databases_granularity_moves", "both", format_func=MOVE_LABELS.get)
    arguments = {"keys": list(keys), "level": float(level), "types": [t for t in TYPES if t in types],
                 "moves": moves, "dispersed_frequency": frequency, "odd_expected": expected}
    call = CallSpec("rumap.masking.granularity.eliminate_granularity", file.path, arguments, source=file.name)
    result = state.frame_cached(file.frame, "databases", "granularity_elimination", arguments,
                                lambda: call.run(file.frame))
    for name, rule in result.rules.statements().items():
        st.markdown(f"- **{name}**: {plain(rule)}")
    flagged = result.before.to_frame()
    flagged = flagged[flagged["unsafe"]].sort_values("index", ascending=False, kind="stable")
    st.markdown(f"**Hyper-rows flagged** in the file: {len(flagged):,} "
                f"({', '.join(f'{k} {v}' for k, v in result.before.counts().items() if k != 'unsafe')})")
    st.dataframe(flagged, hide_index=True)
    left, middle, right = st.columns(3)
    left.metric("moves", f"{len(result.moves):,}")
    middle.metric("key values suppressed", f"{sum(result.suppressed.values()):,}")
    right.metric("largest index after", f"{max(result.index_after.values(), default=0.0):.3g}%",
                 delta=f"{max(result.index_after.values(), default=0.0) - max(result.index_before.values(), default=0.0):.3g}",
                 delta_color="inverse")
    if not result.reached:
        st.warning(f"No allowed move changes {len(result.left)} hyper-row(s): " + "; ".join(result.left[:5]))
    st.dataframe(_moves_frame(result.moves), hide_index=True)
    st.dataframe(pd.DataFrame({"largest index before": result.index_before,
                               "largest index after": result.index_after}), hide_index=False)
    st.caption("A suppressed key value is missing: its record is in none of the cells of the tables with that "
               "variable. Each move is the one that loses the fewest bits of mu-Argus's entropy measure.")
    download, apply = st.columns(2)
    download.download_button("Protected file (CSV)", table_bytes(result.data, "protected.csv"),
                             file_name="granularity_protected.csv", mime="text/csv",
                             key="databases_granularity_download")
    if apply.button("Add to the release plan", key="databases_granularity_apply",
                    help="adds this elimination, with these settings, as a step of the release plan (Release page)"):
        parameters = {k: v for k, v in arguments.items() if k != "keys"}
        origin = {"data": state.file_fingerprint(file.frame, file.session), "choice": "picked", "value": level}
        release_plan.set_steps([*release_plan.steps(), Step("granularity", parameters, keys=list(keys),
                                                            origin=origin)])
        st.toast(f"Added to the release plan: granularity at level {level:g} on {', '.join(keys)}. "
                 f"{len(release_plan.steps())} step(s).")
    reproduce(call, what="this elimination", key="databases_granularity_elimination")
    _map(file, keys, arguments)


def _map(file: PageFile, keys: list[str], arguments: dict) -> None:
    """The R-U map of the elimination over the critical level, with every measure per level."""
    st.markdown("**R-U map over the critical level**")
    levels = GRANULARITY_STEP.key_map.values()
    options = {k: arguments[k] for k in _DEFAULTS if arguments[k] != _DEFAULTS[k]}
    map_arguments = {"keys": list(keys), "levels": levels, **options}
    call = CallSpec("rumap.maps.granularity.granularity_map", file.path, map_arguments, source=file.name)
    ru = state.frame_cached(file.frame, "databases", "granularity_map", map_arguments, lambda: call.run(file.frame))
    plot(ru_map_figure([ru]), key="databases_granularity_map_chart")
    rows = pd.DataFrame([{"level": r["level"], "records in unit cells": r["unit_cells"],
                          "global risk (Categorical page)": r["global_risk"], "key values kept": r["kept"],
                          **{f"categories kept: {v}": share for v, share in r["categories"].items()},
                          "moves": r["moves"], "values suppressed": r["suppressed"]} for r in ru.config["levels"]])
    st.dataframe(rows, hide_index=True)
    st.caption(f"{plain(ru.risk_label)}; {plain(ru.utility_label)}. The table adds the global risk of "
               "re-identification and the share of each key's categories kept.")
    spec = PageMapSpec(page="databases", label=f"granularity elimination, {file.name}: {' x '.join(keys)}",
                       settings={"data": file.path, "fingerprint": state.file_fingerprint(file.frame, file.session),
                                 **map_arguments}, python=to_python(call), command=command_or_reason(call)[0])
    reproduce(call, what="this map", key="databases_granularity_map")
    keep_controls(page_analysis([ru], spec), "databases_granularity_map")
