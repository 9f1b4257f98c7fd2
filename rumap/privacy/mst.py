"""MST: differentially private synthetic microdata of categorical columns (McKenna, Miklau & Sheldon 2021).

The privacy budget, zero-concentrated DP's rho (from the (epsilon, delta)
asked for, by OpenDP's conversion), is spent in thirds:

1. every column's counts (1-way marginals), with Gaussian noise (one record
   changes d counts by 1: L2 sensitivity sqrt(d));
2. a maximum spanning tree over the columns, chosen in d - 1 rounds of
   Kruskal's algorithm, each edge by the exponential mechanism (report noisy
   max with Gumbel noise) on the L1 distance between a pair's true counts and
   what the noisy 1-way counts predict for it under independence (sensitivity 1);
3. the counts of the tree's d - 1 pairs (2-way marginals), with Gaussian noise
   (L2 sensitivity sqrt(d - 1)).

Each measurement's rho is OpenDP's map of the measurement it is
(``make_gaussian``; ``make_noisy_max`` into zCDP, which states the exponential
mechanism's bounded range, epsilon^2 / 8); their sum, by zCDP's composition,
is stated as (epsilon, delta) by OpenDP's ``make_zCDP_to_approxDP``. The noise
is drawn from ``numpy.random.default_rng(seed)`` at those scales.

Records are then sampled from the tree: the root column from its noisy counts
(negative counts set to 0), each other column given its parent from the noisy
counts of their pair (its own noisy counts where the parent's value has none).
This is the tree's own sampler, not Private-PGM's estimation: the noisy
marginals are used as they are, not first made consistent with each other.
The columns' categories are taken as public (as the codes of a DP table).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from rumap._validation import SEED, Labels, Table, assumes_valid, validate_params
from rumap.errors import InputError
from rumap.privacy.accounting import DEFAULT_DELTA, _approx, _opendp, calibrate

__all__ = ["MSTModel", "MSTSynthesis", "mst_fit", "mst_privacy", "mst_synthesize"]


@dataclass(frozen=True)
class MSTSynthesis:
    """Synthetic records of MST and the privacy of their release.

    Parameters
    ----------
    synthetic : pandas.DataFrame
        The synthetic records (the columns, their categories as text).
    edges : tuple of (str, str)
        The spanning tree's pairs (parent, child) in the order sampled.
    rho : float
        The sum of the measurements' rho (OpenDP's maps).
    epsilon, delta : float
        rho stated as (epsilon, delta) by OpenDP.
    parts : mapping
        rho of the 1-way counts, of the tree's selection and of the 2-way counts.
    seed : int or None
    """

    synthetic: pd.DataFrame
    edges: tuple[tuple[str, str], ...]
    rho: float
    epsilon: float
    delta: float
    parts: dict[str, float] = field(default_factory=dict)
    seed: int | None = None

    def to_dict(self) -> dict[str, Any]:
        """``{"records", "columns", "edges", "privacy": {"rho", "epsilon", "delta", "parts", "accounting"}, "seed"}``."""
        return {"records": int(self.synthetic.shape[0]), "columns": [str(c) for c in self.synthetic.columns],
                "edges": [list(e) for e in self.edges], "seed": self.seed,
                "privacy": {"rho": self.rho, "epsilon": self.epsilon, "delta": self.delta, "parts": dict(self.parts),
                            "accounting": "opendp"}}


def _gaussian_rho(dp: Any, scale: float, sensitivity: float) -> float:
    atom = dp.vector_domain(dp.atom_domain(T=float, nan=False))
    return float(dp.m.make_gaussian(atom, dp.l2_distance(T=float), scale=float(scale)).map(float(sensitivity)))


def _noisy_max_rho(dp: Any, scale: float) -> float:
    atom = dp.vector_domain(dp.atom_domain(T=float, nan=False))
    measurement = dp.m.make_noisy_max(atom, dp.linf_distance(T=float), dp.zero_concentrated_divergence(),
                                      scale=float(scale))
    return float(measurement.map(1.0))


@functools.lru_cache(maxsize=64)
def _rho(epsilon: float, delta: float) -> float:
    """The zCDP rho that OpenDP states as (epsilon, delta) (its binary search, once per pair)."""
    return float(calibrate("gaussian", 1.0, epsilon=epsilon, delta=delta).rho)  # type: ignore[arg-type]


@validate_params({"epsilon": "privacy_loss", "delta": [None, "risk_bound"]}, example=lambda: {"epsilon": 1.0})
def mst_privacy(epsilon: float, delta: float | None = None) -> dict[str, float]:
    """What MST's release at (epsilon, delta) promises: ``{"epsilon", "delta", "rho"}`` (OpenDP's accounting).

    Parameters
    ----------
    epsilon : float
    delta : float, optional
        Default :data:`rumap.privacy.accounting.DEFAULT_DELTA`.

    Returns
    -------
    dict
        As :meth:`rumap.privacy.accounting.PrivacyLoss.to_dict` states a loss (its rho, the zCDP its measurements
        spend).

    Examples
    --------
    >>> out = mst_privacy(1.0)
    >>> out["epsilon"], out["delta"], round(out["rho"], 4)
    (1.0, 1e-06, 0.0244)
    """
    delta = DEFAULT_DELTA if delta is None else float(delta)
    return {"epsilon": float(epsilon), "delta": delta, "rho": _rho(float(epsilon), delta)}


def _distribution(counts: np.ndarray) -> np.ndarray:
    clipped = np.maximum(counts, 0.0)
    total = clipped.sum()
    return clipped / total if total > 0 else np.full(counts.shape, 1.0 / counts.size)


def _find(parent: list[int], i: int) -> int:
    while parent[i] != i:
        parent[i] = parent[parent[i]]
        i = parent[i]
    return i


@dataclass(frozen=True)
class MSTModel:
    """MST's noisy measurements of a frame's columns, from which :meth:`draw` samples records (module notes).

    Parameters
    ----------
    columns : tuple
        The columns measured, as the frame names them.
    categories : tuple of ndarray
        Each column's categories as text (a missing value is ``"<missing>"``).
    firsts : tuple of ndarray
        The row of each category's first record (its value as the frame holds it).
    frame : DataFrame
        The columns measured (their values and types, for :meth:`draw`).
    marginals : tuple of ndarray
        Each column's noisy counts as probabilities.
    two_way : dict
        The tree's noisy 2-way counts by pair of column indices, both ways.
    order : tuple of (int, int)
        The tree's pairs (parent, child), breadth first from the first column.
    total : float
        The noisy number of records.
    rho, epsilon, delta : float
        The privacy of the measurements (OpenDP's maps), as :class:`MSTSynthesis` states it.
    parts : dict
        rho of the 1-way counts, of the tree's selection and of the 2-way counts.
    """

    columns: tuple
    categories: tuple = field(repr=False)
    firsts: tuple = field(repr=False)
    frame: pd.DataFrame = field(repr=False)
    marginals: tuple = field(repr=False)
    two_way: dict = field(repr=False)
    order: tuple[tuple[int, int], ...]
    total: float
    rho: float
    epsilon: float
    delta: float
    parts: dict = field(default_factory=dict)

    def sample(self, rows: int, rng: np.random.Generator) -> np.ndarray:
        """Category codes of ``rows`` records: the root's counts, then each child given its parent, breadth first."""
        sampled = np.full((rows, len(self.columns)), -1, dtype=np.int64)
        sampled[:, 0] = rng.choice(len(self.categories[0]), rows, p=self.marginals[0])
        for a, b in self.order:
            table = self.two_way[(a, b)]
            for value in np.unique(sampled[:, a]):
                chosen = np.nonzero(sampled[:, a] == value)[0]
                weights = np.maximum(table[value], 0.0)
                p = weights / weights.sum() if weights.sum() > 0 else self.marginals[b]
                sampled[chosen, b] = rng.choice(len(self.categories[b]), chosen.size, p=p)
        return sampled

    def draw(self, rows: int, rng: np.random.Generator) -> pd.DataFrame:
        """``rows`` synthetic records, each value as the frame holds it (a synthetic generator's draw).

        Parameters
        ----------
        rows : int
        rng : numpy.random.Generator

        Returns
        -------
        DataFrame
        """
        codes = self.sample(rows, rng)
        return pd.DataFrame({name: self.frame[name].iloc[self.firsts[k][codes[:, k]]].reset_index(drop=True)
                             for k, name in enumerate(self.columns)})


@assumes_valid
def mst_fit(frame: pd.DataFrame, columns: Sequence[Any], epsilon: float, delta: float,
            rng: np.random.Generator) -> MSTModel:
    """MST's measurements of ``columns`` at (epsilon, delta) (checked input: the caller validates).

    With one column the whole budget measures its counts (no tree); with two or more it is spent in thirds.

    Parameters
    ----------
    frame : pandas.DataFrame
    columns : sequence
        One or more columns of ``frame``, each value a category.
    epsilon, delta : float
    rng : numpy.random.Generator
        Draws the noise and the selection.

    Returns
    -------
    MSTModel
    """
    names = list(columns)
    dp = _opendp()
    d = len(names)
    budget = _rho(float(epsilon), delta) / (3.0 if d > 1 else 1.0)
    categories, codes, firsts = [], [], []
    for name in names:
        values = frame[name].astype("string").fillna("<missing>").to_numpy(dtype=object)
        uniques, first, inverse = np.unique(values, return_index=True, return_inverse=True)
        categories.append(uniques)
        codes.append(inverse)
        firsts.append(first)
    # 1. the 1-way counts
    scale1 = math.sqrt(d / (2.0 * budget))
    one_way = [np.bincount(c, minlength=len(k)) + rng.normal(0.0, scale1, len(k)) for c, k in zip(codes, categories,
                                                                                                  strict=True)]
    total = max(float(np.mean([w.sum() for w in one_way])), 1.0)
    marginals = [_distribution(w) for w in one_way]
    parts = {"one_way": _gaussian_rho(dp, scale1, math.sqrt(d)), "selection": 0.0, "two_way": 0.0}
    chosen: list[tuple[int, int]] = []
    two_way = {}
    if d > 1:
        # 2. the tree, edge by edge, by report noisy max (Gumbel) on the L1 distances from independence
        gumbel = math.sqrt(1.0 / (2.0 * budget / (d - 1)))
        parent = list(range(d))
        pairs = [(i, j) for i in range(d) for j in range(i + 1, d)]
        distance = {}
        for i, j in pairs:
            true = np.zeros((len(categories[i]), len(categories[j])))
            np.add.at(true, (codes[i], codes[j]), 1.0)
            distance[(i, j)] = float(np.abs(true - total * np.outer(marginals[i], marginals[j])).sum())
        for _ in range(d - 1):
            candidates = [(i, j) for i, j in pairs if _find(parent, i) != _find(parent, j)]
            scores = np.array([distance[p] for p in candidates]) + rng.gumbel(0.0, gumbel, len(candidates))
            i, j = candidates[int(np.argmax(scores))]
            parent[_find(parent, i)] = _find(parent, j)
            chosen.append((i, j))
        # 3. the tree's 2-way counts
        scale2 = math.sqrt((d - 1) / (2.0 * budget))
        for i, j in chosen:
            counts = np.zeros((len(categories[i]), len(categories[j])))
            np.add.at(counts, (codes[i], codes[j]), 1.0)
            two_way[(i, j)] = counts + rng.normal(0.0, scale2, counts.shape)
            two_way[(j, i)] = two_way[(i, j)].T
        parts.update(selection=(d - 1) * _noisy_max_rho(dp, gumbel),
                     two_way=_gaussian_rho(dp, scale2, math.sqrt(d - 1)))
    rho = float(sum(parts.values()))
    gaussian = dp.m.make_gaussian(dp.vector_domain(dp.atom_domain(T=float, nan=False)), dp.l2_distance(T=float),
                                  scale=1.0)  # rho = d_in^2 / 2: OpenDP's conversion of the total rho
    stated_epsilon = float(_approx(dp, gaussian, delta).map(math.sqrt(2.0 * rho))[0])
    order: list[tuple[int, int]] = []  # the tree breadth first from the first column: the sampling's order
    done, queue = {0}, [0]
    while queue:
        a = queue.pop(0)
        for i, j in chosen:
            b = j if i == a else i if j == a else None
            if b is None or b in done:
                continue
            order.append((a, b))
            done.add(b)
            queue.append(b)
    return MSTModel(tuple(names), tuple(categories), tuple(firsts), frame[names], tuple(marginals), two_way,
                    tuple(order), total, rho, stated_epsilon, delta, parts)


def _example() -> dict[str, Any]:
    frame = pd.DataFrame({"a": list("xxyyxy") * 5, "b": list("ppqqpq") * 5, "c": list("uvuvuv") * 5})
    return {"frame": frame, "columns": ["a", "b", "c"], "epsilon": 1.0}


@validate_params({"frame": Table(), "columns": Labels("a list of column names"), "epsilon": "privacy_loss",
                  "delta": [None, "risk_bound"], "seed": SEED, "records": [None, "records"]},
                 example=_example)
def mst_synthesize(frame: pd.DataFrame, columns: Sequence[str], epsilon: float, delta: float | None = None,
                   seed: int | np.random.Generator | None = 0, records: int | None = None) -> MSTSynthesis:
    """Synthetic records of categorical columns by MST at (epsilon, delta) (module notes).

    Parameters
    ----------
    frame : pandas.DataFrame
        The original records.
    columns : sequence of str
        Two or more categorical columns (values read as text; missing values are a category).
    epsilon : float
        The privacy loss of the release, with ``delta``.
    delta : float, optional
        Default :data:`rumap.privacy.accounting.DEFAULT_DELTA`.
    seed : int or numpy.random.Generator, optional
        Seeds the noise, the selection and the sampling (default 0).
    records : int, optional
        How many records to sample (default: the noisy number of records).

    Returns
    -------
    MSTSynthesis

    Examples
    --------
    >>> import pandas as pd
    >>> frame = pd.DataFrame({"a": list("xxyyxy") * 50, "b": list("ppqqpq") * 50, "c": list("uvuvuv") * 50})
    >>> out = mst_synthesize(frame, ["a", "b", "c"], epsilon=5.0, seed=1)
    >>> sorted(out.synthetic.columns), round(out.epsilon, 6), ("a", "b") in out.edges or ("b", "a") in out.edges
    (['a', 'b', 'c'], 5.0, True)
    """
    names = [str(c) for c in columns]
    if len(names) < 2 or len(set(names)) < len(names):
        raise InputError(f"columns: MST needs two or more different columns, got {', '.join(names) or 'none'}")
    missing = [c for c in names if c not in frame.columns]
    if missing:
        raise InputError(f"columns: no column {missing[0]!r}; columns are {', '.join(map(str, frame.columns))}")
    delta = DEFAULT_DELTA if delta is None else float(delta)
    rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
    model = mst_fit(frame, names, float(epsilon), delta, rng)
    n = int(records) if records is not None else max(int(round(model.total)), 1)
    codes = model.sample(n, rng)
    synthetic = pd.DataFrame({name: model.categories[k][codes[:, k]] for k, name in enumerate(names)})
    edges = tuple((names[a], names[b]) for a, b in model.order)
    return MSTSynthesis(synthetic, edges, model.rho, model.epsilon, delta, dict(model.parts),
                        seed if isinstance(seed, int) else None)
