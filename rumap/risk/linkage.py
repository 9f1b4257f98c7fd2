"""Record linkage as a disclosure risk measure: distance-based and probabilistic.

An intruder holds the original values of some *key variables* for the
respondents and tries to link each masked record to its original. The share of
masked records linked to their own original is the disclosure risk. Row ``i``
of the masked file is the masked version of row ``i`` of the original.

References
----------
.. [1] J. Domingo-Ferrer, V. Torra (2004), "Disclosure risk assessment in
   statistical data protection", J. Comput. Appl. Math. 164-165, 285-293,
   Sections 2.1-2.2 and Definition 1.
.. [2] M. A. Jaro (1989), "Advances in record-linkage methodology as applied to
   matching the 1985 Census of Tampa, Florida", JASA 84, 414-420.
.. [3] I. P. Fellegi, A. B. Sunter (1969), "A theory for record linkage", JASA 64, 1183-1210.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
from scipy.optimize import linear_sum_assignment
from scipy.spatial import cKDTree

from rumap._validation import check_scalar
from rumap.errors import InputError
from rumap.risk._paired import numeric_matrix, paired_frames, select_columns

__all__ = [
    "KINDS",
    "AGGREGATIONS",
    "STANDARDIZATIONS",
    "LINKAGE_METHODS",
    "LinkageResult",
    "distance_linkage",
    "probabilistic_linkage",
    "record_linkage",
    "fellegi_sunter_em",
    "variable_distance",
    "linkage_risk_distance",
    "linkage_risk_distance_shared_ties",
    "linkage_risk_probabilistic",
]

#: Relative tolerance under which two aggregated distances count as equal (a tie).
TIE_RTOL = 1e-9
#: Largest number of key variables for probabilistic linkage (2**K agreement patterns).
MAX_PROBABILISTIC_KEYS = 16
#: Elements of one block of the brute-force distance matrix (bounds memory to ~32 MB).
CHUNK_ELEMENTS = 4_000_000
#: Largest number of embedded dimensions (one per numeric key, one per category of a nominal key,
#: one per category of an ordinal key) for which ``engine="auto"`` uses the KD-tree.
MAX_KDTREE_DIMENSIONS = 24
#: Largest memory (bytes) for keeping the agreement patterns of probabilistic linkage between its two passes.
CACHE_BYTES = 256 * 2**20


# ---------------------------------------------------------------------------
# per-variable distances (Definition 1) and record-level aggregation

def _numeric_distance(a: np.ndarray, b: np.ndarray, cardinality: float) -> np.ndarray:
    return np.abs(a - b)


def _nominal_distance(a: np.ndarray, b: np.ndarray, cardinality: float) -> np.ndarray:
    return (a != b).astype(float)


def _ordinal_distance(a: np.ndarray, b: np.ndarray, cardinality: float) -> np.ndarray:
    return (np.abs(a - b) + 1.0) / cardinality


#: Distance between two values of one variable, by kind (Definition 1 of [1]).
VARIABLE_DISTANCES: dict[str, Callable[[np.ndarray, np.ndarray, float], np.ndarray]] = {
    "numeric": _numeric_distance,
    "nominal": _nominal_distance,
    "ordinal": _ordinal_distance,
}
KINDS = tuple(VARIABLE_DISTANCES)


@dataclass(frozen=True)
class _Aggregation:
    elementwise: Callable[[np.ndarray], np.ndarray]
    combine: Callable[[np.ndarray, np.ndarray], np.ndarray]
    minkowski_p: float  # the KD-tree metric giving the same order
    from_kdtree: Callable[[np.ndarray], np.ndarray]  # KD-tree distance -> aggregated distance


#: Record-level aggregation of the per-variable distances.
AGGREGATIONS: dict[str, _Aggregation] = {
    "sum_of_squares": _Aggregation(np.square, np.add, 2.0, np.square),
    "sum": _Aggregation(lambda d: d, np.add, 1.0, lambda d: d),
    "max": _Aggregation(lambda d: d, np.maximum, math.inf, lambda d: d),
}


def _standardize_original(orig: np.ndarray, mask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    mean, sd = orig.mean(axis=0), orig.std(axis=0, ddof=1)
    sd = np.where(sd > 0, sd, 1.0)
    return (orig - mean) / sd, (mask - mean) / sd


def _standardize_each(orig: np.ndarray, mask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    def z(x: np.ndarray) -> np.ndarray:
        sd = x.std(axis=0, ddof=1)
        return (x - x.mean(axis=0)) / np.where(sd > 0, sd, 1.0)

    return z(orig), z(mask)


def _standardize_none(orig: np.ndarray, mask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    return orig, mask


#: How numeric key variables are put on one scale.
STANDARDIZATIONS: dict[str, Callable[[np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray]]] = {
    "original": _standardize_original,
    "each": _standardize_each,
    "none": _standardize_none,
}


def variable_distance(kind: str, a: Any, b: Any, cardinality: float = 1.0) -> np.ndarray:
    """Distance between values of one variable (Definition 1 of Domingo-Ferrer & Torra 2004).

    Parameters
    ----------
    kind : {"numeric", "nominal", "ordinal"}
    a, b : array_like
        Values (numeric), category codes (nominal) or ranks in the order (ordinal).
    cardinality : float
        ``|D(V)|``, the number of categories of an ordinal variable.

    Returns
    -------
    ndarray
        ``|a - b|`` (numeric); 0 if equal else 1 (nominal);
        ``(|a - b| + 1) / |D(V)|`` (ordinal).

    Notes
    -----
    The ordinal distance counts the categories between the two values *both
    included*, as Definition 1 is written, so two equal categories are at
    distance ``1 / |D(V)|``; this constant does not change which record is nearest.
    """
    if kind not in VARIABLE_DISTANCES:
        raise InputError(f"kind must be one of {', '.join(KINDS)}, got {kind!r}")
    return VARIABLE_DISTANCES[kind](np.asarray(a, dtype=float), np.asarray(b, dtype=float), float(cardinality))


# ---------------------------------------------------------------------------
# key variables of both files, encoded

@dataclass(frozen=True)
class _Keys:
    names: tuple[str, ...]
    kinds: tuple[str, ...]
    original: np.ndarray  # (n, K) float: standardized numbers, category codes or ranks
    masked: np.ndarray
    cardinality: np.ndarray  # (K,) number of categories (1 for numeric keys)


def _encode_keys(original: Any, masked: Any, keys: Sequence[str | int] | None,
                 kinds: Mapping[str, str] | None, orders: Mapping[str, Sequence[Any]] | None,
                 standardize: str) -> _Keys:
    if standardize not in STANDARDIZATIONS:
        raise InputError(f"standardize must be one of {', '.join(STANDARDIZATIONS)}, got {standardize!r}")
    orig, mask = paired_frames(original, masked)
    names = select_columns(orig, keys, "original")
    kinds = dict(kinds or {})
    orders = dict(orders or {})
    for name in list(kinds) + list(orders):
        if name not in names:
            raise InputError(f"kinds/orders name column {name!r}, which is not a key ({', '.join(names)})")
    resolved: list[str] = []
    for name in names:
        default = "numeric" if (pd.api.types.is_numeric_dtype(orig[name]) and pd.api.types.is_numeric_dtype(mask[name])
                                and not pd.api.types.is_bool_dtype(orig[name])) else "nominal"
        kind = kinds.get(name, "ordinal" if name in orders else default)
        if kind not in VARIABLE_DISTANCES:
            raise InputError(f"key {name!r}: kind must be one of {', '.join(KINDS)}, got {kind!r}")
        resolved.append(kind)
    n, k = orig.shape[0], len(names)
    out_o, out_m = np.empty((n, k)), np.empty((n, k))
    cardinality = np.ones(k)
    numeric = [j for j, kind in enumerate(resolved) if kind == "numeric"]
    if numeric:
        cols = [names[j] for j in numeric]
        z_o, z_m = STANDARDIZATIONS[standardize](numeric_matrix(orig, cols, "original"),
                                                 numeric_matrix(mask, cols, "masked"))
        out_o[:, numeric], out_m[:, numeric] = z_o, z_m
    for j, (name, kind) in enumerate(zip(names, resolved, strict=True)):
        if kind == "numeric":
            continue
        for frame, source in ((orig, "original"), (mask, "masked")):
            if frame[name].isna().any():
                row = int(np.argmax(frame[name].isna().to_numpy()))
                raise InputError(f"{source}: key column {name!r} has a missing value in row {row + 1}")
        if name in orders:
            categories = list(orders[name])
            known = set(categories)
            for frame, source in ((orig, "original"), (mask, "masked")):
                unknown = ~frame[name].isin(known)
                if unknown.any():
                    row = int(np.argmax(unknown.to_numpy()))
                    raise InputError(f"{source}: column {name!r} has value {frame[name].iloc[row]!r} (row {row + 1}) "
                                     "that is not in its given order")
        else:
            categories = sorted(pd.unique(pd.concat([orig[name], mask[name]], ignore_index=True)), key=_sort_key)
        index = pd.Index(categories)
        if not index.is_unique:
            raise InputError(f"the order of column {name!r} repeats a category")
        out_o[:, j] = index.get_indexer(orig[name])
        out_m[:, j] = index.get_indexer(mask[name])
        cardinality[j] = len(categories)
    return _Keys(tuple(names), tuple(resolved), out_o, out_m, cardinality)


def _sort_key(value: Any) -> tuple[int, Any]:
    return (0, value) if isinstance(value, (int, float, np.integer, np.floating)) else (1, str(value))


# ---------------------------------------------------------------------------
# result

@dataclass(frozen=True)
class LinkageResult:
    """Outcome of a record-linkage attack.

    Parameters
    ----------
    method : str
        ``"distance"`` or ``"probabilistic"``.
    n : int
        Number of masked records.
    n_correct : int
        Masked records linked to their own original, and to no other equally well.
    n_tied : int
        Masked records whose own original was among several equally good
        candidates; they are *not* counted as correct.
    tie_credit : float
        With ``ties="share"`` (distance linkage), the expected number of correct
        links among the tied records when the intruder picks one of the t
        equally near originals at random (``sum 1 / t``); 0 otherwise.
    keys : tuple of str
        The intruder's key variables.
    kinds : tuple of str
        Kind of each key (numeric, nominal, ordinal).
    settings : mapping
        The options used and, for probabilistic linkage, the estimated
        m and u probabilities per key and the match proportion.
    """

    method: str
    n: int
    n_correct: int
    n_tied: int
    keys: tuple[str, ...]
    kinds: tuple[str, ...]
    settings: Mapping[str, Any] = field(default_factory=dict)
    tie_credit: float = 0.0

    def __post_init__(self) -> None:
        object.__setattr__(self, "settings", dict(self.settings))

    @property
    def linked_correctly(self) -> float:
        """Share of masked records linked to their own original, in [0, 1] (plus the tie credit, if any)."""
        return (self.n_correct + self.tie_credit) / self.n

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dictionary: method, n, linked_correctly, counts, keys, settings."""
        from rumap.result import json_safe

        return json_safe({"method": self.method, "n": self.n, "linked_correctly": self.linked_correctly,
                          "n_correct": self.n_correct, "n_tied": self.n_tied, "tie_credit": self.tie_credit,
                          "keys": list(self.keys),
                          "kinds": list(self.kinds), **self.settings})

    def to_frame(self) -> pd.DataFrame:
        """One row: method, n, share and counts of correct links, ties, keys."""
        return pd.DataFrame([{"method": self.method, "n": self.n, "linked_correctly": self.linked_correctly,
                              "n_correct": self.n_correct, "n_tied": self.n_tied, "keys": ", ".join(self.keys)}])


