"""Plain-language statements about R-U maps, for reports, committees and students.

:func:`map_choice` picks, for one map and a maximum tolerable risk, the
parameter that keeps the most utility (exact for analytic maps, the best grid
point otherwise); :func:`one_sentence` states risk and utility there in one
sentence; :func:`summary_lines` gives a short summary of a whole analysis.
"""

from __future__ import annotations

import math

import numpy as np

from rumap._validation import InstanceOf, validate_params
from rumap.errors import InputError
from rumap.maps.analytic import STATES, analytic_map
from rumap.maps.methods import UNMASKED
from rumap.maps.optimum import Optimum
from rumap.maps.pareto import GridChoice
from rumap.maps.recommend import Recommendation
from rumap.maps.subsample import error_sentence
from rumap.present.examples import small_analysis
from rumap.present.numbers import EXACT_DISCLOSURE, format_number
from rumap.present.plotting import PARAMETER_SYMBOLS
from rumap.result import RUMap
from rumap.specs import Analysis

__all__ = ["map_choice", "recommendation_on_curve", "one_sentence", "summary_lines", "knowledge_phrase", "describe_optimum", "recommendation",
           "recommendation_sentence", "uncertainty_phrase", "exact_disclosure_phrase", "map_lines", "crossing_lines"]


_TARGET_PHRASES = {"max": "the largest value", "min": "the smallest value"}


def _ordinal(p: float) -> str:
    pct = round(100 * p, 4)
    whole = int(pct) if float(pct).is_integer() else pct
    if isinstance(whole, int):
        suffix = "th" if 10 <= whole % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(whole % 10, "th")
        return f"{whole}{suffix}"
    return f"{whole}th"


def _target_phrase(target: str) -> str:
    if target in _TARGET_PHRASES:
        return _TARGET_PHRASES[target]
    if target.startswith("p") and target[1:].replace(".", "", 1).isdigit():
        return f"the {_ordinal(float(target[1:]) / 100)} percentile"
    return target or "a record"


@validate_params({"m": InstanceOf(RUMap)}, example=lambda: {"m": small_analysis().maps[0]})
def knowledge_phrase(m: RUMap) -> str:
    """Who the snooper is, e.g. ``"who can link the target to its masked record"``.

    Parameters
    ----------
    m : RUMap

    Returns
    -------
    str
    """
    if m.method == "analytic" and m.knowledge in STATES:
        p = float(m.config.get("p", 0.99) or 0.99)
        return STATES[m.knowledge].who.format(p=_ordinal(p))
    target = _target_phrase(m.target)
    if m.knowledge == "index":
        return f"who can link {target} to its masked record"
    if m.knowledge == "position":
        return f"who knows the target is {target} and takes the masked value in that position"
    return f"with {m.knowledge or 'some'} knowledge of {target}"


def _as_choice(analysis: Analysis, chosen: Recommendation) -> GridChoice:
    """The core's recommendation as the figures' marker (the chosen point on the deciding curve)."""
    if not chosen.feasible:
        return GridChoice(max_risk=chosen.max_risk, reachable=False)
    m = analysis.maps[max(chosen.map_index, 0)]
    return GridChoice(max_risk=chosen.max_risk, reachable=True, map=m.label, method=m.method, parameter=m.parameter,
                      value=float(chosen.value), utility=float(chosen.utility), risk=float(chosen.risk),
                      map_index=max(chosen.map_index, 0))


def _check_index(analysis: Analysis, index: int) -> None:
    if index >= len(analysis.maps):
        raise InputError(f"index must be a map's position (0 to {len(analysis.maps) - 1}), got {index}")


#: The checks of the functions that read one curve of an analysis.
_ONE_CURVE = {"analysis": InstanceOf(Analysis), "index": "position", "max_risk": [None, "max_risk"]}


