"""Column means and variances of many masked replicates, alone or while masking with noise (compiled kernels).

The engine needs each replicate's column means and sample variances (ddof 1)
for every utility and for the snooper's mean-based estimators. :func:`moments`
takes two compiled passes per column (the mean, then the squared deviations
from it); for several columns of row-major data it is several times faster
than numpy's strided reductions. Masking with additive noise computes the
masked values and their moments in one pass (:func:`mask_with_moments`):
sums of deviations from the original column's mean, which the masked mean is
close to, so nothing is lost to cancellation and the data are read once.
Every sum is in a fixed order (four interleaved partial sums, then their
pairwise total): a replicate's moments depend on that replicate alone, so
they are the same whatever the chunking.
"""

from __future__ import annotations

import numpy as np

from rumap._compile import compiled
from rumap._validation import assumes_valid


@assumes_valid
def moments(masked: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per-replicate column means and variances (ddof 1) of (r, n, p) data, each (r, p).

    Parameters
    ----------
    masked : ndarray, shape (r, n, p)
        Masked data sets, n >= 2.

    Returns
    -------
    means, variances : ndarray, shape (r, p)

    Examples
    --------
    >>> import numpy as np
    >>> from rumap.maps.moments import moments
    >>> mean, var = moments(np.array([[[1.0, 10.0], [3.0, 20.0], [5.0, 60.0]]]))
    >>> mean.tolist(), var.tolist()
    ([[3.0, 30.0]], [[4.0, 700.0]])
    """
    return compiled(_moments_kernel)(np.ascontiguousarray(masked, dtype=float))


@assumes_valid
def mask_with_moments(x: np.ndarray, noise: np.ndarray, scale: float, lower: float, upper: float,
                      out: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Mask ``out = clip(x + scale * noise, lower, upper)`` and return its column moments, in one pass.

    The masked values are exactly those of :func:`rumap.masking.noise.mask_with`
    (the same two roundings, ``noise * scale`` then ``+ x``); the moments are
    those of :func:`moments`, up to the order of summation.

    Parameters
    ----------
    x : ndarray, shape (n, p)
        The original data.
    noise : ndarray, shape (r, n, p)
        Shaped noise for ``lambda2 = 1``, one replicate per leading index.
    scale : float
        ``sqrt(lambda2)``.
    lower, upper : float
        Truncation bounds (``-inf`` and ``inf`` for none).
    out : ndarray, shape (r, n, p)
        Where the masked data are written.

    Returns
    -------
    means, variances : ndarray, shape (r, p)

    Examples
    --------
    >>> import numpy as np
    >>> from rumap.maps.moments import mask_with_moments
    >>> x = np.array([[1.0], [2.0], [3.0]])
    >>> noise = np.array([[[0.5], [-0.5], [1.0]]])
    >>> out = np.empty_like(noise)
    >>> mean, var = mask_with_moments(x, noise, 2.0, -np.inf, np.inf, out)
    >>> out[0, :, 0].tolist(), mean.tolist(), var.tolist()
    ([2.0, 1.0, 5.0], [[2.6666666666666665]], [[4.333333333333333]])
    """
    x = np.ascontiguousarray(x, dtype=float)
    return compiled(_mask_moments_kernel)(x, np.ascontiguousarray(noise, dtype=float), float(scale), float(lower),
                                          float(upper), out, x.mean(axis=0))


def _moments_kernel(masked):
    """Compiled kernel of :func:`moments`: two passes (the mean, then the squared deviations from it)."""
    r, n, p = masked.shape
    mean = np.empty((r, p))
    var = np.empty((r, p))
    m = n - n % 4
    for i in range(r):
        block = masked[i]
        for c in range(p):
            # four interleaved partial sums, then their pairwise total: a fixed order of summation
            s0 = s1 = s2 = s3 = 0.0
            for t in range(0, m, 4):
                s0 += block[t, c]
                s1 += block[t + 1, c]
                s2 += block[t + 2, c]
                s3 += block[t + 3, c]
            total = (s0 + s1) + (s2 + s3)
            for t in range(m, n):
                total += block[t, c]
            mu = total / n
            s0 = s1 = s2 = s3 = 0.0
            for t in range(0, m, 4):
                d0 = block[t, c] - mu
                d1 = block[t + 1, c] - mu
                d2 = block[t + 2, c] - mu
                d3 = block[t + 3, c] - mu
                s0 += d0 * d0
                s1 += d1 * d1
                s2 += d2 * d2
                s3 += d3 * d3
            total = (s0 + s1) + (s2 + s3)
            for t in range(m, n):
                d = block[t, c] - mu
                total += d * d
            mean[i, c] = mu
            var[i, c] = total / (n - 1)
    return mean, var


def _mask_moments_kernel(x, noise, scale, lower, upper, out, shift):
    """Compiled kernel of :func:`mask_with_moments`: one pass writes the masked values and sums them."""
    r, n, p = out.shape
    mean = np.empty((r, p))
    var = np.empty((r, p))
    clip = lower > -np.inf or upper < np.inf
    m = n - n % 4
    for i in range(r):
        block = out[i]
        for c in range(p):
            # four interleaved partial sums, then their pairwise total: a fixed order of summation
            s0 = s1 = s2 = s3 = 0.0
            # one pass: sums of d = v - k and d^2, k the original column's mean (near the masked mean,
            # so the shifted sums lose no precision); mean = k + S / n, variance = (Q - S^2 / n) / (n - 1)
            k = shift[c]
            q0 = q1 = q2 = q3 = 0.0
            for t in range(0, m, 4):
                v0 = noise[i, t, c] * scale + x[t, c]
                v1 = noise[i, t + 1, c] * scale + x[t + 1, c]
                v2 = noise[i, t + 2, c] * scale + x[t + 2, c]
                v3 = noise[i, t + 3, c] * scale + x[t + 3, c]
                if clip:
                    v0 = min(max(v0, lower), upper)
                    v1 = min(max(v1, lower), upper)
                    v2 = min(max(v2, lower), upper)
                    v3 = min(max(v3, lower), upper)
                block[t, c] = v0
                block[t + 1, c] = v1
                block[t + 2, c] = v2
                block[t + 3, c] = v3
                d0 = v0 - k
                d1 = v1 - k
                d2 = v2 - k
                d3 = v3 - k
                s0 += d0
                s1 += d1
                s2 += d2
                s3 += d3
                q0 += d0 * d0
                q1 += d1 * d1
                q2 += d2 * d2
                q3 += d3 * d3
            for t in range(m, n):
                v0 = noise[i, t, c] * scale + x[t, c]
                if clip:
                    v0 = min(max(v0, lower), upper)
                block[t, c] = v0
                s0 += v0 - k
                q0 += (v0 - k) * (v0 - k)
            total = (s0 + s1) + (s2 + s3)
            squares = (q0 + q1) + (q2 + q3)
            mean[i, c] = k + total / n
            var[i, c] = max(squares - total * total / n, 0.0) / (n - 1)
    return mean, var
