"""The recommendation of each compared curve, from the core's one rule (:mod:`rumap.maps.recommend`).

A compared curve is one of a kept analysis's curves, or the worst case over them; either way its
recommendation is the analysis's own (:meth:`rumap.specs.Analysis.recommendation`), so an analytic
map gives its exact optimum and a simulation its uncertainty. Each curve is judged against the bound of
its own risk measure and units.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from dashboard.risk_bound import analysis_key, stored_bound
from rumap.errors import InputError
from rumap.maps.common import COMMON_KNOWLEDGE, COMMON_RISK_LABEL
from rumap.maps.pareto import GridChoice
from rumap.maps.recommend import Recommendation, recommend
from rumap.maps.table_common import TABLE_COMMON_KNOWLEDGE, TABLE_COMMON_RISK_LABEL, TABLE_COMMON_WORDS
from rumap.present.numbers import format_number
from rumap.present.plotting import PARAMETER_SYMBOLS
from rumap.result import RUMap
from rumap.specs import Analysis

#: The tolerable share of records re-identified (the common measures' R) before the user sets one.
COMMON_FIRST_BOUND = 0.05


@dataclass(frozen=True)
class SharedMeasure:
    """A risk that maps of different methods share, a share whatever the data: how Compare asks for its bound.

    Attributes
    ----------
    label : str
        The bound's input label.
    first_bound : float
        The bound before the user sets one.
    words : str
        What the compared maps measure, in words ("" to say nothing).
    """

    label: str
    first_bound: float
    words: str = ""


#: The shared risks, by risk label: the masking methods' common measures, and those of protected count tables.
SHARED_MEASURES = {
    COMMON_RISK_LABEL: SharedMeasure("Tolerable share of records re-identified", COMMON_FIRST_BOUND),
    TABLE_COMMON_RISK_LABEL: SharedMeasure("Tolerable share of small counts recovered exactly", 0.2,
                                           TABLE_COMMON_WORDS),
}
#: The knowledge of a curve on shared measures (not a snooper's state of a map of its own).
SHARED_KNOWLEDGE = (COMMON_KNOWLEDGE, TABLE_COMMON_KNOWLEDGE)


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
    index = _own_indices(owner, m)
    if index is None:  # a curve of no map of its own (the common measures)
        return recommend([m], max_risk, decision)
    return owner.recommendation(max_risk, decision, index=index[0] if owner.maps[index[0]] is m else index)


def scaled_utility(chosen: Recommendation, m: RUMap, scale: str) -> float:
    """The chosen point's utility on the Compare page's scale (as computed, efficiency or normalised)."""
    if scale == "efficiency":
        return math.nan if chosen.efficiency is None else float(chosen.efficiency)
    if scale == "normalised":
        finite = [u for u in m.utility.tolist() if math.isfinite(u)]
        return float(chosen.utility) / max(finite) if finite and max(finite) > 0 else math.nan
    return float(chosen.utility)


def best_choice(decisions: list[MapDecision], utilities: list[float], maps: list[RUMap],
                names: list[str]) -> GridChoice:
    """The feasible recommendation keeping the most utility (on one scale), as the figure's marker.

    Parameters
    ----------
    decisions : list of MapDecision
        One per compared map (:func:`map_decisions`).
    utilities : list of float
        Each one's utility on the page's scale.
    maps : list of RUMap
        The compared curves.
    names : list of str
        Their names.

    Returns
    -------
    GridChoice
        On the curve that decides the best map's value (``map_index`` its position among the compared curves);
        not reachable when no map has a safe value.
    """
    feasible = [i for i, d in enumerate(decisions) if d.chosen.feasible and not math.isnan(utilities[i])]
    if not feasible:
        return GridChoice(max_risk=decisions[0].chosen.max_risk if decisions else math.nan, reachable=False)
    i = max(feasible, key=lambda j: (utilities[j], -j))
    c, j = decisions[i].chosen, decisions[i].curve
    return GridChoice(max_risk=c.max_risk, reachable=True, map=names[j], method=maps[j].method,
                      parameter=maps[j].parameter, value=float(c.value), utility=utilities[i], risk=float(c.risk),
                      map_index=j)


@dataclass(frozen=True)
class MapDecision:
    """One compared map's recommendation: safe for every curve of it drawn, as the core decides it.

    Attributes
    ----------
    owner : Analysis
        The kept analysis.
    curves : tuple of int
        The positions of its curves among the compared ones.
    chosen : Recommendation
        The core's rule over those curves together (:meth:`rumap.specs.Analysis.recommendation`).
    curve : int
        The position, among the compared curves, of the curve that decides it.
    """

    owner: Analysis
    curves: tuple[int, ...]
    chosen: Recommendation
    curve: int


def _own_indices(owner: Analysis, m: RUMap) -> tuple[int, ...] | None:
    """The positions in ``owner.maps`` that curve ``m`` stands for: its own, or for their worst case (the
    envelope, ``knowledge == "rational"``) every curve of its measure; None for a curve of no map of its own."""
    for i, curve in enumerate(owner.maps):
        if curve is m:
            return (i,)
    if m.knowledge == "rational" and m.config.get("states"):
        return tuple(i for i, curve in enumerate(owner.maps) if curve.risk_label == m.risk_label)
    return None


def map_decisions(owners: list[Analysis], maps: list[RUMap], bounds: list[float],
                  decision: str = "upper") -> list[MapDecision]:
    """Each compared map's one recommendation, over all of its curves drawn (never one curve of several alone).

    Curves drawn each on their own (every target and knowledge state of a map) are decided together, as
    every other page decides them: a value is recommended only if it keeps every one of them within the bound.

    Parameters
    ----------
    owners : list of Analysis
        The analysis of each compared curve.
    maps : list of RUMap
        The compared curves.
    bounds : list of float
        Each curve's bound (that of its risk measure and units).
    decision : {"upper", "mean"}

    Returns
    -------
    list of MapDecision
        One per analysis, in the order of its first curve.
    """
    positions: dict[int, list[int]] = {}
    for j, owner in enumerate(owners):
        positions.setdefault(id(owner), []).append(j)
    out = []
    for js in positions.values():
        owner, bound = owners[js[0]], bounds[js[0]]
        if len(js) == 1:
            chosen = curve_recommendation(owner, maps[js[0]], bound, decision)
        else:
            own = [_own_indices(owner, maps[j]) for j in js]
            try:
                if any(i is None for i in own):
                    raise InputError("its curves are not all of its own maps")
                index = tuple(sorted({i for group in own for i in group}))
                chosen = owner.recommendation(bound, decision, index=index)
            except InputError as exc:  # e.g. curves over different grids: no one value for all of them
                chosen = Recommendation(False, None, None, None, None, None, None,
                                        f"no one value for all of its curves: {exc}", max_risk=bound,
                                        decision=decision, parameter=maps[js[0]].parameter)
        deciding = owner.maps[chosen.map_index] if 0 <= chosen.map_index < len(owner.maps) else None
        curve = next((j for j in js if maps[j] is deciding), js[0])
        out.append(MapDecision(owner, tuple(js), chosen, curve))
    return out


def unprotected(d: MapDecision, maps: list[RUMap]) -> str:
    """Why a map has no recommendation, naming the target no value protects.

    Parameters
    ----------
    d : MapDecision
        An infeasible decision.
    maps : list of RUMap
        The compared curves.

    Returns
    -------
    str
    """
    m = maps[d.curve]
    symbol = PARAMETER_SYMBOLS.get(m.parameter, m.parameter)
    binding = d.chosen.binding or {}
    bound = format_number(d.chosen.max_risk)
    if binding.get("target"):  # a snooper of one target: the one no value protects
        return (f"{d.owner.name}: no {symbol} on this grid protects target {binding['target']} "
                f"({binding.get('knowledge') or 'any'} knowledge) at R ≤ {bound}, so none is recommended")
    if binding.get("knowledge") and binding["knowledge"] not in SHARED_KNOWLEDGE:  # an analytic map's state
        return (f"{d.owner.name}: no {symbol} on this grid protects against the snooper with "
                f"{binding['knowledge']} knowledge at R ≤ {bound}, so none is recommended")
    if binding:
        return f"{d.owner.name}: no {symbol} on this grid keeps its risk at R ≤ {bound}, so none is recommended"
    return f"{d.owner.name}: none recommended ({d.chosen.reason})"


def measures_note(decisions: list[MapDecision], maps: list[RUMap], own_bounds: list[float | None]) -> str:
    """Which measures and bound the comparison uses, when they are not every compared map's own ("" when they are).

    Parameters
    ----------
    decisions : list of MapDecision
    maps : list of RUMap
        The compared curves.
    own_bounds : list of float or None
        Per decision, the bound of its analysis's own measure (:func:`dashboard.risk_bound.bound_for`).

    Returns
    -------
    str
        The measures drawn and why, and each map's own recommendation on its own measures and bound (the one
        its page, the report and the command line give).
    """
    drawn = (maps[0].risk_label, maps[0].utility_label)
    others = [(d, b) for d, b in zip(decisions, own_bounds, strict=True)
              if d.owner.maps and (d.owner.maps[0].risk_label, d.owner.maps[0].utility_label) != drawn]
    if not others:
        return ""
    own = {(d.owner.maps[0].risk_label, d.owner.maps[0].utility_label) for d in decisions if d.owner.maps}
    why = ("the chosen maps measure R and U differently, and these are the measures they share" if len(own) > 1
           else "as chosen above")
    lines = [f"Compared on R = {drawn[0].removeprefix('R = ')} and U = {drawn[1].removeprefix('U = ')} ({why}), "
             f"against the bound set here, not on each map's own measures and bound:"]
    for d, bound in others:
        m = d.owner.maps[0]
        chosen = None if bound is None else d.owner.recommendation(bound)
        if chosen is None:
            mine = "it has no bound of its own measure"
        elif chosen.feasible:
            symbol = PARAMETER_SYMBOLS.get(chosen.parameter, chosen.parameter)
            mine = f"under its own bound R_max = {format_number(bound)} it recommends {symbol} = " \
                   f"{format_number(chosen.value)}"
        else:
            mine = f"under its own bound R_max = {format_number(bound)} no value on its grid is safe"
        lines.append(f"- {d.owner.name}: its own risk is {m.risk_label}; {mine} (as on its page and in the report).")
    return "\n".join(lines)


def first_bound(key: str, owners: list[Analysis], keys: list[str]) -> float | None:
    """The bound of measure ``key`` before the session sets one: the common measures' first share, else a map's own.

    Parameters
    ----------
    key : str
        A bound key (:func:`dashboard.risk_bound.spec_key`).
    owners : list of Analysis
        The analysis of each compared curve.
    keys : list of str
        Each compared curve's bound key.

    Returns
    -------
    float or None
        None when no compared analysis of that measure has a bound.
    """
    if key in SHARED_MEASURES:  # a share, whatever the method
        return SHARED_MEASURES[key].first_bound
    return next((a.max_risk for a, k in zip(owners, keys, strict=True)
                 if k == key and a.max_risk and analysis_key(a) == key), None)


def session_bound(key: str, owners: list[Analysis], keys: list[str]) -> float | None:
    """The bound of measure ``key`` the pages judge by: the session's (as set on Compare or a map's page), else
    :func:`first_bound`."""
    stored = stored_bound(key)
    return stored if stored is not None else first_bound(key, owners, keys)
