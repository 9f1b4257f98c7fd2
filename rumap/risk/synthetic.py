"""Risk and utility of a release (synthetic, masked, any) against its original, record by record or by keys.

The distance between two records is the square root of the sum over numeric
columns of ``((x - y) / s)^2``, ``s`` the original's standard deviation of the
column (ddof 1; 1 for a constant column), plus the number of categorical columns
that differ. A numeric column with missing values also counts 1 where exactly one
of the two is missing (a missing value sits at the original's mean). Nearest
neighbours are exact: every pair on small files with categories, else a KD-tree
on the numeric coordinates (a numeric value divided by ``s``) within each
combination of each subset of the categorical columns (:func:`_nearest`), or,
past ``MAX_SUBSET_COLUMNS`` categorical columns, one KD-tree on coordinates whose
squared Euclidean distance is the records' one (a categorical column one
indicator per level, each ``1 / sqrt(2)``, so one differing column adds 1).

- ``dcr_share``: with a holdout (original records the generator did not see),
  the share of release records nearer their nearest original than their nearest
  holdout record, a tie counting one half (0.5: no sign of copying);
- ``nndr``: the median over release records of the distance to the nearest
  original over that to the second nearest (0 / 0 counts 0);
- ``membership_advantage``: each original and holdout record's distance ``d``
  to its nearest release record; a record is guessed a member when ``d`` is
  below the median of all of them; the share of originals guessed minus the
  share of holdout records guessed;
- ``repu`` (synthpop): 100 x the key combinations unique in both the original
  and the release over the original's records;
- ``disco`` (synthpop's DiSCO): 100 x the share of original records whose key
  combination occurs in the release with one target value there, their own;
- ``pmse`` and ``s_pmse``: :mod:`rumap.risk.propensity`;
- with as many release records as original ones, paired row by row, the
  measures of masked files on the numeric columns without missing values:
  distance linkage (a tie among t counting 1/t), rank-interval disclosure and
  the common utility ``1 - IL`` of means, variances and correlations
  (:mod:`rumap.maps.common`); the common utility also for other sizes.

References
----------
Nowok, Raab & Dibben (2016), synthpop, ``replicated.uniques`` (repu) and
``disclosure`` (DiSCO); Snoke et al. (2018) (pMSE); Yeom et al. (2018),
"Privacy risk in machine learning", Section 3 (the membership advantage).
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np
import pandas as pd

from rumap._validation import InstanceOf, ListOf, validate_params
from rumap.errors import InputError
from rumap.risk.propensity import pmse_of, propensity_design
from rumap.risk.ties import TIE_RTOL
from rumap.synthesis.columns import chosen_columns, is_categorical, level_codes

__all__ = ["SyntheticMeasures", "record_coordinates", "dcr_share", "nndr", "membership_advantage", "repu", "disco",
           "pmse", "synthetic_measures"]

_FRAME = InstanceOf(pd.DataFrame, "a pandas DataFrame")
_NAMES = [None, ListOf(str, "a list of column names")]
_HALF = np.sqrt(0.5)


def _kinds(frames: Sequence[pd.DataFrame], names: Sequence[str]) -> list[bool]:
    """A column is categorical when it is so in any of the files."""
    return [any(is_categorical(f[name]) for f in frames) for name in names]


def _columns(frames: Sequence[pd.DataFrame], columns: Sequence[str] | None, labels: Sequence[str]) -> list[str]:
    names = chosen_columns(frames[0], columns, labels[0])
    for frame, label in zip(frames[1:], labels[1:], strict=True):
        chosen_columns(frame, names, label)
    for frame, label in zip(frames, labels, strict=True):
        if len(frame) < 1:
            raise InputError(f"{label} has no records")
    return names


@dataclass(frozen=True)
class _Records:
    """A file's records as the distance reads them: scaled numeric coordinates and categorical codes."""

    numeric: np.ndarray
    codes: np.ndarray


