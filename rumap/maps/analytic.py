"""Analytic R-U maps for additive noise (Duncan, Keller-McNulty & Stokes 2001).

Data ``x_1..x_n`` with mean ``mu`` and variance ``sigma2`` are released as
``Y_i = x_i + e_i`` with noise ``e_i ~ iid (0, lambda2)``. The data user
estimates the mean by ``mean(Y)``; the snooper estimates a target ``tau`` by an
estimator that depends on what it knows (its *knowledge state*). Risk is the
reciprocal of the snooper's mean squared error, utility the reciprocal of the
user's. Every function here is vectorized over ``lambda2``.

References
----------
.. [1] G. T. Duncan, S. A. Keller-McNulty, S. L. Stokes (2001), "Disclosure
   Risk vs. Data Utility: The R-U Confidentiality Map", Equations 1-10.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from rumap._validation import Grid, InstanceOf, ListOf, StrOptions, validate_params
from rumap.errors import InputError
from rumap.maps.families import FAMILIES, risk_percentile_normal, risk_percentile_quadrature
from rumap.maps.setting import AnalyticInputs, AnalyticSetting, _data_column, sample_variance
from rumap.result import RUMap

__all__ = [
    "STATES",
    "KnowledgeState",
    "check_state",
    "utility_mean",
    "efficiency",
    "risk_mean_target",
    "risk_population",
    "risk_sample",
    "risk_record",
    "risk_percentile",
    "risk_maximum",
    "risk_minimum",
    "extreme_constants",
    "analytic_map",
    "state_risk",
]

EULER_GAMMA = 0.5772156649015329
RISK_LABEL = "R = 1 / snooper's MSE"
UTILITY_LABEL = "U = n / (σ² + λ²)"


@validate_params({"lambda2": Grid("lambda2"), "n": "n", "sigma2": "sigma2"},
                 example=lambda: {"lambda2": [0.0, 0.5], "n": 200, "sigma2": 1.0})
def utility_mean(lambda2: ArrayLike, n: int, sigma2: float) -> np.ndarray:
    """Utility of the masked mean, ``U = n / (sigma2 + lambda2)``.

    Parameters
    ----------
    lambda2 : array_like, shape (m,)
        Noise variances.
    n : int
        Number of records (>= 2).
    sigma2 : float
        Variance of the original data (> 0).

    Returns
    -------
    ndarray, shape (m,)

    Notes
    -----
    ``mean(Y)`` is unbiased for ``mu`` with variance ``(sigma2 + lambda2) / n``,
    so ``U = 1 / E(mean(Y) - mu)^2 = n / (sigma2 + lambda2)``.

    References
    ----------
    Duncan, Keller-McNulty & Stokes (2001), Section 3.1.
    """
    with np.errstate(over="ignore"):  # beyond the largest float the variance is infinite: U = 0
        return n / (sigma2 + lambda2)


@validate_params({"lambda2": Grid("lambda2"), "sigma2": "sigma2"}, example=lambda: {"lambda2": [0.0, 0.5], "sigma2": 1.0})
def efficiency(lambda2: ArrayLike, sigma2: float) -> np.ndarray:
    """Efficiency of the masked mean, ``U(lambda2) / U(0) = sigma2 / (sigma2 + lambda2)``.

    Values lie in (0, 1]; 1 means no loss.

    Parameters
    ----------
    lambda2 : array_like, shape (m,)
        Noise variances, >= 0.
    sigma2 : float
        Variance of the data, > 0.

    Returns
    -------
    ndarray, shape (m,)
    """
    with np.errstate(over="ignore"):
        return sigma2 / (sigma2 + lambda2)


@validate_params({"lambda2": Grid("lambda2"), "n": "n", "sigma2": "sigma2", "mu": "mu", "tau": "tau"},
                 example=lambda: {"lambda2": [0.0, 0.5], "n": 200, "sigma2": 1.0, "mu": 0.0, "tau": 0.3})
def risk_mean_target(lambda2: ArrayLike, n: int, sigma2: float, mu: float, tau: float) -> np.ndarray:
    """Risk for a specific target ``tau`` estimated by ``mean(Y)`` (Eq 1).

    Parameters
    ----------
    lambda2 : array_like, shape (m,)
        Noise variances, >= 0.
    n : int
        Number of records.
    sigma2 : float
        Variance of the data.
    mu : float
        Mean of the data.
    tau : float
        The target's value.

    Returns
    -------
    ndarray, shape (m,)

    Notes
    -----
    ``R = n / (sigma2 + lambda2 + n (mu - tau)^2)``.

    References
    ----------
    Duncan, Keller-McNulty & Stokes (2001), Equation (1).
    """
    return _risk_mean_target(lambda2, n, sigma2, mu, tau)


def _risk_mean_target(lam: np.ndarray, n: int, sigma2: float, mu: float, tau: float) -> np.ndarray:
    with np.errstate(over="ignore"):
        return n / (sigma2 + lam + n * np.square(np.float64(mu) - tau))


@validate_params({"lambda2": Grid("lambda2"), "n": "n", "sigma2": "sigma2"},
                 example=lambda: {"lambda2": [0.0, 0.5], "n": 200, "sigma2": 1.0})
def risk_population(lambda2: ArrayLike, n: int, sigma2: float) -> np.ndarray:
    """Risk for a target drawn from the population, estimated by ``mean(Y)`` (Eq 2).

    Parameters
    ----------
    lambda2 : array_like, shape (m,)
        Noise variances, >= 0.
    n : int
        Number of records.
    sigma2 : float
        Variance of the data.

    Returns
    -------
    ndarray, shape (m,)

    Notes
    -----
    Eq 1 averaged over targets from the population, ``E(mu - tau)^2 = sigma2``:
    ``R = n / ((n + 1) sigma2 + lambda2)``.

    References
    ----------
    Duncan, Keller-McNulty & Stokes (2001), Equation (2).
    """
    return _risk_population(lambda2, n, sigma2)


def _risk_population(lam: np.ndarray, n: int, sigma2: float) -> np.ndarray:
    with np.errstate(over="ignore"):
        return n / ((n + 1) * sigma2 + lam)


@validate_params({"lambda2": Grid("lambda2"), "sigma2": [None, "sigma2"], "mu": [None, "mu"]},
                 example=lambda: {"lambda2": [0.0, 0.5], "x": [1.0, 2.0, 4.0], "sigma2": None, "mu": None})
def risk_sample(lambda2: ArrayLike, x: ArrayLike, sigma2: float | None = None, mu: float | None = None) -> np.ndarray:
    """Risk for a target drawn from the sample, estimated by ``mean(Y)`` (Eq 3).

    Parameters
    ----------
    lambda2 : array_like, shape (m,)
    x : array_like, shape (n,)
        The original data column.
    sigma2 : float, optional
        Variance of the data; default the sample variance (ddof = 1).
    mu : float, optional
        Mean of the data; default the sample mean.

    Notes
    -----
    ``R = n / (sigma2 + lambda2 + sum_i (mu - x_i)^2)``.

    References
    ----------
    Duncan, Keller-McNulty & Stokes (2001), Equation (3).
    """
    data = _data_column(x)
    sigma2 = sample_variance(data) if sigma2 is None else sigma2
    mu = float(np.mean(data)) if mu is None else mu
    return _risk_sample(lambda2, data, sigma2, mu)


def _risk_sample(lam: np.ndarray, data: np.ndarray, sigma2: float, mu: float) -> np.ndarray:
    with np.errstate(over="ignore"):
        return data.size / (sigma2 + lam + float(np.sum((mu - data) ** 2)))


@validate_params({"lambda2": Grid("lambda2")}, example=lambda: {"lambda2": [0.0, 0.5]})
def risk_record(lambda2: ArrayLike) -> np.ndarray:
    """Risk when the snooper can link the target to its masked record (Eq 4).

    Parameters
    ----------
    lambda2 : array_like, shape (m,)
        Noise variances, >= 0.

    Returns
    -------
    ndarray, shape (m,)

    Notes
    -----
    The snooper uses ``Y_i`` itself: ``R = 1 / lambda2``, infinite at 0.

    References
    ----------
    Duncan, Keller-McNulty & Stokes (2001), Equation (4).
    """
    return _risk_record(lambda2)


def _risk_record(lam: np.ndarray) -> np.ndarray:
    with np.errstate(divide="ignore", over="ignore"):
        return np.where(lam > 0, 1.0 / np.where(lam > 0, lam, 1.0), np.inf)


# --- percentiles ---------------------------------------------------------------------------


@validate_params({"lambda2": Grid("lambda2"), "n": "n", "sigma2": "sigma2", "p": "p", "family": StrOptions(FAMILIES),
                  "shape": [None, "shape"]},
                 example=lambda: {"lambda2": [0.0, 0.5], "n": 200, "sigma2": 1.0, "p": 0.99})
def risk_percentile(
    lambda2: ArrayLike,
    n: int,
    sigma2: float,
    p: float,
    family: str = "normal",
    shape: float | None = None,
) -> np.ndarray:
    """Risk when the target is the p-th population percentile, estimated by ``Y_(np)`` (Eq 5, Eq 8).

    Parameters
    ----------
    lambda2 : array_like, shape (m,)
    n : int
    sigma2 : float
    p : float
        The percentile as a fraction, ``0 < p < 1``.
    family : str, default "normal"
        Distribution family of the original data (a key of :data:`FAMILIES`);
        the noise is normal. ``"normal"`` uses the closed form Eq 8; other
        families evaluate Eq 5 by quadrature for the distribution of ``Y``.
    shape : float, optional
        Shape parameter of the family (lognormal ``s``, gamma ``a``, t ``df``).

    Notes
    -----
    Eq 5: ``R ~ 1 / [p(1-p) / (n f_Y(xi_Yp)^2) + (xi_Yp - xi_Xp)^2]``. With
    normal data and noise (Eq 8): ``R ~ 1 / [p(1-p)/(n phi(z_p)^2) (sigma2 +
    lambda2) + z_p^2 (sqrt(sigma2 + lambda2) - sigma)^2]``. The result does not
    depend on ``mu``.

    References
    ----------
    Duncan, Keller-McNulty & Stokes (2001), Equations (5) and (8).
    """
    return _risk_percentile(lambda2, n, sigma2, p, family, shape)


def _risk_percentile(lam: np.ndarray, n: int, sigma2: float, p: float, family: str,
                     shape: float | None) -> np.ndarray:
    if family == "normal":
        return risk_percentile_normal(lam, n, sigma2, p)
    return risk_percentile_quadrature(lam, n, sigma2, p, family, shape)


# --- extremes --------------------------------------------------------------------------------


@validate_params({"n": "n"}, example=lambda: {"n": 200})
def extreme_constants(n: int) -> tuple[float, float]:
    """The constants ``K1`` and ``K2`` of the normal maximum (Eq 9).

    ``E Z_(n) ~ K1 = sqrt(2 ln n) - (ln ln n + ln 4 pi - 2 gamma) / (2 sqrt(2 ln n))``
    and ``Var Z_(n) ~ K2 = pi^2 / (12 ln n)`` for n standard normal variables.

    Parameters
    ----------
    n : int
        Number of records, >= 2.

    Returns
    -------
    K1, K2 : float
    """
    return _extreme_constants(n)


def _extreme_constants(n: int) -> tuple[float, float]:
    root = math.sqrt(2 * math.log(n))
    k1 = root - (math.log(math.log(n)) + math.log(4 * math.pi) - 2 * EULER_GAMMA) / (2 * root)
    k2 = math.pi**2 / (12 * math.log(n))
    return k1, k2


#: The number of records of the extremes' states: their constants need ln ln n (Eq 9).
#: The constraint on a ``states`` argument: a knowledge state's name, or a list of them.
STATE_NAMES = [InstanceOf(str, "a knowledge state's name"), ListOf(str, "a list of knowledge states' names")]


@validate_params({"lambda2": Grid("lambda2"), "n": "extremes_n", "sigma2": "sigma2", "mu": "mu", "observed": [None, "observed_extreme"]},
                 example=lambda: {"lambda2": [0.0, 0.5], "n": 200, "sigma2": 1.0})
def risk_maximum(
    lambda2: ArrayLike, n: int, sigma2: float, mu: float = 0.0, observed: float | None = None
) -> np.ndarray:
    """Risk when the target is the sample maximum, estimated by ``Y_(n)`` (Eq 9, Eq 10).

    Parameters
    ----------
    lambda2 : array_like, shape (m,)
    n : int
        Number of records; needs n >= 3 for the asymptotic constants.
    sigma2, mu : float
    observed : float, optional
        The observed maximum ``x_(n)`` (Eq 9). Without it ``x_(n) ~ mu +
        sigma K1`` (Eq 10).

    Notes
    -----
    ``R ~ 1 / [K2 (sigma2 + lambda2) + (x_(n) - mu - K1 sqrt(sigma2 + lambda2))^2]``;
    Eq 10 substitutes ``x_(n) = mu + sigma K1``.

    References
    ----------
    Duncan, Keller-McNulty & Stokes (2001), Equations (9) and (10).
    """
    return _risk_maximum(lambda2, n, sigma2, mu, observed)


def _risk_maximum(lam: np.ndarray, n: int, sigma2: float, mu: float, observed: float | None) -> np.ndarray:
    k1, k2 = _extreme_constants(n)
    with np.errstate(over="ignore"):  # a variance beyond the largest float: the MSE is infinite and R is 0
        sd_y = np.sqrt(sigma2 + lam)
        x_max = mu + math.sqrt(sigma2) * k1 if observed is None else observed
        return 1.0 / (k2 * (sigma2 + lam) + (x_max - mu - k1 * sd_y) ** 2)


@validate_params({"lambda2": Grid("lambda2"), "n": "extremes_n", "sigma2": "sigma2", "mu": "mu", "observed": [None, "observed_extreme"]},
                 example=lambda: {"lambda2": [0.0, 0.5], "n": 200, "sigma2": 1.0})
def risk_minimum(
    lambda2: ArrayLike, n: int, sigma2: float, mu: float = 0.0, observed: float | None = None
) -> np.ndarray:
    """Risk when the target is the sample minimum, estimated by ``Y_(1)`` (Eq 9-10 mirrored).

    The minimum of ``x`` is the negated maximum of ``-x``, so
    ``R ~ 1 / [K2 (sigma2 + lambda2) + (x_(1) - mu + K1 sqrt(sigma2 + lambda2))^2]``.

    Parameters
    ----------
    lambda2 : array_like, shape (m,)
        Noise variances, >= 0.
    n : int
        Number of records.
    sigma2 : float
        Variance of the data.
    mu : float, default 0
        Mean of the data.
    observed : float, optional
        The observed minimum ``x_(1)``; default its normal expectation ``mu - K1 sigma``.

    Returns
    -------
    ndarray, shape (m,)
    """
    return _risk_minimum(lambda2, n, sigma2, mu, observed)


def _risk_minimum(lam: np.ndarray, n: int, sigma2: float, mu: float, observed: float | None) -> np.ndarray:
    return _risk_maximum(lam, n, sigma2, -mu, None if observed is None else -observed)


# --- knowledge states ------------------------------------------------------------------------


def _k_mean_target(lam: np.ndarray, s: AnalyticSetting) -> np.ndarray:
    return _risk_mean_target(lam, s.n, s.sigma2, s.mu, s.tau)


def _k_sample(lam: np.ndarray, s: AnalyticSetting) -> np.ndarray:
    return _risk_sample(lam, s.data, s.sigma2, s.mu)


def _k_maximum(lam: np.ndarray, s: AnalyticSetting) -> np.ndarray:
    return _risk_maximum(lam, s.n, s.sigma2, s.mu, None if s.data is None else float(s.data.max()))


def _k_minimum(lam: np.ndarray, s: AnalyticSetting) -> np.ndarray:
    return _risk_minimum(lam, s.n, s.sigma2, s.mu, None if s.data is None else float(s.data.min()))


# Closed forms of the smallest lambda2 with R <= r, for the states whose risk is monotone in lambda2.
def _inverse_mean_target(r: float, s: AnalyticSetting) -> float:
    with np.errstate(over="ignore"):  # a target beyond the largest float: no noise is needed
        return float(s.n / r - s.sigma2 - s.n * np.square(np.float64(s.mu) - s.tau))


def _inverse_population(r: float, s: AnalyticSetting) -> float:
    return s.n / r - (s.n + 1) * s.sigma2


def _inverse_sample(r: float, s: AnalyticSetting) -> float:
    return s.n / r - s.sigma2 - float(np.sum((s.mu - s.data) ** 2))


def _inverse_record(r: float, s: AnalyticSetting) -> float:
    return 1.0 / r


@dataclass(frozen=True)
class KnowledgeState:
    """One knowledge state of the analytic map: everything the layers say about it, in one record.

    Parameters
    ----------
    kernel : callable
        ``kernel(lambda2, setting) -> risk``, vectorized over a float array of
        noise variances; assumes valid input (a checked grid, and a setting
        that has what ``needs`` names).
    equation : str
        The paper's equation(s), e.g. ``"Eq 4"``.
    description : str
        What the snooper knows and how it estimates the target, for tooltips.
    latex : str
        The risk formula in LaTeX.
    noun : str
        The state as a noun phrase, e.g. ``"record knowledge"``.
    who : str
        The snooper as a relative clause, e.g. ``"who can link the target to
        its masked record"``; ``{p}`` stands for the ordinal percentile.
    empirical : str
        The estimator of the empirical map that plays this state's part (a key
        of :data:`rumap.maps.attacks.KNOWLEDGE`): ``"index"`` for record
        knowledge, ``"position"`` for order statistics, ``"mean"`` for the
        masked mean.
    inverse : callable, optional
        ``inverse(r, setting) -> lambda2``: the noise variance at which the risk
        equals ``r``, where the risk is monotone and invertible in closed form.
    needs : str, optional
        The field of :class:`AnalyticSetting` the state cannot do without
        (``"tau"`` or ``"data"``).
    """

    kernel: Callable[[np.ndarray, AnalyticSetting], np.ndarray]
    equation: str
    description: str
    latex: str
    noun: str
    who: str
    empirical: str
    inverse: Callable[[float, AnalyticSetting], float] | None = None
    needs: str | None = None

    def check_setting(self, name: str, setting: AnalyticSetting) -> None:
        """Raise :class:`InputError` when ``setting`` lacks what state ``name`` needs."""
        if self.needs is not None and getattr(setting, self.needs) is None:
            raise InputError(f"state {name!r} needs {_NEEDS[self.needs]}")


_NEEDS = {"tau": "the target value tau", "data": "a data column"}

#: The snooper's knowledge states of the analytic map, by name (the command line's ``--state``).
STATES: dict[str, KnowledgeState] = {
    "mean-target": KnowledgeState(
        _k_mean_target, "Eq 1", "knows the target value's population; estimates it by the masked mean",
        r"R = \frac{n}{\sigma^2 + \lambda^2 + n(\mu - \tau)^2}",
        "knowledge of the target's value", "who knows the target's value comes from this population", "mean",
        _inverse_mean_target, needs="tau"),
    "population": KnowledgeState(
        lambda lam, s: _risk_population(lam, s.n, s.sigma2), "Eq 2",
        "knows the target is from the population; estimates it by the masked mean",
        r"R = \frac{n}{(n+1)\sigma^2 + \lambda^2}",
        "population knowledge", "who knows only that the target is from the population", "mean",
        _inverse_population),
    "sample": KnowledgeState(
        _k_sample, "Eq 3", "knows the target is in the sample; estimates it by the masked mean",
        r"R = \frac{n}{\sigma^2 + \lambda^2 + \sum_i (\mu - x_i)^2}",
        "sample knowledge", "who knows the target is in the sample", "mean", _inverse_sample, needs="data"),
    "record": KnowledgeState(
        lambda lam, s: _risk_record(lam), "Eq 4", "can link the target to its masked record",
        r"R = \frac{1}{\lambda^2}",
        "record knowledge", "who can link the target to its masked record", "index", _inverse_record),
    "percentile": KnowledgeState(
        lambda lam, s: _risk_percentile(lam, s.n, s.sigma2, s.p, s.family, s.shape), "Eq 5 / Eq 8",
        "knows the target is the p-th percentile; estimates it by Y_(np)",
        r"R \approx \left[\frac{p(1-p)}{n\,\varphi(z_p)^2}(\sigma^2+\lambda^2)"
        r" + z_p^2\left(\sqrt{\sigma^2+\lambda^2}-\sigma\right)^2\right]^{-1}",
        "percentile knowledge", "who knows the target is the {p} percentile", "position"),
    "maximum": KnowledgeState(
        _k_maximum, "Eq 9 / Eq 10", "knows the target is the sample maximum; estimates it by Y_(n)",
        r"R \approx \left[K_2(\sigma^2+\lambda^2) + \left(x_{(n)} - \mu - K_1\sqrt{\sigma^2+\lambda^2}\right)^2\right]^{-1}",
        "knowledge that the target is the maximum", "who knows the target is the largest value", "position"),
    "minimum": KnowledgeState(
        _k_minimum, "Eq 9 / Eq 10 (mirrored)", "knows the target is the sample minimum; estimates it by Y_(1)",
        r"R \approx \left[K_2(\sigma^2+\lambda^2) + \left(x_{(1)} - \mu + K_1\sqrt{\sigma^2+\lambda^2}\right)^2\right]^{-1}",
        "knowledge that the target is the minimum", "who knows the target is the smallest value", "position"),
}


@validate_params({"setting": [None, InstanceOf(AnalyticInputs)]}, example=lambda: {"state": "record"})
def check_state(state: str, setting: AnalyticSetting | None = None) -> KnowledgeState:
    """The record of a knowledge state, checking that it exists (and that ``setting`` has what it needs).

    Parameters
    ----------
    state : str
        A key of :data:`STATES`.
    setting : AnalyticSetting, optional
        When given, also check that it has what the state needs (tau, data).

    Returns
    -------
    KnowledgeState

    Raises
    ------
    InputError
        Unknown state, or a setting without what the state needs.

    Examples
    --------
    >>> from rumap.maps.analytic import check_state
    >>> check_state("record").equation
    'Eq 4'
    >>> check_state("record").empirical
    'index'
    """
    record = STATES.get(state) if isinstance(state, str) else None
    if record is None:
        raise InputError(f"unknown state {state!r}; choose from {', '.join(STATES)}")
    if setting is not None:
        record.check_setting(state, setting)
    return record


@validate_params({"lambda2": Grid("lambda2"), "setting": InstanceOf(AnalyticSetting)},
                 example=lambda: {"state": "record", "lambda2": [0.0, 0.5], "setting": AnalyticSetting(n=200, sigma2=1.0)})
def state_risk(state: str, lambda2: ArrayLike, setting: AnalyticSetting) -> np.ndarray:
    """The risk of one knowledge state at the given noise variances.

    Parameters
    ----------
    state : str
        A key of :data:`STATES`.
    lambda2 : array_like, shape (m,)
    setting : AnalyticSetting

    Returns
    -------
    ndarray, shape (m,)

    Examples
    --------
    >>> from rumap.maps.setting import AnalyticSetting
    >>> from rumap.maps.analytic import state_risk
    >>> state_risk("record", [0.25, 0.5], AnalyticSetting(n=200, sigma2=1.0)).tolist()
    [4.0, 2.0]
    """
    record = check_state(state, setting)
    return record.kernel(lambda2, setting)


@validate_params({"states": STATE_NAMES, "lambda2": Grid("lambda2"), "setting": InstanceOf(AnalyticSetting)},
                 example=lambda: {"states": ["record"], "lambda2": [0.0, 0.5], "setting": AnalyticSetting(n=200, sigma2=1)})
def analytic_map(states: list[str] | tuple[str, ...] | str, lambda2: ArrayLike, setting: AnalyticSetting) -> list[RUMap]:
    """Analytic R-U maps for additive noise, one per knowledge state.

    Parameters
    ----------
    states : str or sequence of str
        Keys of :data:`STATES`.
    lambda2 : array_like, shape (m,)
        Noise variances (>= 0).
    setting : AnalyticSetting
        The data's n, sigma2, mu and what the states need.

    Returns
    -------
    list of RUMap
        One map per state, with ``utility = n / (sigma2 + lambda2)`` and the
        efficiency ``sigma2 / (sigma2 + lambda2)``.

    References
    ----------
    Duncan, Keller-McNulty & Stokes (2001), Equations (1)-(10).

    Examples
    --------
    >>> from rumap.maps.setting import AnalyticSetting
    >>> from rumap.maps.analytic import analytic_map
    >>> record, population = analytic_map(["record", "population"], [0.0, 0.2, 1.0], AnalyticSetting(n=200, sigma2=1.0))
    >>> record.risk.tolist(), population.risk.round(4).tolist()
    ([inf, 5.0, 1.0], [0.995, 0.994, 0.9901])
    >>> record.utility.round(2).tolist()
    [200.0, 166.67, 100.0]
    """
    if isinstance(states, str):
        states = [states]
    if not states:
        raise InputError("choose at least one knowledge state")
    lam = lambda2
    utility = utility_mean(lam, setting.n, setting.sigma2)
    eff = efficiency(lam, setting.sigma2)
    maps = []
    for state in states:
        record = check_state(state, setting)
        maps.append(
            RUMap(
                parameter="lambda2",
                values=lam,
                risk=record.kernel(lam, setting),
                utility=utility,
                risk_label=RISK_LABEL,
                utility_label=UTILITY_LABEL,
                method="analytic",
                knowledge=state,
                efficiency=eff,
                config={**setting.config(), "state": state, "equation": record.equation},
            )
        )
    return maps