@validate_params(_ONE_CURVE, example=lambda: {"analysis": small_analysis(), "index": 0})
def map_choice(analysis: Analysis, index: int, max_risk: float | None = None) -> GridChoice | None:
    """The parameter of map ``index`` that keeps the most utility with risk at most ``max_risk``.

    Parameters
    ----------
    analysis : Analysis
    index : int
        Which of ``analysis.maps``.
    max_risk : float, optional
        Default: the analysis's own maximum tolerable risk. ``None`` then
        means there is no bound and no choice.

    Returns
    -------
    GridChoice or None
        The rule of :func:`rumap.maps.recommend.recommend` for this curve alone
        (:meth:`rumap.specs.Analysis.recommendation`): for analytic maps the
        exact optimum in the range shown.
    """
    _check_index(analysis, index)
    chosen = analysis.recommendation(max_risk, index=index)
    return None if chosen is None else _as_choice(analysis, chosen)


@validate_params(_ONE_CURVE, example=lambda: {"analysis": small_analysis(), "index": 1})
def recommendation_on_curve(analysis: Analysis, index: int, max_risk: float | None = None) -> GridChoice | None:
    """The map's one recommendation (:func:`recommendation`, every curve shown) read on curve ``index``.

    A slide or a line about one curve shows the value the map recommends, never that curve's own best value
    (which may leave another curve's target unprotected): the value, and this curve's risk and utility there.
    A curve of another risk measure than the first's has its own bound and decision (:func:`map_choice`).

    Parameters
    ----------
    analysis : Analysis
    index : int
        Which of ``analysis.maps``.
    max_risk : float, optional
        Default: the analysis's own maximum tolerable risk (``None`` then means no bound and no choice).

    Returns
    -------
    GridChoice or None
        Not reachable when no value is safe for every curve.

    Examples
    --------
    >>> from rumap.present.examples import small_analysis
    >>> from rumap.present.statements import recommendation_on_curve
    >>> choice = recommendation_on_curve(small_analysis(), 1)  # the population's curve, at the record's value
    >>> round(choice.value, 6), choice.map, round(choice.risk, 3)
    (0.2, 'population', 0.994)
    """
    _check_index(analysis, index)
    m = analysis.maps[index]
    if m.risk_label != analysis.maps[0].risk_label:
        return map_choice(analysis, index, max_risk)
    chosen = analysis.recommendation(max_risk)
    if chosen is None or not chosen.feasible:
        return None if chosen is None else GridChoice(max_risk=chosen.max_risk, reachable=False)
    if chosen.exact and analysis.setting is not None:  # the exact optimum lies between the grid's values
        at = analytic_map([m.knowledge], [chosen.value], analysis.setting)[0]
        risk, utility = float(at.risk[0]), float(at.utility[0])
    else:
        pos = int(np.argmin(np.abs(m.values - chosen.value)))
        risk, utility = float(m.risk[pos]), float(m.utility[pos])
    return GridChoice(max_risk=chosen.max_risk, reachable=True, map=m.label, method=m.method, parameter=m.parameter,
                      value=float(chosen.value), utility=utility, risk=risk, map_index=index)


def _efficiency_at(m: RUMap, choice: GridChoice) -> float | None:
    if m.efficiency is None or m.values.size == 0:
        return None
    if m.method == "analytic" and "sigma2" in m.config:
        sigma2 = float(m.config["sigma2"])
        return sigma2 / (sigma2 + choice.value)
    pos = int((abs(m.values - choice.value)).argmin())
    return float(m.efficiency[pos])


