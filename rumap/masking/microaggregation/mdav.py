"""MDAV, Maximum Distance to Average Vector (Domingo-Ferrer & Mateo-Sanz 2002), as in sdcMicro and mu-Argus."""

from __future__ import annotations

import numpy as np

_EPS32 = float(np.finfo(np.float32).eps)
# Columns of one vector-matrix product: larger products make OpenBLAS start threads, which is far slower
# for this memory-bound product (60x at 100,000 columns on a busy 2-core machine).
_MATVEC_COLUMNS = 1 << 15


def _mdav(space: np.ndarray, k: int) -> np.ndarray:
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
