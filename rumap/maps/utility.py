"""Data utility of masked data, estimated over M masked replicates (:data:`UTILITIES`).

Each measure compares a statistic of the masked data with the same statistic
of the original data. Most are ``U = 1 / MSE``, the reciprocal of the mean
squared error of the statistic over replicates (summed over its components);
``1 - SSE/SST`` is a utility directly.

=================  ================================================================
name               U
=================  ================================================================
``mean``           Eq 13-14: ``1 / [(1/M) sum_m s_m^2 / n + (mean_m Ybar_m - xbar)^2]``
``mean-error``     ``1 / E(Ybar - xbar)^2`` given the data (masking error of the mean only)
``variance``       ``1 / E sum_k (s^2_Yk - s^2_xk)^2``
``quantiles``      ``1 / E sum_k sum_q (Q_q(Y_k) - Q_q(x_k))^2`` (default q = 0.1, 0.5, 0.9)
``correlation``    ``1 / E sum_{k<l} (r_Y,kl - r_x,kl)^2`` (needs p >= 2)
``regression``     ``1 / E sum_j (b_Y,j - b_x,j)^2``, slopes of a least-squares regression
                   of one column (``response``) on the others (needs p >= 2)
``sse``            ``1 - SSE/SST``, ``SSE/SST = mean_k sum_i (Y_ik - x_ik)^2 / sum_i (x_ik - xbar_k)^2``
=================  ================================================================

Microaggregation and rank swapping keep every column's mean exactly, so the
masking error of the mean is 0 (``mean-error`` is infinite) and Eq 14's
``mean`` changes only through the masked data's smaller variance ``s_m^2``: it
does not measure what they lose. Maps that compare them with noise need one of
the other measures; the map's utility label says so.

References
----------
Duncan, Keller-McNulty & Stokes (2001), Eq 13-14 (utility of the mean);
Domingo-Ferrer & Torra (2001) for information loss ``SSE/SST``.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from rumap._validation import PARAMETERS, InstanceOf, StrOptions, assumes_valid, validate_params
from rumap.errors import InputError
from rumap.maps.moments import moments
from rumap.result import RUMap

__all__ = ["UtilityMeasure", "UTILITIES", "Reference", "make_reference", "utility_estimate", "utility_label",
           "utility_efficiency", "higher_is_better", "moments"]

@dataclass(frozen=True)
class Reference:
    """The original data's statistics that a utility measure compares with.

    Attributes
    ----------
    x : ndarray, shape (n, p)
        The original data.
    n : int
    mean, var : ndarray, shape (p,)
        Column means and variances (ddof 1).
    options : mapping
        The utility's options.
    extra : mapping
        What the utility measure needs besides (its ``reference_extra``).
    """

    x: np.ndarray
    n: int
    mean: np.ndarray
    var: np.ndarray
    options: Mapping[str, Any] = field(default_factory=dict)
    extra: Mapping[str, Any] = field(default_factory=dict)


# --- per-replicate statistics --------------------------------------------------------------


def _stats_mean(masked: np.ndarray, ref: Reference, known_moments: tuple | None = None) -> np.ndarray:
    mean, var = moments(masked) if known_moments is None else known_moments
    return np.column_stack([var.sum(axis=1) / ref.n, mean])


def _stats_mean_error(masked: np.ndarray, ref: Reference, known_moments: tuple | None = None) -> np.ndarray:
    mean = masked.mean(axis=1) if known_moments is None else known_moments[0]
    return ((mean - ref.mean) ** 2).sum(axis=1)[:, None]


def _stats_variance(masked: np.ndarray, ref: Reference, known_moments: tuple | None = None) -> np.ndarray:
    var = masked.var(axis=1, ddof=1) if known_moments is None else known_moments[1]
    return ((var - ref.var) ** 2).sum(axis=1)[:, None]


def _stats_quantiles(masked: np.ndarray, ref: Reference, known_moments: tuple | None = None) -> np.ndarray:
    q = np.quantile(masked, ref.extra["quantiles"], axis=1)  # (q, r, p)
    return ((q - ref.extra["x_quantiles"][:, None, :]) ** 2).sum(axis=(0, 2))[:, None]


def _correlations(data: np.ndarray) -> np.ndarray:
    centred = data - data.mean(axis=-2, keepdims=True)
    cov = np.einsum("...ni,...nj->...ij", centred, centred)
    sd = np.sqrt(np.einsum("...ii->...i", cov))
    with np.errstate(divide="ignore", invalid="ignore"):
        return cov / (sd[..., :, None] * sd[..., None, :])


def _stats_correlation(masked: np.ndarray, ref: Reference, known_moments: tuple | None = None) -> np.ndarray:
    iu = np.triu_indices(masked.shape[2], k=1)
    corr = _correlations(masked)[:, iu[0], iu[1]]
    return np.nan_to_num((corr - ref.extra["x_correlation"]) ** 2, nan=4.0).sum(axis=1)[:, None]


def _slopes(data: np.ndarray, response: int) -> np.ndarray:
    predictors = [j for j in range(data.shape[-1]) if j != response]
    centred = data - data.mean(axis=-2, keepdims=True)
    xs = centred[..., predictors]
    y = centred[..., response]
    xtx = np.einsum("...ni,...nj->...ij", xs, xs)
    xty = np.einsum("...ni,...n->...i", xs, y)
    return (np.linalg.pinv(xtx) @ xty[..., None])[..., 0]


def _stats_regression(masked: np.ndarray, ref: Reference, known_moments: tuple | None = None) -> np.ndarray:
    slopes = _slopes(masked, ref.extra["response"])
    return ((slopes - ref.extra["x_slopes"]) ** 2).sum(axis=1)[:, None]


def _stats_sse(masked: np.ndarray, ref: Reference, known_moments: tuple | None = None) -> np.ndarray:
    sse = ((masked - ref.x) ** 2).sum(axis=1)  # (r, p)
    return (1.0 - (sse / ref.extra["sst"]).mean(axis=1))[:, None]


# --- combining replicates ------------------------------------------------------------------


def _reciprocal(mse: float, se_mse: float) -> tuple[float, float]:
    if mse <= 0:
        return math.inf, 0.0
    return 1.0 / mse, se_mse / mse**2


def _combine_mean(stats: np.ndarray, ref: Reference) -> tuple[float, float]:
    """Eq 14 and its delta-method standard error."""
    m = stats.shape[0]
    variance_term = stats[:, 0]
    means = stats[:, 1:]
    grand = means.mean(axis=0)
    bias = grand - ref.mean
    mse = float(variance_term.mean() + (bias**2).sum())
    influence = (variance_term - variance_term.mean()) + ((means - grand) * (2 * bias)).sum(axis=1)
    se = float(influence.std(ddof=1) / math.sqrt(m)) if m > 1 else 0.0
    return _reciprocal(mse, se)


def _combine_error(stats: np.ndarray, ref: Reference) -> tuple[float, float]:
    errors = stats[:, 0]
    se = float(errors.std(ddof=1) / math.sqrt(errors.size)) if errors.size > 1 else 0.0
    return _reciprocal(float(errors.mean()), se)


def _combine_average(stats: np.ndarray, ref: Reference) -> tuple[float, float]:
    values = stats[:, 0]
    se = float(values.std(ddof=1) / math.sqrt(values.size)) if values.size > 1 else 0.0
    return float(values.mean()), se


# --- efficiencies: the share of the unmasked data's utility kept, in [0, 1] by construction -----


def _efficiency_mean(stats: np.ndarray, ref: Reference) -> float:
    """``(s^2/n) / (s^2/n + E sum_k (Ybar_k - xbar_k)^2)``, summed over the columns.

    The precision of the mean a user computes from the released data relative
    to the original data's: the sampling variance ``s^2 / n`` of the original
    mean plus the masking error of the released mean. The masking error is
    never negative, so the ratio is at most 1; for additive noise its
    expectation is ``sigma2 / (sigma2 + lambda2)``, the analytic map's
    efficiency, and for a method that keeps the mean exactly it is 1.
    """
    sampling = float(ref.var.sum()) / ref.n
    masking = float(((stats[:, 1:] - ref.mean) ** 2).sum(axis=1).mean())
    if not sampling > 0:
        return 1.0 if masking == 0 else 0.0
    return sampling / (sampling + masking)


# --- references ----------------------------------------------------------------------------


def _extra_none(x: np.ndarray, options: Mapping[str, Any]) -> dict:
    return {}


def _extra_quantiles(x: np.ndarray, options: Mapping[str, Any]) -> dict:
    try:
        qs = np.atleast_1d(np.asarray(options.get("quantiles", (0.1, 0.5, 0.9)), dtype=float))
    except (TypeError, ValueError):
        raise InputError(f"utility quantiles must be numbers in (0, 1), got {options.get('quantiles')!r}") from None
    if qs.ndim != 1 or qs.size == 0 or not all(PARAMETERS["p"].contains(float(q)) for q in qs):
        raise InputError(f"utility quantiles must be numbers in (0, 1), got {options.get('quantiles')!r}")
    return {"quantiles": qs, "x_quantiles": np.quantile(x, qs, axis=0)}


def _needs_columns(x: np.ndarray, name: str) -> None:
    if x.shape[1] < 2:
        raise InputError(f"utility {name!r} needs at least 2 columns, got {x.shape[1]}")


def _extra_correlation(x: np.ndarray, options: Mapping[str, Any]) -> dict:
    _needs_columns(x, "correlation")
    iu = np.triu_indices(x.shape[1], k=1)
    return {"x_correlation": _correlations(x)[iu]}


def _extra_regression(x: np.ndarray, options: Mapping[str, Any]) -> dict:
    _needs_columns(x, "regression")
    response = options.get("response", 0)
    if isinstance(response, bool) or not isinstance(response, (int, np.integer)) or not 0 <= response < x.shape[1]:
        raise InputError(f"utility regression: response must be a column index in [0, {x.shape[1] - 1}], "
                         f"got {response!r}")
    return {"response": int(response), "x_slopes": _slopes(x, int(response))}


def _extra_sse(x: np.ndarray, options: Mapping[str, Any]) -> dict:
    sst = ((x - x.mean(axis=0)) ** 2).sum(axis=0)
    if np.any(sst == 0):
        raise InputError("utility 'sse': a column is constant (SST = 0)")
    return {"sst": sst}


@dataclass(frozen=True)
class UtilityMeasure:
    """One utility measure: per-replicate statistics, how to combine them, its axis label.

    Parameters
    ----------
    stats : callable
        ``stats(masked, ref) -> array``: the statistics of one masked data set.
    combine : callable
        ``combine(stats of shape (M, s), ref) -> (U, SE)``.
    reference_extra : callable
        ``reference_extra(x, options) -> dict``: what the measure needs of the original data.
    label : str
        The axis label, naming the paper's equation where there is one.
    unmasked : callable
        ``unmasked(ref) -> U`` of the unmasked data (for efficiencies).
    mean_based : bool
        Whether it measures how well the mean is kept (then it cannot tell apart
        the parameters of a method that keeps the mean exactly).
    options : tuple of str
        The options (``utility_options``) it takes; others are refused.
    higher_is_better : bool
        The measure's direction: True when a larger U means more utility kept.
        Recommendations, frontiers and figures read it here.
    efficiency : callable, optional
        ``efficiency(stats of shape (M, s), ref) -> float``: the share of the
        unmasked data's utility kept, in [0, 1] by construction; ``None`` when
        the measure has no such share (an unmasked utility that is infinite).
    """

    stats: Callable[..., np.ndarray]
    combine: Callable[[np.ndarray, Reference], tuple[float, float]]
    reference_extra: Callable[[np.ndarray, Mapping[str, Any]], dict]
    label: str
    unmasked: Callable[[Reference], float]
    mean_based: bool = False
    options: tuple[str, ...] = ()
    higher_is_better: bool = True
    efficiency: Callable[[np.ndarray, Reference], float] | None = None


#: Utility measures by name.
UTILITIES: dict[str, UtilityMeasure] = {
    "mean": UtilityMeasure(_stats_mean, _combine_mean, _extra_none, "U = 1 / MSE of the mean (Eq 14)",
                           lambda ref: ref.n / float(ref.var.sum()), mean_based=True, efficiency=_efficiency_mean),
    "mean-error": UtilityMeasure(_stats_mean_error, _combine_error, _extra_none,
                                 "U = 1 / E(mean(Y) - mean(x))^2", lambda ref: math.inf, mean_based=True),
    "variance": UtilityMeasure(_stats_variance, _combine_error, _extra_none, "U = 1 / MSE of the variance",
                               lambda ref: math.inf),
    "quantiles": UtilityMeasure(_stats_quantiles, _combine_error, _extra_quantiles, "U = 1 / MSE of the quantiles",
                                lambda ref: math.inf, options=("quantiles",)),
    "correlation": UtilityMeasure(_stats_correlation, _combine_error, _extra_correlation,
                                  "U = 1 / MSE of the correlations", lambda ref: math.inf),
    "regression": UtilityMeasure(_stats_regression, _combine_error, _extra_regression,
                                 "U = 1 / MSE of the regression slopes", lambda ref: math.inf,
                                 options=("response",)),
    "sse": UtilityMeasure(_stats_sse, _combine_average, _extra_sse, "U = 1 - SSE/SST", lambda ref: 1.0),
}


def check_utility(name: str) -> UtilityMeasure:
    """The record of utility measure ``name``; :class:`InputError` if there is none.

    Parameters
    ----------
    name : str
        A key of :data:`UTILITIES`.

    Returns
    -------
    UtilityMeasure
    """
    if not isinstance(name, str) or name not in UTILITIES:
        raise InputError(f"unknown utility {name!r}; choose from {', '.join(UTILITIES)}")
    return UTILITIES[name]


@assumes_valid
def make_reference(name: str, x: np.ndarray, options: Mapping[str, Any] | None = None) -> Reference:
    """The original data's statistics for utility ``name``; ``x`` has shape (n, p).

    Parameters
    ----------
    name : str
        A key of :data:`UTILITIES`.
    x : ndarray, shape (n, p)
        The original data.
    options : mapping, optional
        The utility's options (quantiles, response column).

    Returns
    -------
    Reference
    """
    measure = check_utility(name)
    options = dict(options or {})
    return Reference(x=x, n=x.shape[0], mean=x.mean(axis=0), var=x.var(axis=0, ddof=1), options=options,
                     extra=measure.reference_extra(x, options))


@validate_params({"name": StrOptions(UTILITIES), "mean_preserving_method": [None, InstanceOf(str)]},
                 example=lambda: {"name": "mean", "mean_preserving_method": "microaggregation"})
def utility_label(name: str, mean_preserving_method: str | None = None) -> str:
    """The axis label of a utility measure, with a warning where the masking keeps the mean exactly.

    Parameters
    ----------
    name : str
        A key of :data:`UTILITIES`.
    mean_preserving_method : str, optional
        The masking method, when it keeps every column's mean exactly (see
        :attr:`rumap.maps.methods.MaskingMethod.preserves_mean`).

    Returns
    -------
    str
    """
    measure = check_utility(name)
    label, method = measure.label, mean_preserving_method
    if method is not None and measure.mean_based:
        label += f" ({method} keeps the mean exactly: use another utility to compare methods)"
    return label


@assumes_valid
def utility_efficiency(name: str, masked_stats: np.ndarray, ref: Reference) -> float | None:
    """The share of the unmasked data's utility kept, in [0, 1]; ``None`` for a measure without one.

    Parameters
    ----------
    name : str
        A key of :data:`UTILITIES`.
    masked_stats : ndarray, shape (M, s)
        The measure's statistics of each replicate.
    ref : Reference

    Returns
    -------
    float or None
    """
    measure = check_utility(name)
    if measure.efficiency is None:
        return None
    return float(measure.efficiency(masked_stats, ref))


@validate_params({"m": InstanceOf(RUMap)},
                 example=lambda: {"m": RUMap(parameter="k", values=[2.0], risk=[1.0], utility=[3.0])})
def higher_is_better(m: RUMap) -> bool:
    """The direction of a map's utility: its measure's record when the map names one, else True.

    Parameters
    ----------
    m : RUMap
        A map whose ``config["utility"]`` may name a key of :data:`UTILITIES`.

    Returns
    -------
    bool

    Examples
    --------
    >>> from rumap.result import RUMap
    >>> from rumap.maps.utility import higher_is_better
    >>> higher_is_better(RUMap(parameter="k", values=[2.0], risk=[1.0], utility=[3.0], config={"utility": "sse"}))
    True
    """
    name = m.config.get("utility")
    return UTILITIES[name].higher_is_better if isinstance(name, str) and name in UTILITIES else True


@assumes_valid
def utility_estimate(name: str, masked_stats: np.ndarray, ref: Reference) -> tuple[float, float]:
    """Utility and its Monte-Carlo standard error from per-replicate statistics of shape (M, s).

    Parameters
    ----------
    name : str
        A key of :data:`UTILITIES`.
    masked_stats : ndarray, shape (M, s)
        The measure's statistics of each replicate.
    ref : Reference

    Returns
    -------
    U, SE : float
    """
    return check_utility(name).combine(masked_stats, ref)
