"""Order statistics of many rows by selection from a candidate subset (compiled kernel).

Each wanted rank gets an interval ``[lo, hi]`` that almost surely holds its
order statistic. One vectorised pass over the row, for four ranks at a time,
counts the values below each ``lo`` and marks in a byte per value the
intervals it is inside; the marked values are then gathered (eight bytes, one
word, tested at a time) and each order statistic is selected among its few
survivors (the sampling idea of Floyd & Rivest 1975,
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
#: Ranks whose intervals one pass over a row tests (one bit each of a byte per value; more bits, slower passes).
_GROUP = 4


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
    buffer = np.empty(capacity.max())
    lo = np.empty(n_ranks)
    hi = np.empty(n_ranks)
    pending = np.empty(n_ranks, dtype=np.bool_)
    seen_low = np.full(n_ranks, np.inf)
    seen_high = np.full(n_ranks, -np.inf)
    least_width = np.full(n_ranks, -1.0)  # from the first sample interval of the rank; -1: none yet
    active = np.empty(n_ranks, dtype=np.bool_)
    sample = np.empty(s)
    padded = (n + 7) // 8 * 8
    flags = np.zeros(padded, dtype=np.uint8)  # bit j: the value is inside the interval of the group's rank j
    words = flags.view(np.uint64)
    found = np.empty(padded)  # the values inside some interval of the group, in the row's order
    found_flags = np.empty(padded, dtype=np.uint8)
    below = np.zeros(_GROUP, dtype=np.int64)
    group = np.empty(_GROUP, dtype=np.int64)
    bounds = np.empty(2 * _GROUP)

    def interval_pass(row, bounds, flags, below):
        """One vectorised pass over ``row``: how many values are below each of four intervals' lower
        bounds, and which intervals each value is inside (bit j of ``flags`` for interval j)."""
        l0, h0, l1, h1, l2, h2, l3, h3 = (bounds[0], bounds[1], bounds[2], bounds[3], bounds[4], bounds[5],
                                          bounds[6], bounds[7])
        b0 = b1 = b2 = b3 = 0
        for t in range(n):
            v = row[t]
            b0 += v < l0
            b1 += v < l1
            b2 += v < l2
            b3 += v < l3
            flags[t] = (((v >= l0) & (v <= h0)) | (((v >= l1) & (v <= h1)) << 1) | (((v >= l2) & (v <= h2)) << 2)
                        | (((v >= l3) & (v <= h3)) << 3))
        below[0] = b0
        below[1] = b1
        below[2] = b2
        below[3] = b3

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
            k = 0
            while k < n_ranks:  # up to four ranks whose intervals one pass tests
                size = 0
                while k < n_ranks and size < _GROUP:
                    if pending[k] and active[k]:
                        group[size] = k
                        size += 1
                    k += 1
                if size == 0:
                    break
                for j in range(_GROUP):
                    bounds[2 * j] = np.inf  # an empty interval: nothing inside
                    bounds[2 * j + 1] = -np.inf
                for j in range(size):
                    bounds[2 * j] = lo[group[j]]
                    bounds[2 * j + 1] = hi[group[j]]
                interval_pass(row, bounds, flags, below)
                kept = 0  # the values inside some interval: every byte of a marked word copied, branch-free
                for w in range(words.size):
                    if words[w] != 0:
                        for t in range(8 * w, 8 * w + 8):
                            f = flags[t]
                            found[kept] = row[min(t, n - 1)]
                            found_flags[kept] = f
                            kept += f != 0
                for j in range(size):
                    k_j = group[j]
                    cap = capacity[k_j]
                    inside = 0
                    for t in range(kept):
                        if (found_flags[t] >> j) & 1:
                            if inside < cap:
                                buffer[inside] = found[t]
                            inside += 1
                    need = ranks[k_j] - 1 - below[j]
                    if 0 <= need < inside <= cap:
                        out[i, k_j] = np.partition(buffer[:inside], need)[need]
                        pending[k_j] = False
            if not pending.any():
                break
        for k in range(n_ranks):
            seen_low[k] = min(seen_low[k], out[i, k])
            seen_high[k] = max(seen_high[k], out[i, k])
    return out

