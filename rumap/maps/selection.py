"""Order statistics of many rows by selection from a candidate subset (compiled kernel).

For each row, a fixed, evenly spaced sample of the row is sorted; the sample's
order statistics around each wanted rank bound an interval ``[lo, hi]`` that
almost surely holds it. One pass over the row counts the values below each
``lo`` and copies the values inside ``[lo, hi]``; the wanted order statistic
is then selected among these few survivors (the sampling idea of Floyd &
Rivest 1975, Algorithm 489). When a bound misses (the rank is
not inside the interval, or too many values survive) the row is partitioned in
full, so the result is always exactly the order statistic.
"""

from __future__ import annotations

import numpy as np

from rumap._compile import compiled
from rumap._validation import assumes_valid

#: Rows shorter than this are partitioned in full (a sample would not pay).
MIN_SAMPLED_ROW = 4096
#: Values sampled from each row.
SAMPLE_SIZE = 2048
#: Half-width of the sample window around a rank, in standard deviations of the sample rank.
MARGIN_SD = 3.0


@assumes_valid
def select_ranks(rows: np.ndarray, ranks: np.ndarray) -> np.ndarray:
    """Order statistics of each row of ``rows`` (r, n) at sorted 1-based ``ranks``, shape (r, len(ranks)).

    Exactly the values ``np.sort(rows, axis=1)[:, ranks - 1]``, found by
    selection from a sample-bounded candidate subset (Floyd & Rivest 1975).

    Parameters
    ----------
    rows : ndarray of float, shape (r, n)
        Finite values, one replicate per row.
    ranks : ndarray of int
        Sorted 1-based ranks, each in 1 .. n.

    Examples
    --------
    >>> import numpy as np
    >>> from rumap.maps.selection import select_ranks
    >>> rows = np.random.default_rng(0).normal(size=(2, 10_000))
    >>> bool(np.array_equal(select_ranks(rows, np.array([100, 9_900])), np.sort(rows, axis=1)[:, [99, 9_899]]))
    True
    """
    return compiled(_select_ranks_kernel)(rows, np.ascontiguousarray(ranks, dtype=np.int64), SAMPLE_SIZE, MARGIN_SD)


def _select_ranks_kernel(rows: np.ndarray, ranks: np.ndarray, sample_size: int, margin_sd: float) -> np.ndarray:
    """Compiled kernel of :func:`select_ranks`."""
    r, n = rows.shape
    n_ranks = ranks.size
    out = np.empty((r, n_ranks))
    step = max(1, n // sample_size)
    positions = np.arange(0, n, step)
    s = positions.size
    lo_index = np.empty(n_ranks, dtype=np.int64)
    hi_index = np.empty(n_ranks, dtype=np.int64)
    capacity = np.empty(n_ranks, dtype=np.int64)
    for k in range(n_ranks):
        p = (ranks[k] - 0.5) / n
        centre = p * s
        half = margin_sd * np.sqrt(s * p * (1.0 - p)) + 3.0
        lo_index[k] = int(np.floor(centre - half))
        hi_index[k] = int(np.ceil(centre + half))
        expected = (hi_index[k] - lo_index[k] + 1) * (n / s)
        capacity[k] = min(n, int(4 * expected) + 64)
    buffers = np.empty((n_ranks, capacity.max()))
    lo = np.empty(n_ranks)
    hi = np.empty(n_ranks)
    below = np.empty(n_ranks, dtype=np.int64)
    kept = np.empty(n_ranks, dtype=np.int64)
    sample = np.empty(s)
    bins = np.zeros(2 * n_ranks + 1, dtype=np.int64)
    for i in range(r):
        row = rows[i]
        for t in range(s):
            sample[t] = row[positions[t]]
        sample.sort()
        for k in range(n_ranks):
            lo[k] = -np.inf if lo_index[k] < 0 else sample[lo_index[k]]
            hi[k] = np.inf if hi_index[k] >= s else sample[hi_index[k]]
            below[k] = 0
            kept[k] = 0
        disjoint = True
        for k in range(1, n_ranks):
            if lo[k] <= hi[k - 1]:
                disjoint = False
        if disjoint:
            # boundaries lo_0 <= hi_0 < lo_1 <= hi_1 < ...: a value's bin is the number of boundaries it
            # passes (branch-free); bin 2k+1 is inside interval k
            for k in range(2 * n_ranks + 1):
                bins[k] = 0
            for t in range(n):
                v = row[t]
                b = 0
                for k in range(n_ranks):
                    b += (v >= lo[k]) + (v > hi[k])
                bins[b] += 1
                if b & 1:
                    k = b >> 1
                    if kept[k] < capacity[k]:
                        buffers[k, kept[k]] = v
                    kept[k] += 1
            total = 0
            for k in range(n_ranks):
                below[k] = total + bins[2 * k]
                total = below[k] + bins[2 * k + 1]
        else:
            for t in range(n):
                v = row[t]
                for k in range(n_ranks):
                    if v < lo[k]:
                        below[k] += 1
                    elif v <= hi[k]:
                        if kept[k] < capacity[k]:
                            buffers[k, kept[k]] = v
                        kept[k] += 1
        full = np.empty(0)
        for k in range(n_ranks):
            need = ranks[k] - 1 - below[k]
            if 0 <= need < kept[k] and kept[k] <= capacity[k]:
                out[i, k] = np.partition(buffers[k, :kept[k]], need)[need]
            else:  # the bounds missed: select in the whole row
                if full.size == 0:
                    full = row.copy()
                out[i, k] = np.partition(full, ranks[k] - 1)[ranks[k] - 1]
    return out