# ---------------------------------------------------------------------------
# distance-based linkage

def _brute_force_nearest(keys: _Keys, aggregation: str) -> tuple[np.ndarray, np.ndarray]:
    """Own distance and the nearest other original's distance, for each masked record (O(n^2) time)."""
    agg = AGGREGATIONS[aggregation]
    n = keys.original.shape[0]
    own, other = np.empty(n), np.empty(n)
    chunk = max(1, CHUNK_ELEMENTS // n)
    functions = [VARIABLE_DISTANCES[kind] for kind in keys.kinds]
    for start in range(0, n, chunk):
        stop = min(n, start + chunk)
        acc = np.zeros((stop - start, n))
        for j, distance in enumerate(functions):
            d = distance(keys.masked[start:stop, j][:, None], keys.original[None, :, j], keys.cardinality[j])
            acc = agg.combine(acc, agg.elementwise(d))
        rows = np.arange(stop - start)
        own[start:stop] = acc[rows, rows + start]
        acc[rows, rows + start] = np.inf
        other[start:stop] = acc.min(axis=1) if n > 1 else np.inf
    return own, other


def _own_distance(keys: _Keys, aggregation: str) -> np.ndarray:
    """Aggregated distance between each masked record and its own original."""
    agg = AGGREGATIONS[aggregation]
    per_variable = np.column_stack([VARIABLE_DISTANCES[kind](keys.masked[:, j], keys.original[:, j],
                                                             keys.cardinality[j])
                                    for j, kind in enumerate(keys.kinds)])
    return agg.combine.reduce(agg.elementwise(per_variable), axis=1)


#: How nominal keys are placed in a Minkowski space so that the KD-tree metric gives the
#: aggregated distance of Definition 1: one-hot codes times this scale.
_NOMINAL_SCALE = {"sum_of_squares": math.sqrt(0.5), "sum": 0.5, "max": 1.0}


def _embedding(keys: _Keys, aggregation: str) -> tuple[np.ndarray, np.ndarray, float] | None:
    """Coordinates of both files whose Minkowski distance, plus a constant, is the aggregated distance.

    numeric: the standardized value. nominal: a one-hot code (squared Euclidean,
    city-block or maximum distance 1 between different categories). ordinal with
    rank r of D categories: ``(|r - s| + 1) / D`` is ``|r - s| / D + 1 / D`` for the
    sum, and its square ``(r - s)^2 / D^2 + 2 |r - s| / D^2 + 1 / D^2`` is the squared
    Euclidean distance of the coordinate r / D and a thermometer code of r scaled
    by ``sqrt(2) / D``, plus ``1 / D^2``. ``None`` when no such embedding exists
    (ordinal keys under the maximum).
    """
    parts_o, parts_m, constant = [], [], 0.0
    for j, kind in enumerate(keys.kinds):
        o, m, card = keys.original[:, j], keys.masked[:, j], keys.cardinality[j]
        if kind == "numeric":
            parts_o.append(o[:, None])
            parts_m.append(m[:, None])
        elif kind == "nominal":
            levels = np.arange(int(card))
            scale = _NOMINAL_SCALE[aggregation]
            parts_o.append((o[:, None] == levels[None, :]) * scale)
            parts_m.append((m[:, None] == levels[None, :]) * scale)
        elif aggregation == "sum":
            parts_o.append(o[:, None] / card)
            parts_m.append(m[:, None] / card)
            constant += 1.0 / card
        elif aggregation == "sum_of_squares":
            steps = np.arange(int(card) - 1)
            scale = math.sqrt(2.0) / card
            parts_o.append(np.column_stack([o / card, (o[:, None] > steps[None, :]) * scale]))
            parts_m.append(np.column_stack([m / card, (m[:, None] > steps[None, :]) * scale]))
            constant += 1.0 / card ** 2
        else:
            return None
    return np.hstack(parts_o).astype(float), np.hstack(parts_m).astype(float), constant


def _kdtree_nearest(keys: _Keys, aggregation: str,
                    embedded: tuple[np.ndarray, np.ndarray, float] | None = None) -> tuple[np.ndarray, np.ndarray]:
    """As :func:`_brute_force_nearest`, with a KD-tree on the embedded keys (O(n log n) for few dimensions)."""
    agg = AGGREGATIONS[aggregation]
    coords_o, coords_m, constant = embedded if embedded is not None else _embedding(keys, aggregation)
    tree = cKDTree(coords_o)
    dist, idx = tree.query(coords_m, k=2, p=agg.minkowski_p, workers=-1)
    first_is_own = idx[:, 0] == np.arange(coords_o.shape[0])
    other = agg.from_kdtree(np.where(first_is_own, dist[:, 1], dist[:, 0])) + constant
    return _own_distance(keys, aggregation), other


def _engine_auto(keys: _Keys, aggregation: str) -> tuple[np.ndarray, np.ndarray]:
    embedded = _embedding(keys, aggregation)
    if embedded is not None and embedded[0].shape[1] <= MAX_KDTREE_DIMENSIONS:
        return _kdtree_nearest(keys, aggregation, embedded)
    return _brute_force_nearest(keys, aggregation)


def _engine_kdtree(keys: _Keys, aggregation: str) -> tuple[np.ndarray, np.ndarray]:
    embedded = _embedding(keys, aggregation)
    if embedded is None:
        raise InputError("engine 'kdtree' cannot combine ordinal keys with aggregation 'max'; use engine 'brute'")
    return _kdtree_nearest(keys, aggregation, embedded)


def _tie_sizes(keys: _Keys, aggregation: str, rows: np.ndarray, own: np.ndarray) -> np.ndarray:
    """For masked records ``rows``, the number of originals at most as far as their own (own included)."""
    if rows.size == 0:
        return np.zeros(0, dtype=int)
    limit = own * (1.0 + TIE_RTOL)
    embedded = _embedding(keys, aggregation)
    if embedded is not None:
        coords_o, coords_m, constant = embedded
        target = np.maximum(limit - constant, 0.0)
        radius = np.sqrt(target) if aggregation == "sum_of_squares" else target
        tree = cKDTree(coords_o)
        sizes = tree.query_ball_point(coords_m[rows], r=radius * (1 + 1e-12) + 1e-300,
                                      p=AGGREGATIONS[aggregation].minkowski_p, return_length=True)
        return np.maximum(np.asarray(sizes, dtype=int), 1)
    agg = AGGREGATIONS[aggregation]
    sizes = np.empty(rows.size, dtype=int)
    n = keys.original.shape[0]
    chunk = max(1, CHUNK_ELEMENTS // n)
    for start in range(0, rows.size, chunk):
        part = rows[start:start + chunk]
        acc = np.zeros((part.size, n))
        for j, kind in enumerate(keys.kinds):
            d = VARIABLE_DISTANCES[kind](keys.masked[part, j][:, None], keys.original[None, :, j], keys.cardinality[j])
            acc = agg.combine(acc, agg.elementwise(d))
        sizes[start:start + part.size] = (acc <= limit[start:start + part.size, None]).sum(axis=1)
    return np.maximum(sizes, 1)


def _no_tie_credit(keys: _Keys, aggregation: str, rows: np.ndarray, own: np.ndarray) -> float:
    return 0.0


def _share_tie_credit(keys: _Keys, aggregation: str, rows: np.ndarray, own: np.ndarray) -> float:
    return float(np.sum(1.0 / _tie_sizes(keys, aggregation, rows, own)))


#: How tied records count: not at all (a tie is not a link), or 1 / t for t equally near originals.
TIES: dict[str, Callable[[_Keys, str, np.ndarray, np.ndarray], float]] = {
    "none": _no_tie_credit,
    "share": _share_tie_credit,
}


#: Nearest-neighbour search strategies.
ENGINES: dict[str, Callable[[_Keys, str], tuple[np.ndarray, np.ndarray]]] = {
    "auto": _engine_auto,
    "kdtree": _engine_kdtree,
    "brute": _brute_force_nearest,
}


def distance_linkage(original: Any, masked: Any, keys: Sequence[str | int] | None = None, *,
                     kinds: Mapping[str, str] | None = None, orders: Mapping[str, Sequence[Any]] | None = None,
                     aggregation: str = "sum_of_squares", standardize: str = "original",
                     engine: str = "auto", ties: str = "none") -> LinkageResult:
    """Distance-based record linkage (Domingo-Ferrer & Torra 2004, Section 2.1).

    Parameters
    ----------
    original, masked : ndarray of shape (n, p) or (n,), or DataFrame
        The two files; row ``i`` of ``masked`` is the masked record ``i``.
    keys : sequence of str or int, optional
        The intruder's key variables (names, or positions); default all columns.
        Array columns are named ``x1 .. xp``.
    kinds : mapping, optional
        Kind of a key, ``"numeric"``, ``"nominal"`` or ``"ordinal"``. Default:
        numeric for numeric columns, nominal otherwise; ordinal for a key in ``orders``.
    orders : mapping, optional
        Categories of an ordinal key from lowest to highest (default: sorted values).
    aggregation : {"sum_of_squares", "sum", "max"}
        Record-level aggregation of the per-variable distances.
    standardize : {"original", "each", "none"}
        Numeric keys are standardized with the original file's mean and standard
        deviation (default), each file with its own, or not at all.
    engine : {"auto", "kdtree", "brute"}
        ``"auto"`` uses a KD-tree (O(n log n)) when the keys embed in at most
        :data:`MAX_KDTREE_DIMENSIONS` coordinates (one per numeric key, one per
        category of a nominal or ordinal key) and otherwise a brute-force
        search (O(n^2) time) in blocks of bounded memory. Both give the same links.
    ties : {"none", "share"}
        A tie is not a correct link (default); ``"share"`` credits ``1 / t`` to a
        record whose own original is one of t equally near originals (the
        intruder's chance when picking one at random), in ``tie_credit``.

    Returns
    -------
    LinkageResult
        ``linked_correctly`` is the share of masked records whose nearest original
        is their own.

    Notes
    -----
    Each masked record is linked to the original at the smallest aggregated
    distance, e.g. ``sum_j d_j(x_ij, y_rj)^2``. It counts as correctly linked only
    if its own original is *strictly* nearer than every other original (relative
    tolerance :data:`TIE_RTOL`): a tie is not a correct link, so two identical
    original records are never counted. Per-variable distances follow
    Definition 1 (:func:`variable_distance`).

    References
    ----------
    Domingo-Ferrer & Torra (2004), Section 2.1 and Definition 1.
    """
    if aggregation not in AGGREGATIONS:
        raise InputError(f"aggregation must be one of {', '.join(AGGREGATIONS)}, got {aggregation!r}")
    if engine not in ENGINES:
        raise InputError(f"engine must be one of {', '.join(ENGINES)}, got {engine!r}")
    encoded = _encode_keys(original, masked, keys, kinds, orders, standardize)
    if ties not in TIES:
        raise InputError(f"ties must be one of {', '.join(TIES)}, got {ties!r}")
    own, other = ENGINES[engine](encoded, aggregation)
    correct = own < other * (1.0 - TIE_RTOL)
    tied = ~correct & (own <= other * (1.0 + TIE_RTOL))
    rows = np.flatnonzero(tied)
    credit = TIES[ties](encoded, aggregation, rows, own[rows])
    return LinkageResult("distance", int(own.size), int(correct.sum()), int(tied.sum()), encoded.names,
                         encoded.kinds, {"aggregation": aggregation, "standardize": standardize, "engine": engine,
                                         "ties": ties}, tie_credit=credit)


# ---------------------------------------------------------------------------
# probabilistic (Fellegi-Sunter) linkage

def fellegi_sunter_em(pattern_counts: Any, n_keys: int, match_share: float = 0.01, max_iter: int = 1000,
                      tol: float = 1e-10) -> tuple[np.ndarray, np.ndarray, float, int]:
    """m and u probabilities of the Fellegi-Sunter model by the EM algorithm.

    Parameters
    ----------
    pattern_counts : array_like, shape (2**K,)
        Number of record pairs with each agreement pattern; bit ``k`` of the
        pattern's index is 1 when the pair agrees on key ``k``.
    n_keys : int
        K, the number of keys.
    match_share : float
        Starting value of the proportion of matched pairs.
    max_iter : int
    tol : float
        Stop when no parameter moves by more than ``tol``.

    Returns
    -------
    m, u : ndarray, shape (K,)
        P(agree on key k | match) and P(agree on key k | non-match).
    p : float
        Proportion of matched pairs.
    iterations : int

    Notes
    -----
    Latent-class model with conditional independence of the keys given the
    match status: ``P(gamma) = p prod m_k^g_k (1-m_k)^(1-g_k) + (1-p) prod u_k^g_k (1-u_k)^(1-g_k)``.
    E-step: posterior match probability of each pattern; M-step: weighted
    agreement rates. The class with the larger mean agreement is the match class.

    References
    ----------
    Jaro (1989), Section 3; Fellegi & Sunter (1969).
    """
    counts = np.asarray(pattern_counts, dtype=float)
    if counts.shape != (2 ** n_keys,):
        raise InputError(f"pattern_counts must have 2**{n_keys} entries, got shape {counts.shape}")
    gamma = ((np.arange(2 ** n_keys)[:, None] >> np.arange(n_keys)[None, :]) & 1).astype(float)
    total = counts.sum()
    if total <= 0:
        raise InputError("no record pairs to estimate the m and u probabilities from")
    eps = 1e-9
    u = np.clip(counts @ gamma / total, eps, 1 - eps)
    m = np.full(n_keys, 0.95)
    p = float(np.clip(match_share, eps, 0.5))
    iterations = 0
    for iterations in range(1, max_iter + 1):  # noqa: B007 - iterations is reported
        log_m = np.log(p) + gamma @ np.log(m) + (1 - gamma) @ np.log1p(-m)
        log_u = np.log1p(-p) + gamma @ np.log(u) + (1 - gamma) @ np.log1p(-u)
        posterior = 1.0 / (1.0 + np.exp(np.clip(log_u - log_m, -700, 700)))
        weight_m, weight_u = counts * posterior, counts * (1 - posterior)
        new_p = float(np.clip(weight_m.sum() / total, eps, 1 - eps))
        new_m = np.clip(weight_m @ gamma / max(weight_m.sum(), eps), eps, 1 - eps)
        new_u = np.clip(weight_u @ gamma / max(weight_u.sum(), eps), eps, 1 - eps)
        change = max(abs(new_p - p), float(np.max(np.abs(new_m - m))), float(np.max(np.abs(new_u - u))))
        m, u, p = new_m, new_u, new_p
        if change < tol:
            break
    if m.mean() < u.mean():  # label switching: the match class agrees more
        m, u, p = u, m, 1 - p
    return m, u, p, iterations


def _agreement_codes(keys: _Keys, rows_m: np.ndarray, rows_o: np.ndarray, tolerance: float) -> np.ndarray:
    """Agreement pattern of every (masked, original) pair of one block, shape (len(rows_m), len(rows_o))."""
    dtype = np.uint8 if len(keys.kinds) <= 8 else np.uint16
    codes = np.zeros((rows_m.size, rows_o.size), dtype=dtype)
    for j, kind in enumerate(keys.kinds):
        a, b = keys.masked[rows_m, j][:, None], keys.original[rows_o, j][None, :]
        agree = np.abs(a - b) <= tolerance if kind == "numeric" else a == b
        codes |= agree.view(np.uint8).astype(dtype) << dtype(j)
    return codes


def _blocks(keys: _Keys, block_size: int) -> list[tuple[np.ndarray, np.ndarray]]:
    """Sorted-neighbourhood blocks on the first key: equal rank ranges of both files."""
    n = keys.original.shape[0]
    n_blocks = max(1, math.ceil(n / block_size))
    order_o = np.argsort(keys.original[:, 0], kind="stable")
    order_m = np.argsort(keys.masked[:, 0], kind="stable")
    return list(zip(np.array_split(order_m, n_blocks), np.array_split(order_o, n_blocks), strict=True))


def _unambiguous_matches(score: np.ndarray, rows: np.ndarray, cols: np.ndarray) -> np.ndarray:
    """For an optimal assignment rows -> cols, whether no exchange of two pairs scores as well.

    ``score[r, cols[r']] + score[r', cols[r]] >= score[r, cols[r]] + score[r', cols[r']]``
    for some ``r' != r`` means pair ``r`` could be swapped at no loss: a tie.
    """
    assigned = score[np.ix_(rows, cols)]  # assigned[a, b] = score[rows[a], cols[b]]
    diag = np.diag(assigned)
    gain = assigned + assigned.T - diag[:, None] - diag[None, :]
    np.fill_diagonal(gain, -np.inf)
    scale = np.maximum(1.0, np.abs(diag))
    return (gain.max(axis=1) if gain.shape[0] > 1 else np.full(1, -np.inf)) < -TIE_RTOL * scale


def probabilistic_linkage(original: Any, masked: Any, keys: Sequence[str | int] | None = None, *,
                          kinds: Mapping[str, str] | None = None, tolerance: float = 0.1,
                          block_size: int = 1000, standardize: str = "original", max_iter: int = 1000
                          ) -> LinkageResult:
    """Probabilistic record linkage (Fellegi-Sunter, as in Jaro 1989).

    Parameters
    ----------
    original, masked : ndarray of shape (n, p) or (n,), or DataFrame
        The two files; row ``i`` of ``masked`` is the masked record ``i``.
    keys : sequence of str or int, optional
        The intruder's key variables (default all columns; at most 16).
    kinds : mapping, optional
        ``"numeric"`` keys agree within ``tolerance``; other kinds agree when equal.
    tolerance : float
        Numeric keys agree when ``|x - y| <= tolerance`` on the standardized
        scale (default 0.1 standard deviations of the original).
    block_size : int
        Records per block (default 1000). Both files are sorted on the first
        key and cut into the same number of blocks of equal rank ranges; pairs
        are formed within blocks only, so memory is O(n * block_size).
    standardize : {"original", "each", "none"}
        Scale of the numeric keys (see :func:`distance_linkage`).
    max_iter : int
        Iterations of EM.

    Returns
    -------
    LinkageResult
        ``linked_correctly`` is the share of masked records paired with their own
        original; ``settings`` holds the m and u probabilities per key.

    Notes
    -----
    1. For every pair (masked r, original s) of a block, the agreement vector
       ``gamma_k = 1`` when the pair agrees on key k.
    2. m_k = P(gamma_k = 1 | match), u_k = P(gamma_k = 1 | non-match) and the
       match proportion are estimated by EM over the pattern counts
       (:func:`fellegi_sunter_em`).
    3. Each pair's weight is ``sum_k gamma_k log(m_k/u_k) + (1 - gamma_k) log((1 - m_k)/(1 - u_k))``.
    4. Records are paired one to one by the linear sum assignment that maximizes
       the total weight (``scipy.optimize.linear_sum_assignment``) within each block.

    A pairing with its own original counts as correct unless exchanging it with
    another pair gives the same total weight (a tie), so identical agreement
    patterns are not credited to the attacker. A record whose masked value falls
    in another block than its original cannot be paired correctly; use a larger
    ``block_size`` for strong masking.

    References
    ----------
    Domingo-Ferrer & Torra (2004), Section 2.2; Jaro (1989); Fellegi & Sunter (1969).
    """
    tolerance = check_scalar("tolerance", tolerance)
    block_size = check_scalar("block_size", block_size)
    max_iter = check_scalar("max_iter", max_iter)
    if kinds and any(kind == "ordinal" for kind in kinds.values()):
        kinds = {name: ("nominal" if kind == "ordinal" else kind) for name, kind in kinds.items()}
    encoded = _encode_keys(original, masked, keys, kinds, None, standardize)
    n_keys = len(encoded.names)
    if n_keys > MAX_PROBABILISTIC_KEYS:
        raise InputError(f"probabilistic linkage takes at most {MAX_PROBABILISTIC_KEYS} keys, got {n_keys}")
    blocks = _blocks(encoded, block_size)
    counts = np.zeros(2 ** n_keys)
    # keep the agreement patterns for the pairing pass when they fit in CACHE_BYTES, else recompute them
    cache = sum(rm.size * ro.size for rm, ro in blocks) * (1 if n_keys <= 8 else 2) <= CACHE_BYTES
    cached: list[np.ndarray] = []
    for rows_m, rows_o in blocks:
        codes = _agreement_codes(encoded, rows_m, rows_o, tolerance)
        counts += np.bincount(codes.ravel(), minlength=2 ** n_keys)
        if cache:
            cached.append(codes)
    n = encoded.original.shape[0]
    m, u, p, iterations = fellegi_sunter_em(counts, n_keys, match_share=n / counts.sum(), max_iter=max_iter)
    gamma = ((np.arange(2 ** n_keys)[:, None] >> np.arange(n_keys)[None, :]) & 1).astype(float)
    pattern_weight = gamma @ np.log(m / u) + (1 - gamma) @ np.log((1 - m) / (1 - u))
    n_correct = n_tied = 0
    for b, (rows_m, rows_o) in enumerate(blocks):
        codes = cached[b] if cache else _agreement_codes(encoded, rows_m, rows_o, tolerance)
        score = pattern_weight[codes]
        r, c = linear_sum_assignment(score, maximize=True)
        own = rows_m[r] == rows_o[c]
        clear = _unambiguous_matches(score, r, c)
        n_correct += int((own & clear).sum())
        n_tied += int((own & ~clear).sum())
    settings = {"tolerance": tolerance, "block_size": block_size, "standardize": standardize,
                "blocks": len(blocks), "m": m.tolist(), "u": u.tolist(), "match_proportion": p,
                "em_iterations": iterations}
    return LinkageResult("probabilistic", n, n_correct, n_tied, encoded.names, encoded.kinds, settings)


#: Record-linkage methods by name.
LINKAGE_METHODS: dict[str, Callable[..., LinkageResult]] = {
    "distance": distance_linkage,
    "probabilistic": probabilistic_linkage,
}


def record_linkage(original: Any, masked: Any, keys: Sequence[str | int] | None = None,
                   method: str = "distance", **options: Any) -> LinkageResult:
    """Record linkage by ``method`` (``"distance"`` or ``"probabilistic"``); see those functions."""
    if method not in LINKAGE_METHODS:
        raise InputError(f"method must be one of {', '.join(LINKAGE_METHODS)}, got {method!r}")
    return LINKAGE_METHODS[method](original, masked, keys, **options)


# ---------------------------------------------------------------------------
# dataset-level risk measures: f(original (n, p), masked (n, p)) -> float

def linkage_risk_distance(original: np.ndarray, masked: np.ndarray) -> float:
    """Share of masked records whose nearest original (all columns as keys) is their own.

    A dataset-level risk measure for empirical R-U maps; see :func:`distance_linkage`.
    """
    return distance_linkage(original, masked).linked_correctly


def linkage_risk_distance_shared_ties(original: np.ndarray, masked: np.ndarray) -> float:
    """As :func:`linkage_risk_distance`, a tie among t originals counting 1 / t (``ties="share"``).

    For microaggregation with k = 2 every masked record is the midpoint of two
    originals: the default measure gives 0, this one the intruder's 1/2 chance.
    """
    return distance_linkage(original, masked, ties="share").linked_correctly


def linkage_risk_probabilistic(original: np.ndarray, masked: np.ndarray) -> float:
    """Share of masked records paired with their own original by Fellegi-Sunter linkage.

    A dataset-level risk measure for empirical R-U maps; see :func:`probabilistic_linkage`.
    """
    return probabilistic_linkage(original, masked).linked_correctly
