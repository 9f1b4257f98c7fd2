"""Confidentiality via camouflage (CVC): answers with a guarantee from k vectors hiding the confidential field.

The confidential vector a = P^k hides in the convex hull of k vectors
P^1 .. P^k whose per-record minimum and maximum reach each record's protection
bounds, p_i^- <= l_i and p_i^+ >= u_i (Eq 1-2). A query f over records T is
answered with [r^l, r^u] = [min f(x), max f(x)] over x in conv(P) (Eq 3-4),
given as a point answer r = (r^l + r^u) / 2 and a guarantee g = (r^u - r^l) / 2:
the exact answer f(a) lies in [r - g, r + g] because a is in conv(P), and no
answer can tell a user that a_i lies inside (l_i, u_i) because conv(P) reaches
both bounds of every record (seed 004, Mas, "Confidentiality Via
Camouflage", after Gopal & Goes 1998).

SUM and MEAN are linear: their extremes are at the vertices P^j (closed form).
MIN is concave, so its minimum is at a vertex and its maximum is an LP over the
simplex weights; MAX the other way round. COUNT with a condition is answered
with the outer bounds [r^-, r^+] the seed allows: records whose whole range
[p_i^-, p_i^+] meets the condition, and records whose range can.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
from scipy.optimize import linprog

from rumap._validation import PARAMETERS, SEED, InstanceOf, NumberArray, assumes_valid, check_magnitude, validate_params
from rumap.budget import DEFAULT_BUDGET, WorkBudget
from rumap.databases.queries import CONDITIONS, Query, parse_queries
from rumap.errors import InputError
from rumap.result import json_safe
from rumap.tables.rules import freeze_array_fields

__all__ = ["CamouflageVectors", "CamouflageAnswers", "camouflage_vectors", "answer_queries", "simplex_extreme",
           "exact_answer", "ANSWERS", "CamouflageRelease", "answer_with_camouflage"]

VALUES = NumberArray(PARAMETERS["value"], ndim=(1,))


@dataclass(frozen=True)
class CamouflageVectors:
    """The k vectors P^1 .. P^k hiding a confidential field (P^k = the data).

    Parameters
    ----------
    vectors : ndarray, shape (k, n)
        Row j is P^(j+1); the last row is the confidential vector a.
    lower, upper : ndarray, shape (n,)
        The protection bounds l_i and u_i.
    protection : float
        The protection width, percent of each value: l_i = a_i - w |a_i|,
        u_i = a_i + w |a_i| with w = protection / 100.
    seed : int or None
        The seed the vectors were drawn with.
    """

    vectors: np.ndarray
    lower: np.ndarray
    upper: np.ndarray
    protection: float
    seed: int | None = None

    def __post_init__(self) -> None:
        freeze_array_fields(self)

    @property
    def k(self) -> int:
        """The number of vectors."""
        return int(self.vectors.shape[0])

    @property
    def values(self) -> np.ndarray:
        """The confidential vector a = P^k."""
        return self.vectors[-1]

    @property
    def low(self) -> np.ndarray:
        """p_i^- = min_j p_i^j, at most l_i (Eq 1)."""
        return self.vectors.min(axis=0)

    @property
    def high(self) -> np.ndarray:
        """p_i^+ = max_j p_i^j, at least u_i (Eq 2)."""
        return self.vectors.max(axis=0)

    def to_frame(self) -> pd.DataFrame:
        """One row per record: ``record`` (from 1), ``value``, ``P1`` .. ``Pk``, ``l``, ``u``, ``p_min``, ``p_max``."""
        frame = pd.DataFrame({"record": np.arange(1, self.vectors.shape[1] + 1), "value": self.values})
        for j in range(self.k):
            frame[f"P{j + 1}"] = self.vectors[j]
        frame["l"], frame["u"], frame["p_min"], frame["p_max"] = self.lower, self.upper, self.low, self.high
        return frame

    def to_dict(self) -> dict[str, Any]:
        """``{"k", "protection", "seed", "records": [...]}`` (the rows of :meth:`to_frame`)."""
        return json_safe({"k": self.k, "protection": self.protection, "seed": self.seed,
                          "records": self.to_frame().to_dict(orient="records")})


@dataclass(frozen=True)
class CamouflageAnswers:
    """Answers to queries as a point answer and a guarantee: the exact answer lies in [r - g, r + g].

    Parameters
    ----------
    queries : tuple of str
        The queries, in their text form.
    low, high : ndarray, shape (q,)
        r^- and r^+, the ends of each answer interval.
    exact : ndarray, shape (q,)
        f(a), the exact answer on the confidential data (known to the data
        manager only).
    methods : tuple of str
        How each interval was computed: ``"vertices"`` (closed form),
        ``"lp"`` or ``"outer bounds"``.
    config : mapping
        The protection width, k and seed of the vectors.
    """

    queries: tuple[str, ...]
    low: np.ndarray
    high: np.ndarray
    exact: np.ndarray
    methods: tuple[str, ...]
    config: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        freeze_array_fields(self)
        object.__setattr__(self, "config", dict(self.config))

    @property
    def answer(self) -> np.ndarray:
        """The point answers r = (r^- + r^+) / 2."""
        return (self.low + self.high) / 2.0

    @property
    def guarantee(self) -> np.ndarray:
        """The guarantees g = (r^+ - r^-) / 2."""
        return (self.high - self.low) / 2.0

    def to_frame(self) -> pd.DataFrame:
        """One row per query: ``query``, ``answer``, ``guarantee``, ``low``, ``high``, ``exact``, ``method``."""
        return pd.DataFrame({"query": list(self.queries), "answer": self.answer, "guarantee": self.guarantee,
                             "low": self.low, "high": self.high, "exact": self.exact, "method": list(self.methods)})

    def to_dict(self) -> dict[str, Any]:
        """``{"answers": [rows of to_frame], "config": {...}}``."""
        return json_safe({"answers": self.to_frame().to_dict(orient="records"), "config": dict(self.config)})


def _example_values() -> np.ndarray:
    """The SALARY field of the seed's EMP database (9 employees)."""
    return np.array([85.0, 3, 2, 4, 3, 3, 4, 3, 3])


