"""Distance-based record linkage (Domingo-Ferrer & Torra 2004, Sections 2.1-2.2, Definition 1).

Per-variable distances of numeric, nominal and ordinal keys, aggregated per
record; each masked record is linked to its nearest original (brute force in
blocks, or a KD-tree on an embedding), ties counted or shared.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from rumap._validation import InstanceOf, StrOptions, validate_params
from rumap.budget import DEFAULT_BUDGET, WorkBudget
from rumap.errors import InputError
from rumap.risk.linkage.neighbours import OriginalsTree
from rumap.risk.paired import numeric_matrix, paired_frames, select_columns
from rumap.risk.ties import TIE_RTOL

__all__ = ["KINDS", "AGGREGATIONS", "STANDARDIZATIONS", "LinkageResult", "distance_linkage", "variable_distance"]

#: Elements of one block of the brute-force distance matrix (bounds memory to ~32 MB).
CHUNK_ELEMENTS = 4_000_000
#: Largest number of embedded dimensions (one per numeric key, one per category of a nominal key,
#: one per category of an ordinal key) for which ``engine="auto"`` uses the KD-tree.
MAX_KDTREE_DIMENSIONS = 24



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


@validate_params({"kind": StrOptions(VARIABLE_DISTANCES)},
                 example=lambda: {"kind": "ordinal", "a": [1, 2], "b": [3, 2], "cardinality": 4})
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
    nearest = OriginalsTree(coords_o).nearest_other(coords_m, p=agg.minkowski_p, workers=-1)
    other = agg.from_kdtree(nearest) + constant
    return _own_distance(keys, aggregation), other


def _kdtree_applies(keys: _Keys, aggregation: str) -> bool:
    """Whether engine "auto" searches with a KD-tree (else by brute force)."""
    embedded = _embedding(keys, aggregation)
    return embedded is not None and embedded[0].shape[1] <= MAX_KDTREE_DIMENSIONS


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
        sizes = OriginalsTree(coords_o).count_within(coords_m[rows], radius * (1 + 1e-12) + 1e-300,
                                                     p=AGGREGATIONS[aggregation].minkowski_p)
        return np.maximum(sizes.astype(int), 1)
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


def _example() -> dict[str, Any]:
    x = np.array([[1.0, 10.0], [2.0, 30.0], [3.0, 20.0], [4.0, 50.0]])
    return {"original": x, "masked": x + 0.1}


@validate_params({"aggregation": StrOptions(AGGREGATIONS), "standardize": StrOptions(STANDARDIZATIONS),
                  "engine": StrOptions(ENGINES), "ties": StrOptions(TIES), "budget": InstanceOf(WorkBudget)},
                 example=_example)
def distance_linkage(original: Any, masked: Any, keys: Sequence[str | int] | None = None, *,
                     kinds: Mapping[str, str] | None = None, orders: Mapping[str, Sequence[Any]] | None = None,
                     aggregation: str = "sum_of_squares", standardize: str = "original",
                     engine: str = "auto", ties: str = "none", budget: WorkBudget = DEFAULT_BUDGET) -> LinkageResult:
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
    budget : WorkBudget, default DEFAULT_BUDGET
        A brute-force search (records^2 x keys steps) over it is refused before it starts.

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
    encoded = _encode_keys(original, masked, keys, kinds, orders, standardize)
    if engine == "brute" or (engine == "auto" and not _kdtree_applies(encoded, aggregation)):
        n, width = encoded.original.shape
        budget.check_work(float(n) * n * width, f"a brute-force search of {n} x {n} records on {width} keys")
    own, other = ENGINES[engine](encoded, aggregation)
    correct = own < other * (1.0 - TIE_RTOL)
    tied = ~correct & (own <= other * (1.0 + TIE_RTOL))
    rows = np.flatnonzero(tied)
    credit = TIES[ties](encoded, aggregation, rows, own[rows])
    return LinkageResult("distance", int(own.size), int(correct.sum()), int(tied.sum()), encoded.names,
                         encoded.kinds, {"aggregation": aggregation, "standardize": standardize, "engine": engine,
                                         "ties": ties}, tie_credit=credit)
