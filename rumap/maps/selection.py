"""Order statistics of many rows by selection from a candidate subset (compiled kernel).

Each wanted rank gets an interval ``[lo, hi]`` that almost surely holds its
order statistic. One branch-free pass over the row counts the values below
``lo`` and copies the values inside ``[lo, hi]``; the order statistic is then
selected among these few survivors (the sampling idea of Floyd & Rivest 1975,
Algorithm 489). The rows are replicates of one masking, so a rank's value
varies little from row to row: after the first row, its interval is the range
of its values in the rows done, widened by that range on each side (work
shared across replicates, no sample needed). For the first row, or when the
shared interval misses, a fixed, evenly spaced sample of the row is sorted and
its order statistics around the rank bound the interval. When that misses too
(the rank is not inside the interval, or too many values survive) the row is
partitioned in full, so the result is always exactly the order statistic.
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
#: Replicates of one masking differ little, so after the first row a rank's bounds are first taken from the rows
#: before: the range of its values there, widened on each side by that range, and at least by the first row's
#: sample interval divided by this (a row's order statistic spreads about 20 times less than that interval).
FIRST_INTERVAL_SHRINK = 8.0


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
    return compiled(_select_ranks_kernel)(np.ascontiguousarray(rows), np.ascontiguousarray(ranks, dtype=np.int64),
                                          SAMPLE_SIZE, MARGIN_SD)


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
    buffers = np.empty((n_ranks, capacity.max() + 1))  # + 1: the slot that non-candidates are written to
    lo = np.empty(n_ranks)
    hi = np.empty(n_ranks)
    pending = np.empty(n_ranks, dtype=np.bool_)
    seen_low = np.full(n_ranks, np.inf)
    seen_high = np.full(n_ranks, -np.inf)
    least_width = np.full(n_ranks, -1.0)  # from the first sample interval of the rank; -1: none yet
    active = np.empty(n_ranks, dtype=np.bool_)
    sample = np.empty(s)
    for i in range(r):
        row = rows[i]
        pending[:] = True
        full = np.empty(0)
        for attempt in range(3):
            if attempt == 0:  # bounds shared from the rows done: each rank's range there, widened
                for k in range(n_ranks):
                    width = max(seen_high[k] - seen_low[k], least_width[k])
                    active[k] = i > 0 and (least_width[k] >= 0.0 or i >= 2)
                    lo[k] = seen_low[k] - width
                    hi[k] = seen_high[k] + width
            elif attempt == 1:  # bounds from this row's sample
                for t in range(s):
                    sample[t] = row[positions[t]]
                sample.sort()
                for k in range(n_ranks):
                    active[k] = pending[k]
                    lo[k] = -np.inf if lo_index[k] < 0 else sample[lo_index[k]]
                    hi[k] = np.inf if hi_index[k] >= s else sample[hi_index[k]]
                    if least_width[k] < 0.0 and np.isfinite(hi[k] - lo[k]):
                        least_width[k] = (hi[k] - lo[k]) / FIRST_INTERVAL_SHRINK
            else:  # both bounds missed: select in the whole row
                for k in range(n_ranks):
                    if pending[k]:
                        if full.size == 0:
                            full = row.copy()
                        out[i, k] = np.partition(full, ranks[k] - 1)[ranks[k] - 1]
                break
            for k in range(n_ranks):
                if not (pending[k] and active[k]):
                    continue
                low = lo[k]
                high = hi[k]
                cap = capacity[k]
                buffer = buffers[k]
                below = 0
                kept = 0
                for t in range(n):  # branch-free: every value is written, only candidates advance the count
                    v = row[t]
                    below += v < low
                    buffer[min(kept, cap)] = v
                    kept += (v >= low) & (v <= high)
                need = ranks[k] - 1 - below
                if 0 <= need < kept <= cap:
                    out[i, k] = np.partition(buffer[:kept], need)[need]
                    pending[k] = False
            if not pending.any():
                break
        for k in range(n_ranks):
            seen_low[k] = min(seen_low[k], out[i, k])
            seen_high[k] = max(seen_high[k], out[i, k])
    return out
