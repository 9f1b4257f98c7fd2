"""Rank swapping: each variable's values exchanged between records of nearby rank.

The algorithm is the rank swapping of Moore (1996) as implemented in
sdcMicro's ``rankSwap`` and mu-Argus, applied to every variable on its own:

1. Sort the variable's values in ascending order (ties keep the record order);
   position ``j = 0 .. n-1`` is a rank.
2. The window is ``w = floor(p n / 100)`` ranks, ``p = swap_percent``.
3. Visit the ranks in order. A rank ``j`` not yet swapped picks a partner
   uniformly at random among the ranks ``l`` with ``j < l <= j + w`` that are
   not yet swapped; the two values are exchanged and both ranks are marked.
   A rank with no free partner in its window keeps its value.
4. Put the values back in the records' order.

So every variable is permuted, each value moves by at most ``w`` ranks, and
about every record is swapped once (all but a few near the top of the
ranking). The window bound ``l <= j + w`` follows mu-Argus (``max_dist = n p /
100``); sdcMicro's ``rankSwap`` uses ``l < j + n p / 100``, one rank less.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from rumap._compile import compiled
from rumap._validation import SEED, DataMatrix, validate_params
from rumap.masking.ranks import stable_order

__all__ = ["rank_swap", "swap_window"]


@validate_params({"n": "records", "swap_percent": "swap_percent"}, example=lambda: {"n": 177, "swap_percent": 5.0})
def swap_window(n: int, swap_percent: float) -> int:
    """The largest rank distance of a swap: ``floor(swap_percent * n / 100)``.

    Parameters
    ----------
    n : int
        Number of records, at least 1.
    swap_percent : float
        The window in percent of the records, ``0 <= swap_percent <= 100``.
    """
    return _swap_window(n, swap_percent)


def _swap_window(n: int, swap_percent: float) -> int:
    return int(np.floor(swap_percent * n / 100.0 + 1e-9))


def _swap_partners(n: int, window: int, uniforms: np.ndarray) -> np.ndarray:
    """The rank each rank takes its value from (an involution), for one variable.

    Compiled (:func:`_swap_partners_kernel`): the free ranks are counted by a
    Fenwick tree, so the r-th free rank after ``j`` is one descent of the tree;
    O(log n) per rank.
    """
    tree = np.zeros(n + 1, dtype=np.int32 if n < 2**31 else np.int64)  # int32: half the cache of int64
    return compiled(_swap_partners_kernel)(int(n), int(window), np.ascontiguousarray(uniforms, dtype=float), tree)


def _swap_partners_kernel(n: int, window: int, uniforms: np.ndarray, tree: np.ndarray) -> np.ndarray:
    """Compiled kernel of :func:`_swap_partners`.

    ``tree`` (zeros, n + 1 entries) becomes a Fenwick tree over the indicator "rank not yet chosen as a
    partner" (1-based). A free rank ``j`` has ``F`` free ranks in
    ``(j, min(n - 1, j + window)]``, draws ``r = floor(u_j F)`` and takes the
    (r+1)-th free rank after ``j``: the smallest ``pos`` whose prefix count
    reaches ``prefix(j) + r + 1``. Neither count needs the tree: a partner is
    always after the rank that takes it, so the ranks taken up to ``j`` are
    final when ``j`` is visited (``prefix(j) = j + 1 - taken up to j``), and a
    rank entering the window as it slides is always free (``F`` is updated as
    the window moves and as partners are taken). Only the descent and the
    removal of the partner walk the tree.
    """
    partner = np.arange(n)
    taken = np.zeros(n, dtype=np.bool_)
    for i in range(1, n + 1):
        tree[i] += 1
        parent = i + (i & -i)
        if parent <= n:
            tree[parent] += tree[i]
    top = 1
    while top * 2 <= n:
        top *= 2
    last = min(n - 1, window)
    n_free = last  # free ranks in (0, last]
    taken_upto = 0  # taken ranks in 0..j
    for j in range(n):
        if j > 0:
            if not taken[j]:
                n_free -= 1  # rank j leaves the window (j-1, last]
            if last < n - 1:
                last += 1  # enters free
                n_free += 1
        if taken[j]:
            taken_upto += 1
            continue
        if n_free <= 0:
            continue
        remaining = j + 1 - taken_upto + int(uniforms[j] * n_free) + 1
        pos = 0
        step = top
        while step > 0:
            nxt = pos + step
            if nxt <= n and tree[nxt] < remaining:
                pos = nxt
                remaining -= tree[nxt]
            step //= 2
        # pos is the 0-based rank of the partner
        partner[j] = pos
        partner[pos] = j
        taken[pos] = True
        n_free -= 1
        i = pos + 1
        while i <= n:
            tree[i] -= 1
            i += i & -i
    return partner


@validate_params({"data": DataMatrix(min_rows=1), "swap_percent": "swap_percent", "seed": SEED},
                 example=lambda: {"data": [[3.0, 1.0], [1.0, 2.0], [2.0, 0.5], [5.0, 4.0]], "swap_percent": 50.0,
                                  "seed": 3})
def rank_swap(data: Any, swap_percent: float, seed: int | np.random.Generator | None = None) -> np.ndarray:
    """Rank-swap every column: values exchanged with a partner at most p% of n ranks away.

    Parameters
    ----------
    data : array_like or DataFrame, shape (n,) or (n, p)
        Numbers without missing values, at least one record.
    swap_percent : float
        The window ``p`` in percent of the number of records, ``0 <= p <= 100``;
        a value moves by at most ``floor(p n / 100)`` ranks. 0 leaves the data
        unchanged.
    seed : int, Generator or None
        Seed of ``numpy.random.default_rng``; the same seed gives the same output.

    Returns
    -------
    ndarray, same shape as ``data``
        Every column a permutation of the original column.

    Raises
    ------
    InputError
        ``swap_percent`` outside [0, 100], non-numeric or missing values, a
        seed that is neither None, an integer >= 0 nor a Generator.

    Notes
    -----
    Columns are swapped independently, in order, each with its own uniform
    draws ``u_j`` from the generator; a free rank j takes partner number
    ``floor(u_j F_j)`` (0-based) among the ``F_j`` free ranks of its window
    (module docstring). Time O(n log n) per column, compiled; memory: the
    output and a few arrays of one column (a column's order needs all its
    values, so a column is not cut into chunks).

    References
    ----------
    Moore, R. A. (1996). Controlled data-swapping techniques for masking public
    use microdata sets. U.S. Census Bureau, Statistical Research Division
    Report RR96/04.
    Templ, M., Kowarik, A. & Meindl, B. (2015). Statistical disclosure control
    for micro-data using the R package sdcMicro. Journal of Statistical
    Software 67(4) (function ``rankSwap``).
    Mas, M. Statistical Data Protection Techniques. EUSTAT: "Data swapping".

    Examples
    --------
    >>> import numpy as np
    >>> from rumap.masking.swapping import rank_swap
    >>> x = np.arange(1.0, 11.0)
    >>> y = rank_swap(x, swap_percent=20.0, seed=3)
    >>> bool(np.array_equal(np.sort(y), x)), int(np.max(np.abs(y - x))) <= 2
    (True, True)
    >>> bool(np.array_equal(rank_swap(x, 0.0, seed=3), x))
    True
    """
    return rank_swap_kernel(data, swap_percent, np.random.default_rng(seed))


def rank_swap_kernel(data: np.ndarray, swap_percent: float, rng: np.random.Generator) -> np.ndarray:
    """:func:`rank_swap` of checked input: a finite float array, a percentage in [0, 100], a generator."""
    columns = data.reshape(data.shape[0], -1)
    n = columns.shape[0]
    window = _swap_window(n, swap_percent)
    if window < 1:
        return columns.copy().reshape(data.shape)
    out = np.empty_like(columns)
    for j in range(columns.shape[1]):  # one column at a time: the memory of the input, the output and a column
        column = np.ascontiguousarray(columns[:, j])
        order = stable_order(column)
        partner = _swap_partners(n, window, rng.random(n))
        out[order, j] = column[order[partner]]
    return out.reshape(data.shape)
