"""Noise of the differential-privacy mechanisms drawn from a seeded numpy generator, exactly of the mechanism's law.

OpenDP's samplers draw from the operating system's random source and cannot be
seeded. A release that must be reproducible from its seed draws its noise here,
from :class:`numpy.random.Generator`, with the scale OpenDP's measurement was
built with (:mod:`rumap.privacy.accounting`):

- continuous Laplace, density ``exp(-|x| / b) / (2 b)``: numpy's ``laplace``;
- discrete Laplace, ``P(k) ∝ exp(-|k| / b)`` on the integers: the difference of
  two independent geometric variables with success probability ``1 - exp(-1 / b)``;
- continuous Gaussian, standard deviation ``sigma``: numpy's ``normal``;
- discrete Gaussian, ``P(k) ∝ exp(-k^2 / (2 sigma^2))``: Canonne, Kamath and
  Steinke's (2020) rejection sampler, a discrete Laplace proposal of scale
  ``t = floor(sigma) + 1`` kept with probability
  ``exp(-(|k| - sigma^2 / t)^2 / (2 sigma^2))``.

These are the mechanisms' laws, drawn with floating-point arithmetic (numpy's
geometric and uniform variates); OpenDP's own samplers are exact in integer
arithmetic and guard against floating-point attacks; a release without a seed
uses them (``seed=None`` in :func:`rumap.tables.dp.dp_release`).
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from rumap._validation import assumes_valid

__all__ = ["SAMPLERS", "NOISE_VARIANCES", "draw_noise"]


def _laplace(rng: np.random.Generator, scale: float, size: int) -> np.ndarray:
    return rng.laplace(0.0, scale, size)


def _discrete_laplace(rng: np.random.Generator, scale: float, size: int) -> np.ndarray:
    p = -math.expm1(-1.0 / scale)  # 1 - exp(-1/b), accurate for large b
    return (rng.geometric(p, size) - rng.geometric(p, size)).astype(np.int64)


def _gaussian(rng: np.random.Generator, scale: float, size: int) -> np.ndarray:
    return rng.normal(0.0, scale, size)


def _discrete_gaussian(rng: np.random.Generator, scale: float, size: int) -> np.ndarray:
    sigma2 = scale * scale
    t = math.floor(scale) + 1.0
    out = np.empty(size, dtype=np.int64)
    todo = np.arange(size)
    while todo.size:  # each round keeps at least about half of the proposals (Canonne, Kamath & Steinke, Thm 6)
        proposal = _discrete_laplace(rng, t, todo.size)
        keep = rng.random(todo.size) < np.exp(-((np.abs(proposal) - sigma2 / t) ** 2) / (2.0 * sigma2))
        out[todo[keep]] = proposal[keep]
        todo = todo[~keep]
    return out


#: mechanism -> its seeded sampler ``(generator, scale, size) -> noise``.
SAMPLERS: dict[str, Callable[[np.random.Generator, float, int], np.ndarray]] = {
    "laplace": _laplace,
    "discrete-laplace": _discrete_laplace,
    "gaussian": _gaussian,
    "discrete-gaussian": _discrete_gaussian,
}


def _discrete_gaussian_variance(scale: float) -> float:
    half_width = int(math.ceil(12.0 * scale)) + 2
    k = np.arange(-half_width, half_width + 1, dtype=float)
    weights = np.exp(-k * k / (2.0 * scale * scale))
    return float((weights * k * k).sum() / weights.sum())


#: mechanism -> the variance of its noise at scale b: 2 b^2; 2 e^(-1/b) / (1 - e^(-1/b))^2; sigma^2; and the
#: discrete Gaussian's, summed over its support (just under sigma^2 once sigma >= 1).
NOISE_VARIANCES: dict[str, Callable[[float], float]] = {
    "laplace": lambda b: 2.0 * b * b,
    "discrete-laplace": lambda b: 2.0 * math.exp(-1.0 / b) / math.expm1(-1.0 / b) ** 2,
    "gaussian": lambda b: b * b,
    "discrete-gaussian": _discrete_gaussian_variance,
}


@assumes_valid
def draw_noise(mechanism: str, scale: float, size: int, rng: np.random.Generator) -> np.ndarray:
    """``size`` draws of a mechanism's noise at ``scale`` from a seeded generator.

    Parameters
    ----------
    mechanism : str
        A key of :data:`SAMPLERS`.
    scale : float
        The Laplace scale b or the Gaussian standard deviation sigma.
    size : int
    rng : numpy.random.Generator

    Returns
    -------
    ndarray
        Floats for the continuous mechanisms, integers for the discrete ones.

    Examples
    --------
    >>> import numpy as np
    >>> noise = draw_noise("discrete-gaussian", 2.0, 20_000, np.random.default_rng(1))
    >>> noise.dtype.kind, bool(abs(noise.var() - NOISE_VARIANCES["discrete-gaussian"](2.0)) < 0.2)
    ('i', True)
    """
    return SAMPLERS[mechanism](rng, float(scale), int(size))