@validate_params({"values": VALUES, "protection": "camouflage_width", "k": "camouflage_k", "seed": SEED},
                 example=lambda: {"values": _example_values(), "protection": 10.0, "k": 3, "seed": 1})
def camouflage_vectors(values: Any, protection: float = 10.0, k: int = 3, seed: Any = None) -> CamouflageVectors:
    """Build k camouflage vectors whose per-record minima and maxima reach the protection bounds (Eq 1-2).

    Parameters
    ----------
    values : array_like, shape (n,)
        The confidential field a.
    protection : float, default 10
        The protection width w, percent of each value: l_i = a_i - w |a_i| and
        u_i = a_i + w |a_i|.
    k : int, default 3
        The number of vectors, P^k = a (the seed expects 3 <= k <= 6; two
        cannot reach both bounds with a in between).
    seed : int or numpy.random.Generator, optional
        Randomness: which of P^1 .. P^(k-1) holds each record's lower and
        upper bound, and the values of the others, uniform in [l_i, u_i].

    Returns
    -------
    CamouflageVectors

    Notes
    -----
    For each record i two distinct vectors among P^1 .. P^(k-1), drawn at
    random, take l_i and u_i, so that p_i^- = l_i and p_i^+ = u_i; drawing them
    record by record mixes low and high values within every vector, which
    keeps the guarantees of sums over many records narrow (their errors
    cancel) while every record keeps its full protection.

    References
    ----------
    Seed 004 (Mas, EUSTAT), "Confidentiality Via Camouflage", Eq (1)-(2);
    Gopal & Goes (1998), the CVC approach to database query management.

    Examples
    --------
    >>> cvc = camouflage_vectors([85.0, 3, 2, 4], protection=10, k=3, seed=1)
    >>> cvc.low.tolist(), cvc.high.tolist()
    ([76.5, 2.7, 1.8, 3.6], [93.5, 3.3, 2.2, 4.4])
    >>> cvc.values.tolist()
    [85.0, 3.0, 2.0, 4.0]
    """
    rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
    a = np.asarray(values, dtype=float)
    check_magnitude(a, "values")
    width = protection / 100.0 * np.abs(a)
    lower, upper = a - width, a + width
    n = a.size
    others = lower + rng.random((k - 1, n)) * (upper - lower)
    order = np.argsort(rng.random((k - 1, n)), axis=0)  # a random permutation of the k-1 vectors per record
    columns = np.arange(n)
    others[order[0], columns] = lower
    others[order[1], columns] = upper
    return CamouflageVectors(np.vstack([others, a]), lower, upper, float(protection),
                             seed if isinstance(seed, int) else None)