def _records(frames: Sequence[pd.DataFrame], columns: Sequence[str] | None) -> list[_Records]:
    """Each file's :class:`_Records`, the codes of a categorical column shared by the files."""
    names = _columns(frames, columns, [f"file {i + 1}" for i in range(len(frames))])
    sizes = np.cumsum([0] + [len(f) for f in frames])
    stacked = pd.concat([f[names] for f in frames], ignore_index=True)
    parts, codes = [np.zeros((sizes[-1], 1))], []
    for name, cat in zip(names, _kinds(frames, names), strict=True):
        if cat:
            codes.append(level_codes(stacked[name])[0])
            continue
        values = stacked[name].to_numpy(dtype=float)
        if np.isinf(values).any():
            row = int(np.flatnonzero(np.isinf(values))[0])
            which = int(np.searchsorted(sizes, row, side="right")) - 1
            raise InputError(f"file {which + 1}: column {name!r} row {row - sizes[which] + 1}: an infinite value")
        original = values[: sizes[1]]
        present = original[~np.isnan(original)]
        sd = float(np.std(present, ddof=1)) if present.size > 1 else 0.0
        sd = sd if sd > 0 else 1.0
        missing = np.isnan(values)
        fill = float(present.mean()) if present.size else 0.0
        parts.append(np.where(missing, fill, values)[:, None] / sd)
        if missing.any():
            parts.append(np.column_stack([~missing, missing]) * _HALF)
    numeric = np.hstack(parts if len(parts) == 1 else parts[1:]).astype(float)
    code = np.column_stack(codes) if codes else np.zeros((sizes[-1], 0), dtype=np.int64)
    return [_Records(numeric[sizes[i]:sizes[i + 1]], code[sizes[i]:sizes[i + 1]]) for i in range(len(frames))]


def _one_hot(records: Sequence[_Records]) -> list[np.ndarray]:
    levels = [max(int(r.codes[:, j].max(initial=-1)) for r in records) + 1 for j in range(records[0].codes.shape[1])]
    return [np.hstack([r.numeric, *((r.codes[:, [j]] == np.arange(m)[None, :]) * _HALF for j, m in enumerate(levels))])
            for r in records]


@validate_params({"frames": ListOf(pd.DataFrame, "a list of pandas DataFrames"), "columns": _NAMES},
                 example=lambda: {"frames": [pd.DataFrame({"a": [1.0, 3.0], "b": ["x", "y"]})]})
def record_coordinates(frames: Sequence[pd.DataFrame], columns: Sequence[str] | None = None) -> list[np.ndarray]:
    """Coordinates of each file's records whose squared Euclidean distance is the records' squared distance.

    Parameters
    ----------
    frames : sequence of DataFrame
        The original first (its standard deviations scale the numeric columns), then the others.
    columns : sequence of str, optional
        Default: every column of the original.

    Returns
    -------
    list of ndarray
        One (n_i, d) array per file.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> a, b = record_coordinates([pd.DataFrame({"x": [0.0, 2.0], "c": ["u", "v"]}),
    ...                           pd.DataFrame({"x": [0.0], "c": ["v"]})])
    >>> round(float(np.sum((a[0] - b[0]) ** 2)), 12)  # same x, another category
    1.0
    """
    return _one_hot(_records(frames, columns))


#: Most categorical columns searched by subsets of agreeing columns (2 ** columns subsets at most); past it, the
#: categories are one-hot coordinates of one KD-tree.
MAX_SUBSET_COLUMNS = 12
#: Reference records per leaf of a KD-tree (median splits): larger leaves than scipy's 16 pay where a tree barely
#: prunes; on 10^5 iid normal records in ten dimensions 64 beat 32 and 128 (and sliding-midpoint splits).
LEAFSIZE = 64
#: With categorical columns, most reference x point pairs whose distances are all computed (in blocks of ``_BLOCK``
#: pairs) rather than searched subset by subset (numeric columns alone: always a KD-tree, faster).
BRUTE_PAIRS = 10_000_000
_BLOCK = 1 << 18


def _tree(reference: np.ndarray) -> Any:
    from scipy.spatial import cKDTree

    return cKDTree(reference, leafsize=LEAFSIZE)


