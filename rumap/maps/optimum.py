"""Decisions on an analytic R-U map: the rational snooper, crossings, maximum tolerable risk.

A snooper who holds several kinds of knowledge uses the estimator with the
smallest error, so its risk is the upper envelope of those states' curves; where
two curves cross, the better estimator changes. An agency with a maximum
tolerable risk ``R_max`` picks the smallest noise variance whose risk is at most
``R_max``: that keeps the most utility.

References
----------
Duncan, Keller-McNulty & Stokes (2001), Sections 2-3 (Figures 2-4).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import combinations

import numpy as np

from rumap._validation import Grid, InstanceOf, ListOf, validate_params
from rumap.errors import InputError
from rumap.maps.analytic import STATE_NAMES, KnowledgeState, analytic_map, check_state, efficiency, utility_mean
from rumap.maps.setting import AnalyticSetting
from rumap.result import RUMap, json_safe

__all__ = ["Optimum", "Crossing", "max_tolerable_risk", "crossings", "envelope"]


@dataclass(frozen=True)
class Optimum:
    """The smallest noise variance that meets a risk bound, for one knowledge state.

    Attributes
    ----------
    state : str
    max_risk : float
    reachable : bool
        False when no noise variance brings the risk down to ``max_risk``.
    lambda2, risk, utility, efficiency : float
        The chosen noise variance and the map's values there (NaN when not
        reachable).
    """

    state: str
    max_risk: float
    reachable: bool
    lambda2: float = math.nan
    risk: float = math.nan
    utility: float = math.nan
    efficiency: float = math.nan

    def to_dict(self) -> dict:
        """Every field as plain data (NaN, where the bound is unreachable, becomes ``None``)."""
        return json_safe({"state": self.state, "max_risk": self.max_risk, "reachable": self.reachable,
                          "lambda2": self.lambda2, "risk": self.risk, "utility": self.utility,
                          "efficiency": self.efficiency})


@dataclass(frozen=True)
class Crossing:
    """A noise variance at which the risk curves of two states cross.

    Attributes
    ----------
    states : (str, str)
        The two knowledge states.
    lambda2 : float
        Where their curves cross.
    risk : float
        The common risk there.
    """

    states: tuple[str, str]
    lambda2: float
    risk: float

    def to_dict(self) -> dict:
        return {"states": list(self.states), "lambda2": self.lambda2, "risk": self.risk}


#: The default search range for the smallest noise variance: up to this many times sigma2 (in effect unbounded).
UNBOUNDED_FACTOR = 1e12
#: The largest default search bound: far beyond any variance, and small enough that sigma2 + lambda2 stays finite.
_LARGEST = 1e300

_SEARCH_POINTS = 4000


def _search_grid(setting: AnalyticSetting, upper: float) -> np.ndarray:
    # from far below the data's variance, whatever the upper end: a bracket that starts at 0 and ends far
    # above the root would take Brent's method more halvings than it allows
    low = min(setting.sigma2 * 1e-10, upper * 1e-14)
    return np.concatenate([[0.0], np.geomspace(low, upper, _SEARCH_POINTS)])


def _root_smallest(record: KnowledgeState, setting: AnalyticSetting, max_risk: float,
                   upper: float) -> float | None:
    """Smallest lambda2 in [0, upper] with R(lambda2) <= max_risk, by bracketing and Brent's method."""
    grid = _search_grid(setting, upper)
    excess = record.kernel(grid, setting) - max_risk
    ok = excess <= 0
    if not ok.any():
        return None
    first = int(np.argmax(ok))
    if first == 0:
        return 0.0
    lo, hi = grid[first - 1], grid[first]

    def f(lam: float) -> float:
        return float(record.kernel(np.array([lam]), setting)[0]) - max_risk

    if not math.isfinite(f(lo)):
        lo = hi * 1e-12
    from scipy import optimize  # here: the empirical maps import this module, and scipy takes a second

    root = optimize.brentq(f, lo, hi, xtol=1e-14, rtol=4 * np.finfo(float).eps)
    # brentq may land on the side where R is a hair above the bound; step to the feasible side.
    return hi if f(root) > 1e-12 * max_risk else root


def _paper() -> AnalyticSetting:
    return AnalyticSetting(n=200, sigma2=1.0)


@validate_params({"setting": InstanceOf(AnalyticSetting), "max_risk": "max_risk",
                  "upper": [None, "lambda2_upper"]},
                 example=lambda: {"state": "record", "setting": _paper(), "max_risk": 5.0})