@validate_params({"m": InstanceOf(RUMap)}, example=lambda: {"m": small_analysis().maps[0]})
def exact_disclosure_phrase(m: RUMap) -> str:
    """Where masking leaves the target exactly recoverable (infinite risk), in words ("" if nowhere).

    The value that masks nothing (λ² = 0, k = 1, a swap of 0%) is left out: there the data are released as
    they are.

    Parameters
    ----------
    m : RUMap

    Returns
    -------
    str

    Examples
    --------
    >>> from rumap.result import RUMap
    >>> from rumap.present.statements import exact_disclosure_phrase
    >>> exact_disclosure_phrase(RUMap(parameter="k", values=[2, 7, 8], risk=[1.0, float("inf"), float("inf")],
    ...                               utility=[1.0, 1.0, 1.0]))
    ' At k = 7 and 8 the snooper recovers the target exactly: an exact disclosure.'
    """
    exact = m.values[np.isposinf(m.risk) & (m.values != UNMASKED.get(m.parameter, np.nan))]
    if not exact.size:
        return ""
    symbol = PARAMETER_SYMBOLS.get(m.parameter, m.parameter)
    shown = [format_number(float(v)) for v in exact[:6]]
    listed = shown[0] if len(shown) == 1 else ", ".join(shown[:-1]) + f" and {shown[-1]}"
    if exact.size > len(shown):
        listed = ", ".join(shown) + f" and {exact.size - len(shown)} more values"
    return f" At {symbol} = {listed} the snooper recovers the target exactly: an {EXACT_DISCLOSURE}."


@validate_params({"m": InstanceOf(RUMap), "choice": [None, InstanceOf(GridChoice)]},
                 example=lambda: {"m": small_analysis().maps[0], "choice": None})
def one_sentence(m: RUMap, choice: GridChoice | None) -> str:
    """Risk and utility at the chosen parameter, in one sentence.

    Example: "With λ² = 0.2, a snooper who can link the target to its masked
    record has risk 5 (mean squared error 0.2), below the tolerable 5, and the
    data keep utility 167 (83% efficiency)."

    Parameters
    ----------
    m : RUMap
    choice : GridChoice or None
        The chosen parameter (:func:`map_choice`); None for a map without a risk bound.

    Returns
    -------
    str
    """
    symbol = PARAMETER_SYMBOLS.get(m.parameter, m.parameter)
    who = knowledge_phrase(m)
    exact = exact_disclosure_phrase(m)
    if choice is None:
        return (f"This map shows how the risk from a snooper {who} falls as {symbol} grows, and what utility "
                f"remains.{exact}")
    if not choice.reachable:
        return (f"No {symbol} on this map brings the risk from a snooper {who} down to the tolerable "
                f"{format_number(choice.max_risk)}.{exact}")
    eff = _efficiency_at(m, choice)
    eff_text = f" ({eff:.0%} efficiency)" if eff is not None else ""
    mse = 1 / choice.risk if choice.risk > 0 else math.inf
    mse_text = f" (mean squared error {format_number(mse)})" if m.risk_label.startswith("R = 1 /") else ""
    if choice.value == 0:
        start = "Without any masking"
    else:
        start = f"With {symbol} = {format_number(choice.value)}"
    return (f"{start}, a snooper {who} has risk {format_number(choice.risk)}{mse_text}, at most the tolerable "
            f"{format_number(choice.max_risk)}, and the data keep utility {format_number(choice.utility)}{eff_text}."
            f"{exact}")


@validate_params({"analysis": InstanceOf(Analysis), "max_risk": [None, "max_risk"]},
                 example=lambda: {"analysis": small_analysis()})
def recommendation(analysis: Analysis, max_risk: float | None = None) -> GridChoice | None:
    """The parameter that keeps every curve of the analysis at or below the maximum tolerable risk.

    The agency does not know which snooper it faces, so it protects against the
    most dangerous one: the rule of :func:`rumap.maps.recommend.recommend` over
    every curve (for analytic maps the exact optimum, Duncan et al. 2001, section 3).

    Parameters
    ----------
    analysis : Analysis
    max_risk : float, optional
        Default: the analysis's own maximum tolerable risk (``None`` then means no bound and no recommendation).

    Returns
    -------
    GridChoice or None
        ``map`` names the curve that sets the parameter; not reachable when
        no value is safe for every curve.

    Examples
    --------
    >>> from rumap.specs import AnalyticSpec
    >>> from rumap.present.statements import recommendation
    >>> choice = recommendation(AnalyticSpec(n=200, sigma2=1.0, states=("record", "population"), max_risk=5.0).run())
    >>> round(choice.value, 6), choice.map
    (0.2, 'record')
    """
    chosen = analysis.recommendation(max_risk)
    return None if chosen is None else _as_choice(analysis, chosen)


