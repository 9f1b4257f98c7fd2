"""The Poisson-gamma model of a key's population cell frequencies (Bethlehem, Keller & Pannekoek 1990).

The key's ``k`` population cell frequencies are negative binomial with mean
``N / k`` and ``alpha = 1 / (k beta)``; the expected number of population
uniques is ``mu_u = N (1 + N beta)^-(1 + alpha)`` (Mokken et al. 1992, Eq 10).
beta is estimated from the sample's cell counts by moments or maximum
likelihood; the smallest subpopulation that keeps the worst-case risk under a
bound follows from the same model (Eq 15-17).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from rumap._validation import StrOptions, validate_params
from rumap.errors import InputError

__all__ = ["poisson_gamma_uniques", "minimal_subpopulation_size", "PoissonGammaFit", "BETA_ESTIMATORS", "fit_poisson_gamma"]


@validate_params({"N": "N", "beta": "beta", "cells": "cells"}, example=lambda: {"N": 63624, "beta": 3e-4, "cells": 1108})
def poisson_gamma_uniques(N: float, beta: float, cells: int) -> float:
    """Expected number of population uniques under the Poisson-gamma model.

    Parameters
    ----------
    N : float
        Population size.
    beta : float
        Scale parameter (>= 0); 0 is the Poisson limit (all cells alike).
    cells : int
        k, the number of key values.

    Returns
    -------
    float
        ``mu_u = N (1 + N beta)^-(1 + alpha)``, ``alpha = 1 / (k beta)`` (Eq 10);
        ``N exp(-N / k)`` at ``beta = 0``.

    References
    ----------
    Mokken et al. (1992), Equation 10.
    """
    k = cells
    return N * _fraction_unique(N, beta, k)


def _fraction_unique(N: float, beta: float, k: float) -> float:
    """``(1 + N beta)^-(1 + 1/(k beta))`` with its beta -> 0 limit ``exp(-N/k)``."""
    if beta * N < 1e-12:
        return math.exp(-N / k)
    return math.exp(-(1.0 + 1.0 / (k * beta)) * math.log1p(N * beta))


@validate_params({"risk_bound": "risk_bound", "a": "a", "f": "f", "beta": "beta", "cells": "cells"},
                 example=lambda: {"risk_bound": 0.001, "a": 300, "f": 0.01, "beta": 2e-4, "cells": 1108})
def minimal_subpopulation_size(risk_bound: float, a: float, f: float, beta: float, cells: int) -> float:
    """Smallest subpopulation size whose worst-case risk stays at most ``risk_bound`` (model 12).

    Parameters
    ----------
    risk_bound : float
        The bound g on the risk, in (0, 1).
    a : float
        Number of acquaintances.
    f : float
        Sampling fraction.
    beta : float
        The Poisson-gamma parameter (>= 0; 0 is the Poisson limit).
    cells : int
        Number k of cells of the key.

    Returns
    -------
    float
        ``N_min = (C^(-1/(1 + alpha)) - 1) / beta`` with ``C = -ln(1 - g) / (a f)``,
        solving ``a f (1 + N_min beta)^-(1 + alpha) = -ln(1 - g)`` (Eq 16-17). A
        value <= 0 means every subpopulation size satisfies the bound.

    References
    ----------
    Mokken et al. (1992), Section 3.1, Equations 15-17.
    """
    g, k = risk_bound, cells
    if a == 0:
        return -math.inf
    c = -math.log1p(-g) / (a * f)
    if beta == 0:  # Poisson limit: exp(-N/k) = C
        return -k * math.log(c)
    alpha = 1.0 / (k * beta)
    return (c ** (-1.0 / (1.0 + alpha)) - 1.0) / beta


@dataclass(frozen=True)
class PoissonGammaFit:
    """The Poisson-gamma model fitted to a sample's key frequencies.

    Parameters
    ----------
    beta : float
        Scale parameter (0 = Poisson limit).
    cells : int
        k, the number of key values.
    n : int
        Sample size.
    method : str
        ``"ml"`` or ``"moments"``.
    """

    beta: float
    cells: int
    n: int
    method: str

    @property
    def alpha(self) -> float:
        """``alpha = 1 / (k beta)`` (inf in the Poisson limit)."""
        return math.inf if self.beta == 0 else 1.0 / (self.cells * self.beta)

    def population_uniques(self, N: float) -> float:
        """``mu_u = N (1 + N beta)^-(1 + alpha)`` (Eq 10)."""
        return float(N) * _fraction_unique(float(N), self.beta, self.cells)

    def fraction_unique(self, N: float) -> float:
        """``f_u = mu_u / N``."""
        return _fraction_unique(float(N), self.beta, self.cells)


def _count_profile(counts: np.ndarray, cells: int) -> tuple[int, float, np.ndarray]:
    n = int(counts.sum())
    # exceed[j] = number of cells with count > j, j = 0 .. max-1
    exceed = np.bincount(counts.astype(np.int64), minlength=int(counts.max()) + 1)[::-1].cumsum()[::-1][1:]
    sum_sq = float(np.sum(counts.astype(float) ** 2))
    return n, sum_sq, exceed


def _beta_moments(counts: np.ndarray, cells: int) -> float:
    n, sum_sq, _ = _count_profile(counts, cells)
    mean = n / cells
    variance = sum_sq / cells - mean ** 2
    # sample counts are negative binomial with mean n/k and variance (n/k)(1 + n beta)
    return max(0.0, (variance / mean - 1.0) / n)


def _beta_ml(counts: np.ndarray, cells: int) -> float:
    from scipy.optimize import minimize_scalar  # imported here: the risk command's parser needs no scipy

    n, _, exceed = _count_profile(counts, cells)
    j = np.arange(exceed.size)

    def negative_loglik(log_t: float) -> float:
        t = math.exp(log_t)  # t = n beta
        beta = t / n
        alpha = 1.0 / (cells * beta)
        return -(float(np.sum(exceed * np.log(alpha + j))) + n * log_t - (n + 1.0 / beta) * math.log1p(t))

    res = minimize_scalar(negative_loglik, bounds=(math.log(1e-9), math.log(1e9)), method="bounded",
                          options={"xatol": 1e-10})
    t = math.exp(res.x)
    return 0.0 if t < 1e-8 else t / n  # at the lower bound: the Poisson limit


#: Estimators of beta from the sample's key frequencies (counts of the observed cells, and k).
BETA_ESTIMATORS: dict[str, Callable[[np.ndarray, int], float]] = {
    "ml": _beta_ml,
    "moments": _beta_moments,
}


@validate_params({"cells": "cells", "method": StrOptions(BETA_ESTIMATORS)},
                 example=lambda: {"counts": [1, 1, 2, 1, 5, 1, 3], "cells": 20})
def fit_poisson_gamma(counts: ArrayLike, cells: int, method: str = "ml") -> PoissonGammaFit:
    """Fit the Poisson-gamma model to a sample's cell frequencies.

    Parameters
    ----------
    counts : array_like of int, shape (c,)
        Sample frequency of each *observed* key value (c <= k); empty cells are
        implied by ``cells``.
    cells : int
        k, the number of possible key values (>= the number of observed ones).
    method : {"ml", "moments"}
        Maximum likelihood (default) or the method of moments.

    Returns
    -------
    PoissonGammaFit

    Notes
    -----
    If the population cell frequency is Poisson with a gamma(alpha, N beta)
    mean and the sample is a simple random sample with fraction f, the sample
    frequencies are negative binomial with shape ``alpha = 1 / (k beta)`` and
    scale ``n beta``: mean ``n / k``, variance ``(n / k)(1 + n beta)``. The
    moment estimator solves the variance equation over all k cells (zeros
    included); the ML estimator maximizes the negative binomial likelihood in
    beta. Under-dispersed data give beta = 0, the Poisson limit.

    References
    ----------
    Mokken et al. (1992), Section 2.3; Bethlehem, Keller & Pannekoek (1990).
    """
    arr = np.asarray(counts, dtype=float).reshape(-1)
    if arr.size == 0 or np.any(arr < 1) or np.any(arr != np.round(arr)):
        raise InputError("counts must be positive integers (the frequencies of the observed key values)")
    k = cells
    if k < arr.size:
        raise InputError(f"cells (k = {k}) is smaller than the {arr.size} key values observed")
    return PoissonGammaFit(float(BETA_ESTIMATORS[method](arr, k)), k, int(arr.sum()), method)
