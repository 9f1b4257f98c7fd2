"""Gaussian copula synthesis: the columns' ranks as normal scores, their correlation, draws back through quantiles.

Each column's records are ranked (ties at their average rank; a categorical
column by the codes of its levels sorted as text, so that a level holds the
band of its cumulative frequencies; a missing number below every value), the
ranks turned into normal scores ``z = Phi^-1(rank / (n + 1))``, and their
correlation matrix ``R`` estimated. A synthetic record is a draw of
``N(0, (1 - s) R + s I)``, ``s`` the shrinkage towards the identity (``s = 1``:
independent columns), each score ``u = Phi(z)`` back-transformed through its
column's empirical distribution: a categorical column's level is the one whose
band of cumulative frequencies holds ``u``; a numeric column is missing when
``u`` falls in the share of missing values, else the empirical quantile (linear
between order statistics) of its values at ``u`` rescaled to the rest, rounded
when every original value is a whole number.

References
----------
Nelsen (2006), "An Introduction to Copulas", Section 2.3 (Sklar's theorem); Patki,
Wedge & Veeramachaneni (2016), "The Synthetic Data Vault", Section 3.2 (the
Gaussian copula of a table).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from scipy.special import ndtr, ndtri
from scipy.stats import rankdata

from rumap._validation import assumes_valid
from rumap.synthesis.columns import column_kinds, level_codes

__all__ = ["CopulaModel", "fit_copula"]


@dataclass(frozen=True)
class _Margin:
    """How a uniform score turns into a column's value."""

    categorical: bool
    levels: list
    cumulative: np.ndarray  # categorical: cumulative frequencies of the levels
    values: np.ndarray  # numeric: the sorted values present
    missing_share: float
    whole: bool

    def values_at(self, u: np.ndarray) -> np.ndarray:
        if self.categorical:
            code = np.minimum(np.searchsorted(self.cumulative, u, side="left"), len(self.levels) - 1)
            return np.array([np.nan if lvl is None else lvl for lvl in self.levels], dtype=object)[code]
        out = np.full(u.shape, np.nan)
        present = u > self.missing_share
        if self.values.size:
            rest = (u[present] - self.missing_share) / (1.0 - self.missing_share)
            out[present] = np.interp(rest * (self.values.size - 1), np.arange(self.values.size), self.values)
        return np.round(out) if self.whole else out


@dataclass(frozen=True)
class CopulaModel:
    """A Gaussian copula fitted on an original file; :meth:`draw` makes synthetic copies.

    Parameters
    ----------
    frame : DataFrame
        The original columns.
    factor : ndarray, shape (p, p)
        ``F`` with ``F F^T`` the shrunk correlation of the normal scores.
    margins : tuple
        Each column's back-transformation.
    """

    frame: pd.DataFrame = field(repr=False)
    factor: np.ndarray = field(repr=False)
    margins: tuple = field(repr=False)

    def draw(self, rows: int, rng: np.random.Generator) -> pd.DataFrame:
        """One synthetic copy of ``rows`` records.

        Parameters
        ----------
        rows : int
        rng : numpy.random.Generator

        Returns
        -------
        DataFrame
        """
        u = ndtr(rng.standard_normal((rows, self.factor.shape[0])) @ self.factor.T)
        out = {}
        for j, (name, margin) in enumerate(zip(self.frame.columns, self.margins, strict=True)):
            values = margin.values_at(u[:, j])
            dtype = self.frame[name].dtype
            if margin.categorical:
                out[name] = pd.Series(values).astype(dtype) if isinstance(dtype, pd.CategoricalDtype) else values
            elif pd.api.types.is_integer_dtype(dtype) and not np.isnan(values).any():
                out[name] = values.astype(dtype)
            else:
                out[name] = values
        return pd.DataFrame(out)


def _margin(series: pd.Series, categorical: bool) -> tuple[np.ndarray, _Margin]:
    n = len(series)
    if categorical:
        codes, levels = level_codes(series)
        cumulative = np.cumsum(np.bincount(codes, minlength=len(levels))) / n
        return codes.astype(float), _Margin(True, levels, cumulative, np.zeros(0), 0.0, False)
    values = series.to_numpy(dtype=float)
    missing = np.isnan(values)
    present = np.sort(values[~missing])
    whole = bool(present.size) and bool(np.all(present == np.round(present)))
    return (np.where(missing, -np.inf, values),
            _Margin(False, [], np.zeros(0), present, float(missing.mean()), whole))


def _factor(scores: np.ndarray, shrinkage: float) -> np.ndarray:
    p = scores.shape[1]
    if p == 1:
        return np.ones((1, 1))
    with np.errstate(invalid="ignore", divide="ignore"):
        corr = np.corrcoef(scores, rowvar=False)
    corr = np.where(np.isfinite(corr), corr, 0.0)
    np.fill_diagonal(corr, 1.0)
    shrunk = (1.0 - shrinkage) * corr + shrinkage * np.eye(p)
    w, v = np.linalg.eigh(shrunk)
    return v * np.sqrt(np.clip(w, 0.0, None))


@assumes_valid
def fit_copula(frame: pd.DataFrame, shrinkage: float, rng: np.random.Generator | None = None) -> CopulaModel:
    """The Gaussian copula of ``frame``'s columns (checked data: the caller validates).

    Parameters
    ----------
    frame : DataFrame
        The original columns, at least one record.
    shrinkage : float
        In [0, 1]: the weight of the identity in the correlation of the draws.
    rng : numpy.random.Generator, optional
        Unused (fitting draws nothing); the generators' records share one signature.

    Returns
    -------
    CopulaModel

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> frame = pd.DataFrame({"a": [1.0, 2.0, 3.0, 4.0, 5.0], "b": [2.0, 4.0, 6.0, 8.0, 10.0]})
    >>> copy = fit_copula(frame, 0.0).draw(2000, np.random.default_rng(0))
    >>> bool(np.corrcoef(copy["a"], copy["b"])[0, 1] > 0.95)
    True
    """
    kinds = column_kinds(frame, list(frame.columns))
    keyed = [_margin(frame[c], cat) for c, cat in zip(frame.columns, kinds, strict=True)]
    n = len(frame)
    scores = np.column_stack([ndtri(rankdata(key) / (n + 1)) for key, _ in keyed])
    return CopulaModel(frame, _factor(scores, float(shrinkage)), tuple(m for _, m in keyed))
