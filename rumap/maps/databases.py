"""R-U maps of database protections: camouflage over its width, query auditing over its protection level.

Both maps run a random workload of SUM queries (seeded) over a sample of the
records and measure, at each parameter value,

- R: how narrow an intruder can make any one record's interval from the
  answers it got: 1 / the smallest (max - min) / |a_i| over the records, with
  [min, max] the LP range of a_i under the answers
  (:mod:`rumap.databases.intervals`); 0 when no record is bounded;
- U: for camouflage, 1 / the mean relative guarantee width 2g / sum_T |a_i|
  of the answers (exact answers: U = inf); for auditing, the share of the
  queries answered.

Larger R is riskier and larger U more useful, as in every other map of the
package.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from rumap._validation import PARAMETERS, Grid, InstanceOf, NumberArray, assumes_valid, check_magnitude, validate_params
from rumap.budget import DEFAULT_BUDGET, WorkBudget
from rumap.databases.audit import audit_queries
from rumap.databases.camouflage import answer_queries, camouflage_vectors
from rumap.databases.intervals import implied_ranges
from rumap.databases.queries import Query
from rumap.errors import InputError
from rumap.result import RUMap

__all__ = ["camouflage_map", "audit_map", "random_workload", "narrowest_relative_width"]

VALUES = NumberArray(PARAMETERS["value"], ndim=(1,))


def _sample(values: np.ndarray, records: int, rng: np.random.Generator) -> np.ndarray:
    if values.size <= records:
        return values
    return values[np.sort(rng.choice(values.size, size=records, replace=False))]


@assumes_valid
def random_workload(n: int, queries: int, rng: np.random.Generator) -> list[Query]:
    """Random SUM queries over n records: each a uniform random set of 2 to max(2, n // 2) records.

    Parameters
    ----------
    n : int
        The number of records (at least 2).
    queries : int
        How many.
    rng : numpy.random.Generator

    Returns
    -------
    list of Query

    Examples
    --------
    >>> [q.text for q in random_workload(6, 2, np.random.default_rng(1))]
    ['SUM:3,5', 'SUM:1,5']
    """
    largest = max(2, n // 2)
    out = []
    for _ in range(queries):
        size = int(rng.integers(2, largest + 1))
        out.append(Query("SUM", tuple(sorted(int(i) + 1 for i in rng.choice(n, size=size, replace=False)))))
    return out


@assumes_valid
def narrowest_relative_width(values: np.ndarray, low: np.ndarray, high: np.ndarray) -> float:
    """The smallest (high - low) / |value| over records with a non-zero value (inf when none is bounded).

    Parameters
    ----------
    values, low, high : ndarray, shape (n,)

    Returns
    -------
    float

    Examples
    --------
    >>> narrowest_relative_width(np.array([10.0, 20.0]), np.array([5.0, 0.0]), np.array([15.0, np.inf]))
    1.0
    """
    nonzero = values != 0
    if not nonzero.any():
        return math.inf
    return float(((high - low)[nonzero] / np.abs(values[nonzero])).min())


def _checked_values(values: np.ndarray) -> np.ndarray:
    a = np.asarray(values, dtype=float)
    check_magnitude(a, "values")
    if a.size < 2:
        raise InputError(f"values: a workload needs at least 2 records, got {a.size}")
    if not np.abs(a).sum() > 0:
        raise InputError("values are all 0: relative widths need a non-zero value")
    return a


@validate_params({"values": VALUES, "protections": Grid("camouflage_width"), "k": "camouflage_k",
                  "queries": "workload_queries", "records": "workload_records", "seed": "seed",
                  "lower": [None, "known_bound"],
                  "budget": InstanceOf(WorkBudget)},
                 example=lambda: {"values": [85.0, 3, 2, 4, 3, 3, 4, 3, 3], "protections": [5.0, 20.0],
                                  "queries": 5})
def camouflage_map(values: Any, protections: Any, k: int = 3, queries: int = 20, records: int = 30, seed: int = 0,
                   lower: float | None = 0.0, budget: WorkBudget = DEFAULT_BUDGET) -> RUMap:
    """The R-U map of confidentiality via camouflage over its protection width.

    Parameters
    ----------
    values : array_like, shape (n,)
        The confidential field.
    protections : array_like
        Protection widths w, percent of each value, each in (0, 100].
    k : int, default 3
        Camouflage vectors.
    queries : int, default 20
        Random SUM queries in the workload (the same at every width).
    records : int, default 30
        Records sampled (seeded) when the data have more.
    seed : int, default 0
        Seeds the sample, the workload and the vectors.
    lower : float or None, default 0
        A bound the intruder knows every value keeps (values must keep it).
    budget : WorkBudget
        Widths x queries x records^2, checked first.

    Returns
    -------
    RUMap
        ``parameter = "protection"``; R = 1 / narrowest relative interval an
        intruder derives from the answers, U = 1 / mean relative guarantee
        width; both widths themselves in ``config``
        (``narrowest_relative_width``, ``mean_relative_guarantee_width``).

    Notes
    -----
    Eq 1-2 make every record's derived interval at least [l_i, u_i], so
    R <= 1 / (2 w / 100): the camouflage's guarantee, checked by the tests.

    Every width uses the same random draws: each vector's value is
    ``a_i + w |a_i| d_ij`` with the same ``d_ij``, so each answer's guarantee
    widens in proportion to w and holds the one of a smaller width. U then
    falls strictly and R never rises as w grows; with draws of their own the
    widths' points would scatter around these curves.

    References
    ----------
    Seed 004 (Mas, EUSTAT), "Confidentiality Via Camouflage" (Gopal & Goes).

    Examples
    --------
    >>> ru = camouflage_map([85.0, 3, 2, 4, 3, 3, 4, 3, 3], [10.0, 40.0], queries=10)
    >>> bool(ru.risk[0] <= 1 / 0.2 + 1e-6), bool(ru.utility[0] > ru.utility[1])
    (True, True)
    """
    a = _checked_values(values)
    rng = np.random.default_rng(seed)
    a = _sample(a, records, rng)
    n = a.size
    budget.check_work(float(len(protections)) * queries * n * n, f"{len(protections)} widths x {queries} queries x "
                      f"{n}^2 records")
    known = None if lower is None else np.full(n, float(lower))
    if known is not None and (a < known).any():
        raise InputError(f"values: {float(a.min()):g} lies below the known lower bound {lower:g}")
    workload = random_workload(n, queries, rng)
    scale = np.array([np.abs(a[q.index]).sum() for q in workload])
    risk, utility, widths, guarantees = [], [], [], []
    draws = int(rng.integers(2**63))  # one set of draws for every width (common random numbers)
    for w in protections:
        vectors = camouflage_vectors(a, protection=float(w), k=k, seed=np.random.default_rng(draws))
        answers = answer_queries(vectors, workload, budget=budget)
        relative = (answers.high - answers.low)[scale > 0] / scale[scale > 0]
        mean_width = float(relative.mean()) if relative.size else math.inf
        utility.append(1.0 / mean_width if mean_width > 0 else math.inf)
        low, high = implied_ranges(workload, answers.low, answers.high, n, lower=known)
        narrowest = narrowest_relative_width(a, low, high)
        risk.append(1.0 / narrowest if narrowest > 0 else math.inf)
        widths.append(narrowest)
        guarantees.append(mean_width)
    return RUMap(parameter="protection", values=np.asarray(protections, dtype=float), risk=np.array(risk),
                 utility=np.array(utility), risk_label="R = 1 / narrowest relative interval derived from the answers",
                 utility_label="U = 1 / mean relative guarantee width", method="camouflage",
                 config={"k": k, "queries": queries, "records": n, "seed": seed, "lower": lower,
                         "narrowest_relative_width": widths, "mean_relative_guarantee_width": guarantees})


@validate_params({"values": VALUES, "protections": Grid("audit_protection"), "queries": "workload_queries",
                  "records": "workload_records", "seed": "seed", "lower": [None, "known_bound"],
                  "budget": InstanceOf(WorkBudget)},
                 example=lambda: {"values": [85.0, 3, 2, 4, 3, 3, 4, 3, 3], "protections": [0.0, 20.0],
                                  "queries": 5})
def audit_map(values: Any, protections: Any, queries: int = 20, records: int = 30, seed: int = 0,
              lower: float | None = 0.0, budget: WorkBudget = DEFAULT_BUDGET) -> RUMap:
    """The R-U map of query auditing over its protection level.

    Parameters
    ----------
    values : array_like, shape (n,)
        The confidential field.
    protections : array_like
        Protection levels, percent of each value, each in [0, 100].
    queries : int, default 20
        Random SUM queries in the workload, audited in order at every level.
    records : int, default 30
        Records sampled (seeded) when the data have more.
    seed : int, default 0
        Seeds the sample and the workload.
    lower : float or None, default 0
        The bound every value is known to keep (values must keep it).
    budget : WorkBudget
        Levels x queries^2 x records^2, checked first.

    Returns
    -------
    RUMap
        ``parameter = "protection"``; R = 1 / narrowest relative interval
        derived from the answered queries (the width itself in ``config``,
        ``narrowest_relative_width``), U = share of the queries answered.

    References
    ----------
    Seed 004 (Mas, EUSTAT), "Audits for Databases" (Malvestuto & Moscarini).

    Examples
    --------
    >>> ru = audit_map([85.0, 3, 2, 4, 3, 3, 4, 3, 3], [0.0, 50.0], queries=8)
    >>> bool(ru.utility[0] >= ru.utility[1]), bool(ru.risk[1] <= 1 / 1.0 + 1e-6)
    (True, True)
    """
    a = _checked_values(values)
    rng = np.random.default_rng(seed)
    a = _sample(a, records, rng)
    n = a.size
    budget.check_work(float(len(protections)) * queries * queries * n * n,
                      f"{len(protections)} levels x {queries}^2 queries x {n}^2 records")
    workload = random_workload(n, queries, rng)
    risk, utility, widths = [], [], []
    for level in protections:
        log = audit_queries(a, workload, protection=float(level), lower=lower, explain=False, budget=budget)
        utility.append(log.share_answered)
        narrowest = narrowest_relative_width(a, log.low, log.high)
        risk.append(1.0 / narrowest if narrowest > 0 else math.inf)
        widths.append(narrowest)
    return RUMap(parameter="protection", values=np.asarray(protections, dtype=float), risk=np.array(risk),
                 utility=np.array(utility), risk_label="R = 1 / narrowest relative interval derived from the answers",
                 utility_label="U = share of the queries answered", method="query audit",
                 config={"queries": queries, "records": n, "seed": seed, "lower": lower,
                         "narrowest_relative_width": widths})
