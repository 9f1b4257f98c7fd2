"""Microaggregation: replace each record by the mean of a group of at least k similar records.

Five algorithms, chosen by name from :data:`ALGORITHMS`:

``"mdav"``
    Maximum Distance to Average Vector (Domingo-Ferrer & Mateo-Sanz 2002), the
    default of sdcMicro and mu-Argus: fixed groups of k formed around the
    records farthest from the centroid of what remains.
``"mwa"``
    The Modified Ward's Algorithm (Domingo-Ferrer & Mateo-Sanz 1997; Mas,
    section "Modified Ward's Algorithm"): variable group sizes k .. 2k-1.
``"fixed"``
    Fixed-size groups of k consecutive records on a sorting criterion (first
    principal component, one variable, or sum of z-scores).
``"individual"``
    Individual ranking: every variable sorted and aggregated on its own.
``"optimal"``
    Optimal univariate microaggregation (Hansen & Mukherjee 2003): the
    partition of least SSE, a shortest path over the sorted values in O(k n).

Every group has at least k records. Information loss is ``L = SSE / SST``
(Mas, Eq 1), on the standardized data when ``standardize=True``.
Microaggregation preserves the mean of every variable exactly, so a utility
measure based on the mean cannot tell its parameter values apart.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from rumap._validation import check_scalar
from rumap.errors import InputError
from rumap.io.data import numeric_column_names, numeric_columns

__all__ = ["ALGORITHMS", "CRITERIA", "MicroaggregationResult", "microaggregate", "standardize_columns",
           "sum_of_squares"]

# Entries of one block of pairwise distances (rows of the block = this // number of columns).
_BLOCK_PAIRS = 1 << 16
_EPS32 = float(np.finfo(np.float32).eps)
# Columns of one vector-matrix product: larger products make OpenBLAS start threads, which is far slower
# for this memory-bound product (60x at 100,000 columns on a busy 2-core machine).
_MATVEC_COLUMNS = 1 << 15
# Largest number of entries of one dynamic-programming block of the optimal algorithm.
_BLOCK_ENTRIES = 1 << 20


@dataclass(frozen=True, eq=False)
class MicroaggregationResult:
    """The outcome of :func:`microaggregate`.

    Attributes
    ----------
    masked : ndarray, shape (n, p)
        The microaggregated data in the original units: every value replaced by
        its group's mean of the original values.
    groups : ndarray of int, shape (n,), or (n, p) for individual ranking
        Group label of every record (numbered 0, 1, ... in the order the
        algorithm formed them); individual ranking has one partition per variable.
    group_sizes : ndarray of int, shape (g,)
        Number of records in each group, indexed by label. Individual ranking
        forms the same sizes for every variable; they are given once.
    k : int
        Minimum group size.
    algorithm : str
        Key of :data:`ALGORITHMS`.
    n : int
        Number of records.
    sse, sst : float
        Within-group and total sum of squares, summed over the variables, on
        the standardized data when ``standardized`` is true.
    information_loss : float
        ``sse / sst`` as a fraction (0 when ``sst`` is 0).
    columns : tuple of str
        Names of the variables.
    standardized : bool
        Whether groups were formed (and SSE, SST measured) on z-scores.
    criterion : str
        The sorting criterion (used by ``"fixed"`` only).
    """

    masked: np.ndarray
    groups: np.ndarray
    group_sizes: np.ndarray
    k: int
    algorithm: str
    n: int
    sse: float
    sst: float
    information_loss: float
    columns: tuple[str, ...] = field(default=())
    standardized: bool = False
    criterion: str = ""

    def __post_init__(self) -> None:
        for name in ("masked", "groups", "group_sizes"):
            value = np.array(getattr(self, name), copy=True)
            value.setflags(write=False)
            object.__setattr__(self, name, value)

    @property
    def n_groups(self) -> int:
        """Number of groups (per variable, for individual ranking)."""
        return int(self.group_sizes.size)

    @property
    def ssa(self) -> float:
        """Between-group sum of squares, ``SST - SSE``."""
        return self.sst - self.sse

    def to_frame(self) -> pd.DataFrame:
        """The masked data with the group labels, one row per record.

        Columns are the variables, then ``group`` (or ``group[<variable>]`` for
        each variable under individual ranking).
        """
        frame = pd.DataFrame(self.masked, columns=list(self.columns))
        if self.groups.ndim == 1:
            frame["group"] = self.groups
        else:
            for j, name in enumerate(self.columns):
                frame[f"group[{name}]"] = self.groups[:, j]
        return frame

    def to_dict(self) -> dict[str, Any]:
        """The summary printed by ``python -m rumap microaggregate --json``."""
        return {
            "algorithm": self.algorithm,
            "k": self.k,
            "n": self.n,
            "groups": self.n_groups,
            "min_group_size": int(self.group_sizes.min()),
            "max_group_size": int(self.group_sizes.max()),
            "sse": float(self.sse),
            "sst": float(self.sst),
            "information_loss": float(self.information_loss),
            "standardized": self.standardized,
            "columns": list(self.columns),
        }


# --------------------------------------------------------------------------- helpers


def standardize_columns(values: np.ndarray) -> np.ndarray:
    """z-scores of every column, with the sample standard deviation (ddof = 1).

    A constant column becomes all zeros.

    Parameters
    ----------
    values : ndarray, shape (n, p)

    Returns
    -------
    ndarray, shape (n, p)
    """
    shifted = values - values[:1]  # exact zeros for a constant column
    centered = shifted - shifted.mean(axis=0)
    sd = shifted.std(axis=0, ddof=1) if values.shape[0] > 1 else np.zeros(values.shape[1])
    scale = np.where(sd > 0, sd, 1.0)
    return centered / scale


def _group_means(values: np.ndarray, labels: np.ndarray, n_groups: int) -> np.ndarray:
    """Mean of every column within every group: shape (n_groups, p)."""
    sizes = np.bincount(labels, minlength=n_groups).astype(float)
    sums = np.stack([np.bincount(labels, weights=values[:, j], minlength=n_groups) for j in range(values.shape[1])],
                    axis=1)
    return sums / sizes[:, None]


def sum_of_squares(values: np.ndarray, labels: np.ndarray) -> tuple[float, float]:
    """Within-group and total sums of squares of a partition (Mas, SSE and SST).

    Parameters
    ----------
    values : ndarray, shape (n, p)
    labels : ndarray of int, shape (n,) or (n, p)
        Group labels ``0 .. g-1``; one column of labels per variable means a
        separate partition of every variable (individual ranking).

    Returns
    -------
    sse, sst : float
        ``SSE = sum_i sum_j ||x_ij - xbar_i||^2`` and ``SST = sum ||x - xbar||^2``.
    """
    values = np.asarray(values, dtype=float)
    if values.ndim == 1:
        values = values[:, None]
    values = values - values[:1]  # shifting changes nothing but rounding; a constant column gives exact zeros
    sst = float(((values - values.mean(axis=0)) ** 2).sum())
    if labels.ndim == 1:
        means = _group_means(values, labels, int(labels.max()) + 1)
        sse = float(((values - means[labels]) ** 2).sum())
    else:
        sse = 0.0
        for j in range(values.shape[1]):
            column = values[:, j:j + 1]
            means = _group_means(column, labels[:, j], int(labels[:, j].max()) + 1)
            sse += float(((column - means[labels[:, j]]) ** 2).sum())
    return sse, sst


def _consecutive_labels(n: int, k: int) -> np.ndarray:
    """Labels of positions 0..n-1 cut into groups of k; the last group takes the remainder."""
    return np.minimum(np.arange(n) // k, n // k - 1)


# --------------------------------------------------------------------------- MDAV


def _mdav(space: np.ndarray, k: int, criterion: str) -> np.ndarray:
    """MDAV (Domingo-Ferrer & Mateo-Sanz 2002, as in sdcMicro's ``mdav``).

    While at least 3k records remain: c = centroid of the remaining records,
    r = the record farthest from c, s = the record farthest from r; the k
    records nearest r (r included) form a group, then the k nearest s among
    those left. If 2k .. 3k-1 remain: one group of the k nearest the record
    farthest from the centroid, the rest a last group; fewer than 2k: one
    group. Ties go to the record that comes first in the data.

    Speed: the remaining records are a compact (p, m) array in their original
    order; removed ones carry a +-inf penalty until they are a quarter of the
    array, which is then compacted. Squared distances to a point q are
    scanned as ``||x||^2 - 2 q.x`` (+ ``||q||^2``) on centred data in float32,
    one vector-matrix product each (half the memory traffic of float64); every
    record within the float32 error bound of the answer is then compared with
    ``sum((x - q)^2)`` in float64, so the result is that of the direct float64
    computation. The sum of the remaining records is updated incrementally.
    """
    del criterion
    return _MdavState(space, k).run()


class _MdavState:
    """Working arrays of one MDAV run (see :func:`_mdav`)."""

    def __init__(self, space: np.ndarray, k: int) -> None:
        n, p = space.shape
        self.k = k
        self.labels = np.full(n, -1, dtype=np.int64)
        self.shift = space.mean(axis=0)
        self.raw = space  # (m, p) rows: float64 distances are computed from them directly
        self.index = np.arange(n)
        self._compact(np.ones(n, dtype=bool))
        # |float32 scan - exact value| <= tol_factor (|x| + |q|)^2 (centred norms): rounding of the inputs,
        # a p-term dot product and two additions, each at most eps32 / 2 relative; a factor 2 to spare.
        self.tol_factor = 2.0 * _EPS32 * (p + 5)
        # Work buffers, reused: fresh large temporaries cost a page fault per page.
        self.product, self.dist = np.empty(n, dtype=np.float32), np.empty(n, dtype=np.float32)

    def _compact(self, keep: np.ndarray) -> None:
        self.raw, self.index = self.raw[keep], self.index[keep]
        centred = self.raw - self.shift
        norms = np.einsum("ij,ij->i", centred, centred)
        self.scan = np.ascontiguousarray(-2.0 * centred.T, dtype=np.float32)  # q @ scan ~ -2 q.x
        self.near = norms.astype(np.float32)  # + inf for removed records
        self.far = self.near.copy()  # - inf for removed records
        self.total = self.raw.sum(axis=0)
        self.radius = float(np.sqrt(norms.max()))
        self.n_removed = 0

    def _scan(self, q: np.ndarray) -> tuple[np.ndarray, float]:
        """float32 ``-2 q.x`` for the array's records (centred data), and twice the error bound of
        ``||x||^2 - 2 q.x``, which is ``||x - q||^2 - ||q||^2``."""
        m = self.index.size
        prod = self.product[:m]
        centred = q - self.shift
        centred32 = centred.astype(np.float32)
        for start in range(0, m, _MATVEC_COLUMNS):
            stop = start + _MATVEC_COLUMNS
            np.matmul(centred32, self.scan[:, start:stop], out=prod[start:stop])
        return prod, 2.0 * self.tol_factor * (self.radius + float(np.sqrt(centred @ centred))) ** 2

    def _exact(self, candidates: np.ndarray, q: np.ndarray) -> np.ndarray:
        return ((self.raw[candidates] - q) ** 2).sum(axis=1)

    def farthest(self, q: np.ndarray, scanned: tuple[np.ndarray, float]) -> int:
        """Position of the remaining record farthest from q (``scanned = self._scan(q)``)."""
        prod, slack = scanned
        dist = np.add(self.far, prod, out=self.dist[:prod.size])
        best = int(dist.argmax())
        top = dist[best]
        dist[best] = -np.inf
        if dist[dist.argmax()] < top - slack:  # clearly the farthest
            return best
        dist[best] = top
        candidates = np.flatnonzero(dist >= top - slack)
        return int(candidates[self._exact(candidates, q).argmax()])

    def nearest(self, q: np.ndarray, scanned: tuple[np.ndarray, float], exclude: np.ndarray | None = None) -> np.ndarray:
        """Positions of the k remaining records nearest q, ``exclude`` left out."""
        prod, slack = scanned
        dist = np.add(self.near, prod, out=self.dist[:prod.size])
        if exclude is not None:
            dist[exclude] = np.inf
        k = self.k
        if k <= 8:  # k passes of argmin beat one argpartition
            chosen = np.empty(k, dtype=np.int64)
            for i in range(k):
                j = dist.argmin()
                chosen[i] = j
                kth = dist[j]
                dist[j] = np.inf
        else:
            chosen = np.argpartition(dist, k - 1)[:k]
            kth = dist[chosen].max()
            dist[chosen] = np.inf
        if dist[dist.argmin()] > kth + slack:  # no other record can be as near
            return chosen
        candidates = np.concatenate((chosen, np.flatnonzero(dist <= kth + slack)))
        return candidates[np.lexsort((candidates, self._exact(candidates, q)))[:k]]

    def run(self) -> np.ndarray:
        k, remaining, label = self.k, self.index.size, 0
        while remaining >= 2 * k:
            two_groups = remaining >= 3 * k
            centroid = self.total / remaining
            r = self.farthest(centroid, self._scan(centroid))
            xr = self.raw[r]
            around_r = self._scan(xr)  # shared by the search for s and the group of r
            if two_groups:
                s = self.farthest(xr, around_r)
            groups = [self.nearest(xr, around_r)]
            if two_groups:
                xs = self.raw[s]
                groups.append(self.nearest(xs, self._scan(xs), exclude=groups[0]))
            for members in groups:
                self.labels[self.index[members]] = label
                label += 1
                self.near[members] = np.inf
                self.far[members] = -np.inf
                self.total -= self.raw[members].sum(axis=0)
                remaining -= k
                self.n_removed += k
            if self.n_removed * 4 > self.index.size and remaining > 0:
                self._compact(np.isfinite(self.near))
        self.labels[self.labels < 0] = label
        return self.labels


# --------------------------------------------------------------------------- fixed size and individual ranking


def _first_principal_component(space: np.ndarray) -> np.ndarray:
    """Scores on the first principal component, oriented so its largest loading is positive."""
    centered = space - space.mean(axis=0)
    if centered.shape[1] == 1:
        return centered[:, 0]
    _, vectors = np.linalg.eigh(centered.T @ centered)
    loading = vectors[:, -1]
    loading = loading * np.sign(loading[np.argmax(np.abs(loading))])
    return centered @ loading


#: Sorting criteria of fixed-size microaggregation (Mas, "Unidimensional fixed-size methods").
CRITERIA: dict[str, Callable[[np.ndarray], np.ndarray]] = {
    "pc1": _first_principal_component,
    "variable": lambda space: space[:, 0],
    "zsum": lambda space: standardize_columns(space).sum(axis=1),
}


def _fixed(space: np.ndarray, k: int, criterion: str) -> np.ndarray:
    """Sort by the criterion; groups of k consecutive records, the last one takes the remainder."""
    score = CRITERIA[criterion](space)
    order = np.argsort(score, kind="stable")
    labels = np.empty(space.shape[0], dtype=np.int64)
    labels[order] = _consecutive_labels(space.shape[0], k)
    return labels


def _individual(space: np.ndarray, k: int, criterion: str) -> np.ndarray:
    """Individual ranking: every column sorted and cut into groups of k on its own; labels (n, p)."""
    del criterion
    n, p = space.shape
    order = np.argsort(space, axis=0, kind="stable")
    labels = np.empty((n, p), dtype=np.int64)
    np.put_along_axis(labels, order, _consecutive_labels(n, k)[:, None].repeat(p, axis=1), axis=0)
    return labels


# --------------------------------------------------------------------------- optimal univariate


def _optimal_sorted(sorted_values: np.ndarray, k: int) -> np.ndarray:
    """Group lengths of the least-SSE partition of sorted values into runs of k .. 2k-1.

    Dynamic programming (Hansen & Mukherjee 2003): with ``best[j]`` the least
    SSE of the first j values,
    ``best[j] = min_{k <= L <= 2k-1} best[j-L] + SSE(values[j-L:j])``. The
    positions of a block of k consecutive j depend only on ``best`` before the
    block, so each block is one vectorized step: O(n/k) steps of O(k^2) work.
    The SSE of a run is computed from cumulative sums of the values minus the
    run's first value (:func:`_run_costs_anchored`), so that tight runs far from
    the mean keep their precision; for k > 512 from global prefix sums in
    extended precision (:func:`_run_costs_prefix`), to bound memory.
    """
    n = sorted_values.size
    sd = sorted_values.std()
    x = (sorted_values - sorted_values.mean()) / (sd if sd > 0 else 1.0)
    best = np.full(n + 1, np.inf)
    best[0] = 0.0
    back = np.zeros(n + 1, dtype=np.int64)
    lengths = np.arange(k, 2 * k)
    if k <= 512:
        run_costs, step = _run_costs_anchored(x, k), k
    else:
        run_costs, step = _run_costs_prefix(x, k), max(1, min(k, _BLOCK_ENTRIES // k))
    for start in range(k, n + 1, step):
        ends = np.arange(start, min(start + step, n + 1))
        begins = ends[:, None] - lengths[None, :]
        valid = begins >= 0
        begins_c = np.where(valid, begins, 0)
        total = np.where(valid, best[begins_c] + run_costs(ends, begins_c), np.inf)
        choice = np.argmin(total, axis=1)
        best[ends] = total[np.arange(ends.size), choice]
        back[ends] = lengths[choice]
    runs = []
    j = n
    while j > 0:
        runs.append(back[j])
        j -= back[j]
    return np.array(runs[::-1], dtype=np.int64)


def _run_costs_anchored(x: np.ndarray, k: int) -> Callable[[np.ndarray, np.ndarray], np.ndarray]:
    """SSE of the runs ``x[b:e]`` (``ends`` e, ``begins`` b, shape (m, k)) from sums of ``x - x[b]``.

    The cumulative sums over each begin's window of 2k-1 values are computed
    for a span of about 2^20 / (2k) begins at a time and reused by the blocks
    that fall in it.
    """
    n = x.size
    offsets = np.arange(2 * k - 1)
    span = max(4 * k, _BLOCK_ENTRIES // (2 * k - 1))
    cache: dict[str, Any] = {"first": 0, "last": -1}

    def fill(first: int) -> None:
        anchors = np.arange(first, min(first + span, n))
        window = x[np.minimum(anchors[:, None] + offsets[None, :], n - 1)] - x[anchors][:, None]
        cache.update(first=first, last=int(anchors[-1]), sums=np.cumsum(window, axis=1),
                     squares=np.cumsum(window * window, axis=1))

    def costs(ends: np.ndarray, begins: np.ndarray) -> np.ndarray:
        if begins.min() < cache["first"] or begins.max() > cache["last"]:
            fill(int(begins.min()))
        length = ends[:, None] - begins
        row, col = begins - cache["first"], length - 1
        s1 = cache["sums"][row, col]
        return np.maximum(cache["squares"][row, col] - s1 * s1 / length, 0.0)

    return costs


def _run_costs_prefix(x: np.ndarray, k: int) -> Callable[[np.ndarray, np.ndarray], np.ndarray]:
    """SSE of the runs ``x[b:e]`` from global prefix sums (extended precision)."""
    wide = x.astype(np.longdouble)
    s1 = np.concatenate(([0.0], np.cumsum(wide))).astype(np.longdouble)
    s2 = np.concatenate(([0.0], np.cumsum(wide * wide))).astype(np.longdouble)

    def costs(ends: np.ndarray, begins: np.ndarray) -> np.ndarray:
        length = ends[:, None] - begins
        sums = s1[ends][:, None] - s1[begins]
        return np.maximum(s2[ends][:, None] - s2[begins] - sums * sums / length, 0.0).astype(float)

    return costs


def _labels_from_runs(order: np.ndarray, runs: np.ndarray) -> np.ndarray:
    labels = np.empty(order.size, dtype=np.int64)
    labels[order] = np.repeat(np.arange(runs.size), runs)
    return labels


def _optimal(space: np.ndarray, k: int, criterion: str) -> np.ndarray:
    """Optimal univariate microaggregation (Hansen & Mukherjee 2003)."""
    del criterion
    if space.shape[1] != 1:
        raise InputError(f"algorithm 'optimal' is univariate: it needs one column, got {space.shape[1]}; "
                         "use 'mdav' or 'mwa' for several variables, or 'individual'")
    order = np.argsort(space[:, 0], kind="stable")
    return _labels_from_runs(order, _optimal_sorted(space[order, 0], k))


# --------------------------------------------------------------------------- Modified Ward's algorithm


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


def _mwa(space: np.ndarray, k: int, criterion: str) -> np.ndarray:
    """Modified Ward's Algorithm: univariate on sorted values, multivariate with the maximum-distance criterion."""
    del criterion
    if space.shape[1] == 1:
        order = np.argsort(space[:, 0], kind="stable")
        return _labels_from_runs(order, _mwa_univariate_sorted(space[order, 0], k))
    return _mwa_multivariate(space - space.mean(axis=0), k)


#: Microaggregation kernels by name: ``kernel(space, k, criterion) -> labels``.
ALGORITHMS: dict[str, Callable[[np.ndarray, int, str], np.ndarray]] = {
    "mdav": _mdav,
    "mwa": _mwa,
    "fixed": _fixed,
    "individual": _individual,
    "optimal": _optimal,
}


def _compact_labels(labels: np.ndarray) -> np.ndarray:
    """Renumber labels 0..g-1 keeping their order (labels from recursion may have gaps)."""
    return np.unique(labels, return_inverse=True)[1].reshape(-1)


# --------------------------------------------------------------------------- public function


def microaggregate(data: Any, k: int, algorithm: str = "mdav", *, standardize: bool = False,
                   criterion: str = "pc1", columns: Sequence[str] | None = None) -> MicroaggregationResult:
    """Microaggregate numeric data: every record replaced by the mean of its group of >= k records.

    Parameters
    ----------
    data : array_like, shape (n,) or (n, p), or DataFrame
        The original values; no missing or non-finite values. With a DataFrame,
        ``columns`` selects its columns (default: every numeric column).
    k : int
        Minimum group size, ``1 <= k <= n``.
    algorithm : {"mdav", "mwa", "fixed", "individual", "optimal"}, default "mdav"
        Key of :data:`ALGORITHMS`. ``"optimal"`` needs a single variable.
    standardize : bool, default False
        Form the groups on z-scores (sample sd), and measure SSE, SST and the
        information loss on them. The masked values are still group means of
        the original values.
    criterion : {"pc1", "variable", "zsum"}, default "pc1"
        Sorting criterion of ``"fixed"``: first principal component, the first
        variable, or the sum of z-scores. Other algorithms ignore it.
    columns : sequence of str, optional
        Names of the variables (for an array: labels of its columns).

    Returns
    -------
    MicroaggregationResult
        The masked data ``(n, p)``, group labels, sizes, SSE, SST and
        ``information_loss = SSE / SST``.

    Raises
    ------
    InputError
        Bad ``k`` (not an integer >= 1, or larger than n), unknown algorithm
        or criterion, missing values, ``"optimal"`` with several variables.

    Notes
    -----
    ``SSE = sum_i sum_j ||x_ij - xbar_i||^2``, ``SSA = sum_i n_i ||xbar_i - xbar||^2``,
    ``SST = SSE + SSA`` and ``L = SSE / SST`` (Mas, Eq 1). Every algorithm
    keeps each variable's overall mean. MDAV and fixed-size groups have k
    records each except one group of k .. 2k-1; MWA and the optimal partition
    have groups of k .. 2k-1 (Mas, Proposition 4).

    References
    ----------
    Domingo-Ferrer, J. & Mateo-Sanz, J. M. (2002). Practical data-oriented
    microaggregation for statistical disclosure control. IEEE TKDE 14(1), 189-201.
    Mas, M. Statistical Data Protection Techniques. EUSTAT: "Microaggregation",
    Eq 1, Proposition 4, "Modified Ward's Algorithm".
    Hansen, S. L. & Mukherjee, S. (2003). A polynomial algorithm for optimal
    univariate microaggregation. IEEE TKDE 15(4), 1043-1044.
    """
    values, names = _as_matrix(data, columns)
    n = values.shape[0]
    k = check_scalar("k", k)
    if k > n:
        raise InputError(f"k must be at most the number of records n = {n}, got k = {k}")
    if algorithm not in ALGORITHMS:
        raise InputError(f"unknown algorithm {algorithm!r}; choose from {', '.join(ALGORITHMS)}")
    if criterion not in CRITERIA:
        raise InputError(f"unknown criterion {criterion!r}; choose from {', '.join(CRITERIA)}")
    space = standardize_columns(values) if standardize else values
    labels = ALGORITHMS[algorithm](space, k, criterion)
    if labels.ndim == 1:
        labels = _compact_labels(labels)
        group_sizes = np.bincount(labels)
        masked = _group_means(values, labels, group_sizes.size)[labels]
    else:
        group_sizes = np.bincount(labels[:, 0])
        masked = np.column_stack([_group_means(values[:, j:j + 1], labels[:, j], group_sizes.size)[labels[:, j], 0]
                                  for j in range(values.shape[1])])
    sse, sst = sum_of_squares(space, labels)
    return MicroaggregationResult(
        masked=masked, groups=labels, group_sizes=group_sizes, k=k, algorithm=algorithm, n=n, sse=sse, sst=sst,
        information_loss=min(sse / sst, 1.0) if sst > 0 else 0.0, columns=tuple(names), standardized=bool(standardize),
        criterion=criterion,
    )


def _as_matrix(data: Any, columns: Sequence[str] | None) -> tuple[np.ndarray, list[str]]:
    """Validated float matrix (n, p) and the variables' names."""
    if isinstance(data, pd.DataFrame):
        chosen = list(columns) if columns is not None else numeric_column_names(data)
        return numeric_columns(data, chosen, source="data"), [str(c) for c in chosen]
    try:
        values = np.array(data, dtype=float)
    except (TypeError, ValueError) as exc:
        raise InputError(f"data must be numeric: {exc}") from None
    if values.ndim == 1:
        values = values[:, None]
    if values.ndim != 2 or values.shape[1] == 0:
        raise InputError(f"data must have shape (n,) or (n, p), got {np.shape(data)}")
    if values.shape[0] == 0:
        raise InputError("data has no records")
    finite = np.isfinite(values)
    if not finite.all():
        row, col = np.argwhere(~finite)[0]
        raise InputError(f"data has {int((~finite).any(axis=1).sum())} record(s) with missing or non-finite "
                         f"values, first in row {row + 1}, column {col + 1}")
    if columns is None:
        names = [f"x{j + 1}" for j in range(values.shape[1])]
    else:
        names = [str(c) for c in columns]
        if len(names) != values.shape[1]:
            raise InputError(f"columns has {len(names)} names but data has {values.shape[1]} columns")
    return values, names
