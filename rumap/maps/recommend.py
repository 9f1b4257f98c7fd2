"""The recommendation under a maximum tolerable risk: one rule for every map and every front end.

The rule: among the parameter values whose risk is at most the bound ``R_max``
for every target and knowledge state shown, the one keeping the most utility.
The risk a value is judged by is the upper end of its 95% Monte-Carlo band
(``decision="upper"``, the default) or its mean (``decision="mean"``). The
utility is the map's efficiency where it has one (a share in [0, 1]), else U in
its measure's direction; among values keeping the same utility the smallest
value is chosen (the least masking). When no value qualifies the result says so
and why: it is never the grid's end. Where a closed form exists (the analytic
map of additive noise), :func:`recommend_exact` gives the exact optimum.

For a simulated map the replicates also give the uncertainty of the decision:
resampling them (the bootstrap) gives the probability that the chosen value's
risk exceeds the bound and an interval for the smallest safe value.

References
----------
Duncan, Keller-McNulty & Stokes (2001), Sections 2-3 (maximum tolerable risk);
Efron & Tibshirani (1993), *An Introduction to the Bootstrap*, Ch. 13 (percentile intervals).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from rumap._validation import PARAMETERS, Boolean, InstanceOf, ListOf, NumberArray, StrOptions, validate_params
from rumap.errors import InputError
from rumap.maps.analytic import STATE_NAMES, analytic_map, check_state, efficiency, utility_mean
from rumap.maps.optimum import _LARGEST, max_tolerable_risk
from rumap.maps.setting import AnalyticSetting
from rumap.maps.utility import higher_is_better
from rumap.result import RUMap, json_safe

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["Recommendation", "ReplicateRisk", "DECISIONS", "RECOMMENDATION_KEYS", "recommend", "recommend_exact",
           "max_risk_of_error", "error_of_max_risk"]

#: How a value's risk is judged against the bound.
DECISIONS: dict[str, str] = {"upper": "each judged by the upper end of its 95% band", "mean": "each judged by its mean"}
#: The keys of :meth:`Recommendation.to_dict` (the command line's ``recommendation`` object), in order.
RECOMMENDATION_KEYS = ("feasible", "value", "risk", "risk_upper", "utility", "efficiency", "binding", "reason",
                       "p_exceed", "value_interval")
#: Half-width of the 95% bands in standard errors (as the simulation engine's).
BAND_Z = 1.96
#: Bootstrap resamples of the replicates.
RESAMPLES = 1000
#: Relative difference below which two utilities count as equal.
_TIE = 1e-9


@validate_params({"samples": NumberArray(PARAMETERS["replicate_risk"], ndim=(2,), infinite=True),
                  "reciprocal": Boolean()},
                 example=lambda: {"samples": [[1.0, 2.0], [3.0, 4.0]]})
@dataclass(frozen=True)
class ReplicateRisk:
    """One curve's risk per replicate, from which its risk at each value is recomputed on a resample.

    Parameters
    ----------
    samples : ndarray, shape (M, g)
        Per replicate and parameter value: the snooper's squared error, or the
        replicate's value of a dataset-level risk measure (each >= 0 or inf; a
        NaN, whose risk is unknown, is refused).
    reciprocal : bool
        True when the risk is ``1 / mean`` of the samples (Eq 12), False when it is their mean.
    """

    samples: np.ndarray
    reciprocal: bool = True

    def risk(self, rows: np.ndarray | None = None) -> np.ndarray:
        """The risk at each value from the replicates ``rows`` (shape (B, M): one resample a row), shape (B, g)."""
        chosen = self.samples[None] if rows is None else self.samples[rows]
        mean = chosen.mean(axis=1)
        if not self.reciprocal:
            return mean
        with np.errstate(divide="ignore"):
            return np.where(mean > 0, 1.0 / np.where(mean > 0, mean, 1.0), np.inf)


@dataclass(frozen=True)
class Recommendation:
    """The value a committee is advised to use, or why there is none.

    Attributes
    ----------
    feasible : bool
        Whether some value meets the bound for every curve shown.
    value : float or None
        The recommended parameter value.
    risk, risk_upper : float or None
        The largest risk over the curves at that value, and the largest upper
        end of their 95% bands (equal to ``risk`` for a map without bands).
    utility : float or None
        U at that value.
    efficiency : float or None
        The share of the unmasked data's utility kept there (in [0, 1]), where the map has one.
    binding : mapping or None
        ``{"target", "knowledge"}`` of the curve that decides it: the one with
        the largest risk at the chosen value (when infeasible, at the value of
        least risk).
    reason : str
        Why this value, or why none.
    p_exceed : float or None
        The probability, from resampling the replicates, that the risk at the
        chosen value exceeds the bound for some curve (None without replicates).
    value_interval : (float, float) or None
        A 95% bootstrap percentile interval for the smallest safe value; an
        upper end of ``inf`` means some resamples have no safe value on the
        grid, and None that most have none (or there are no replicates).
    max_risk : float
    decision : str
        A key of :data:`DECISIONS`.
    parameter : str
    map_index : int
        The position of the binding curve among the maps given (-1 when none).
    exact : bool
        The value solves the closed form rather than being a grid point.
    """

    feasible: bool
    value: float | None
    risk: float | None
    risk_upper: float | None
    utility: float | None
    efficiency: float | None
    binding: Mapping[str, str] | None
    reason: str
    p_exceed: float | None = None
    value_interval: tuple[float, float] | None = None
    max_risk: float = math.nan
    decision: str = "upper"
    parameter: str = ""
    map_index: int = -1
    exact: bool = False

    def to_dict(self) -> dict[str, Any]:
        """The command line's ``recommendation`` object: exactly :data:`RECOMMENDATION_KEYS`.

        Non-finite numbers become ``None`` (an interval's infinite upper end too).
        """
        out = {key: getattr(self, key) for key in RECOMMENDATION_KEYS}
        out["binding"] = None if self.binding is None else dict(self.binding)
        out["value_interval"] = None if self.value_interval is None else list(self.value_interval)
        return json_safe(out)

    def to_frame(self) -> pd.DataFrame:
        """One row: the keys of :meth:`to_dict` with the binding curve in two columns."""
        import pandas as pd  # here: a map runs without pandas

        row = self.to_dict()
        binding = row.pop("binding") or {}
        interval = row.pop("value_interval") or [None, None]
        row.update({"binding_target": binding.get("target"), "binding_knowledge": binding.get("knowledge"),
                    "value_low": interval[0], "value_high": interval[1], "max_risk": self.max_risk,
                    "decision": self.decision, "parameter": self.parameter})
        return pd.DataFrame([row])


def _binding(m: RUMap) -> dict[str, str]:
    return {"target": m.target, "knowledge": m.knowledge}


def _upper(m: RUMap) -> np.ndarray:
    if m.risk_se is None:
        return m.risk.copy()
    # a curve without a standard error where its risk is finite is not known to meet any bound
    return np.where(np.isnan(m.risk_se), np.inf, m.risk + BAND_Z * np.nan_to_num(m.risk_se, nan=0.0))


def _score(maps: Sequence[RUMap]) -> tuple[np.ndarray, str]:
    """What "the most utility" compares: the efficiency where every curve has one, else U in its direction."""
    first = maps[0]
    if all(m.efficiency is not None for m in maps):
        return np.asarray(first.efficiency, dtype=float), "efficiency"
    sign = 1.0 if higher_is_better(first) else -1.0
    return sign * np.asarray(first.utility, dtype=float), "utility"


def _pick(safe: np.ndarray, score: np.ndarray, values: np.ndarray) -> np.ndarray:
    """Per row of ``safe`` (shape (B, g)): the index of the best-scoring safe value (ties: the smallest), or -1."""
    masked = np.where(safe, score[None, :], -np.inf)
    best = masked.max(axis=1)
    tol = _TIE * np.maximum(1.0, np.abs(np.where(np.isfinite(best), best, 0.0)))
    near = safe & (masked >= (best - tol)[:, None])
    order = np.argsort(values, kind="stable")
    first_in_order = np.argmax(near[:, order], axis=1)
    return np.where(near.any(axis=1), order[first_in_order], -1)


def _fmt(v: float) -> str:
    return f"{v:.4g}"


def _check_grids(maps: Sequence[RUMap]) -> None:
    first = maps[0]
    for m in maps[1:]:
        if m.parameter != first.parameter or m.values.shape != first.values.shape \
                or not np.array_equal(m.values, first.values):
            raise InputError("a recommendation needs maps over the same parameter values")
        if m.risk_label != first.risk_label:  # a bound is in the units of one risk measure
            raise InputError(f"a bound applies to one risk measure: maps measure R as {first.risk_label!r} and "
                             f"{m.risk_label!r}; decide for each measure with its own bound")


def _bootstrap(replicates: Sequence[ReplicateRisk], keep: list[int], max_risk: float, score: np.ndarray,
               values: np.ndarray, allowed: np.ndarray, chosen: int | None, seed: int,
               resamples: int) -> tuple[float | None, tuple[float, float] | None]:
    """P(risk at the chosen value > bound) and the percentile interval of the smallest safe value."""
    m = replicates[keep[0]].samples.shape[0]
    rng = np.random.default_rng(seed)
    exceed = np.zeros(resamples, dtype=bool)
    safe = np.broadcast_to(allowed, (resamples, values.size)).copy()
    step = max(1, 2_000_000 // max(1, m * values.size))
    for start in range(0, resamples, step):
        rows = rng.integers(0, m, size=(min(step, resamples - start), m))
        block = slice(start, start + rows.shape[0])
        for i in keep:
            risk = replicates[i].risk(rows)
            safe[block] &= risk <= max_risk
            if chosen is not None:
                exceed[block] |= risk[:, chosen] > max_risk
    picked = _pick(safe, score, values)
    smallest = np.where(picked >= 0, values[np.maximum(picked, 0)], np.inf)
    low, high = np.quantile(smallest, [0.025, 0.975], method="inverted_cdf")
    interval = None if low == np.inf else (float(low), float(high))  # None: hardly any resample has a safe value
    return (float(exceed.mean()) if chosen is not None else None), interval


@validate_params({"maps": ListOf(RUMap, "a list or tuple of RUMap"), "max_risk": "max_risk",
                  "decision": StrOptions(DECISIONS),
                  "replicates": [None, ListOf((ReplicateRisk, type(None)), "a ReplicateRisk (or None) per map", 0)],
                  "n_records": [None, "records"],
                  "seed": "seed", "resamples": "resamples"},
                 example=lambda: {"maps": analytic_map(["record", "population"], [0.1, 0.2, 1.0],
                                                       AnalyticSetting(n=200, sigma2=1.0)), "max_risk": 5.0})
def recommend(maps: Sequence[RUMap], max_risk: float, decision: str = "upper", *,
              replicates: Sequence[ReplicateRisk | None] | None = None, n_records: int | None = None,
              seed: int = 0, resamples: int = RESAMPLES) -> Recommendation:
    """The grid value keeping the most utility whose risk is at most ``max_risk`` for every curve.

    Parameters
    ----------
    maps : sequence of RUMap
        The curves shown (every target and knowledge state), over the same
        parameter values and utility, with one risk measure (the bound's).
        Rational-snooper envelopes are the largest of the other curves and add
        nothing; they are skipped.
    max_risk : float
        The bound, in the units of the maps' risk measure.
    decision : {"upper", "mean"}, default "upper"
        Judge each value by the upper end of its 95% band, or by its mean risk.
    replicates : sequence of ReplicateRisk or None, optional
        Per map, its risk per replicate: gives ``p_exceed`` and ``value_interval``.
    n_records : int, optional
        The number of records: a group size ``k`` above it is never recommended.
    seed : int, default 0
        Seed of the resampling.
    resamples : int, default 1000
        Bootstrap resamples.

    Returns
    -------
    Recommendation

    Examples
    --------
    >>> from rumap.maps.analytic import analytic_map
    >>> from rumap.maps.setting import AnalyticSetting
    >>> from rumap.maps.recommend import recommend
    >>> maps = analytic_map(["record", "population"], [0.1, 0.2, 0.5, 1.0], AnalyticSetting(n=200, sigma2=1.0))
    >>> r = recommend(maps, max_risk=5.0)
    >>> r.feasible, r.value, r.binding["knowledge"], round(r.efficiency, 4)
    (True, 0.2, 'record', 0.8333)
    >>> recommend(maps, max_risk=0.5).feasible
    False
    """
    keep = [i for i, m in enumerate(maps) if m.knowledge != "rational"] or list(range(len(maps)))
    if not maps:
        raise InputError("a recommendation needs at least one map")
    _check_grids(maps)
    if replicates is not None and len(replicates) != len(maps):
        raise InputError(f"replicates: one per map ({len(maps)}), got {len(replicates)}")
    for i, replicate in enumerate(replicates or ()):
        if replicate is not None and replicate.samples.shape[1] != maps[i].values.size:
            raise InputError(f"replicates: item {i + 1} has samples for {replicate.samples.shape[1]} parameter "
                             f"values, its map {maps[i].values.size}")
    shown = [maps[i] for i in keep]
    first = shown[0]
    values = np.asarray(first.values, dtype=float)
    risk = np.vstack([m.risk for m in shown])
    upper = np.vstack([_upper(m) for m in shown])
    judged = upper if decision == "upper" else risk
    score, _ = _score(shown)
    allowed = ~np.isnan(score)
    too_large = np.zeros_like(allowed)
    if n_records is not None and first.parameter == "k":
        too_large = values > n_records
        allowed &= ~too_large
    safe = allowed & np.all(judged <= max_risk, axis=0)
    context = {"max_risk": float(max_risk), "decision": decision, "parameter": first.parameter}
    symbol = first.parameter
    chosen = int(_pick(safe[None], score, values)[0])
    # one replicate (a deterministic method) gives no uncertainty to resample: no p_exceed, no interval
    have_replicates = replicates is not None and all(replicates[i] is not None and replicates[i].samples.shape[0] > 1
                                                     for i in keep)
    p_exceed = interval = None
    if have_replicates:
        p_exceed, interval = _bootstrap(replicates, keep, max_risk, score, values, allowed,
                                        chosen if chosen >= 0 else None, seed, resamples)
    if chosen < 0:
        worst = np.where(allowed, judged.max(axis=0), np.inf)
        if not allowed.any() or not np.isfinite(worst).any():
            where = int(np.argmin(np.where(allowed, judged.max(axis=0), np.inf))) if allowed.any() else 0
        else:
            where = int(np.nanargmin(worst))
        c = int(np.argmax(judged[:, where]))
        least = judged[c, where]
        least_text = "infinite (an exact disclosure)" if least == np.inf else _fmt(least)
        reason = (f"no {symbol} on the grid ({_fmt(values.min())} to {_fmt(values.max())}) has risk at or below "
                  f"{_fmt(max_risk)} for every curve shown ({DECISIONS[decision]}): the least is {least_text} "
                  f"at {symbol} = {_fmt(values[where])} ({shown[c].label}); extend the grid or accept a larger risk")
        if too_large.any():
            reason += f" ({symbol} above the {n_records} records left out)"
        return Recommendation(False, None, None, None, None, None, _binding(shown[c]), reason, None, interval,
                              map_index=keep[c], **context)
    c = int(np.argmax(judged[:, chosen]))
    eff = None if first.efficiency is None else float(first.efficiency[chosen])
    reason = (f"{symbol} = {_fmt(values[chosen])} keeps the most utility among the values whose risk is at most "
              f"{_fmt(max_risk)} for every curve shown ({DECISIONS[decision]}); the most demanding is {shown[c].label}")
    return Recommendation(True, float(values[chosen]), float(risk[:, chosen].max()), float(upper[:, chosen].max()),
                          float(first.utility[chosen]), eff, _binding(shown[c]), reason, p_exceed, interval,
                          map_index=keep[c], **context)


@validate_params({"states": STATE_NAMES, "setting": InstanceOf(AnalyticSetting), "max_risk": "max_risk",
                  "upper": "lambda2_upper",
                  "decision": StrOptions(DECISIONS)},
                 example=lambda: {"states": ["record", "population"], "setting": AnalyticSetting(n=200, sigma2=1.0),
                                  "max_risk": 5.0, "upper": 3.0})
def recommend_exact(states: Sequence[str], setting: AnalyticSetting, max_risk: float, upper: float,
                    decision: str = "upper") -> Recommendation:
    """The exact optimum of the analytic map: the smallest noise variance in ``[0, upper]`` safe for every state.

    The analytic curves have no Monte-Carlo band, so both decisions judge the
    risk itself. Each state's smallest safe variance comes from its closed-form
    inverse (or Brent's method, :func:`rumap.maps.optimum.max_tolerable_risk`);
    utility falls as the variance grows, so the largest of them is the optimum
    when every state is safe there.

    Parameters
    ----------
    states : sequence of str
        Keys of :data:`rumap.maps.analytic.STATES`.
    setting : AnalyticSetting
    max_risk : float
        The bound on R = 1 / snooper's MSE.
    upper : float
        The largest noise variance considered (the end of the map's range).
    decision : {"upper", "mean"}, default "upper"
        Recorded; both give the same value on an analytic map.

    Returns
    -------
    Recommendation

    Examples
    --------
    >>> from rumap.maps.setting import AnalyticSetting
    >>> from rumap.maps.recommend import recommend_exact
    >>> r = recommend_exact(["record", "population"], AnalyticSetting(n=200, sigma2=1.0), max_risk=5.0, upper=3.0)
    >>> round(r.value, 6), r.binding["knowledge"], round(r.efficiency, 4)
    (0.2, 'record', 0.8333)
    """
    states = list(dict.fromkeys(states))
    upper = min(upper, _LARGEST)  # sigma2 + lambda2 stays finite
    optima = [max_tolerable_risk(s, setting, max_risk, upper=upper) for s in states]
    context = {"max_risk": float(max_risk), "decision": decision, "parameter": "lambda2", "exact": True}
    missing = [o for o in optima if not o.reachable]
    if missing:
        beyond = max_tolerable_risk(missing[0].state, setting, max_risk)
        where = (f"; the smallest safe value is {_fmt(beyond.lambda2)}, beyond the range shown" if beyond.reachable
                 else "; no noise variance reaches it")
        index = states.index(missing[0].state)
        return Recommendation(False, None, None, None, None, None, {"target": "", "knowledge": missing[0].state},
                              f"no λ² up to {_fmt(upper)} keeps the risk of the snooper with {missing[0].state} "
                              f"knowledge at or below {_fmt(max_risk)}{where}", map_index=index, **context)
    index = int(np.argmax([o.lambda2 for o in optima]))
    lam = optima[index].lambda2
    risks = [float(check_state(s, setting).kernel(np.array([lam]), setting)[0]) for s in states]
    worse = [s for s, r in zip(states, risks, strict=True) if r > max_risk * (1 + 1e-9)]
    if worse:  # a curve that rises again past its first safe value (Eq 9): not safe at the others' optimum
        return Recommendation(False, None, None, None, None, None, {"target": "", "knowledge": worse[0]},
                              f"at λ² = {_fmt(lam)}, where the others first meet the bound, the snooper with "
                              f"{worse[0]} knowledge is above {_fmt(max_risk)}: no single λ² is safe for every "
                              "state by the closed form; use the grid's recommendation",
                              map_index=states.index(worse[0]), **context)
    risk = max(risks)
    return Recommendation(True, float(lam), risk, risk, float(utility_mean([lam], setting.n, setting.sigma2)[0]),
                          float(efficiency([lam], setting.sigma2)[0]), {"target": "", "knowledge": states[index]},
                          f"λ² = {_fmt(lam)} is the smallest noise variance whose risk is at most {_fmt(max_risk)} "
                          f"for every state shown (exact); the most demanding is {states[index]} knowledge",
                          map_index=index, **context)


@validate_params({"error": "tolerable_error"}, example=lambda: {"error": 5000.0})
def max_risk_of_error(error: float) -> float:
    """The bound on R = 1 / MSE that a tolerable average error of the snooper stands for: ``1 / error²``.

    Duncan et al. (2001), Section 4: an average error of $5K is R_max = 1 / 5000² = 4.0E-08.

    Parameters
    ----------
    error : float
        The smallest root mean squared error of the snooper the agency accepts, in data units (> 0).

    Returns
    -------
    float
        R_max, the inverse of :func:`error_of_max_risk`.

    Examples
    --------
    >>> max_risk_of_error(5000.0)
    4e-08
    """
    return 1.0 / float(error) ** 2


@validate_params({"max_risk": "max_risk"}, example=lambda: {"max_risk": 4.0e-8})
def error_of_max_risk(max_risk: float) -> float:
    """The tolerable average error in data units that a bound on R = 1 / MSE stands for: ``1 / sqrt(R_max)``.

    Parameters
    ----------
    max_risk : float
        R_max, in the units of 1 / MSE (> 0).

    Returns
    -------
    float
        The snooper's root mean squared error at the bound, the inverse of :func:`max_risk_of_error`.

    Examples
    --------
    >>> error_of_max_risk(4.0e-8)
    5000.0
    """
    return 1.0 / math.sqrt(float(max_risk))
