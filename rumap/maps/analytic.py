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
from dataclasses import dataclass, field, replace
from statistics import NormalDist

import numpy as np
from numpy.typing import ArrayLike

from rumap._validation import check_array, check_scalar
from rumap.errors import InputError
from rumap.result import RUMap

__all__ = [
    "AnalyticSetting",
    "STATES",
    "FAMILIES",
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


def _lambda2(lambda2: ArrayLike) -> np.ndarray:
    return check_array("lambda2", lambda2)


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
    lam = _lambda2(lambda2)
    n = check_scalar("n", n)
    sigma2 = check_scalar("sigma2", sigma2)
    return n / (sigma2 + lam)


def efficiency(lambda2: ArrayLike, sigma2: float) -> np.ndarray:
    """Efficiency of the masked mean, ``U(lambda2) / U(0) = sigma2 / (sigma2 + lambda2)``.

    Values lie in (0, 1]; 1 means no loss.
    """
    lam = _lambda2(lambda2)
    sigma2 = check_scalar("sigma2", sigma2)
    return sigma2 / (sigma2 + lam)


def risk_mean_target(lambda2: ArrayLike, n: int, sigma2: float, mu: float, tau: float) -> np.ndarray:
    """Risk for a specific target ``tau`` estimated by ``mean(Y)`` (Eq 1).

    Notes
    -----
    ``R = n / (sigma2 + lambda2 + n (mu - tau)^2)``.

    References
    ----------
    Duncan, Keller-McNulty & Stokes (2001), Equation (1).
    """
    lam = _lambda2(lambda2)
    n = check_scalar("n", n)
    sigma2 = check_scalar("sigma2", sigma2)
    mu = check_scalar("mu", mu)
    tau = check_scalar("tau", tau)
    return n / (sigma2 + lam + n * (mu - tau) ** 2)


def risk_population(lambda2: ArrayLike, n: int, sigma2: float) -> np.ndarray:
    """Risk for a target drawn from the population, estimated by ``mean(Y)`` (Eq 2).

    Notes
    -----
    Eq 1 averaged over targets from the population, ``E(mu - tau)^2 = sigma2``:
    ``R = n / ((n + 1) sigma2 + lambda2)``.

    References
    ----------
    Duncan, Keller-McNulty & Stokes (2001), Equation (2).
    """
    lam = _lambda2(lambda2)
    n = check_scalar("n", n)
    sigma2 = check_scalar("sigma2", sigma2)
    return n / ((n + 1) * sigma2 + lam)


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
    lam = _lambda2(lambda2)
    data = _data_column(x)
    sigma2 = float(np.var(data, ddof=1)) if sigma2 is None else check_scalar("sigma2", sigma2)
    mu = float(np.mean(data)) if mu is None else check_scalar("mu", mu)
    return data.size / (sigma2 + lam + float(np.sum((mu - data) ** 2)))


def risk_record(lambda2: ArrayLike) -> np.ndarray:
    """Risk when the snooper can link the target to its masked record (Eq 4).

    Notes
    -----
    The snooper uses ``Y_i`` itself: ``R = 1 / lambda2``, infinite at 0.

    References
    ----------
    Duncan, Keller-McNulty & Stokes (2001), Equation (4).
    """
    lam = _lambda2(lambda2)
    with np.errstate(divide="ignore", over="ignore"):
        return np.where(lam > 0, 1.0 / np.where(lam > 0, lam, 1.0), np.inf)


# --- percentiles ---------------------------------------------------------------------------


@dataclass(frozen=True)
class _Family:
    """A location-scale family standardized to mean 0 and variance 1."""

    make: Callable[[float | None], object]
    shape_name: str | None
    default_shape: float | None

    def frozen(self, shape: float | None):
        return self.make(self.default_shape if shape is None else shape)


def _stats():
    # scipy.stats is imported on first use: it takes a second, and the CLI's start-up should not pay it.
    from scipy import stats

    return stats


FAMILIES: dict[str, _Family] = {
    "normal": _Family(lambda s: _stats().norm(), None, None),
    "logistic": _Family(lambda s: _stats().logistic(), None, None),
    "laplace": _Family(lambda s: _stats().laplace(), None, None),
    "uniform": _Family(lambda s: _stats().uniform(), None, None),
    "lognormal": _Family(lambda s: _stats().lognorm(s), "s", 0.5),
    "gamma": _Family(lambda s: _stats().gamma(s), "a", 2.0),
    "t": _Family(lambda s: _stats().t(s), "df", 5.0),
}


def _standardized(family: str, shape: float | None):
    if family not in FAMILIES:
        raise InputError(f"family must be one of {', '.join(FAMILIES)}, got {family!r}")
    spec = FAMILIES[family]
    dist = spec.frozen(shape)
    mean, var = (float(v) for v in dist.stats("mv"))
    if not (math.isfinite(mean) and math.isfinite(var) and var > 0):
        raise InputError(f"family {family!r} with shape {shape!r} has no finite variance")
    return dist, mean, math.sqrt(var)


def _risk_percentile_normal(lam: np.ndarray, n: int, sigma2: float, p: float) -> np.ndarray:
    z = NormalDist().inv_cdf(p)
    phi = math.exp(-0.5 * z * z) / math.sqrt(2 * math.pi)
    total = sigma2 + lam
    mse = p * (1 - p) / (n * phi**2) * total + z**2 * (np.sqrt(total) - math.sqrt(sigma2)) ** 2
    return 1.0 / mse


def _risk_percentile_quadrature(
    lam: np.ndarray, n: int, sigma2: float, p: float, family: str, shape: float | None, nodes: int = 80
) -> np.ndarray:
    """Eq 5 for X from ``family`` and normal noise, by Gauss-Hermite quadrature.

    ``F_Y(y) = E F_X(y - lambda e)`` and ``f_Y(y) = E f_X(y - lambda e)`` with
    ``e ~ N(0, 1)``; the quantile ``xi_Yp`` is found by bisection.
    """
    dist, m0, s0 = _standardized(family, shape)
    sigma = math.sqrt(sigma2)
    t, w = np.polynomial.hermite_e.hermegauss(nodes)
    w = w / w.sum()

    def cdf_x(x):
        return dist.cdf(m0 + s0 * x / sigma)

    def pdf_x(x):
        return dist.pdf(m0 + s0 * x / sigma) * s0 / sigma

    xi_x = sigma * (float(dist.ppf(p)) - m0) / s0
    lam_sd = np.sqrt(lam)[:, None]
    sd_y = np.sqrt(sigma2 + lam)
    lo = xi_x - 12 * sd_y
    hi = xi_x + 12 * sd_y
    for _ in range(80):
        mid = 0.5 * (lo + hi)
        below = (cdf_x(mid[:, None] - lam_sd * t) @ w) < p
        lo = np.where(below, mid, lo)
        hi = np.where(below, hi, mid)
    xi_y = 0.5 * (lo + hi)
    dens = pdf_x(xi_y[:, None] - lam_sd * t) @ w
    mse = p * (1 - p) / (n * dens**2) + (xi_y - xi_x) ** 2
    return 1.0 / mse


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
    lam = _lambda2(lambda2)
    n = check_scalar("n", n)
    sigma2 = check_scalar("sigma2", sigma2)
    p = check_scalar("p", p)
    if family == "normal":
        return _risk_percentile_normal(lam, n, sigma2, p)
    return _risk_percentile_quadrature(lam, n, sigma2, p, family, shape)


# --- extremes --------------------------------------------------------------------------------


def extreme_constants(n: int) -> tuple[float, float]:
    """The constants ``K1`` and ``K2`` of the normal maximum (Eq 9).

    ``E Z_(n) ~ K1 = sqrt(2 ln n) - (ln ln n + ln 4 pi - 2 gamma) / (2 sqrt(2 ln n))``
    and ``Var Z_(n) ~ K2 = pi^2 / (12 ln n)`` for n standard normal variables.
    """
    n = check_scalar("n", n)
    root = math.sqrt(2 * math.log(n))
    k1 = root - (math.log(math.log(n)) + math.log(4 * math.pi) - 2 * EULER_GAMMA) / (2 * root)
    k2 = math.pi**2 / (12 * math.log(n))
    return k1, k2


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
    lam = _lambda2(lambda2)
    n = check_scalar("n", n)
    if n < 3:
        raise InputError(f"n must be at least 3 for the maximum and minimum (ln ln n), got {n}")
    sigma2 = check_scalar("sigma2", sigma2)
    mu = check_scalar("mu", mu)
    k1, k2 = extreme_constants(n)
    sd_y = np.sqrt(sigma2 + lam)
    x_max = mu + math.sqrt(sigma2) * k1 if observed is None else check_scalar("observed_extreme", observed)
    return 1.0 / (k2 * (sigma2 + lam) + (x_max - mu - k1 * sd_y) ** 2)


def risk_minimum(
    lambda2: ArrayLike, n: int, sigma2: float, mu: float = 0.0, observed: float | None = None
) -> np.ndarray:
    """Risk when the target is the sample minimum, estimated by ``Y_(1)`` (Eq 9-10 mirrored).

    The minimum of ``x`` is the negated maximum of ``-x``, so
    ``R ~ 1 / [K2 (sigma2 + lambda2) + (x_(1) - mu + K1 sqrt(sigma2 + lambda2))^2]``.
    """
    neg_observed = None if observed is None else -check_scalar("observed_extreme", observed)
    return risk_maximum(lambda2, n, sigma2, -check_scalar("mu", mu), neg_observed)


# --- knowledge states ------------------------------------------------------------------------


@dataclass(frozen=True)
class AnalyticSetting:
    """What the analytic formulas need to know about the data.

    Parameters
    ----------
    n : int
    sigma2 : float
    mu : float, default 0
    tau : float, optional
        The specific target for ``mean-target`` (Eq 1).
    p : float, default 0.99
        The percentile for ``percentile`` (Eq 5/8).
    family : str, default "normal"
        Distribution family for ``percentile``.
    shape : float, optional
        Its shape parameter.
    data : ndarray, optional
        The data column; needed by ``sample`` (Eq 3), and supplies the observed
        extremes for ``maximum`` and ``minimum`` (Eq 9).
    """

    n: int
    sigma2: float
    mu: float = 0.0
    tau: float | None = None
    p: float = 0.99
    family: str = "normal"
    shape: float | None = None
    data: np.ndarray | None = field(default=None, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "n", check_scalar("n", self.n))
        object.__setattr__(self, "sigma2", check_scalar("sigma2", self.sigma2))
        object.__setattr__(self, "mu", check_scalar("mu", self.mu))
        if self.tau is not None:
            object.__setattr__(self, "tau", check_scalar("tau", self.tau))
        object.__setattr__(self, "p", check_scalar("p", self.p))
        if self.family not in FAMILIES:
            raise InputError(f"family must be one of {', '.join(FAMILIES)}, got {self.family!r}")
        if self.data is not None:
            data = _data_column(self.data)
            data.setflags(write=False)
            object.__setattr__(self, "data", data)

    @classmethod
    def from_data(cls, x: ArrayLike, **overrides) -> AnalyticSetting:
        """A setting whose n, sigma2 (ddof = 1) and mu come from a data column.

        Keyword arguments override any of them (``None`` values are ignored).
        """
        data = _data_column(x)
        values = {"n": data.size, "sigma2": float(np.var(data, ddof=1)), "mu": float(np.mean(data))}
        values.update({k: v for k, v in overrides.items() if v is not None})
        return cls(data=data, **values)

    def with_(self, **changes) -> AnalyticSetting:
        """A copy with some fields changed."""
        return replace(self, **changes)

    def config(self) -> dict:
        """The scalar inputs, for recording with a result."""
        out = {"n": self.n, "sigma2": self.sigma2, "mu": self.mu, "tau": self.tau, "p": self.p,
               "family": self.family, "shape": self.shape}
        if self.data is not None:
            out["data_min"] = float(self.data.min())
            out["data_max"] = float(self.data.max())
        return out


def _data_column(x: ArrayLike) -> np.ndarray:
    try:
        data = np.asarray(x, dtype=float).reshape(-1)
    except (TypeError, ValueError):
        raise InputError("the data column must be numeric") from None
    if data.size < 2:
        raise InputError(f"the data column needs at least 2 values, got {data.size}")
    if not np.all(np.isfinite(data)):
        raise InputError("the data column has missing or infinite values")
    if np.var(data) == 0:
        raise InputError("the data column is constant (variance 0)")
    return data


def _k_mean_target(lam: np.ndarray, s: AnalyticSetting) -> np.ndarray:
    if s.tau is None:
        raise InputError("state 'mean-target' needs the target value tau")
    return risk_mean_target(lam, s.n, s.sigma2, s.mu, s.tau)


def _k_sample(lam: np.ndarray, s: AnalyticSetting) -> np.ndarray:
    if s.data is None:
        raise InputError("state 'sample' needs a data column (--data and --column)")
    return risk_sample(lam, s.data, s.sigma2, s.mu)


def _k_maximum(lam: np.ndarray, s: AnalyticSetting) -> np.ndarray:
    observed = None if s.data is None else float(s.data.max())
    return risk_maximum(lam, s.n, s.sigma2, s.mu, observed)


def _k_minimum(lam: np.ndarray, s: AnalyticSetting) -> np.ndarray:
    observed = None if s.data is None else float(s.data.min())
    return risk_minimum(lam, s.n, s.sigma2, s.mu, observed)


@dataclass(frozen=True)
class _State:
    kernel: Callable[[np.ndarray, AnalyticSetting], np.ndarray]
    equation: str
    description: str
    latex: str


#: The snooper's knowledge states of the analytic map, by CLI name.
STATES: dict[str, _State] = {
    "mean-target": _State(
        _k_mean_target, "Eq 1", "knows the target value's population; estimates it by the masked mean",
        r"R = \frac{n}{\sigma^2 + \lambda^2 + n(\mu - \tau)^2}"),
    "population": _State(
        lambda lam, s: risk_population(lam, s.n, s.sigma2), "Eq 2",
        "knows the target is from the population; estimates it by the masked mean",
        r"R = \frac{n}{(n+1)\sigma^2 + \lambda^2}"),
    "sample": _State(
        _k_sample, "Eq 3", "knows the target is in the sample; estimates it by the masked mean",
        r"R = \frac{n}{\sigma^2 + \lambda^2 + \sum_i (\mu - x_i)^2}"),
    "record": _State(
        lambda lam, s: risk_record(lam), "Eq 4", "can link the target to its masked record",
        r"R = \frac{1}{\lambda^2}"),
    "percentile": _State(
        lambda lam, s: risk_percentile(lam, s.n, s.sigma2, s.p, s.family, s.shape), "Eq 5 / Eq 8",
        "knows the target is the p-th percentile; estimates it by Y_(np)",
        r"R \approx \left[\frac{p(1-p)}{n\,\varphi(z_p)^2}(\sigma^2+\lambda^2)"
        r" + z_p^2\left(\sqrt{\sigma^2+\lambda^2}-\sigma\right)^2\right]^{-1}"),
    "maximum": _State(
        _k_maximum, "Eq 9 / Eq 10", "knows the target is the sample maximum; estimates it by Y_(n)",
        r"R \approx \left[K_2(\sigma^2+\lambda^2) + \left(x_{(n)} - \mu - K_1\sqrt{\sigma^2+\lambda^2}\right)^2\right]^{-1}"),
    "minimum": _State(
        _k_minimum, "Eq 9 / Eq 10 (mirrored)", "knows the target is the sample minimum; estimates it by Y_(1)",
        r"R \approx \left[K_2(\sigma^2+\lambda^2) + \left(x_{(1)} - \mu + K_1\sqrt{\sigma^2+\lambda^2}\right)^2\right]^{-1}"),
}


def _check_state(state: str) -> _State:
    try:
        return STATES[state]
    except KeyError:
        raise InputError(f"unknown state {state!r}; choose from {', '.join(STATES)}") from None


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
    """
    spec = _check_state(state)
    return spec.kernel(_lambda2(lambda2), setting)


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
    """
    if isinstance(states, str):
        states = [states]
    if not states:
        raise InputError("choose at least one knowledge state")
    lam = _lambda2(lambda2)
    utility = utility_mean(lam, setting.n, setting.sigma2)
    eff = efficiency(lam, setting.sigma2)
    maps = []
    for state in states:
        spec = _check_state(state)
        maps.append(
            RUMap(
                parameter="lambda2",
                values=lam,
                risk=spec.kernel(lam, setting),
                utility=utility,
                risk_label=RISK_LABEL,
                utility_label=UTILITY_LABEL,
                method="analytic",
                knowledge=state,
                efficiency=eff,
                config={**setting.config(), "state": state, "equation": spec.equation},
            )
        )
    return maps
