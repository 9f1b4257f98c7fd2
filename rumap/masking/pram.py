"""PRAM, the post-randomisation method: each key value replaced by a draw from a Markov matrix.

The invariant matrix ``P = theta I + (1 - theta) 1 pi^T`` keeps each value
with probability ``theta`` and otherwise redraws it from the variable's own
distribution ``pi``, so the expected frequencies are unchanged (Gouweleeuw,
Kooiman, Willenborg & de Wolf 1998). Draws never build the ``c x c`` matrix:
two binary searches on the cumulative shares give each record's release.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import Any

import numpy as np
import pandas as pd

from rumap._validation import SEED, InstanceOf, assumes_valid, validate_params
from rumap.engine import run_chunks
from rumap.errors import InputError
from rumap.risk.paired import as_frame, select_columns

__all__ = ["pram_matrix", "pram", "pram_chunk", "pram_frame_chunk", "PramResult", "MAX_DENSE_PRAM_CATEGORIES", "MAX_LISTED_PRAM_CATEGORIES"]

#: Most categories whose PRAM matrix is built as a dense array (c x c numbers; 2,000 -> 32 MB).
MAX_DENSE_PRAM_CATEGORIES = 2_000
#: Most categories whose matrix a result lists in :meth:`PramResult.to_dict` (the command line's JSON).
MAX_LISTED_PRAM_CATEGORIES = 200

def _example() -> dict[str, Any]:
    return {"data": pd.DataFrame({"sex": ["f", "f", "m", "m", "m", "f"], "region": ["a", "a", "a", "b", "b", "c"]}),
            "keys": ["sex", "region"]}


@validate_params({"theta": "theta"},
                 example=lambda: {"frequencies": [5.0, 3.0, 2.0], "theta": 0.8})
def pram_matrix(frequencies: Sequence[float], theta: float) -> np.ndarray:
    """The invariant PRAM matrix ``P = theta I + (1 - theta) 1 pi^T`` for category frequencies ``pi``.

    Parameters
    ----------
    frequencies : sequence of float
        Counts (or shares) of the categories, all >= 0, not all 0.
    theta : float
        Probability that a value is kept as it is.

    Returns
    -------
    ndarray, shape (c, c)
        Row i holds the probabilities of releasing each category for a true
        category i; ``pi P = pi`` (invariant).

    Raises
    ------
    InputError
        With more than :data:`MAX_DENSE_PRAM_CATEGORIES` categories (the
        matrix is not built; :func:`pram` never needs it).

    Examples
    --------
    >>> import numpy as np
    >>> P = pram_matrix([6.0, 4.0], 0.5)
    >>> P.tolist()
    [[0.8, 0.2], [0.3, 0.7]]
    >>> np.allclose(np.array([0.6, 0.4]) @ P, [0.6, 0.4])
    True
    """
    pi = pram_shares(frequencies)
    if pi.size > MAX_DENSE_PRAM_CATEGORIES:
        raise InputError(f"the PRAM matrix of {pi.size} categories would hold {float(pi.size) ** 2:.3g} numbers, "
                         f"over the limit of {MAX_DENSE_PRAM_CATEGORIES} categories "
                         f"({MAX_DENSE_PRAM_CATEGORIES ** 2:.3g} numbers): it is theta I + (1 - theta) 1 pi^T, "
                         "and pram() draws from it without building it")
    return theta * np.eye(pi.size) + (1.0 - theta) * np.outer(np.ones(pi.size), pi)


def pram_shares(frequencies: Sequence[float]) -> np.ndarray:
    """The category shares ``pi`` of ``frequencies``, refused unless non-negative, finite and not all 0."""
    pi = np.asarray(frequencies, dtype=float).reshape(-1)
    if pi.size == 0 or not np.isfinite(pi).all() or (pi < 0).any() or pi.sum() <= 0 or not np.isfinite(pi.sum()):
        raise InputError("frequencies must be finite non-negative numbers, not all 0")
    return pi / pi.sum()


def pram_draw(codes: np.ndarray, pi: np.ndarray, theta: float, draws: np.ndarray) -> np.ndarray:
    """Released categories of true ``codes`` under ``theta I + (1 - theta) 1 pi^T``, one uniform ``draws`` each.

    The released category is the first ``j`` whose cumulative row probability reaches the draw, as inverse-CDF
    sampling of each row would give, found by two binary searches on the shared cumulative shares instead of a
    row of ``c`` probabilities per record: before the true category ``i`` the row's cumulative sum is
    ``(1 - theta) Pi(j)``, from ``i`` on ``theta + (1 - theta) Pi(j)``. Time ``n log c``, memory ``n + c``.
    """
    cumulative = np.cumsum(pi)
    last = pi.size - 1
    before = np.minimum(np.searchsorted((1.0 - theta) * cumulative, draws, side="left"), last)
    after = np.minimum(np.searchsorted(theta + (1.0 - theta) * cumulative, draws, side="left"), last)
    return np.where(before < codes, before, np.maximum(after, codes))


@assumes_valid
def pram_chunk(codes: np.ndarray, shares: np.ndarray, theta: float, seed: int | np.random.Generator,
               first: int) -> np.ndarray:
    """PRAM's one chunk kernel: the released codes of a chunk of one key's codes, each record at its place in the file.

    The whole file in memory (:func:`pram`) is one chunk, a file read in chunks
    (:func:`rumap.scale.protect.pram_file`, a release plan's streamed step) or
    a cluster's ranges are many: the draws do not depend on the chunks. Record
    ``i`` of the chunk takes uniform number ``first + i`` of
    ``default_rng(seed)``'s stream (PCG64 advanced to it), so the ``j``-th key
    with a known value of a file of ``n`` records has ``first = j n + start``.

    Parameters
    ----------
    codes : ndarray of int
        Each record's category number in ``shares`` (-1: missing, left missing).
    shares : ndarray
        The variable's category shares ``pi`` over the whole file.
    theta : float
        Probability that a value is kept.
    seed : int or numpy.random.Generator
        The seed of the stream, or a generator whose next ``codes.size`` numbers are the draws.
    first : int
        The number of the chunk's first draw in the seed's stream (not used with a generator).

    Returns
    -------
    ndarray of int
        The released codes (-1 where ``codes`` is).

    Examples
    --------
    >>> codes = np.array([0, 1, -1, 2, 1])
    >>> whole = pram_chunk(codes, np.array([0.2, 0.5, 0.3]), 0.4, 7, 10)
    >>> halves = [pram_chunk(codes[:2], np.array([0.2, 0.5, 0.3]), 0.4, 7, 10),
    ...           pram_chunk(codes[2:], np.array([0.2, 0.5, 0.3]), 0.4, 7, 12)]
    >>> whole.tolist() == np.concatenate(halves).tolist(), int(whole[2])
    (True, -1)
    """
    if isinstance(seed, np.random.Generator):
        draws = seed.random(codes.size)
    else:
        generator = np.random.PCG64(seed)
        generator.advance(first)
        draws = np.random.Generator(generator).random(codes.size)
    known = codes >= 0
    released = codes.copy()
    released[known] = pram_draw(codes[known], shares, theta, draws[known])
    return released


@assumes_valid
def pram_frame_chunk(keys: Sequence[tuple[str, pd.Index, np.ndarray, np.ndarray]], theta: float,
                     seed: int | np.random.Generator, n: int, chunk: pd.DataFrame, start: int
                     ) -> tuple[pd.DataFrame, dict[str, np.ndarray]]:
    """PRAM's chunk kernel on a pandas frame: the records ``start ..`` of ``n`` released, and what changed.

    The frame in memory (:func:`pram`) is one chunk of the runner
    (:func:`rumap.engine.run_chunks`), a release plan's streamed step
    (:mod:`rumap.release.stream`) many. The ``j``-th key of ``keys`` draws
    number ``j n + start + i`` of the seed's stream for record ``i``
    (:func:`pram_chunk`); a value not among its categories (missing) stays
    missing, and the keys become objects.

    Parameters
    ----------
    keys : sequence of (name, categories, values, shares)
        Each key with a known value, in order: its categories over the whole
        file (an object :class:`pandas.Index`, in order of first appearance),
        the same as an object array, and their shares.
    theta : float
        Probability that a value is kept.
    seed : int or numpy.random.Generator
        The seed of the stream (or a generator drawn in turn: the whole file as one chunk).
    n : int
        Records in the whole file.
    chunk : DataFrame
        The records.
    start : int
        The chunk's first record in the file (0-based).

    Returns
    -------
    tuple
        The released chunk and ``{key: changed}``, a boolean per record.

    Examples
    --------
    >>> frame = pd.DataFrame({"sex": ["f", "m", None, "f"]})
    >>> keys = [("sex", pd.Index(["f", "m"], dtype=object), np.array(["f", "m"], dtype=object), np.array([0.7, 0.3]))]
    >>> whole, _ = pram_frame_chunk(keys, 0.5, 3, 4, frame, 0)
    >>> half, _ = pram_frame_chunk(keys, 0.5, 3, 4, frame.iloc[2:], 2)
    >>> whole["sex"].iloc[2:].tolist() == half["sex"].tolist(), pd.isna(whole["sex"].iloc[2])
    (True, True)
    """
    frame = chunk.copy()
    changed = {}
    for j, (name, categories, values, shares) in enumerate(keys):
        codes = categories.get_indexer(frame[name].astype(object))
        known = codes >= 0
        released = pram_chunk(codes, shares, theta, seed, j * n + start)
        changed[name] = released != codes
        out = np.full(len(frame), np.nan, dtype=object)
        out[known] = values[released[known]]
        frame[name] = out
    return frame, changed


@dataclass(frozen=True)
class PramResult:
    """A file after PRAM: the released data and each variable's transition matrix.

    Attributes
    ----------
    data : DataFrame
    keys : tuple of str
    theta : float
    matrices : dict
        ``{variable: (categories, counts)}``: the categories and their counts
        in the data, which define the variable's matrix
        ``theta I + (1 - theta) 1 pi^T`` (:meth:`matrix`).
    changed : ndarray of bool, shape (n, len(keys))
        Which values were changed.
    """

    data: pd.DataFrame = field(repr=False)
    keys: tuple[str, ...]
    theta: float
    matrices: dict = field(repr=False)
    changed: np.ndarray = field(repr=False)

    def matrix(self, variable: str) -> np.ndarray:
        """The transition matrix of ``variable`` (refused over :data:`MAX_DENSE_PRAM_CATEGORIES` categories).

        Parameters
        ----------
        variable : str
            One of :attr:`keys`.

        Returns
        -------
        ndarray, shape (c, c)
        """
        if variable not in self.matrices:
            raise InputError(f"{variable!r} is not a PRAM'd key with known values; the keys are {list(self.matrices)}")
        return pram_matrix(self.matrices[variable][1], self.theta)

    def to_dict(self) -> dict[str, Any]:
        """Each variable's categories, counts and matrix, and the share of values changed (no data values).

        The matrix is listed up to :data:`MAX_LISTED_PRAM_CATEGORIES` categories and is ``None`` beyond; it is
        always ``theta I + (1 - theta) 1 pi^T`` with ``pi`` the counts' shares.
        """
        return {"keys": list(self.keys), "theta": self.theta,
                "changed_share": {k: float(v) for k, v in zip(self.keys, self.changed.mean(axis=0), strict=True)},
                "matrices": {k: {"categories": [str(c) for c in cats], "counts": [int(c) for c in counts],
                                 "matrix": (self.matrix(k).tolist() if len(cats) <= MAX_LISTED_PRAM_CATEGORIES
                                            else None)}
                             for k, (cats, counts) in self.matrices.items()}}


@validate_params({"theta": "theta", "seed": SEED,
                  "source": InstanceOf(str, "a name for messages")},
                 example=lambda: {**_example(), "theta": 0.8, "seed": 1})
def pram(data: Any, keys: Sequence[str | int], theta: float, seed: int | np.random.Generator | None = None,
         source: str = "the data") -> PramResult:
    """Invariant PRAM on each key variable with retention probability ``theta`` (see :func:`pram_matrix`).

    Parameters
    ----------
    data : DataFrame or array_like
    keys : sequence of str or int
    theta : float
        Probability that a value is kept.
    seed : int or numpy.random.Generator, optional
        Randomness (the same seed gives the same file).
    source : str

    Returns
    -------
    PramResult

    References
    ----------
    Gouweleeuw, Kooiman, Willenborg & de Wolf (1998), Post randomisation for
    statistical disclosure control; seed 004 (Mas), "PRAM".

    Examples
    --------
    >>> import pandas as pd
    >>> frame = pd.DataFrame({"sex": ["f", "m"] * 50})
    >>> released = pram(frame, ["sex"], theta=1.0, seed=3).data
    >>> released["sex"].tolist() == frame["sex"].tolist()
    True
    """
    frame = as_frame(data, source)
    names = select_columns(frame, keys, source, what="key")
    # an integer seed's stream is read at each record's place, as in a file's chunks; otherwise in turn
    stream = np.random.default_rng(seed) if seed is None or isinstance(seed, np.random.Generator) else int(seed)
    matrices, drawn = {}, []  # the keys with a known value, each drawing n numbers
    for name in names:
        codes, categories = pd.factorize(frame[name], use_na_sentinel=True)
        known = codes >= 0
        if not known.any():
            continue
        counts = np.bincount(codes[known], minlength=len(categories))
        drawn.append((name, pd.Index(categories, dtype=object), np.asarray(categories, dtype=object),
                      pram_shares(counts)))
        matrices[name] = (list(categories), counts)
    released: list[pd.DataFrame] = []  # the frame is the runner's one chunk
    changes: dict[str, np.ndarray] = {}
    run_chunks(frame, partial(pram_frame_chunk, drawn, float(theta), stream, frame.shape[0]), sink=released.append,
               gather=changes.update)
    changed = np.zeros((frame.shape[0], len(names)), dtype=bool)
    for j, name in enumerate(names):
        if name in changes:
            changed[:, j] = changes[name]
    return PramResult(data=released[0], keys=tuple(names), theta=float(theta), matrices=matrices, changed=changed)