@assumes_valid
def simplex_extreme(points: np.ndarray, maximize: bool) -> float:
    """Max (or min) over simplex weights lambda of min_i (or max_i) of (lambda @ points)[i]: one LP.

    Parameters
    ----------
    points : ndarray, shape (k, m)
        Column i holds the k vectors' values of record i of the query set.
    maximize : bool
        True: max over lambda of min_i (the upper end of a MIN query, Eq 4);
        False: min over lambda of max_i (the lower end of a MAX query, Eq 3).

    Returns
    -------
    float

    Examples
    --------
    >>> simplex_extreme(np.array([[0.0, 4.0], [4.0, 0.0]]), maximize=True)  # the midpoint (2, 2)
    2.0
    """
    k, m = points.shape
    sign = 1.0 if maximize else -1.0
    # variables (lambda_1..lambda_k, t); maximize sign * t subject to sign * (t - lambda @ points_i) <= 0
    objective = np.zeros(k + 1)
    objective[-1] = -sign
    a_ub = np.hstack([-sign * points.T, sign * np.ones((m, 1))])
    a_eq = np.hstack([np.ones((1, k)), np.zeros((1, 1))])
    bounds = [(0.0, None)] * k + [(None, None)]
    result = linprog(objective, A_ub=a_ub, b_ub=np.zeros(m), A_eq=a_eq, b_eq=[1.0], bounds=bounds, method="highs")
    if result.status != 0:
        raise InputError(f"the linear program failed: {result.message}")
    return float(result.x[-1])


def _linear(points: np.ndarray, scale: float) -> tuple[float, float, str]:
    sums = points.sum(axis=1) / scale
    return float(sums.min()), float(sums.max()), "vertices"


def _answer_sum(points: np.ndarray, query: Query) -> tuple[float, float, str]:
    return _linear(points, 1.0)


def _answer_mean(points: np.ndarray, query: Query) -> tuple[float, float, str]:
    return _linear(points, float(points.shape[1]))


def _answer_min(points: np.ndarray, query: Query) -> tuple[float, float, str]:
    # the LP optimum lies between the best vertex and min_i p_i^+; clipping keeps the LP's rounding from
    # cutting off a vertex (the exact answer is one, P^k)
    best_vertex, outer = float(points.min(axis=1).max()), float(points.max(axis=0).min())
    return float(points.min()), float(np.clip(simplex_extreme(points, maximize=True), best_vertex, outer)), "lp"


def _answer_max(points: np.ndarray, query: Query) -> tuple[float, float, str]:
    best_vertex, outer = float(points.max(axis=1).min()), float(points.min(axis=0).max())
    return float(np.clip(simplex_extreme(points, maximize=False), outer, best_vertex)), float(points.max()), "lp"


def _answer_count(points: np.ndarray, query: Query) -> tuple[float, float, str]:
    if query.operator is None:
        return float(points.shape[1]), float(points.shape[1]), "vertices"
    test = CONDITIONS[query.operator]
    low, high = points.min(axis=0), points.max(axis=0)
    # a record's range [p_i^-, p_i^+] is an interval; the test holds on all of it when it holds at both ends
    surely = test(low, query.threshold) & test(high, query.threshold)
    possibly = surely | test(low, query.threshold) | test(high, query.threshold)
    return float(surely.sum()), float(possibly.sum()), "outer bounds"


#: Query kind -> (points of the query set (k, |T|), query) -> (r^-, r^+, method).
ANSWERS: dict[str, Callable[[np.ndarray, Query], tuple[float, float, str]]] = {
    "SUM": _answer_sum, "MEAN": _answer_mean, "MIN": _answer_min, "MAX": _answer_max, "COUNT": _answer_count,
}


@assumes_valid
def exact_answer(values: np.ndarray, query: Query) -> float:
    """f(a): the exact answer of a query on the confidential values.

    Parameters
    ----------
    values : ndarray, shape (n,)
    query : Query

    Returns
    -------
    float

    Examples
    --------
    >>> from rumap.databases.queries import parse_query
    >>> exact_answer(np.array([1.0, 5.0, 7.0]), parse_query("COUNT>4:*", 3))
    2.0
    """
    chosen = values[query.index]
    if query.kind == "COUNT":
        if query.operator is None:
            return float(chosen.size)
        return float(CONDITIONS[query.operator](chosen, query.threshold).sum())
    return float({"SUM": np.sum, "MEAN": np.mean, "MIN": np.min, "MAX": np.max}[query.kind](chosen))


@validate_params({"vectors": InstanceOf(CamouflageVectors, "CamouflageVectors (see camouflage_vectors)"),
                  "budget": InstanceOf(WorkBudget)},
                 example=lambda: {"vectors": camouflage_vectors(_example_values(), seed=1),
                                  "queries": ["SUM:1-3", "MEAN:4-6", "MIN:1-9", "MAX:2-9", "COUNT>3:1-9"]})