def max_tolerable_risk(
    state: str, setting: AnalyticSetting, max_risk: float, upper: float | None = None
) -> Optimum:
    """The smallest noise variance with risk at most ``max_risk``, for one state.

    Parameters
    ----------
    state : str
        A key of :data:`rumap.maps.analytic.STATES`.
    setting : AnalyticSetting
    max_risk : float
        The maximum tolerable risk ``R_max`` (> 0).
    upper : float, optional
        The largest noise variance the agency would consider; default
        ``1e12 * sigma2`` (in effect unbounded; at most the largest float).

    Returns
    -------
    Optimum
        ``lambda2 = 0`` when the bound already holds without noise;
        ``reachable = False`` when no ``lambda2 <= upper`` reaches it.

    Notes
    -----
    Eq 1-4 are monotone in ``lambda2`` and are inverted in closed form, e.g.
    record knowledge ``lambda2 = 1 / R_max`` and population knowledge
    ``lambda2 = n / R_max - (n + 1) sigma2``. The others are solved by Brent's
    method on the first bracket where ``R - R_max`` changes sign, so a
    non-monotone curve (Eq 9 with an outlying observed maximum) still gives the
    smallest solution.

    References
    ----------
    Duncan, Keller-McNulty & Stokes (2001), Section 2 and Figure 2.

    Examples
    --------
    >>> from rumap.maps.setting import AnalyticSetting
    >>> from rumap.maps.optimum import max_tolerable_risk
    >>> opt = max_tolerable_risk("record", AnalyticSetting(n=200, sigma2=1.0), max_risk=5.0)
    >>> round(opt.lambda2, 6), round(opt.utility, 2), round(opt.efficiency, 4)
    (0.2, 166.67, 0.8333)
    """
    record = check_state(state, setting)
    upper = min(setting.sigma2 * UNBOUNDED_FACTOR, _LARGEST) if upper is None else upper
    if record.inverse is not None:
        lam = max(0.0, record.inverse(max_risk, setting))
        lam_opt: float | None = lam if lam <= upper else None
    else:
        lam_opt = _root_smallest(record, setting, max_risk, upper)
    if lam_opt is None:
        return Optimum(state=state, max_risk=max_risk, reachable=False)
    risk = float(record.kernel(np.array([lam_opt]), setting)[0])
    return Optimum(
        state=state,
        max_risk=max_risk,
        reachable=True,
        lambda2=float(lam_opt),
        risk=risk,
        utility=float(utility_mean([lam_opt], setting.n, setting.sigma2)[0]),
        efficiency=float(efficiency([lam_opt], setting.sigma2)[0]),
    )


@validate_params({"states": STATE_NAMES, "setting": InstanceOf(AnalyticSetting), "lambda2_range": Grid("lambda2")},
                 example=lambda: {"states": ["record", "population"], "setting": _paper(), "lambda2_range": (0.0, 1.0)})
def crossings(states: Sequence[str], setting: AnalyticSetting, lambda2_range: tuple[float, float]) -> list[Crossing]:
    """Noise variances in a range at which the risk curves of two states cross.

    Parameters
    ----------
    states : sequence of str
    setting : AnalyticSetting
    lambda2_range : (float, float)
        The interval ``[start, stop]`` to search.

    Returns
    -------
    list of Crossing
        Sorted by ``lambda2``. Each is a root of ``R_A - R_B`` found by Brent's
        method on a fine (log-spaced) bracketing grid.

    Notes
    -----
    Where curves cross, a rational snooper switches estimator (Figures 3-4).
    """
    if lambda2_range.size != 2:
        raise InputError(f"lambda2_range must be (start, stop), got {lambda2_range.size} values")
    start, stop = (float(v) for v in lambda2_range)
    if stop < start:
        raise InputError(f"the lambda2 range must have start <= stop, got {start}:{stop}")
    if stop == start:
        return []
    low = start if start > 0 else min(stop * 1e-9, setting.sigma2 * 1e-9)
    grid = np.unique(np.concatenate([np.geomspace(low, stop, _SEARCH_POINTS), np.linspace(low, stop, 1000)]))
    records = {s: check_state(s, setting) for s in dict.fromkeys(states)}
    curves = {s: record.kernel(grid, setting) for s, record in records.items()}
    found: list[Crossing] = []
    for a, b in combinations(curves, 2):
        with np.errstate(invalid="ignore"):
            diff = curves[a] - curves[b]
        sign = np.sign(diff)
        for i in np.flatnonzero(np.isfinite(diff[:-1]) & np.isfinite(diff[1:]) & (sign[:-1] * sign[1:] < 0)):

            kernel_a, kernel_b = records[a].kernel, records[b].kernel

            def f(lam: float, kernel_a=kernel_a, kernel_b=kernel_b) -> float:
                point = np.array([lam])
                return float(kernel_a(point, setting)[0] - kernel_b(point, setting)[0])

            from scipy import optimize

            root = optimize.brentq(f, grid[i], grid[i + 1], xtol=1e-15, rtol=4 * np.finfo(float).eps)
            found.append(Crossing((a, b), float(root), float(kernel_a(np.array([root]), setting)[0])))
        for i in np.flatnonzero(diff == 0):
            found.append(Crossing((a, b), float(grid[i]), float(curves[a][i])))
    return sorted(found, key=lambda c: c.lambda2)


@validate_params({"maps": ListOf(RUMap, "a list or tuple of RUMap")},
                 example=lambda: {"maps": analytic_map(["record", "population"], [0.1, 1.0], _paper())})
def envelope(maps: Sequence[RUMap]) -> RUMap:
    """The rational snooper's map: at each parameter value, the largest risk of the given maps.

    Parameters
    ----------
    maps : sequence of RUMap
        Maps over the same parameter values (and so the same utility).

    Returns
    -------
    RUMap
        ``knowledge = "rational"``; its config names the state that is best for
        the snooper at each value (``"best_state"``).
    """
    if not maps:
        raise InputError("the envelope needs at least one map")
    first = maps[0]
    for m in maps[1:]:
        if m.values.shape != first.values.shape or not np.allclose(m.values, first.values):
            raise InputError("the envelope needs maps over the same parameter values")
    stacked = np.vstack([m.risk for m in maps])
    best = np.argmax(stacked, axis=0)
    states = [m.knowledge or m.label for m in maps]
    return RUMap(
        parameter=first.parameter,
        values=first.values,
        risk=stacked.max(axis=0),
        utility=first.utility,
        risk_label=first.risk_label,
        utility_label=first.utility_label,
        method=first.method,
        knowledge="rational",
        efficiency=first.efficiency,
        config={"states": states, "best_state": [states[i] for i in best]},
    )
