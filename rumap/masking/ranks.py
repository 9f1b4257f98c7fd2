"""The stable order of a numeric column, by a least-significant-digit radix sort (compiled)."""

from __future__ import annotations

import numpy as np

from rumap._compile import compiled

_DIGIT_BITS = 11  # 2,048 buckets: the counts stay in the first-level cache; six passes cover 64 bits
_DIGITS = 6


def stable_order(values: np.ndarray) -> np.ndarray:
    """``np.argsort(values, kind="stable")`` of finite float64 values, in about a quarter of its time.

    A least-significant-digit radix sort is stable by construction: the
    values' bits, mapped to unsigned integers in the order of the numbers
    (negative numbers' bits inverted, positive numbers' sign bit set; -0.0 as
    0.0, since the two are equal), are distributed by 11-bit digits, lowest
    first; a digit all values share is skipped. O(n) time, four arrays of n
    words.

    Parameters
    ----------
    values : ndarray of float64
        Finite values (checked by the caller).

    Returns
    -------
    ndarray of int
        The positions of the values in ascending order, ties in their order.
    """
    return compiled(_radix_order_kernel)(np.ascontiguousarray(values, dtype=np.float64))


def _radix_order_kernel(values: np.ndarray) -> np.ndarray:
    """Compiled kernel of :func:`stable_order`."""
    n = values.size
    bits = values.view(np.uint64)
    sign = np.uint64(1) << np.uint64(63)
    ones = ~np.uint64(0)
    mask = np.uint64((1 << _DIGIT_BITS) - 1)
    keys = np.empty(n, dtype=np.uint64)
    counts = np.zeros((_DIGITS, 1 << _DIGIT_BITS), dtype=np.int64)
    for i in range(n):
        b = np.uint64(0) if values[i] == 0.0 else bits[i]
        key = (b ^ ones) if (b & sign) else (b | sign)
        keys[i] = key
        for d in range(_DIGITS):
            counts[d, (key >> np.uint64(d * _DIGIT_BITS)) & mask] += 1
    order = np.arange(n)
    spare_keys = np.empty(n, dtype=np.uint64)
    spare_order = np.empty(n, dtype=np.int64)
    for d in range(_DIGITS):
        count = counts[d]
        if count.max() == n:  # every value has this digit: the pass would change nothing
            continue
        total = 0
        for b in range(count.size):
            c = count[b]
            count[b] = total
            total += c
        shift = np.uint64(d * _DIGIT_BITS)
        for i in range(n):
            key = keys[i]
            b = (key >> shift) & mask
            to = count[b]
            count[b] = to + 1
            spare_keys[to] = key
            spare_order[to] = order[i]
        keys, spare_keys = spare_keys, keys
        order, spare_order = spare_order, order
    return order