def _query(tree: Any, points: np.ndarray, k: int, bound: float = np.inf) -> tuple[np.ndarray, np.ndarray]:
    """Exact distances and indices of each point's ``k`` nearest (``inf`` and ``tree.n`` past ``bound``), (n, k).

    The points are queried in the order of a KD-tree of their own, so that neighbouring queries read the same
    leaves of the reference tree.
    """
    from scipy.spatial import cKDTree

    order = cKDTree(points, leafsize=16).indices if len(points) > 1 else np.arange(len(points))
    d, i = tree.query(points[order], k=k, workers=-1, distance_upper_bound=bound)
    distance, index = np.empty((len(points), k)), np.empty((len(points), k), dtype=np.int64)
    distance[order], index[order] = np.reshape(d, (-1, k)), np.reshape(i, (-1, k))
    return distance, index


def _tree_nearest(reference: np.ndarray, points: np.ndarray, k: int) -> np.ndarray:
    return _query(_tree(reference), points, k)[0]


def _group_keys(codes: np.ndarray) -> np.ndarray:
    """One integer per row of ``codes`` (n, s), equal where the rows are equal (mixed radix, compressed if needed)."""
    key = np.zeros(len(codes), dtype=np.int64)
    for column in codes.T:
        size = int(column.max(initial=0)) + 1
        if int(key.max(initial=0)) >= (1 << 62) // size:
            key = np.unique(key, return_inverse=True)[1].ravel().astype(np.int64)
        key = key * size + column
    return key


def _merge(best: np.ndarray, index: np.ndarray, value: np.ndarray, found: np.ndarray) -> None:
    """Fold candidates (value, reference index) into each row's ``k`` best in place, a record counted once."""
    k = best.shape[1]
    values, indices = np.hstack([best, value]), np.hstack([index, found])
    order = np.argsort(values, axis=1, kind="stable")
    values, indices = np.take_along_axis(values, order, 1), np.take_along_axis(indices, order, 1)
    if k > 1:
        for j in range(1, values.shape[1]):
            values[(indices[:, :j] == indices[:, [j]]).any(axis=1), j] = np.inf
        order = np.argsort(values, axis=1, kind="stable")
        values, indices = np.take_along_axis(values, order, 1), np.take_along_axis(indices, order, 1)
    best[:], index[:] = values[:, :k], indices[:, :k]


def _within_groups(reference: np.ndarray, ref_key: np.ndarray, points: np.ndarray, pts_key: np.ndarray, k: int,
                   bound: float) -> tuple[np.ndarray, np.ndarray]:
    """Squared numeric distances and indices of each point's ``k`` nearest reference records of its own group."""
    n = len(points)
    if not reference.any() and not points.any():  # no numeric coordinate: every record of the group at 0
        order = np.argsort(np.r_[ref_key, pts_key], kind="stable")  # a group's reference records before its points
        ordered = np.r_[ref_key, pts_key][order]
        place = np.arange(len(order))
        run = np.maximum.accumulate(np.where(np.r_[True, ordered[1:] != ordered[:-1]], place, 0))
        is_ref = order < len(reference)
        refs = np.cumsum(is_ref) - np.cumsum(is_ref)[run] + is_ref[run]  # reference records of the run so far
        at_point = ~is_ref
        rows = order[at_point] - len(reference)
        index = np.full((n, k), len(reference), dtype=np.int64)
        value = np.full((n, k), np.inf)
        for j in range(k):
            has = refs[at_point] > j
            index[rows[has], j] = order[run[at_point][has] + j]
            value[rows[has], j] = 0.0
        return value, index
    if len(np.unique(ref_key)) > 1 or len(np.unique(pts_key)) > 1:
        ranks = np.unique(np.r_[ref_key, pts_key], return_inverse=True)[1].ravel()
        span = np.vstack([reference, points])
        far = 4.0 * (float(np.sqrt(np.sum((span.max(axis=0) - span.min(axis=0)) ** 2))) + 1.0)
        bound = min(bound, far / 2)
        reference = np.hstack([reference, ranks[:len(reference), None] * far])
        points = np.hstack([points, ranks[len(reference):, None] * far])
    kk = min(k, len(reference))
    d, i = _query(_tree(reference), points, kk, bound)
    value, index = np.full((n, k), np.inf), np.full((n, k), len(reference), dtype=np.int64)
    value[:, :kk], index[:, :kk] = d ** 2, i
    return value, index


