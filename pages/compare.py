"""Compare: overlay kept maps on common R and U measures; the most utility under a risk bound."""

from __future__ import annotations

import numpy as np
import streamlit as st

from dashboard import state
from dashboard.decisions import (
    SHARED_MEASURES,
    best_choice,
    curve_recommendation,
    first_bound,
    map_decisions,
    measures_note,
    scaled_utility,
    unprotected,
)
from dashboard.markdown import plain
from dashboard.provenance import show_kept_sources
from dashboard.risk_bound import MSE_MEASURE, bound_for, max_risk_input, spec_key
from dashboard.selection import curves_on_common_measures
from dashboard.widgets import errors_shown, plot, remembered, table
from rumap.maps.recommend import DECISIONS, error_of_max_risk
from rumap.present.figures import UTILITY_SCALES, comparison_figure, utility_on_scale
from rumap.present.numbers import format_number, format_risk
from rumap.present.plotting import PARAMETER_SYMBOLS
from rumap.present.statements import uncertainty_phrase

st.title("Compare kept maps")
kept = state.analyses()
if not kept:
    st.info("No map kept yet: draw a map on the Analytic or Empirical page and press “Keep this map”, "
            "or load a worked example on the Home page.")
    st.stop()

with errors_shown():
    maps, names, owners = curves_on_common_measures(kept, "compare")
    show_kept_sources(list({id(a): a for a in owners}.values()))
    keys = [spec_key(a.spec, m.risk_label) for a, m in zip(owners, maps, strict=True)]  # each curve's measure
    cols = st.columns(3)
    bounds: dict[str, float] = {}
    with cols[0]:
        for n, key in enumerate(dict.fromkeys(keys)):  # one bound per risk measure and units: never crossed
            if key in SHARED_MEASURES:  # a share, whatever the method
                bounds[key] = max_risk_input("compare_max_share", key, default=first_bound(key, owners, keys),
                                             label=SHARED_MEASURES[key].label, entry="share_bound")
                continue
            label = "Maximum tolerable risk" if n == 0 else f"Maximum tolerable risk ({n + 1})"
            bounds[key] = max_risk_input("compare_max_risk" if n == 0 else f"compare_max_risk_{n}", key,
                                         default=first_bound(key, owners, keys), label=label)
    decision = remembered(st.radio, "Judge each value's risk by", "compare_decision", "upper", options=list(DECISIONS),
                          horizontal=True, format_func=lambda d: {"upper": "upper end of its band",
                                                                 "mean": "its mean"}[d],
                          help="the upper end of the 95% Monte-Carlo band is the cautious choice (the default)")
    scale = remembered(st.radio, "Utility", "compare_utility_scale", "as computed", options=list(UTILITY_SCALES),
                       horizontal=True, help="efficiency or a normalised utility puts curves whose utilities differ "
                                             "by orders of magnitude on one scale")
    choices = [curve_recommendation(a, m, bounds[k], decision) for a, m, k in zip(owners, maps, keys, strict=True)]
    decisions = map_decisions(owners, maps, [bounds[k] for k in keys], decision)  # one per map, all its curves
    utilities = [scaled_utility(d.chosen, maps[d.curve], scale) if d.chosen.feasible else float("nan")
                 for d in decisions]
    scaled = utility_on_scale(maps, scale)
    log_x = cols[1].checkbox("log utility axis", value=False, key="compare_log_x")
    log_y = cols[2].checkbox("log risk axis", value=True, key="compare_log_y")
    choice = best_choice(decisions, utilities, scaled, names)
    one_bound = next(iter(bounds.values())) if len(bounds) == 1 else None
    note = measures_note(decisions, maps, [bound_for(d.owner) for d in decisions])
    if note:
        st.info(plain(note), icon=":material/straighten:")
    words = {SHARED_MEASURES[m.risk_label].words for m in maps if m.risk_label in SHARED_MEASURES} - {""}
    for line in sorted(words):
        st.caption(plain(line))
    plot(comparison_figure(scaled, names, log_x=log_x, log_y=log_y, max_risk=one_bound, choice=choice),
         key="compare_map")
    if choice.reachable:
        symbol = PARAMETER_SYMBOLS.get(choice.parameter, choice.parameter)
        won = next(d for d in decisions if d.curve == choice.map_index)
        best = won.chosen
        measure = plain(maps[choice.map_index].risk_label)
        every = f", safe for each of its {len(won.curves)} curves drawn" if len(won.curves) > 1 else ""
        st.success(f"For risk at most {best.max_risk:.4g} ({measure}), the most utility ({choice.utility:.4g}) "
                   f"comes from **{plain(won.owner.name)}** with {symbol} = {format_number(best.value)} (risk "
                   f"{format_number(best.risk)}{', exact' if best.exact else ''}{every})."
                   f"{uncertainty_phrase(best)}")
    missing = [unprotected(d, maps) for d in decisions if not d.chosen.feasible]
    if missing:
        head = "" if choice.reachable else "No compared map has a value that keeps all of its curves within its bound. "
        st.warning(plain(head + "; ".join(missing) + "."))
    for key, bound in bounds.items():
        error = (f" (a tolerable average error of {format_number(error_of_max_risk(bound))} in data units)"
                 if key.startswith(MSE_MEASURE) else "")
        st.markdown(f"**Where each curve reaches the threshold R ≤ {format_number(bound)}**{error}")
        crossings = []
        for m, name, k, c in zip(maps, names, keys, choices, strict=True):
            if k != key:
                continue
            symbol = PARAMETER_SYMBOLS.get(m.parameter, m.parameter)
            if c.feasible:
                crossings.append(f"- {plain(name)}: reached at {symbol} = {format_number(c.value)}"
                                 f"{' (exact)' if c.exact else ''} (utility {format_number(c.utility)}, "
                                 f"risk {format_number(c.risk)})")
            else:
                crossings.append(f"- {plain(name)}: no {symbol} on the grid reaches it (lowest risk "
                                 f"{format_risk(float(np.nanmin(m.risk)))})")
        st.markdown("\n".join(crossings))
    recommended = {j: d.chosen.value for d in decisions for j in d.curves}
    rows = [{"map": name, "parameter": m.parameter, "reaches the bound at": c.value, "utility": c.utility,
             "risk": c.risk, "risk (band's upper end)": c.risk_upper, "efficiency": c.efficiency,
             "P(risk above the bound)": c.p_exceed, "reaches the bound": c.feasible,
             "map's recommendation": recommended[j]}
            for j, (m, name, c) in enumerate(zip(maps, names, choices, strict=True))]
    table(rows, width="stretch", hide_index=True)

with st.expander("Remove kept maps"):
    for a in list(kept):
        if st.button(f"Remove “{plain(a.name)}”", key=f"remove_{a.name}"):
            kept.remove(a)
            st.rerun()
