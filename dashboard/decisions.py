"""The recommendation of each compared curve, from the core's one rule (:mod:`rumap.maps.recommend`).

A compared curve is one of a kept analysis's curves, or the worst case over them; either way its
recommendation is the analysis's own (:meth:`rumap.specs.Analysis.recommendation`), so an analytic
map gives its exact optimum and a simulation its uncertainty. Each curve is judged against the bound of
its own risk measure and units.
"""

from __future__ import annotations

import math

from rumap.maps.pareto import GridChoice
from rumap.maps.recommend import Recommendation, recommend
from rumap.result import RUMap
from rumap.specs import Analysis


def curve_recommendation(owner: Analysis, m: RUMap, max_risk: float, decision: str = "upper") -> Recommendation:
    """The recommendation for curve ``m`` of ``owner`` (or the worst case over its curves) under ``max_risk``.

    Parameters
    ----------
    owner : Analysis
        The kept analysis the curve comes from.
    m : RUMap
        One of its maps, or their envelope (``knowledge == "rational"``).
    max_risk : float
    decision : {"upper", "mean"}

    Returns
    -------
    Recommendation
    """
    for i, curve in enumerate(owner.maps):
        if curve is m:
            return owner.recommendation(max_risk, decision, index=i)
    if m.knowledge == "rational" and m.config.get("states"):  # the worst case over the curves of its measure
        same = tuple(i for i, curve in enumerate(owner.maps) if curve.risk_label == m.risk_label)
        return owner.recommendation(max_risk, decision, index=same)
    return recommend([m], max_risk, decision)


def scaled_utility(chosen: Recommendation, m: RUMap, scale: str) -> float:
    """The chosen point's utility on the Compare page's scale (as computed, efficiency or normalised)."""
    if scale == "efficiency":
        return math.nan if chosen.efficiency is None else float(chosen.efficiency)
    if scale == "normalised":
        finite = [u for u in m.utility.tolist() if math.isfinite(u)]
        return float(chosen.utility) / max(finite) if finite and max(finite) > 0 else math.nan
    return float(chosen.utility)


def best_choice(choices: list[Recommendation], utilities: list[float], maps: list[RUMap],
                names: list[str]) -> GridChoice:
    """The feasible recommendation keeping the most utility (on one scale), as the figure's marker.

    Parameters
    ----------
    choices : list of Recommendation
        One per compared curve.
    utilities : list of float
        Each one's utility on the page's scale.
    maps : list of RUMap
    names : list of str

    Returns
    -------
    GridChoice
        Not reachable when no curve has a safe value.
    """
    feasible = [i for i, c in enumerate(choices) if c.feasible and not math.isnan(utilities[i])]
    if not feasible:
        return GridChoice(max_risk=choices[0].max_risk if choices else math.nan, reachable=False)
    i = max(feasible, key=lambda j: (utilities[j], -j))
    c = choices[i]
    return GridChoice(max_risk=c.max_risk, reachable=True, map=names[i], method=maps[i].method,
                      parameter=maps[i].parameter, value=float(c.value), utility=utilities[i], risk=float(c.risk),
                      map_index=i)