def answer_queries(vectors: CamouflageVectors, queries: Sequence[str | Query],
                   budget: WorkBudget = DEFAULT_BUDGET) -> CamouflageAnswers:
    """Answer queries from the camouflage vectors: [r^-, r^+] over conv(P) (Eq 3-4).

    Parameters
    ----------
    vectors : CamouflageVectors
        From :func:`camouflage_vectors`.
    queries : sequence of str or Query
        ``SUM:1,2,3``, ``MEAN:4-9``, ``MIN:*``, ``MAX:1-5``, ``COUNT>=100:*``
        (see :func:`rumap.databases.queries.parse_query`).
    budget : WorkBudget
        Queries x records x k, checked first.

    Returns
    -------
    CamouflageAnswers
        For each query r, g with the exact answer in [r - g, r + g].

    References
    ----------
    Seed 004 (Mas, EUSTAT), "Confidentiality Via Camouflage", Eq (3)-(4).

    Examples
    --------
    >>> cvc = camouflage_vectors([85.0, 3, 2, 4, 3, 3, 4, 3, 3], protection=10, seed=1)
    >>> answers = answer_queries(cvc, ["SUM:*", "MAX:*"])
    >>> bool(((answers.low <= answers.exact) & (answers.exact <= answers.high)).all())
    True
    >>> float(answers.high[1])  # MAX reaches u_1 = 85 + 8.5
    93.5
    """
    parsed = parse_queries(queries, vectors.vectors.shape[1])
    work = float(sum(len(q.records) for q in parsed)) * vectors.k
    budget.check_work(work * (1 + 10 * any(q.kind in ("MIN", "MAX") for q in parsed)),
                      f"{len(parsed)} queries x records x {vectors.k} vectors")
    rows = [ANSWERS[q.kind](vectors.vectors[:, q.index], q) for q in parsed]
    return CamouflageAnswers(tuple(q.text for q in parsed), np.array([r[0] for r in rows]),
                             np.array([r[1] for r in rows]),
                             np.array([exact_answer(vectors.values, q) for q in parsed]), tuple(r[2] for r in rows),
                             config={"protection": vectors.protection, "k": vectors.k, "seed": vectors.seed})


@dataclass(frozen=True)
class CamouflageRelease:
    """Queries answered through camouflage: the vectors built and the answers they give.

    Parameters
    ----------
    vectors : CamouflageVectors
    answers : CamouflageAnswers
    """

    vectors: CamouflageVectors
    answers: CamouflageAnswers

    def to_frame(self) -> pd.DataFrame:
        """The answers, one row per query (:meth:`CamouflageAnswers.to_frame`)."""
        return self.answers.to_frame()

    def to_dict(self) -> dict[str, Any]:
        """The answers' object with the vectors under ``vectors``."""
        return {**self.answers.to_dict(), "vectors": self.vectors.to_dict()}


@validate_params({"values": VALUES, "protection": "camouflage_width", "k": "camouflage_k", "seed": SEED,
                  "budget": InstanceOf(WorkBudget)},
                 example=lambda: {"values": _example_values(), "queries": ["SUM:1-3", "MAX:*"], "protection": 10.0,
                                  "k": 3, "seed": 1})
def answer_with_camouflage(values: Any, queries: Sequence[str | Query], protection: float = 10.0, k: int = 3,
                           seed: Any = None, budget: WorkBudget = DEFAULT_BUDGET) -> CamouflageRelease:
    """Hide a confidential field in camouflage vectors and answer queries from them.

    :func:`camouflage_vectors` then :func:`answer_queries`.

    Parameters
    ----------
    values : array_like, shape (n,)
        The confidential field a.
    queries : sequence of str or Query
        ``SUM:1,2,3``, ``MEAN:4-9``, ``MIN:*``, ``MAX:1-5``, ``COUNT>=100:*``.
    protection : float, default 10
        The protection width w, percent of each value.
    k : int, default 3
        The number of vectors (P^k = a).
    seed : int or numpy.random.Generator, optional
        Randomness of the vectors.
    budget : WorkBudget
        Queries x records x k, checked first.

    Returns
    -------
    CamouflageRelease

    Examples
    --------
    >>> released = answer_with_camouflage([85.0, 3, 2, 4, 3, 3, 4, 3, 3], ["MAX:*"], protection=10, seed=1)
    >>> float(released.answers.high[0]), released.vectors.k
    (93.5, 3)
    """
    vectors = camouflage_vectors(values, protection=protection, k=k, seed=seed)
    return CamouflageRelease(vectors, answer_queries(vectors, queries, budget=budget))
