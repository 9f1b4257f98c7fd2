"""The propensity score mean squared error (pMSE) of a release against its original (Snoke et al. 2018).

The original (label 0) and the release (label 1) are stacked and an
unpenalised logistic regression of the label on the main effects is fitted by
Newton's method: numeric columns standardised over the stacked data (a column
with missing values also gets an indicator of them, its missing values at the
mean), each categorical column one-hot with its first level (sorted as text, a
missing value a level of its own, last) dropped, and an intercept; a column
constant over the stacked data is left out. ``pMSE`` is the mean of
``(p - c)^2`` over the stacked records, ``c = n_release / N``, and the
standardised ``S_pMSE = pMSE / ((k - 1)(1 - c)^2 c / N)``, ``k`` the model's
coefficients including the intercept. A model that separates the two files
perfectly gives each record its own label as ``p``, so ``pMSE = c(1 - c)``.

References
----------
Snoke, Raab, Nowok, Dibben & Slavkovic (2018), "General and specific utility
measures for synthetic data", JRSS A 181(3), Sections 2.2 and 3 (the pMSE and its
null expectation ``(k - 1)(1 - c)^2 c / N``).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd
from scipy.special import expit

from rumap._validation import assumes_valid
from rumap.synthesis.columns import level_codes

__all__ = ["propensity_design", "logistic_probabilities", "pmse_of"]

#: Newton's iterations at most, and the change of the log-likelihood under which it has converged.
MAX_NEWTON = 200
NEWTON_TOLERANCE = 1e-13


@assumes_valid
def propensity_design(original: pd.DataFrame, release: pd.DataFrame, names: Sequence[str],
                      categorical: Sequence[bool]) -> tuple[np.ndarray, np.ndarray]:
    """The main-effects design of the stacked files (intercept first) and the labels (0 original, 1 release).

    Parameters
    ----------
    original, release : DataFrame
    names : sequence of str
        The columns.
    categorical : sequence of bool
        Whether each is categorical.

    Returns
    -------
    design : ndarray, shape (N, k)
    labels : ndarray, shape (N,)

    Examples
    --------
    >>> import pandas as pd
    >>> x, y = propensity_design(pd.DataFrame({"a": ["u", "v"]}), pd.DataFrame({"a": ["v", "w"]}), ["a"], [True])
    >>> x.tolist(), y.tolist()
    ([[1.0, 0.0, 0.0], [1.0, 1.0, 0.0], [1.0, 1.0, 0.0], [1.0, 0.0, 1.0]], [0.0, 0.0, 1.0, 1.0])
    """
    stacked = pd.concat([original[list(names)], release[list(names)]], ignore_index=True)
    parts = [np.ones((len(stacked), 1))]
    for name, cat in zip(names, categorical, strict=True):
        column = stacked[name]
        if cat:
            codes, levels = level_codes(column)
            parts.append((codes[:, None] == np.arange(1, len(levels))[None, :]).astype(float))
            continue
        values = column.to_numpy(dtype=float)
        missing = np.isnan(values)
        if missing.all():
            continue
        sd = values[~missing].std()
        if sd > 0:
            parts.append(np.where(missing, 0.0, (values - values[~missing].mean()) / (sd or 1.0))[:, None])
        if missing.any():
            parts.append(missing[:, None].astype(float))
    labels = np.r_[np.zeros(len(original)), np.ones(len(release))]
    return np.hstack(parts), labels


def _log_likelihood(eta: np.ndarray, y: np.ndarray) -> float:
    return float(np.sum(y * eta - np.logaddexp(0.0, eta)))


@assumes_valid
def logistic_probabilities(design: np.ndarray, labels: np.ndarray) -> np.ndarray:
    """The fitted probabilities of an unpenalised logistic regression, by Newton's method with step halving.

    When the fit separates the labels perfectly (its linear predictor's sign is
    each record's label) the probabilities are the labels themselves, the limit
    the likelihood approaches.

    Parameters
    ----------
    design : ndarray, shape (N, k)
    labels : ndarray, shape (N,)
        0 or 1.

    Returns
    -------
    ndarray, shape (N,)

    Examples
    --------
    >>> import numpy as np
    >>> x = np.column_stack([np.ones(4), [0.0, 1.0, 2.0, 3.0]])
    >>> logistic_probabilities(x, np.array([0.0, 0.0, 1.0, 1.0])).tolist()  # separated
    [0.0, 0.0, 1.0, 1.0]
    """
    beta = np.zeros(design.shape[1])
    eta = design @ beta
    ll = _log_likelihood(eta, labels)
    for _ in range(MAX_NEWTON):
        p = expit(eta)
        gradient = design.T @ (labels - p)
        hessian = (design * (p * (1.0 - p))[:, None]).T @ design
        step = np.linalg.lstsq(hessian, gradient, rcond=None)[0]
        t = 1.0
        while True:
            trial = design @ (beta + t * step)
            new = _log_likelihood(trial, labels)
            if new >= ll or t < 1e-10:
                break
            t /= 2.0
        if new < ll:
            break
        beta, eta, change, ll = beta + t * step, trial, new - ll, new
        if change <= NEWTON_TOLERANCE * max(1.0, abs(ll)):
            break
    if np.all((eta > 0) == (labels > 0.5)) and np.all(eta != 0):
        return labels.astype(float)
    return expit(eta)


@assumes_valid
def pmse_of(design: np.ndarray, labels: np.ndarray) -> tuple[float, float]:
    """``pMSE`` and ``S_pMSE`` of a stacked design (:func:`propensity_design`).

    Parameters
    ----------
    design : ndarray, shape (N, k)
    labels : ndarray, shape (N,)

    Returns
    -------
    pmse : float
    s_pmse : float
        NaN for a model of the intercept alone (``k = 1``).

    Examples
    --------
    >>> import numpy as np
    >>> x = np.column_stack([np.ones(4), [0.0, 1.0, 0.0, 1.0]])
    >>> pmse_of(x, np.array([0.0, 0.0, 1.0, 1.0]))  # the two files alike: p = c everywhere
    (0.0, 0.0)
    """
    n_total, k = design.shape
    c = float(labels.mean())
    p = logistic_probabilities(design, labels)
    pmse = float(np.mean((p - c) ** 2))
    null = (k - 1) * (1.0 - c) ** 2 * c / n_total
    return pmse, (pmse / null if null > 0 else float("nan"))
