"""Additive noise masking: ``Y = x + e``, optionally correlated, truncated or of unequal variance.

Every function is pure: data, parameters and a seed (or generator) in, masked
data out. The engine (:mod:`rumap.maps.simulation`) uses the two building blocks
:func:`noise_shape` and :func:`mask_with` so that one draw of standard noise
serves every noise variance of a grid (common random numbers).

References
----------
.. [1] G. T. Duncan, S. A. Keller-McNulty, S. L. Stokes (2001), "Disclosure
   Risk vs. Data Utility: The R-U Confidentiality Map", section 3 (additive
   noise), Eq 11 (truncation at 0) and Figure 7 (unequal-variance masking).
.. [2] J. J. Kim (1986), "A method for limiting disclosure in microdata based
   on random noise and transformation", ASA Proceedings of the Section on
   Survey Research Methods (noise with covariance proportional to the data's).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from rumap._validation import (
    SEED,
    Boolean,
    ColumnIndex,
    DataMatrix,
    assumes_valid,
    check_column_index,
    validate_params,
)
from rumap.errors import InputError

#: Records masked at a time by :func:`add_noise`.
_CHUNK_ROWS = 1 << 16

__all__ = ["NoiseSpec", "SIZE_PARAMETERS", "size_parameter", "add_noise", "noise_shape", "noise_shape_of_covariance",
           "mask_with", "as_matrix",
           "standard_noise"]

#: The parameter that gives the noise's size, by whether it is relative: a variance in the data's units
#: (``lambda2``), or a fraction of each variable's variance (``lambda2_frac``, the noise variance
#: ``lambda2_frac * S_k^2``).
SIZE_PARAMETERS = {False: "lambda2", True: "lambda2_frac"}


@validate_params({"relative": Boolean()}, example=lambda: {"relative": True})
def size_parameter(relative: bool) -> str:
    """The name of the noise's size: ``lambda2``, or ``lambda2_frac`` when it is relative to each variance.

    Parameters
    ----------
    relative : bool
        :attr:`NoiseSpec.relative`.

    Returns
    -------
    str
        A key of the parameter table (and the name of a map's grid, a release step's parameter).

    Examples
    --------
    >>> size_parameter(False), size_parameter(True)
    ('lambda2', 'lambda2_frac')
    """
    return SIZE_PARAMETERS[bool(relative)]


@validate_params(
    {"relative": Boolean(), "correlated": Boolean(), "truncate_below": [None, "truncation"],
     "truncate_above": [None, "truncation"], "unequal_above": [None, "unequal_threshold"],
     "unequal_below": [None, "unequal_threshold"], "unequal_factor": "unequal_factor", "unequal_column": ColumnIndex()},
    example=lambda: {"truncate_below": 0.0, "truncate_above": 10.0, "unequal_above": 5.0},
)
@dataclass(frozen=True)
class NoiseSpec:
    """How the noise is made, apart from its size ``lambda2``.

    Parameters
    ----------
    relative : bool, default False
        ``lambda2`` is a fraction of each variable's variance (noise variance
        ``lambda2 * S_k^2`` for variable k) instead of a variance in the data's
        units.
    correlated : bool, default False
        Noise correlated like the data (Kim 1986): covariance ``lambda2 *
        Sigma`` when ``relative``, ``lambda2 * R`` (R the data's correlation
        matrix) otherwise. Uncorrelated noise has a diagonal covariance.
    truncate_below, truncate_above : float, optional
        Bounds of the released values: ``Y = min(upper, max(lower, x + e))``
        (Eq 11 is ``truncate_below = 0``).
    unequal_above, unequal_below : float, optional
        Threshold of the sensitive records for unequal-variance masking: the
        records whose value in ``unequal_column`` is above (or below) it get
        noise variance multiplied by ``unequal_factor``. At most one is given.
    unequal_factor : float, default 2
        The variance factor for sensitive records (Figure 7 doubles it).
    unequal_column : int, default 0
        The column that decides which records are sensitive.
    """

    relative: bool = False
    correlated: bool = False
    truncate_below: float | None = None
    truncate_above: float | None = None
    unequal_above: float | None = None
    unequal_below: float | None = None
    unequal_factor: float = 2.0
    unequal_column: int = 0

    def __post_init__(self) -> None:
        if self.unequal_above is not None and self.unequal_below is not None:
            raise InputError("give unequal_above or unequal_below, not both")
        if (self.truncate_below is not None and self.truncate_above is not None
                and self.truncate_below >= self.truncate_above):
            raise InputError(f"truncate_below ({self.truncate_below:g}) must be below truncate_above "
                             f"({self.truncate_above:g})")

    @property
    def truncated(self) -> bool:
        return self.truncate_below is not None or self.truncate_above is not None

    def variance_factor(self, x: np.ndarray) -> np.ndarray | None:
        """Per-record noise variance factor, shape (n,), or ``None`` for equal variance."""
        if self.unequal_above is None and self.unequal_below is None:
            return None
        check_column_index("unequal_column", self.unequal_column, x.shape[1])
        column = x[:, self.unequal_column]
        sensitive = column > self.unequal_above if self.unequal_above is not None else column < self.unequal_below
        return np.where(sensitive, self.unequal_factor, 1.0)


@validate_params({"data": DataMatrix(min_rows=2)}, example=lambda: {"data": [1.0, 2.0, 4.0]})
def as_matrix(data: ArrayLike) -> np.ndarray:
    """Data as a finite float array of shape (n, p), n >= 2 (a 1-D array becomes one column).

    Parameters
    ----------
    data : array_like or DataFrame, shape (n,) or (n, p)
        Numbers without missing values.
    """
    return data.reshape(data.shape[0], -1)


@assumes_valid
def noise_shape(x: np.ndarray, spec: NoiseSpec) -> np.ndarray:
    """The factor ``L`` with ``Cov(e) = lambda2 * L L^T`` for one record, shape (p, p).

    Uncorrelated noise has ``L = I`` (absolute) or ``diag(S_k)`` (relative);
    correlated noise the Cholesky factor of the correlation matrix (absolute)
    or the covariance matrix (relative). A singular matrix uses its symmetric
    square root instead.

    Parameters
    ----------
    x : ndarray, shape (n, p)
        Checked data (:func:`as_matrix`).
    spec : NoiseSpec
        Whether the noise is relative and correlated.

    Raises
    ------
    InputError
        A constant column, when the noise is relative to the variance or
        correlated like the data.
    """
    p = x.shape[1]
    if p == 1 or not spec.correlated:
        variances = np.var(x, axis=0, ddof=1) if spec.relative else np.ones(p)
        return noise_shape_of_covariance(np.diag(variances), spec)
    return noise_shape_of_covariance(np.atleast_2d(np.cov(x, rowvar=False)), spec)


@assumes_valid
def noise_shape_of_covariance(cov: np.ndarray, spec: NoiseSpec) -> np.ndarray:
    """:func:`noise_shape` of data whose covariance matrix (ddof 1) is ``cov``, shape (p, p).

    What the factor needs of the data: their covariance (the variances alone
    for uncorrelated noise, nothing for absolute uncorrelated noise), so that
    a file read in chunks can give it from its chunks' moments.

    Parameters
    ----------
    cov : ndarray, shape (p, p)
        The data's covariance matrix (its diagonal alone is read for uncorrelated noise).
    spec : NoiseSpec

    Examples
    --------
    >>> import numpy as np
    >>> noise_shape_of_covariance(np.array([[4.0, 0.0], [0.0, 9.0]]), NoiseSpec(relative=True)).tolist()
    [[2.0, 0.0], [0.0, 3.0]]
    """
    p = cov.shape[0]
    if p == 1 or not spec.correlated:
        scale = np.sqrt(np.diag(cov)) if spec.relative else np.ones(p)
        if spec.relative and np.any(scale == 0):
            raise InputError("a column is constant (variance 0): noise relative to its variance is zero")
        return np.diag(scale)
    if not spec.relative:
        sd = np.sqrt(np.diag(cov))
        if np.any(sd == 0):
            raise InputError("a column is constant (variance 0): its correlations are undefined")
        cov = cov / np.outer(sd, sd)
    try:
        return np.linalg.cholesky(cov)
    except np.linalg.LinAlgError:
        values, vectors = np.linalg.eigh(cov)
        return vectors @ np.diag(np.sqrt(np.clip(values, 0.0, None))) @ vectors.T


@assumes_valid
def mask_with(x: np.ndarray, noise: np.ndarray, scale: float, spec: NoiseSpec,
              out: np.ndarray | None = None) -> np.ndarray:
    """Masked data ``clip(x + scale * noise)``; ``noise`` of shape (..., n, p) is already shaped.

    Broadcasting over leading axes lets the engine mask many replicates at
    once; ``out`` (the shape of ``noise``) is reused instead of a new array.

    Parameters
    ----------
    x : ndarray, shape (n, p)
        Checked data (:func:`as_matrix`).
    noise : ndarray, shape (..., n, p)
        Noise for ``lambda2 = 1`` (:func:`standard_noise`).
    scale : float
        ``sqrt(lambda2)``.
    spec : NoiseSpec
        Its truncation bounds are applied.
    out : ndarray, optional
        Where to write the result.
    """
    masked = np.multiply(noise, scale, out=out)
    masked += x
    if spec.truncated:
        np.clip(masked, spec.truncate_below, spec.truncate_above, out=masked)
    return masked


@validate_params(
    {"data": DataMatrix(min_rows=2), "lambda2": "lambda2", "spec": [None, NoiseSpec], "seed": SEED},
    example=lambda: {"data": [[1.0, 2.0], [3.0, 5.0], [4.0, 4.5]], "lambda2": 0.5, "spec": NoiseSpec(), "seed": 1},
)
def add_noise(
    data: ArrayLike,
    lambda2: float,
    spec: NoiseSpec | None = None,
    *,
    seed: int | np.random.Generator | None = None,
) -> np.ndarray:
    """Mask data with additive normal noise.

    Parameters
    ----------
    data : array_like, shape (n,) or (n, p)
        The original data.
    lambda2 : float
        The noise variance (in the data's squared units), or a fraction of each
        variable's variance when ``spec.relative``.
    spec : NoiseSpec, optional
        Correlation, truncation and unequal variance; default plain
        uncorrelated noise of variance ``lambda2``.
    seed : int or numpy.random.Generator, optional
        Seed or generator of the noise.

    Returns
    -------
    ndarray, same shape as ``data``
        The masked data.

    Notes
    -----
    ``Y_i = x_i + e_i`` with ``e_i ~ N(0, lambda2 f_i L L^T)`` independent over
    records, ``L`` from :func:`noise_shape` and ``f_i`` the unequal-variance
    factor (1 for records that are not sensitive); then truncation
    ``Y_i = max(lower, min(upper, Y_i))``, Eq 11 with ``lower = 0``.

    Records are masked in chunks of 65,536 (the normal draws follow each other
    in the generator's stream whatever the chunks), so that the memory beyond
    the data and the output is that of a chunk; only ``L`` needs every record.

    References
    ----------
    Duncan, Keller-McNulty & Stokes (2001), Eq 11 and Figure 7; Kim (1986).

    Examples
    --------
    >>> import numpy as np
    >>> from rumap.masking.noise import NoiseSpec, add_noise
    >>> x = np.linspace(-10.0, 10.0, 1000)
    >>> y = add_noise(x, lambda2=4.0, seed=1)
    >>> y.shape, bool(abs(np.var(y - x) - 4.0) < 0.5)
    ((1000,), True)
    >>> truncated = add_noise(x, lambda2=4.0, spec=NoiseSpec(truncate_below=0.0), seed=1)
    >>> bool(y.min() < 0.0), float(truncated.min()) >= 0.0
    (True, True)
    """
    spec = spec or NoiseSpec()
    x = data.reshape(data.shape[0], -1)
    rng = np.random.default_rng(seed)
    shape_factor = noise_shape(x, spec)
    scale = float(np.sqrt(lambda2))
    if x.shape[0] <= _CHUNK_ROWS:
        return mask_with(x, standard_noise(rng, x, spec, shape_factor), scale, spec).reshape(data.shape)
    out = np.empty_like(x)
    for start in range(0, x.shape[0], _CHUNK_ROWS):
        part = x[start:start + _CHUNK_ROWS]
        mask_with(part, standard_noise(rng, part, spec, shape_factor), scale, spec, out=out[start:start + _CHUNK_ROWS])
    return out.reshape(data.shape)


@assumes_valid
def standard_noise(rng: np.random.Generator, x: np.ndarray, spec: NoiseSpec,
                   shape_factor: np.ndarray | None = None, variance_factor: np.ndarray | None = None,
                   out: np.ndarray | None = None) -> np.ndarray:
    """One draw of noise for ``lambda2 = 1``, shape (n, p): ``sqrt(f_i) * z_i L^T``, ``z_i ~ N(0, I)``.

    Parameters
    ----------
    rng : numpy.random.Generator
        Source of the normal draws.
    x : ndarray, shape (n, p)
        Checked data (:func:`as_matrix`).
    spec : NoiseSpec
        How the noise is made.
    shape_factor, variance_factor : ndarray, optional
        ``L`` (:func:`noise_shape`) and ``f`` (:meth:`NoiseSpec.variance_factor`)
        when already computed for ``x``.
    out : ndarray, optional
        A C-contiguous float array of shape (n, p) the noise is written to (the
        same numbers, no new array).
    """
    shape_factor = noise_shape(x, spec) if shape_factor is None else shape_factor
    variance_factor = spec.variance_factor(x) if variance_factor is None else variance_factor
    z = rng.standard_normal(x.shape, out=out)
    diagonal = np.diag(shape_factor)
    if np.array_equal(shape_factor, np.diag(diagonal)):  # uncorrelated: a scale per column, no matrix product
        noise = np.multiply(z, diagonal if x.shape[1] > 1 else shape_factor[0, 0], out=out)
    elif out is None:
        noise = z @ shape_factor.T
    else:
        noise = np.matmul(z.copy(), shape_factor.T, out=out)
    if variance_factor is not None:
        noise *= np.sqrt(variance_factor)[:, None]
    return noise
