"""The Modified Ward's Algorithm (Domingo-Ferrer & Mateo-Sanz 1997; Mas, "Modified Ward's Algorithm")."""

from __future__ import annotations

import heapq

import numpy as np

from rumap.masking.microaggregation.partition import _labels_from_runs

# Entries of one block of pairwise distances (rows of the block = this // number of columns).
_BLOCK_PAIRS = 1 << 16


def _mwa_univariate_sorted(values: np.ndarray, k: int) -> np.ndarray:
    """Run lengths of the univariate MWA on sorted values (Mas, "Algorithm. Univariate case").

    Step 1: the k smallest and the k largest values form two groups; every
    other value is a group of its own. Step 2: Ward's method on adjacent
    groups (merge the pair whose union increases SSE least,
    ``n_a n_b / (n_a + n_b) (mean_a - mean_b)^2``), never joining two groups of
    size >= k, until every group has at least k values. Step 3: apply the
    algorithm again to every group of 2k or more values (a stack of segments,
    not recursion). The agglomeration is sequential: one heap step per merge,
    O(n log n).
    """
    runs: list[int] = []
    segments = [(0, values.size)]
    while segments:
        start, size = segments.pop()
        if size < 2 * k:
            runs.append(size)
            continue
        level = _ward_adjacent_runs(values[start:start + size], k)
        ends = start + np.cumsum(level)
        segments.extend(zip((ends - level)[::-1].tolist(), level[::-1].tolist(), strict=True))
    return np.array(runs, dtype=np.int64)


def _ward_adjacent_runs(values: np.ndarray, k: int) -> np.ndarray:
    """Steps 1 and 2 of the univariate MWA on sorted values (n >= 2k): the run lengths."""
    n = values.size
    # Clusters as a doubly linked list of runs: start, size, sum.
    starts = [0] + list(range(k, n - k)) + [n - k]
    sizes = [k] + [1] * (n - 2 * k) + [k]
    sums = [float(values[:k].sum())] + values[k:n - k].tolist() + [float(values[n - k:].sum())]
    m = len(starts)
    nxt = list(range(1, m)) + [-1]
    prv = [-1] + list(range(m - 1))
    version = [0] * m
    small = sum(1 for s in sizes if s < k)

    def cost(a: int, b: int) -> float:
        na, nb = sizes[a], sizes[b]
        diff = sums[a] / na - sums[b] / nb
        return na * nb / (na + nb) * diff * diff

    heap = [(cost(a, a + 1), a, 0, 0) for a in range(m - 1) if sizes[a] < k or sizes[a + 1] < k]
    heapq.heapify(heap)
    while small and heap:
        _, a, va, vb = heapq.heappop(heap)
        b = nxt[a]
        if b < 0 or version[a] != va or version[b] != vb or (sizes[a] >= k and sizes[b] >= k):
            continue
        small -= (sizes[a] < k) + (sizes[b] < k)
        sizes[a] += sizes[b]
        sums[a] += sums[b]
        small += sizes[a] < k
        version[a] += 1
        version[b] = -1
        nxt[a] = nxt[b]
        if nxt[b] >= 0:
            prv[nxt[b]] = a
        for left, right in ((prv[a], a), (a, nxt[a])):
            if left >= 0 and right >= 0 and (sizes[left] < k or sizes[right] < k):
                heapq.heappush(heap, (cost(left, right), left, version[left], version[right]))
    runs: list[int] = []
    a = 0
    while a >= 0:
        runs.append(sizes[a])
        a = nxt[a]
    return np.array(runs, dtype=np.int64)


