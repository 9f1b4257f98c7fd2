"""The nearest originals of masked records: a KD-tree over an original file's distinct points.

Distance-based record linkage (Domingo-Ferrer & Torra 2004, Section 2.1) asks, of
each masked record, how near its own original is and how near the nearest other
original is, and how many originals tie with its own. Files of whole numbers
(ages, counts, incomes in bands) repeat each point hundreds of times, and a
KD-tree's leaf of equal points is searched point by point; :class:`OriginalsTree`
holds each distinct point once, with the number of records at it, and gives the
same distances and counts as a tree of every record.
"""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd

from rumap._validation import assumes_valid

__all__ = ["OriginalsTree", "distinct_rows", "DISTINCT_SAMPLE"]

#: Rows of an original file sampled (evenly) to decide whether its tree holds its distinct points.
DISTINCT_SAMPLE = 20_000


@assumes_valid
def distinct_rows(coords: np.ndarray, sample: int | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The distinct rows of ``coords`` (in order of first appearance), each row's index among them, and how many
    rows each holds.

    Rows of which an even sample of ``sample`` rows (default :data:`DISTINCT_SAMPLE`) repeats none are taken as
    they are, each its own: a search gives the same distances either way, and continuous data are spared the pass.

    Parameters
    ----------
    coords : ndarray of shape (n, d)
        Finite coordinates.
    sample : int, optional

    Returns
    -------
    points : ndarray of shape (m, d)
    codes : ndarray of shape (n,)
        Row i is ``points[codes[i]]``.
    counts : ndarray of shape (m,)

    Examples
    --------
    >>> points, codes, counts = distinct_rows(np.array([[1.0, 2.0], [3.0, 4.0], [1.0, 2.0]]))
    >>> points.tolist(), codes.tolist(), counts.tolist()
    ([[1.0, 2.0], [3.0, 4.0]], [0, 1, 0], [2, 1])
    """
    rows = np.ascontiguousarray(coords, dtype=float)
    view = rows.view(np.dtype((np.void, rows.dtype.itemsize * rows.shape[1]))).ravel()
    step = max(1, view.size // (DISTINCT_SAMPLE if sample is None else int(sample)))
    part = view[::step]
    if pd.unique(part).size == part.size:
        return rows, np.arange(view.size), np.ones(view.size, dtype=np.int64)
    codes = pd.factorize(view)[0]
    first = np.unique(codes, return_index=True)[1]
    return rows[first], codes, np.bincount(codes)


class OriginalsTree:
    """A KD-tree over the distinct points of an original file, each with the number of records at it.

    Parameters
    ----------
    coords : ndarray of shape (n, d)
        The original records' coordinates (row i: record i).
    sample : int, optional
        Rows sampled to decide whether the tree holds the distinct points (:func:`distinct_rows`).

    Examples
    --------
    >>> tree = OriginalsTree(np.array([[0.0], [0.0], [5.0]]))
    >>> tree.nearest_other(np.array([[0.5], [0.5], [4.0]])).tolist()
    [0.5, 0.5, 4.0]
    >>> tree.count_within(np.array([[0.5], [4.0]]), np.array([0.6, 1.0])).tolist()
    [2, 1]
    """

    def __init__(self, coords: np.ndarray, sample: int | None = None) -> None:
        from scipy.spatial import cKDTree  # here: importing scipy takes a second

        self.points, self.codes, self.counts = distinct_rows(coords, sample)
        self.repeated = self.points.shape[0] < self.codes.size
        self.tree = cKDTree(self.points)

    def nearest_other(self, z: np.ndarray, p: float = 2.0, workers: int = 1) -> np.ndarray:
        """The distance from row i of ``z`` (masked record i) to the nearest original other than record i.

        Parameters
        ----------
        z : ndarray of shape (n, d)
        p : float
            The Minkowski norm (:meth:`scipy.spatial.cKDTree.query`).
        workers : int

        Returns
        -------
        ndarray of shape (n,)
            ``inf`` when the file has one record.
        """
        dist, idx = self.tree.query(z, k=2, p=p, workers=workers)
        # the nearest distinct point, unless it is the record's own and no other record shares it (the second)
        alone_first = (idx[:, 0] == self.codes) & (self.counts[self.codes] == 1)
        return np.where(alone_first, dist[:, 1], dist[:, 0])

    def count_within(self, z: np.ndarray, radius: np.ndarray, p: float = 2.0) -> np.ndarray:
        """How many original records lie within ``radius[i]`` of row i of ``z``, repeated points each counted.

        Parameters
        ----------
        z : ndarray of shape (m, d)
        radius : ndarray of shape (m,)
        p : float

        Returns
        -------
        ndarray of shape (m,), int
        """
        if not self.repeated:
            return np.asarray(self.tree.query_ball_point(z, r=radius, p=p, return_length=True), dtype=np.int64)
        found = self.tree.query_ball_point(z, r=radius, p=p, return_sorted=False)
        lengths = np.fromiter(map(len, found), dtype=np.int64, count=len(found))
        points = np.fromiter(itertools.chain.from_iterable(found), dtype=np.int64, count=int(lengths.sum()))
        owner = np.repeat(np.arange(len(found)), lengths)
        return np.bincount(owner, weights=self.counts[points], minlength=len(found)).astype(np.int64)