@validate_params({"chosen": InstanceOf(Recommendation)},
                 example=lambda: {"chosen": Recommendation(True, 0.2, 1.0, 1.2, 3.0, 0.9, None, "", p_exceed=0.03,
                                                           value_interval=(0.15, 0.25), parameter="lambda2")})
def uncertainty_phrase(chosen: Recommendation) -> str:
    """The decision's uncertainty in words, from a simulation's replicates ("" without them).

    Parameters
    ----------
    chosen : Recommendation

    Returns
    -------
    str

    Examples
    --------
    >>> from rumap.maps.recommend import Recommendation
    >>> from rumap.present.statements import uncertainty_phrase
    >>> uncertainty_phrase(Recommendation(True, 0.2, 1.0, 1.2, 3.0, 0.9, None, "", p_exceed=0.03,
    ...                                   value_interval=(0.15, 0.25), parameter="lambda2"))
    ' The replicates give a 3% chance that its risk exceeds the bound, and put the smallest safe λ² between 0.15 and 0.25 (95%).'
    >>> uncertainty_phrase(Recommendation(True, 2, 1.0, 1.2, 3.0, 0.9, None, "", p_exceed=0.0,
    ...                                   value_interval=(2, 2), parameter="k"))
    ' No resample of the replicates puts its risk above the bound; they put the smallest safe k at 2 in at least 95% of the resamples.'
    """
    if chosen.p_exceed is None or chosen.value_interval is None:
        return ""
    symbol = PARAMETER_SYMBOLS.get(chosen.parameter, chosen.parameter)
    low, high = chosen.value_interval
    if not math.isfinite(high):
        where = f"at {format_number(low)} or beyond the grid (95%)"
    elif low == high:
        where = f"at {format_number(low)} in at least 95% of the resamples"
    else:
        where = f"between {format_number(low)} and {format_number(high)} (95%)"
    p = chosen.p_exceed
    if p == 0:
        return f" No resample of the replicates puts its risk above the bound; they put the smallest safe {symbol} {where}."
    chance = "a chance under 1%" if p < 0.01 else f"a {p:.0%} chance"
    return f" The replicates give {chance} that its risk exceeds the bound, and put the smallest safe {symbol} {where}."


@validate_params({"analysis": InstanceOf(Analysis), "max_risk": [None, "max_risk"]},
                 example=lambda: {"analysis": small_analysis()})
def recommendation_sentence(analysis: Analysis, max_risk: float | None = None) -> str | None:
    """The recommendation in one sentence, the first thing a reader is told; ``None`` without a risk bound.

    Parameters
    ----------
    analysis : Analysis
    max_risk : float, optional
        Default: the analysis's own maximum tolerable risk.

    Returns
    -------
    str or None

    Examples
    --------
    >>> from rumap.specs import AnalyticSpec
    >>> from rumap.present.statements import recommendation_sentence
    >>> print(recommendation_sentence(AnalyticSpec(n=200, sigma2=1.0, states=("record", "population"),
    ...                                            max_risk=5.0).run()))
    Recommendation: λ² = 0.2. It keeps the risk from every snooper shown at or below the tolerable 5 (the most demanding is the snooper who can link the target to its masked record), and the data keep utility 167 (83% efficiency).
    """
    chosen = analysis.recommendation(max_risk)
    if chosen is None:
        return None
    m = analysis.maps[0]
    symbol = PARAMETER_SYMBOLS.get(m.parameter, m.parameter)
    if not chosen.feasible:
        return (f"Recommendation: none on this grid. No {symbol} shown keeps the risk from every snooper at or below "
                f"the tolerable {format_number(chosen.max_risk)}: extend the grid, or accept a larger risk.")
    choice = _as_choice(analysis, chosen)
    picked = analysis.maps[choice.map_index]
    eff = chosen.efficiency if chosen.efficiency is not None else _efficiency_at(picked, choice)
    eff_text = f" ({eff:.0%} efficiency)" if eff is not None else ""
    start = "no masking is needed" if chosen.value == 0 else f"{symbol} = {format_number(chosen.value)}"
    demanding = f" (the most demanding is the snooper {knowledge_phrase(picked)})" if len(analysis.maps) > 1 else ""
    return (f"Recommendation: {start}. It keeps the risk from every snooper shown at or below the tolerable "
            f"{format_number(chosen.max_risk)}{demanding}, and the data keep utility "
            f"{format_number(chosen.utility)}{eff_text}.{uncertainty_phrase(chosen)}")