def _farthest_pair(points: np.ndarray) -> tuple[int, int]:
    """The two most distant rows (exact, in blocks of rows to bound memory)."""
    norms = np.einsum("ij,ij->i", points, points)
    best, pair = -1.0, (0, min(1, points.shape[0] - 1))
    step = max(1, _BLOCK_PAIRS // points.shape[0])
    for start in range(0, points.shape[0], step):
        block = points[start:start + step]
        dist = norms[start:start + step, None] - 2.0 * block @ points.T + norms[None, :]
        flat = int(np.argmax(dist))
        i, j = divmod(flat, points.shape[0])
        if dist[i, j] > best:
            best, pair = float(dist[i, j]), (start + i, j)
    return pair


def _grow_group(points: np.ndarray, seed: int, free: np.ndarray, k: int) -> np.ndarray:
    """A group of k rows grown from ``seed``: repeatedly add the free row nearest the group's centroid."""
    members = [seed]
    free = free.copy()
    free[seed] = False
    total = points[seed].copy()
    for size in range(1, k):
        centroid = total / size
        dist = ((points - centroid) ** 2).sum(axis=1)
        dist[~free] = np.inf
        nearest = int(np.argmin(dist))
        members.append(nearest)
        free[nearest] = False
        total += points[nearest]
    return np.array(members, dtype=np.int64)


def _ward_costs(rows: np.ndarray, sizes: np.ndarray, centroids: np.ndarray, sq: np.ndarray,
                k: int) -> tuple[np.ndarray, np.ndarray]:
    """For each cluster in ``rows``: its best allowed Ward partner and the SSE increase of the merge.

    ``sq`` holds the squared norms of the centroids. A pair is allowed unless
    both clusters have k or more records.
    """
    best_cost = np.empty(rows.size)
    best_partner = np.empty(rows.size, dtype=np.int64)
    big = sizes >= k
    inverse = 1.0 / sizes
    step = max(1, _BLOCK_PAIRS // sizes.size)
    for start in range(0, rows.size, step):
        chunk = rows[start:start + step]
        cost = centroids[chunk] @ centroids.T
        cost *= -2.0
        cost += sq[chunk, None]
        cost += sq[None, :]
        np.maximum(cost, 0.0, out=cost)
        cost /= inverse[chunk, None] + inverse[None, :]
        cost[big[chunk][:, None] & big[None, :]] = np.inf
        cost[np.arange(chunk.size), chunk] = np.inf
        choice = np.argmin(cost, axis=1)
        best_partner[start:start + chunk.size] = choice
        best_cost[start:start + chunk.size] = cost[np.arange(chunk.size), choice]
    return best_cost, best_partner


def _mwa_multivariate(points: np.ndarray, k: int) -> np.ndarray:
    """Multivariate MWA with the maximum-distance criterion; labels of the rows of ``points``.

    Steps 1 and 2 in :func:`_ward_split`; step 3 applies them again to every
    group of 2k or more records (a stack of groups, not recursion).
    """
    labels = np.empty(points.shape[0], dtype=np.int64)
    next_label = 0
    pending = [np.arange(points.shape[0])]
    while pending:
        members = pending.pop()
        if members.size < 2 * k:
            labels[members] = next_label
            next_label += 1
            continue
        owner = _ward_split(points[members], k)
        order = np.argsort(owner, kind="stable")
        groups = np.split(members[order], np.flatnonzero(np.diff(owner[order])) + 1)
        pending.extend(groups[::-1])
    return labels


def _ward_split(points: np.ndarray, k: int) -> np.ndarray:
    """Steps 1 and 2 of the multivariate MWA (m >= 2k records): cluster of every row, numbered 0..g-1.

    Step 1: the two most distant records are the extremes; a group of k is
    grown from each (the record nearest the group's centroid joins next).
    Step 2: Ward's method (merge the allowed pair of least SSE increase
    ``n_a n_b / (n_a + n_b) ||c_a - c_b||^2``, never two groups of size >= k)
    until every group has k or more records. Every cluster keeps its best
    partner; after a merge only the clusters whose partner was one of the two
    are searched again, the others compare with the merged cluster. Clusters
    are kept compact (the last one moves into a merged one's slot).
    Time O(m^2 p), memory O(m p) (distances in row blocks).
    """
    m = points.shape[0]
    first, last = _farthest_pair(points)
    free = np.ones(m, dtype=bool)
    group_first = _grow_group(points, first, free, k)
    free[group_first] = False
    if not free[last]:
        last = int(np.flatnonzero(free)[np.argmax(((points[free] - points[first]) ** 2).sum(axis=1))])
    group_last = _grow_group(points, last, free, k)
    free[group_last] = False
    singles = np.flatnonzero(free)
    # Clusters: 0 = first group, 1 = last group, 2.. = singletons.
    owner = np.empty(m, dtype=np.int64)
    owner[group_first], owner[group_last] = 0, 1
    owner[singles] = np.arange(2, 2 + singles.size)
    g = 2 + singles.size
    sizes = np.ones(g)
    sizes[0] = sizes[1] = k
    centroids = np.empty((g, points.shape[1]))
    centroids[0], centroids[1] = points[group_first].mean(axis=0), points[group_last].mean(axis=0)
    centroids[2:] = points[singles]
    sq = np.einsum("ij,ij->i", centroids, centroids)
    best_cost, best_partner = _ward_costs(np.arange(g), sizes, centroids, sq, k)
    n_small = int((sizes < k).sum())
    while n_small:
        a = int(np.argmin(best_cost[:g]))
        b = int(best_partner[a])
        stale = (best_partner[:g] == a) | (best_partner[:g] == b)
        n_small -= int(sizes[a] < k) + int(sizes[b] < k)
        total = sizes[a] + sizes[b]
        centroids[a] = (sizes[a] * centroids[a] + sizes[b] * centroids[b]) / total
        sq[a] = centroids[a] @ centroids[a]
        sizes[a] = total
        n_small += int(total < k)
        owner[owner == b] = a
        # Remove b: the last cluster takes its slot.
        tail = g - 1
        if b != tail:
            sizes[b], centroids[b], sq[b] = sizes[tail], centroids[tail], sq[tail]
            best_cost[b], best_partner[b], stale[b] = best_cost[tail], best_partner[tail], stale[tail]
            best_partner[:g][best_partner[:g] == tail] = b
            owner[owner == tail] = b
            if a == tail:
                a = b
        g -= 1
        stale = stale[:g]
        stale[a] = True
        diff = centroids[:g] - centroids[a]
        to_a = np.einsum("ij,ij->i", diff, diff) / (1.0 / sizes[:g] + 1.0 / total)
        if total >= k:
            to_a[sizes[:g] >= k] = np.inf
        to_a[a] = np.inf
        better = (to_a < best_cost[:g]) & ~stale
        best_cost[:g][better] = to_a[better]
        best_partner[:g][better] = a
        rows = np.flatnonzero(stale)
        best_cost[rows], best_partner[rows] = _ward_costs(rows, sizes[:g], centroids[:g], sq[:g], k)
    return owner


def _mwa(space: np.ndarray, k: int) -> np.ndarray:
    """Modified Ward's Algorithm: univariate on sorted values, multivariate with the maximum-distance criterion."""
    if space.shape[1] == 1:
        order = np.argsort(space[:, 0], kind="stable")
        return _labels_from_runs(order, _mwa_univariate_sorted(space[order, 0], k))
    return _mwa_multivariate(space - space.mean(axis=0), k)
