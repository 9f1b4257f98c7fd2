"""Distribution families of the data for the percentile state (Duncan et al. 2001, Eq 5 and Eq 8).

With normal data and normal noise the risk of the percentile state has the
closed form Eq 8. For another family of the data, Eq 5 is evaluated for the
distribution of ``Y = X + e``: its cdf and density are expectations over the
normal noise, by Gauss-Hermite quadrature, and its quantile is found by
bisection. The kernels assume checked input.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from statistics import NormalDist

import numpy as np

from rumap.errors import InputError

__all__ = ["Family", "FAMILIES"]

#: Gauss-Hermite nodes for the expectations over the noise: exact for polynomials of degree < 160.
QUADRATURE_NODES = 80
#: Half-width, in standard deviations of Y, of the bracket of Y's quantile around X's: the noise moves the quantile
#: by less than its own sd, and 12 sd leaves a tail probability (~1e-33) far below double precision.
BRACKET_SD = 12
#: Bisection steps of the quantile: 80 halvings shrink the 24-sd bracket by 2^-80 (~1e-24), below double precision.
BISECTION_STEPS = 80


@dataclass(frozen=True)
class Family:
    """A distribution family of the data, standardized to mean 0 and variance 1 where it is used.

    Parameters
    ----------
    make : callable
        ``make(shape)`` -> a frozen ``scipy.stats`` distribution.
    shape_name : str or None
        The name of its shape parameter (``None`` for families without one).
    default_shape : float or None
        The shape used when none is given.
    """

    make: Callable[[float | None], object]
    shape_name: str | None
    default_shape: float | None

    def frozen(self, shape: float | None):
        """The scipy distribution with ``shape`` (or the default shape)."""
        return self.make(self.default_shape if shape is None else shape)


def _stats():
    # scipy.stats is imported on first use: it takes a second, and the CLI's start-up should not pay it.
    from scipy import stats

    return stats


#: Distribution families of the data for the percentile state, by name.
FAMILIES: dict[str, Family] = {
    "normal": Family(lambda s: _stats().norm(), None, None),
    "logistic": Family(lambda s: _stats().logistic(), None, None),
    "laplace": Family(lambda s: _stats().laplace(), None, None),
    "uniform": Family(lambda s: _stats().uniform(), None, None),
    "lognormal": Family(lambda s: _stats().lognorm(s), "s", 0.5),
    "gamma": Family(lambda s: _stats().gamma(s), "a", 2.0),
    "t": Family(lambda s: _stats().t(s), "df", 5.0),
}


def _standardized(family: str, shape: float | None):
    spec = FAMILIES[family]
    dist = spec.frozen(shape)
    mean, var = (float(v) for v in dist.stats("mv"))
    if not (math.isfinite(mean) and math.isfinite(var) and var > 0):
        raise InputError(f"family {family!r} with shape {shape!r} has no finite variance")
    return dist, mean, math.sqrt(var)


def risk_percentile_normal(lam: np.ndarray, n: int, sigma2: float, p: float) -> np.ndarray:
    """Eq 8, the percentile state with normal data and noise (a kernel: checked input)."""
    z = NormalDist().inv_cdf(p)
    phi = math.exp(-0.5 * z * z) / math.sqrt(2 * math.pi)
    with np.errstate(over="ignore"):  # a variance beyond the largest float: the MSE is infinite and R is 0
        total = sigma2 + lam
        mse = p * (1 - p) / (n * phi**2) * total + z**2 * (np.sqrt(total) - math.sqrt(sigma2)) ** 2
        return 1.0 / mse


def risk_percentile_quadrature(lam: np.ndarray, n: int, sigma2: float, p: float, family: str,
                               shape: float | None) -> np.ndarray:
    """Eq 5 for X from ``family`` and normal noise, by Gauss-Hermite quadrature.

    ``F_Y(y) = E F_X(y - lambda e)`` and ``f_Y(y) = E f_X(y - lambda e)`` with
    ``e ~ N(0, 1)``; the quantile ``xi_Yp`` is found by bisection.
    """
    dist, m0, s0 = _standardized(family, shape)
    sigma = math.sqrt(sigma2)
    t, w = np.polynomial.hermite_e.hermegauss(QUADRATURE_NODES)
    w = w / w.sum()

    def cdf_x(x):
        return dist.cdf(m0 + s0 * x / sigma)

    def pdf_x(x):
        return dist.pdf(m0 + s0 * x / sigma) * s0 / sigma

    xi_x = sigma * (float(dist.ppf(p)) - m0) / s0
    lam_sd = np.sqrt(lam)[:, None]
    sd_y = np.sqrt(sigma2 + lam)
    lo = xi_x - BRACKET_SD * sd_y
    hi = xi_x + BRACKET_SD * sd_y
    for _ in range(BISECTION_STEPS):
        mid = 0.5 * (lo + hi)
        below = (cdf_x(mid[:, None] - lam_sd * t) @ w) < p
        lo = np.where(below, mid, lo)
        hi = np.where(below, hi, mid)
    xi_y = 0.5 * (lo + hi)
    dens = pdf_x(xi_y[:, None] - lam_sd * t) @ w
    mse = p * (1 - p) / (n * dens**2) + (xi_y - xi_x) ** 2
    return 1.0 / mse
