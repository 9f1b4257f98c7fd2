"""The information loss of means, variances and correlations that every release shares, masked or synthetic.

:func:`information_loss_batch` is the utility of the common measures of the maps
(:mod:`rumap.maps.common`) and of a synthetic release's measures
(:mod:`rumap.risk.synthetic`).
"""

from __future__ import annotations

import numpy as np

from rumap._validation import assumes_valid

__all__ = ["ROUNDING", "capped_change", "information_loss_batch"]

#: A change within this fraction of a statistic is rounding, not a change.
ROUNDING = 1e-12


@assumes_valid
def capped_change(masked: np.ndarray, original: np.ndarray) -> np.ndarray:
    """``min(1, |s' - s| / |s|)`` elementwise; where ``s == 0``: 0 if ``s'`` is 0 too, else 1.

    A change within rounding (``1e-12`` of the statistic) is no change: unmasked data lose nothing.

    Parameters
    ----------
    masked, original : ndarray
        The statistics of the masked and of the original data.

    Returns
    -------
    ndarray
    """
    scale = np.abs(original)
    change = np.abs(masked - original)
    change = np.where(change <= ROUNDING * scale, 0.0, change)
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.where(scale > 0, change / np.where(scale > 0, scale, 1.0), np.where(change > 0, 1.0, 0.0))
    return np.minimum(1.0, np.nan_to_num(ratio, nan=1.0))  # a correlation undefined in the masked data: lost


def _correlations(data: np.ndarray) -> np.ndarray:
    """The upper-triangle correlations of (r, n, p) data, shape (r, p(p-1)/2)."""
    centred = data - data.mean(axis=1, keepdims=True)
    cov = np.einsum("rni,rnj->rij", centred, centred)
    sd = np.sqrt(np.einsum("rii->ri", cov))
    with np.errstate(divide="ignore", invalid="ignore"):
        corr = cov / (sd[:, :, None] * sd[:, None, :])
    iu = np.triu_indices(data.shape[2], k=1)
    return corr[:, iu[0], iu[1]]


@assumes_valid
def information_loss_batch(original: np.ndarray, masked: np.ndarray) -> np.ndarray:
    """The information loss ``IL`` of each of (r, n, p) masked copies of (n, p) ``original``, shape (r,).

    The mean of the capped relative changes of the means, the variances and (for several columns) the
    correlations: the utility every masking method and a synthetic release share (:mod:`rumap.maps.common`).

    Parameters
    ----------
    original : ndarray, shape (n, p)
    masked : ndarray, shape (r, n, p)

    Returns
    -------
    ndarray, shape (r,)
    """
    x = original[None]
    groups = [capped_change(masked.mean(axis=1), x.mean(axis=1)).mean(axis=1),
              capped_change(masked.var(axis=1, ddof=1), x.var(axis=1, ddof=1)).mean(axis=1)]
    if original.shape[1] > 1:
        groups.append(capped_change(_correlations(masked), _correlations(x)).mean(axis=1))
    return np.mean(groups, axis=0)
