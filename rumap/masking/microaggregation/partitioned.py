"""MDAV within parts: the records split along their principal axes into parts of a few hundred, MDAV in each.

Exact MDAV (:mod:`rumap.masking.microaggregation.mdav`) scans every remaining
record for every group, about ``n^2 p / k`` steps: 10^7 records would take days.
The practice for large files is to partition the records into blocks of
similar records first and to microaggregate within each block (sdcMicro's
``microaggregation`` with a clustering ``method`` such as ``"clustpca"`` first
clusters the records and then microaggregates within each cluster). Here the
blocks are the cells of a k-d tree on principal axes: a set of more than
``PART_SIZE`` records is split in two at the median of its own first principal
component (at a multiple of k, so both halves have at least k records and MDAV
leaves no short group in the first), recursively. Each cell is compact in every
direction (a sort on one projection would give thin slabs), and MDAV runs on it
by a compiled kernel. Work ``O(n log(n / PART_SIZE) p + n PART_SIZE p / k)``:
linear in n.

The groups differ from exact MDAV's only through the cuts: a group never
straddles two cells. The information loss against exact MDAV on files where
both run is measured by ``benchmarks/bench_numeric_scale.py`` and bounded by
``tests/masking/test_partitioned.py``.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from rumap._compile import compiled

#: The largest part MDAV runs on (records).
PART_SIZE = 1000


def _mdav_partitioned(space: np.ndarray, k: int, progress: Callable[[int, int], None] | None = None) -> np.ndarray:
    """Labels of MDAV within the cells of a k-d tree on principal axes (module docstring).

    A set of m > max(PART_SIZE, 2k) records is split into the ``left =
    k * round(m / 2k)`` records of lowest score on its first principal component
    and the rest; smaller sets are parts. Ties of the score are split by
    ``numpy.argpartition`` (deterministic for the same input). A file of at
    most ``max(PART_SIZE, 2k)`` records is one part: the groups are exact MDAV's.
    ``progress(done, n)`` is called after each part with the records grouped so far.
    """
    n = space.shape[0]
    labels = np.empty(n, dtype=np.int64)
    kernel = compiled(_mdav_kernel)
    limit = max(PART_SIZE, 2 * k)
    next_label = 0
    done = 0
    stack = [(np.arange(n), np.ascontiguousarray(space))]  # a set's records and their rows
    while stack:
        members, part = stack.pop()
        m = members.size
        if m <= limit:
            next_label = kernel(part, k, members, labels, next_label)
            done += m
            if progress is not None:
                progress(done, n)
            continue
        score = _principal_score(part)
        left = k * int(round(m / (2 * k)))
        lower = np.zeros(m, dtype=bool)
        lower[np.argpartition(score, left - 1)[:left]] = True
        # both halves keep the records' order; the right one is pushed first, so the left is labelled first
        upper = ~lower
        stack.append((members[upper], part[upper]))
        stack.append((members[lower], part[lower]))
    return labels


def _principal_score(part: np.ndarray) -> np.ndarray:
    """Scores of the records of ``part`` on its first principal component, up to a constant (which changes
    no split): the covariance from the cross-products, without a centred copy of the part."""
    if part.shape[1] == 1:
        return part[:, 0]
    mean = part.mean(axis=0)
    _, vectors = np.linalg.eigh(part.T @ part / part.shape[0] - np.outer(mean, mean))
    return part @ vectors[:, -1]


def _mdav_kernel(x: np.ndarray, k: int, members: np.ndarray, labels: np.ndarray, first_label: int) -> int:
    """MDAV on the (m, p) records ``x`` (compiled); writes ``labels[members]``, returns the next free label.

    The steps of :func:`rumap.masking.microaggregation.mdav._mdav`: while at
    least 3k records remain, the record r farthest from their centroid, s
    farthest from r, the k nearest r and then the k nearest s among the others
    form two groups; with 2k .. 3k-1 left, one group around r and the rest;
    fewer than 2k, one group. Distances are ``sum((x - q)^2)`` in float64;
    ties go to the record that comes first. The grouped records are dropped
    from the working copies of ``x`` and ``members`` once they are a quarter
    of them, keeping the others' order.
    """
    x = x.copy()
    members = members.copy()
    m, p = x.shape
    alive = np.ones(m, dtype=np.bool_)
    dist = np.empty(m)
    q = np.empty(p)
    near_dist = np.empty(k)
    near = np.empty(k, dtype=np.int64)
    removed = 0
    remaining = m
    label = first_label
    r = s = 0
    while remaining >= 2 * k:
        two = remaining >= 3 * k
        # phase 0: r, the farthest from the centroid; 1: s, the farthest from r, and r's group; 2: s's group
        for phase in range(3 if two else 2):
            if phase == 0:
                q[:] = 0.0
                for i in range(m):
                    if alive[i]:
                        for j in range(p):
                            q[j] += x[i, j]
                for j in range(p):
                    q[j] /= remaining
            else:
                q[:] = x[r] if phase == 1 else x[s]
            best = -1
            top = -1.0
            for i in range(m):  # the distances to q, and the first farthest
                if alive[i]:
                    d = 0.0
                    for j in range(p):
                        diff = x[i, j] - q[j]
                        d += diff * diff
                    dist[i] = d
                    if d > top:
                        top = d
                        best = i
            if phase == 0:
                r = best
                continue
            if phase == 1:
                s = best
            # the k nearest q in one pass, kept sorted (a later record displaces one only if strictly nearer)
            count = 0
            for i in range(m):
                if alive[i]:
                    d = dist[i]
                    if count == k and d >= near_dist[k - 1]:
                        continue
                    t = count if count < k else k - 1
                    while t > 0 and near_dist[t - 1] > d:
                        near_dist[t] = near_dist[t - 1]
                        near[t] = near[t - 1]
                        t -= 1
                    near_dist[t] = d
                    near[t] = i
                    if count < k:
                        count += 1
            for t in range(k):
                alive[near[t]] = False
                labels[members[near[t]]] = label
            label += 1
            remaining -= k
            removed += k
        if 4 * removed > m:  # drop the grouped records, keeping the order of the others
            kept = 0
            for i in range(m):
                if alive[i]:
                    x[kept] = x[i]
                    members[kept] = members[i]
                    alive[kept] = True
                    kept += 1
            m = kept
            removed = 0
    if remaining > 0:
        for i in range(m):
            if alive[i]:
                labels[members[i]] = label
        label += 1
    return label