@validate_params({"analysis": InstanceOf(Analysis)}, example=lambda: {"analysis": small_analysis()})
def map_lines(analysis: Analysis) -> list[str]:
    """One sentence per map of the analysis (:func:`one_sentence` at the analysis's one recommendation).

    Each curve is read at the value recommended for every curve (:func:`recommendation_on_curve`); when no
    value is safe for every curve, at the value where that curve alone first meets the bound, if any.

    Parameters
    ----------
    analysis : Analysis

    Returns
    -------
    list of str
    """
    lines = []
    for i, m in enumerate(analysis.maps):
        choice = recommendation_on_curve(analysis, i)
        lines.append(one_sentence(m, map_choice(analysis, i) if choice is not None and not choice.reachable
                                  else choice))
    return lines


@validate_params({"analysis": InstanceOf(Analysis)}, example=lambda: {"analysis": small_analysis()})
def crossing_lines(analysis: Analysis) -> list[str]:
    """Where the analysis's curves cross: there a rational snooper switches estimator.

    Parameters
    ----------
    analysis : Analysis

    Returns
    -------
    list of str
    """
    return [f"The curves for {c.states[0]} and {c.states[1]} knowledge cross at λ² = {format_number(c.lambda2)} "
            f"(risk {format_number(c.risk)}): there a rational snooper switches estimator."
            for c in analysis.crossings]


@validate_params({"analysis": InstanceOf(Analysis)}, example=lambda: {"analysis": small_analysis()})
def summary_lines(analysis: Analysis) -> list[str]:
    """A plain-language summary of an analysis: the recommendation, one sentence per map, where curves cross.

    Parameters
    ----------
    analysis : Analysis

    Returns
    -------
    list of str
    """
    first = recommendation_sentence(analysis)
    sampled = [] if analysis.subsample is None else [error_sentence(analysis.subsample.to_dict())]
    return [*([first] if first else []), *sampled, *map_lines(analysis), *crossing_lines(analysis)]


@validate_params({"optimum": InstanceOf(Optimum)}, example=lambda: {"optimum": small_analysis().optima[0]})
def describe_optimum(optimum: Optimum) -> str:
    """A plain-language sentence about an optimum, for reports and committees.

    Parameters
    ----------
    optimum : Optimum
        The smallest noise variance that meets a risk bound
        (:func:`rumap.maps.optimum.max_tolerable_risk`).

    Returns
    -------
    str

    Examples
    --------
    >>> from rumap.maps.setting import AnalyticSetting
    >>> from rumap.maps.optimum import max_tolerable_risk
    >>> from rumap.present.statements import describe_optimum
    >>> describe_optimum(max_tolerable_risk("record", AnalyticSetting(n=200, sigma2=1.0), max_risk=5.0))
    "with record knowledge, noise variance 0.2 keeps the snooper's mean squared error at or above 0.2 while the mean keeps 83% efficiency"
    """
    state = STATES.get(optimum.state)
    phrase = state.noun if state is not None else f"{optimum.state} knowledge"
    mse = 1.0 / optimum.max_risk
    if not optimum.reachable:
        return (f"with {phrase}, no noise variance keeps the snooper's mean squared error "
                f"at or above {format_number(mse)}")
    if optimum.lambda2 == 0:
        return (f"with {phrase}, no noise is needed: the snooper's mean squared error is already "
                f"at or above {format_number(mse)} and the mean keeps 100% efficiency")
    return (f"with {phrase}, noise variance {format_number(optimum.lambda2)} keeps the snooper's mean squared error "
            f"at or above {format_number(mse)} while the mean keeps {optimum.efficiency:.0%} efficiency")