def _brute_nearest(reference: _Records, points: _Records, k: int) -> np.ndarray:
    """The ``k`` smallest squared distances of each point to the reference records, every pair computed."""
    n, m = len(points.numeric), len(reference.numeric)
    best = np.full((n, k), np.inf)
    step = max(1, _BLOCK // max(m, 1))
    for start in range(0, n, step):
        stop = min(n, start + step)
        squared = ((points.numeric[start:stop, None, :] - reference.numeric[None]) ** 2).sum(axis=2)
        squared += (points.codes[start:stop, None, :] != reference.codes[None]).sum(axis=2)
        kk = min(k, m)
        best[start:stop, :kk] = np.sort(np.partition(squared, kk - 1, axis=1)[:, :kk], axis=1)
    return best


def _nearest(reference: _Records, points: _Records, k: int = 1) -> np.ndarray:
    """The distances of each point to its ``k`` nearest reference records, shape (n_points,) or (n_points, k).

    A record's squared distance is its numeric one plus the number ``h`` of categorical columns that differ; for
    each set ``S`` of columns the nearest records agreeing on ``S`` (a KD-tree on the numeric coordinates within
    each combination of ``S``) at numeric distance plus ``c - |S|`` bound their distance from above, exactly
    for ``S`` the columns they agree on: the ``k`` smallest of these over every ``S``, a record counted once,
    are the ``k`` nearest. Sets are taken largest first, a point only while ``c - |S|`` is below its ``k``-th
    best so far.
    """
    c = reference.codes.shape[1]
    if c and len(reference.numeric) * len(points.numeric) <= BRUTE_PAIRS:
        out = np.sqrt(_brute_nearest(reference, points, k))
        return out[:, 0] if k == 1 else out
    if c > MAX_SUBSET_COLUMNS:
        ref, pts = _one_hot([reference, points])
        out = _tree_nearest(ref, pts, k)
        return out[:, 0] if k == 1 else out
    from concurrent.futures import ThreadPoolExecutor

    n = len(points.numeric)
    best, index = np.full((n, k), np.inf), np.full((n, k), -1, dtype=np.int64)

    def search(agree: tuple[int, ...], todo: np.ndarray, bound: float) -> tuple[np.ndarray, np.ndarray]:
        keys = _group_keys(np.vstack([reference.codes[:, agree], points.codes[np.ix_(todo, agree)]]))
        return _within_groups(reference.numeric, keys[:len(reference.numeric)], points.numeric[todo],
                              keys[len(reference.numeric):], k, bound)

    # Without numeric columns a group's search is sorting (no KD-tree of its own threads): two subsets at a time.
    width = 2 if not reference.numeric.any() and not points.numeric.any() else 1
    with ThreadPoolExecutor(width) as pool:
        for h in range(c + 1):
            subsets = list(itertools.combinations(range(c), c - h))
            for first in range(0, len(subsets), width):
                todo = np.flatnonzero(best[:, -1] > h)
                if not todo.size:
                    break
                worst = float(best[todo, -1].max()) - h
                bound = np.sqrt(worst) * (1 + 1e-12) if np.isfinite(worst) else np.inf
                batch = subsets[first:first + width]
                for value, found in pool.map(search, batch, [todo] * len(batch), [bound] * len(batch)):
                    better = value[:, 0] + h < best[todo, -1]
                    rows, value, found = todo[better], value[better], found[better]
                    rows_best, rows_index = best[rows], index[rows]
                    _merge(rows_best, rows_index, value + h, found)
                    best[rows], index[rows] = rows_best, rows_index
    out = np.sqrt(best)
    return out[:, 0] if k == 1 else out


def _example() -> dict[str, Any]:
    return {"original": pd.DataFrame({"a": [1.0, 2.0, 4.0], "b": list("xyx")}),
            "release": pd.DataFrame({"a": [1.0, 2.5, 4.0], "b": list("xyy")}),
            "holdout": pd.DataFrame({"a": [1.5, 3.0], "b": list("yx")})}


@validate_params({"original": _FRAME, "release": _FRAME, "holdout": _FRAME, "columns": _NAMES}, example=_example)
def dcr_share(original: pd.DataFrame, release: pd.DataFrame, holdout: pd.DataFrame,
              columns: Sequence[str] | None = None) -> float:
    """Share of release records strictly nearer an original record than any holdout record (ties one half).

    Parameters
    ----------
    original : DataFrame
        The records the generator was fitted on.
    release : DataFrame
    holdout : DataFrame
        Original records the generator did not see.
    columns : sequence of str, optional

    Returns
    -------
    float
        0.5 when the release is no nearer the original than new records are; 1 for a copy.

    Examples
    --------
    >>> import pandas as pd
    >>> x = pd.DataFrame({"a": [1.0, 2.0, 3.0]})
    >>> dcr_share(x, x, pd.DataFrame({"a": [10.0, 20.0]}))
    1.0
    """
    o, r, h = _records([original, release, holdout], columns)
    to_original, to_holdout = _nearest(o, r) ** 2, _nearest(h, r) ** 2
    nearer = to_original < to_holdout * (1.0 - TIE_RTOL)
    farther = to_holdout < to_original * (1.0 - TIE_RTOL)
    return float(np.mean(np.where(nearer, 1.0, np.where(farther, 0.0, 0.5))))


@validate_params({"original": _FRAME, "release": _FRAME, "columns": _NAMES},
                 example=lambda: {k: v for k, v in _example().items() if k != "holdout"})
def nndr(original: pd.DataFrame, release: pd.DataFrame, columns: Sequence[str] | None = None) -> float:
    """Median over release records of the distance to the nearest original over that to the second nearest.

    Parameters
    ----------
    original : DataFrame
        At least two records.
    release : DataFrame
    columns : sequence of str, optional

    Returns
    -------
    float
        In [0, 1]; near 0 when release records sit on original ones; ``0 / 0`` counts 0.

    Examples
    --------
    >>> import pandas as pd
    >>> nndr(pd.DataFrame({"a": [0.0, 2.0]}), pd.DataFrame({"a": [1.0, 0.0]}))  # ratios 1 and 0
    0.5
    """
    if len(original) < 2:
        raise InputError("original: nndr needs at least two records")
    o, r = _records([original, release], columns)
    distance = _nearest(o, r, k=2)
    with np.errstate(invalid="ignore", divide="ignore"):
        ratio = np.where(distance[:, 1] > 0, distance[:, 0] / np.where(distance[:, 1] > 0, distance[:, 1], 1.0), 0.0)
    return float(np.median(ratio))


@validate_params({"original": _FRAME, "release": _FRAME, "holdout": _FRAME, "columns": _NAMES}, example=_example)
def membership_advantage(original: pd.DataFrame, release: pd.DataFrame, holdout: pd.DataFrame,
                         columns: Sequence[str] | None = None) -> float:
    """The share of original records guessed members minus the share of holdout records guessed members.

    A record is guessed a member when its distance to the nearest release
    record is below the median of those distances over the original and
    holdout records together.

    Parameters
    ----------
    original, release, holdout : DataFrame
    columns : sequence of str, optional

    Returns
    -------
    float
        In [-1, 1]; 0 when the release says nothing of who was in the original.

    Examples
    --------
    >>> import pandas as pd
    >>> x = pd.DataFrame({"a": [1.0, 2.0]})
    >>> membership_advantage(x, x, pd.DataFrame({"a": [1.5, 2.5]}))
    1.0
    """
    o, r, h = _records([original, release, holdout], columns)
    d_original, d_holdout = _nearest(r, o), _nearest(r, h)
    median = np.median(np.r_[d_original, d_holdout])
    return float(np.mean(d_original < median) - np.mean(d_holdout < median))


def _combination_codes(frames: Sequence[pd.DataFrame], keys: Sequence[str]) -> list[np.ndarray]:
    """Each record's key combination as one integer, the same across the files (a missing value a value)."""
    sizes = np.cumsum([0] + [len(f) for f in frames])
    stacked = pd.concat([f[list(keys)] for f in frames], ignore_index=True)
    codes = []
    for key, cat in zip(keys, _kinds(frames, keys), strict=True):
        if cat:
            codes.append(level_codes(stacked[key])[0])
        else:
            codes.append(pd.factorize(stacked[key].to_numpy(dtype=float), use_na_sentinel=False)[0])
    combined = np.unique(np.column_stack(codes), axis=0, return_inverse=True)[1].ravel()
    return [combined[sizes[i]:sizes[i + 1]] for i in range(len(frames))]


def _key_example() -> dict[str, Any]:
    return {"original": pd.DataFrame({"s": list("mfmf"), "t": [1, 2, 3, 3]}),
            "release": pd.DataFrame({"s": list("mffm"), "t": [1, 2, 2, 9]}), "keys": ["s"]}


@validate_params({"original": _FRAME, "release": _FRAME, "keys": ListOf(str, "a list of key names")},
                 example=_key_example)
def repu(original: pd.DataFrame, release: pd.DataFrame, keys: Sequence[str]) -> float:
    """synthpop's replicated uniques: 100 x combinations unique in both files over the original's records.

    Parameters
    ----------
    original, release : DataFrame
    keys : sequence of str
        The key variables.

    Returns
    -------
    float
        A percentage.

    Examples
    --------
    >>> import pandas as pd
    >>> original = pd.DataFrame({"k": ["a", "b", "c", "c"]})
    >>> repu(original, pd.DataFrame({"k": ["a", "b", "b"]}), ["k"])  # "a" unique in both
    25.0
    """
    _columns([original, release], keys, ["original", "release"])
    o, r = _combination_codes([original, release], keys)
    size = int(max(o.max(initial=0), r.max(initial=0))) + 1
    count_o, count_r = np.bincount(o, minlength=size), np.bincount(r, minlength=size)
    return float(100.0 * np.sum((count_o == 1) & (count_r == 1)) / len(original))


@validate_params({"original": _FRAME, "release": _FRAME, "keys": ListOf(str, "a list of key names"),
                  "target": InstanceOf(str, "a column name")},
                 example=lambda: {**_key_example(), "target": "t"})
def disco(original: pd.DataFrame, release: pd.DataFrame, keys: Sequence[str], target: str) -> float:
    """synthpop's DiSCO: 100 x the share of original records whose target the release discloses, correctly.

    An original record is disclosed when its key combination occurs in the
    release and every release record of that combination holds one target
    value, the original record's own.

    Parameters
    ----------
    original, release : DataFrame
    keys : sequence of str
    target : str
        The sensitive variable, not a key.

    Returns
    -------
    float
        A percentage.

    Examples
    --------
    >>> import pandas as pd
    >>> original = pd.DataFrame({"k": ["a", "a", "b"], "t": [1, 2, 5]})
    >>> round(disco(original, pd.DataFrame({"k": ["a", "a", "b"], "t": [1, 1, 5]}), ["k"], "t"), 6)  # rows 1, 3
    66.666667
    """
    if target in keys:
        raise InputError(f"target {target!r} is also a key")
    _columns([original, release], [*keys, target], ["original", "release"])
    o, r = _combination_codes([original, release], keys)
    t_o, t_r = _combination_codes([original, release], [target])
    size = int(max(o.max(initial=0), r.max(initial=0))) + 1
    pairs = np.unique(np.column_stack([r, t_r]), axis=0)
    values = np.bincount(pairs[:, 0], minlength=size)  # distinct target values of each combination in the release
    only = np.full(size, -1)
    only[pairs[:, 0]] = pairs[:, 1]
    return float(100.0 * np.mean((values[o] == 1) & (only[o] == t_o)))


@validate_params({"original": _FRAME, "release": _FRAME, "columns": _NAMES},
                 example=lambda: {k: v for k, v in _example().items() if k != "holdout"})
def pmse(original: pd.DataFrame, release: pd.DataFrame, columns: Sequence[str] | None = None) -> tuple[float, float]:
    """The propensity score mean squared error and its standardised ratio (:mod:`rumap.risk.propensity`).

    Parameters
    ----------
    original, release : DataFrame
    columns : sequence of str, optional

    Returns
    -------
    pmse : float
        0 when no main effect tells the files apart; ``c(1 - c)`` when they separate.
    s_pmse : float
        pMSE over its expectation under the null of one distribution (about 1 then); NaN with no column in the model.

    Examples
    --------
    >>> import pandas as pd
    >>> x = pd.DataFrame({"a": [1.0, 2.0, 3.0]})
    >>> pmse(x, x)
    (0.0, 0.0)
    """
    names = _columns([original, release], columns, ["original", "release"])
    return pmse_of(*propensity_design(original, release, names, _kinds([original, release], names)))


@dataclass(frozen=True)
class SyntheticMeasures:
    """Every measure of a release against its original that its inputs allow (``None`` for the others).

    Parameters
    ----------
    dcr_share, membership_advantage : float or None
        Need a holdout.
    nndr, pmse, s_pmse : float or None
    repu : float or None
        Needs keys.
    disco : float or None
        Needs keys and a target.
    linkage, interval_disclosure : float or None
        Need a release of the original's size (paired row by row) and a numeric column without missing values.
    common_utility : float or None
        Needs a numeric column without missing values.
    """

    dcr_share: float | None
    nndr: float | None
    membership_advantage: float | None
    repu: float | None
    disco: float | None
    pmse: float | None
    s_pmse: float | None
    linkage: float | None
    interval_disclosure: float | None
    common_utility: float | None

    def to_dict(self) -> dict[str, float | None]:
        """The measures by name."""
        return asdict(self)

    def to_frame(self) -> pd.DataFrame:
        """One row per measure: ``measure``, ``value``."""
        return pd.DataFrame({"measure": list(self.to_dict()), "value": list(self.to_dict().values())})


def _paired(original: pd.DataFrame, release: pd.DataFrame, names: Sequence[str]) -> dict[str, float | None]:
    """The masked-file measures on the numeric columns that no file misses a value of."""
    from rumap.risk.information_loss import information_loss_batch
    from rumap.risk.interval import interval_risk
    from rumap.risk.linkage import linkage_risk_distance_shared_ties

    kinds = _kinds([original, release], names)
    numeric = [n for n, cat in zip(names, kinds, strict=True)
               if not cat and not original[n].isna().any() and not release[n].isna().any()]
    out: dict[str, float | None] = {"linkage": None, "interval_disclosure": None, "common_utility": None}
    if not numeric or len(original) < 2 or len(release) < 2:
        return out
    x, y = original[numeric].to_numpy(dtype=float), release[numeric].to_numpy(dtype=float)
    out["common_utility"] = float(1.0 - information_loss_batch(x, y[None])[0])
    if len(original) == len(release):
        out["linkage"] = float(linkage_risk_distance_shared_ties(x, y))
        out["interval_disclosure"] = float(interval_risk(x, y))
    return out


@validate_params({"original": _FRAME, "release": _FRAME, "holdout": [None, _FRAME], "columns": _NAMES,
                  "keys": _NAMES, "target": [None, InstanceOf(str, "a column name")]}, example=_example)
def synthetic_measures(original: pd.DataFrame, release: pd.DataFrame, holdout: pd.DataFrame | None = None,
                       columns: Sequence[str] | None = None, keys: Sequence[str] | None = None,
                       target: str | None = None) -> SyntheticMeasures:
    """Every measure of this module that the inputs allow.

    Parameters
    ----------
    original : DataFrame
        The records the release was made from (the generator's fit).
    release : DataFrame
    holdout : DataFrame, optional
        Original records the generator did not see (``dcr_share``, ``membership_advantage``).
    columns : sequence of str, optional
        The columns compared (default: every column of the original).
    keys : sequence of str, optional
        Key variables (``repu``; with ``target``, ``disco``).
    target : str, optional

    Returns
    -------
    SyntheticMeasures

    Examples
    --------
    >>> import pandas as pd
    >>> x = pd.DataFrame({"a": [1.0, 2.0, 3.0, 4.0], "k": list("uvwu")})
    >>> m = synthetic_measures(x, x, keys=["k"])
    >>> m.nndr, m.repu, m.dcr_share, m.linkage
    (0.0, 50.0, None, 1.0)
    """
    if target is not None and keys is None:
        raise InputError("target needs keys")
    names = _columns([original, release] + ([holdout] if holdout is not None else []), columns,
                     ["original", "release", "holdout"][: 2 + (holdout is not None)])
    with_holdout = holdout is not None
    values = {
        "dcr_share": dcr_share(original, release, holdout, names) if with_holdout else None,
        "nndr": nndr(original, release, names) if len(original) >= 2 else None,
        "membership_advantage": membership_advantage(original, release, holdout, names) if with_holdout else None,
        "repu": repu(original, release, list(keys)) if keys is not None else None,
        "disco": disco(original, release, list(keys), target) if keys is not None and target is not None else None,
    }
    values["pmse"], values["s_pmse"] = pmse(original, release, names)
    return SyntheticMeasures(**values, **_paired(original, release, names))
