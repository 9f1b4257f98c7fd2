"""Cells of categorical key variables: integer codes, the cell of each record, matches with missing values.

The kernels under the categorical risk measures and protections
(:mod:`rumap.risk.individual`, :mod:`rumap.risk.keys`,
:mod:`rumap.masking.categorical`, :mod:`rumap.masking.optimal_suppression`).
They assume valid input: the callers check the file and its columns.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from itertools import combinations

import numpy as np
import pandas as pd

from rumap._validation import assumes_valid
from rumap._validation.constraints import shown
from rumap.errors import InputError

__all__ = ["key_codes", "cell_groups", "cell_frequencies", "wildcard_matches", "missing_patterns", "wildcard_frequencies",
           "class_wildcard_frequencies", "distinct_rows", "safe_cells", "pattern_count"]

#: Most cells counted by one ``bincount`` per row of a combination in :func:`safe_cells` (beyond, a hash table).
_DENSE_CELLS_PER_ROW = 4


def _hashable(value: object) -> bool:
    try:
        hash(value)
    except TypeError:
        return False
    return True


@assumes_valid
def key_codes(frame: pd.DataFrame, names: Sequence[str], source: str = "the data") -> np.ndarray:
    """Integer codes of the key variables, shape (n, len(names)); -1 marks a missing value.

    Parameters
    ----------
    frame : DataFrame
    names : sequence of str
        Columns of ``frame``.
    source : str
        The table's name in messages.

    Returns
    -------
    ndarray of int64

    Raises
    ------
    InputError
        A value that is no code (a list, a dict: unhashable), named by its column and row.

    Examples
    --------
    >>> import pandas as pd
    >>> key_codes(pd.DataFrame({"a": ["x", None, "x"]}), ["a"]).ravel().tolist()
    [0, -1, 0]
    """
    codes = np.empty((frame.shape[0], len(names)), dtype=np.int64)
    for j, name in enumerate(names):
        try:
            codes[:, j] = pd.factorize(frame[name], use_na_sentinel=True)[0]
        except TypeError:  # an unhashable value: found and named (a rare path, so a scan)
            column = frame[name]
            row = next(i for i, value in enumerate(column) if not _hashable(value))
            raise InputError(f"{source}: column {name!r} has {shown(column.iloc[row])} in row {row + 1}, which is "
                             "no code: a key's values are text or numbers") from None
    return codes


@assumes_valid
def cell_groups(codes: np.ndarray) -> np.ndarray:
    """One group number per row of non-negative codes: rows in the same cell share it.

    Parameters
    ----------
    codes : ndarray of int, shape (n, p)
        Non-negative codes (no missing value).

    Returns
    -------
    ndarray of int, shape (n,)

    Examples
    --------
    >>> import numpy as np
    >>> cell_groups(np.array([[0, 1], [2, 0], [0, 1]])).tolist()
    [0, 1, 0]
    """
    radix = codes.max(axis=0).astype(np.int64) + 1 if codes.size else np.ones(codes.shape[1], dtype=np.int64)
    if float(np.prod(radix.astype(float))) < 2.0**62:  # one integer per cell, then a hash table
        combined = np.zeros(codes.shape[0], dtype=np.int64)
        for j in range(codes.shape[1]):
            combined = combined * radix[j] + codes[:, j]
        return pd.factorize(combined)[0]
    return np.unique(codes, axis=0, return_inverse=True)[1].reshape(-1)


@assumes_valid
def cell_frequencies(codes: np.ndarray, columns: Sequence[int]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The cell of each record in the combination of ``columns``, and the cell's number of records.

    A record with a missing value in the combination is in no cell.

    Parameters
    ----------
    codes : ndarray of int, shape (n, p)
        From :func:`key_codes`.
    columns : sequence of int
        The combination's columns.

    Returns
    -------
    group : ndarray of int, shape (n,)
        The record's cell (-1 when a value is missing).
    frequency : ndarray of int, shape (n,)
        Records in the record's cell (0 when a value is missing).
    known : ndarray of bool, shape (n,)
        Records with every value of the combination.

    Examples
    --------
    >>> import numpy as np
    >>> group, frequency, known = cell_frequencies(np.array([[0, 1], [0, -1], [0, 1]]), [0, 1])
    >>> group.tolist(), frequency.tolist(), known.tolist()
    ([0, -1, 0], [2, 0, 2], [True, False, True])
    """
    sub = codes[:, list(columns)]
    known = (sub >= 0).all(axis=1)
    group = np.full(codes.shape[0], -1, dtype=np.int64)
    frequency = np.zeros(codes.shape[0], dtype=np.int64)
    if known.any():
        group[known] = cell_groups(sub[known])
        frequency[known] = np.bincount(group[known])[group[known]]
    return group, frequency, known


@assumes_valid
def wildcard_matches(codes: np.ndarray, record: int) -> np.ndarray:
    """The records that share ``record``'s key value when a missing value matches any category.

    Parameters
    ----------
    codes : ndarray of int, shape (n, p)
        From :func:`key_codes` (-1 for missing).
    record : int

    Returns
    -------
    ndarray of bool, shape (n,)

    Examples
    --------
    >>> import numpy as np
    >>> wildcard_matches(np.array([[0, 1], [0, -1], [1, 1]]), 1).tolist()
    [True, True, False]
    """
    missing = codes < 0
    return ((codes == codes[record]) | missing | missing[record]).all(axis=1)


@assumes_valid
def missing_patterns(codes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The distinct patterns of known key values and each record's pattern.

    Parameters
    ----------
    codes : ndarray of int, shape (n, p)
        From :func:`key_codes` (-1 for missing).

    Returns
    -------
    masks : ndarray of bool, shape (m, p)
        One row per distinct pattern: which keys are known.
    pattern : ndarray of int, shape (n,)
        Each record's row of ``masks``.

    Examples
    --------
    >>> import numpy as np
    >>> masks, pattern = missing_patterns(np.array([[0, 1], [0, -1], [1, 1]]))
    >>> masks.tolist(), pattern.tolist()
    ([[True, True], [True, False]], [0, 1, 0])
    """
    known = codes >= 0
    pattern = _pattern_numbers(known)
    first = np.zeros(int(pattern.max()) + 1 if pattern.size else 0, dtype=np.int64)
    first[pattern[::-1]] = np.arange(pattern.size)[::-1]
    return known[first], pattern


def _pattern_numbers(known: np.ndarray) -> np.ndarray:
    """:func:`cell_groups` of a pattern matrix (rows of bools), from one integer of bits per row."""
    if known.shape[1] == 0:
        return np.zeros(known.shape[0], dtype=np.int64)
    if known.shape[1] > 62:
        return cell_groups(known.astype(np.int64))
    bits = np.zeros(known.shape[0], dtype=np.int64)
    for j in range(known.shape[1]):
        bits |= known[:, j].astype(np.int64) << j
    return pd.factorize(bits)[0]


@assumes_valid
def pattern_count(codes: np.ndarray) -> int:
    """The distinct patterns of known key values (-1 missing) among the rows of ``codes``.

    Parameters
    ----------
    codes : ndarray of int, shape (n, p)

    Returns
    -------
    int

    Examples
    --------
    >>> import numpy as np
    >>> pattern_count(np.array([[0, -1], [1, 2], [3, -1]]))
    2
    """
    pattern = _pattern_numbers(codes >= 0)
    return int(pattern.max()) + 1 if pattern.size else 0


@assumes_valid
def wildcard_frequencies(codes: np.ndarray, weights: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Each record's frequency ``f_k`` and weighted frequency ``F_k`` when a missing value matches any category.

    Two records share a key value when they agree on every key that both
    know. Instead of comparing every record with every other (``n^2 p``
    steps), the records are grouped by their pattern of known keys: for each
    pair of patterns ``(P, Q)`` the records of ``Q`` are counted by their
    values on the keys both patterns know, and each record of ``P`` looks up
    its count. Patterns ``P`` meeting ``Q`` in the same keys share one count.
    The work is about ``m n`` for ``m`` distinct patterns (at most ``2^p``).

    Parameters
    ----------
    codes : ndarray of int, shape (n, p)
        From :func:`key_codes` (-1 for missing).
    weights : ndarray of float, shape (n,), optional
        Sampling weights (default 1 each).

    Returns
    -------
    fk : ndarray of int, shape (n,)
        Records sharing the record's key value, itself included.
    Fk : ndarray of float, shape (n,)
        Their total weight.

    Examples
    --------
    >>> import numpy as np
    >>> fk, Fk = wildcard_frequencies(np.array([[0, 0], [0, 1], [1, 0], [-1, 0]]))
    >>> fk.tolist()
    [2, 1, 2, 3]
    >>> all(int(f) == int(wildcard_matches(np.array([[0, 0], [0, 1], [1, 0], [-1, 0]]), i).sum())
    ...     for i, f in enumerate(fk))
    True
    """
    n = codes.shape[0]
    w = np.ones(n) if weights is None else np.asarray(weights, dtype=float)
    if n == 0:
        return np.zeros(0, dtype=np.int64), np.zeros(0)
    # records with the same values (and missing values) count and look up alike: work on the distinct rows
    distinct, row = distinct_rows(codes)
    count = np.bincount(row).astype(float)
    fk_rows, Fk_rows = class_wildcard_frequencies(distinct, count, np.bincount(row, weights=w))
    return np.rint(fk_rows[row]).astype(np.int64), Fk_rows[row]


@assumes_valid
def class_wildcard_frequencies(codes: np.ndarray, counts: np.ndarray, weights: np.ndarray,
                               looking: np.ndarray | None = None, block: int | None = None
                               ) -> tuple[np.ndarray, np.ndarray]:
    """:func:`wildcard_frequencies` of distinct rows, each standing for ``counts`` records of total ``weights``.

    Parameters
    ----------
    codes : ndarray of int, shape (m, p)
        Distinct rows of key codes (-1 for missing).
    counts : ndarray of float, shape (m,)
        Records each row stands for.
    weights : ndarray of float, shape (m,)
        Their total weight.
    looking : ndarray of bool, shape (m,), optional
        The rows whose frequencies are wanted (default all); the others are
        counted but get 0. The work is about ``m`` plus the patterns times the
        rows looking, instead of the patterns times ``m``.
    block : int, optional
        With ``looking``: the rows looking up their cells at once (default
        all), to bound the memory of the look-up; the sums are the same.

    Returns
    -------
    fk : ndarray of float, shape (m,)
    Fk : ndarray of float, shape (m,)

    Examples
    --------
    >>> import numpy as np
    >>> codes = np.array([[0, 0], [0, 1], [-1, 0]])
    >>> fk, Fk = class_wildcard_frequencies(codes, np.array([2.0, 1.0, 1.0]), np.array([20.0, 5.0, 10.0]))
    >>> fk.tolist(), Fk.tolist()
    ([3.0, 1.0, 3.0], [30.0, 5.0, 30.0])
    >>> class_wildcard_frequencies(codes, np.array([2.0, 1.0, 1.0]), np.ones(3), np.array([False, True, False]))[0].tolist()
    [0.0, 1.0, 0.0]
    """
    n = codes.shape[0]
    masks, pattern = missing_patterns(codes)
    order = np.argsort(pattern, kind="stable")
    starts = np.searchsorted(pattern[order], np.arange(masks.shape[0] + 1))
    members = [order[starts[q]:starts[q + 1]] for q in range(masks.shape[0])]
    seekers = members if looking is None else [rows[looking[rows]] for rows in members]
    keys = _SubsetKeys(codes)
    top = codes.max(axis=0).astype(np.int64) + 1 if n else np.ones(codes.shape[1], dtype=np.int64)
    fk = np.zeros(n)
    Fk = np.zeros(n)
    for q, mask_q in enumerate(masks):
        matched = members[q]
        shared = masks & mask_q  # the keys each pattern has in common with q
        meeting = cell_groups(shared.astype(np.int64))
        for g in range(int(meeting.max()) + 1):
            patterns = np.flatnonzero(meeting == g)
            lookers = np.concatenate([seekers[p] for p in patterns]) if patterns.size > 1 else seekers[patterns[0]]
            columns = shared[patterns[0]]
            if lookers.size == 0:
                continue
            if not columns.any():  # nothing known in common: every record of q matches
                fk[lookers] += counts[matched].sum()
                Fk[lookers] += weights[matched].sum()
                continue
            if looking is not None and _fits(top[columns]):  # few rows look: count in their cells only
                step = lookers.size if block is None else max(1, int(block))
                for start in range(0, lookers.size, step):
                    few = lookers[start:start + step]
                    found, weighed = _looked_up(codes, np.flatnonzero(columns), top, matched, few, counts, weights)
                    fk[few] += found
                    Fk[few] += weighed
                continue
            if looking is None:
                key = keys.of(columns)
                cell = pd.factorize(np.concatenate([key[matched], key[lookers]]))[0]
            else:
                cell = cell_groups(codes[np.concatenate([matched, lookers])][:, columns] + 1)
            size = int(cell.max()) + 1
            counted, looked = cell[:matched.size], cell[matched.size:]
            fk[lookers] += np.bincount(counted, weights=counts[matched], minlength=size)[looked]
            Fk[lookers] += np.bincount(counted, weights=weights[matched], minlength=size)[looked]
    return fk, Fk


def _fits(radix: np.ndarray) -> bool:
    return float(np.prod(radix.astype(float))) < 2.0**62


def _looked_up(codes: np.ndarray, columns: np.ndarray, radix: np.ndarray, matched: np.ndarray, lookers: np.ndarray,
               counts: np.ndarray, weights: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The records and weight of the ``matched`` rows in each looker's cell of ``columns`` (known in both).

    The rows' values on ``columns`` folded in mixed ``radix``; the matched
    rows are found in the sorted numbers of the lookers' cells, so that
    memory holds a few numbers per matched row. The sums run over the matched
    rows in their order, as a ``bincount`` of all their cells would.
    """
    def folded(rows: np.ndarray) -> np.ndarray:
        key = np.zeros(rows.size, dtype=np.int64)
        for j in columns:
            key *= radix[j]
            key += codes[rows, j]
        return key

    table, where = np.unique(folded(lookers), return_inverse=True)
    key = folded(matched)
    at = np.searchsorted(table, key)
    at[at == table.size] = 0
    hit = table[at] == key
    del key
    at, rows = at[hit], matched[hit]
    return (np.bincount(at, weights=counts[rows], minlength=table.size)[where.reshape(-1)],
            np.bincount(at, weights=weights[rows], minlength=table.size)[where.reshape(-1)])


@assumes_valid
def distinct_rows(codes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The distinct rows of ``codes`` (a missing value, -1, equal to a missing value), and each row's number.

    Parameters
    ----------
    codes : ndarray of int, shape (n, p)

    Returns
    -------
    distinct : ndarray of int, shape (m, p)
        In order of first appearance.
    row : ndarray of int, shape (n,)
        Each row's row of ``distinct``.

    Examples
    --------
    >>> import numpy as np
    >>> distinct, row = distinct_rows(np.array([[0, -1], [1, 0], [0, -1]]))
    >>> distinct.tolist(), row.tolist()
    ([[0, -1], [1, 0]], [0, 1, 0])
    """
    row = cell_groups(codes + 1)
    first = np.zeros(int(row.max()) + 1 if row.size else 0, dtype=np.int64)
    first[row[::-1]] = np.arange(row.size)[::-1]
    return codes[first], row


def _cells(columns: list[np.ndarray], radix: np.ndarray) -> tuple[np.ndarray, int]:
    """Each row's cell of the non-negative codes ``columns`` (each below its ``radix``), and the number of cells."""
    cells = float(np.prod(radix.astype(float)))
    if cells >= 2.0**62:
        group = cell_groups(np.column_stack(columns))
        return group, int(group.max()) + 1
    key = columns[0].astype(np.int64)
    for column, size in zip(columns[1:], radix[1:], strict=True):
        key *= int(size)
        key += column
    if cells <= max(_DENSE_CELLS_PER_ROW * key.size, 1024):  # few enough to count by the code itself
        return key.astype(np.int32) if cells < 2**31 else key, int(cells)
    # the cells numbered by a sort: a hash table (pandas.factorize) took about 60 bytes a row, this about 25
    order = np.argsort(key)
    key = key[order]
    step = np.empty(key.size, dtype=bool)
    step[0] = False
    np.not_equal(key[1:], key[:-1], out=step[1:])
    del key
    rank = np.cumsum(step, dtype=np.int32 if step.size < 2**31 else np.int64)
    del step
    group = np.empty_like(rank)
    group[order] = rank
    return group, int(rank[-1]) + 1


@assumes_valid
def safe_cells(codes: np.ndarray, counts: np.ndarray, rows: np.ndarray, threshold: int, dimension: int
               ) -> Iterator[tuple[tuple[int, ...], np.ndarray, np.ndarray]]:
    """For each combination of up to ``dimension`` keys, smallest first: which of ``rows`` may be safe in it, and are.

    A cell is safe when ``threshold`` records or more share its values. A cell
    within an unsafe one is unsafe (its records are fewer), and the records of
    a cell share every smaller cell: a combination's cells are counted only
    over the rows lying, in every sub-combination one key smaller, in a safe
    cell that holds a row of ``rows`` (as the Apriori algorithm prunes item
    sets). The work is about the rows so followed, not rows x combinations.

    Parameters
    ----------
    codes : ndarray of int, shape (m, p)
        Distinct rows of key codes (-1 for missing), of any signed integer
        type (column order saves a copy of each column).
    counts : ndarray, shape (m,)
        Records each row stands for (or as many as ``threshold``, at least).
    rows : ndarray of int
        The rows followed (sorted).
    threshold : int
    dimension : int
        Largest combination.

    Yields
    ------
    columns : tuple of int
        The combination.
    followed : ndarray of int
        The rows of ``rows`` that know its keys and lie in a safe cell of each
        smaller combination (the others are in an unsafe cell or know not).
    safe : ndarray of bool
        Whether each of ``followed`` lies in a safe cell of the combination.

    Examples
    --------
    >>> import numpy as np
    >>> codes = np.array([[0, 0], [0, 1], [1, 1], [1, 1]])
    >>> for columns, followed, safe in safe_cells(codes, np.ones(4), np.array([0, 2]), 2, 2):
    ...     print(columns, followed.tolist(), safe.tolist())
    (0,) [0, 2] [True, True]
    (1,) [0, 2] [False, True]
    (0, 1) [2] [True]
    """
    m, p = codes.shape
    by_column = [np.ascontiguousarray(codes[:, j]) for j in range(p)]  # no copy of a column-ordered array
    radix = np.maximum(codes.max(axis=0), 0).astype(np.int64) + 1 if m else np.ones(p, dtype=np.int64)
    followed_rows = np.zeros(m, dtype=bool)
    followed_rows[rows] = True
    index = np.int32 if m < 2**31 else np.int64  # row numbers, cells
    kept: dict[tuple[int, ...], np.ndarray] = {}  # a level's rows in safe cells holding a followed row, packed
    for d in range(1, dimension + 1):
        level: dict[tuple[int, ...], np.ndarray] = {}
        uses = dict.fromkeys(kept, p - d + 1)  # the combinations of this level that hold each of the last
        for columns in combinations(range(p), d):
            if d == 1:
                pool = np.flatnonzero(by_column[columns[0]] >= 0).astype(index)
            else:  # the records of a safe cell lie in safe cells of every sub-combination
                bits = kept[columns[1:]].copy()
                for j in columns[1:]:
                    bits &= kept[tuple(c for c in columns if c != j)]
                for j in columns:  # a sub-combination's rows are dropped after its last use
                    smaller = tuple(c for c in columns if c != j)
                    uses[smaller] -= 1
                    if not uses[smaller]:
                        del kept[smaller]
                pool = np.flatnonzero(np.unpackbits(bits, count=m)).astype(index)
            is_kept = np.zeros(m, dtype=bool)
            if pool.size:
                cell, size = _cells([by_column[j][pool] for j in columns], radix[list(columns)])
                mine = followed_rows[pool]
                holds = np.zeros(size, dtype=bool)
                holds[cell[mine]] = True
                if threshold <= 2:  # two records: two rows, or one row standing for two
                    safe = np.bincount(cell, minlength=size) >= threshold
                    safe[cell[counts[pool] >= threshold]] = True
                else:
                    safe = np.bincount(cell, weights=counts[pool], minlength=size) >= threshold
                yield columns, pool[mine], safe[cell[mine]]
                is_kept[pool[(holds & safe)[cell]]] = True
            level[columns] = np.packbits(is_kept)
        kept = level


class _SubsetKeys:
    """One integer per record for its values on a subset of the keys (:func:`cell_groups`), once per subset."""

    def __init__(self, codes: np.ndarray) -> None:
        self.codes = codes
        self.cache: dict[bytes, np.ndarray] = {}

    def of(self, columns: np.ndarray) -> np.ndarray:
        name = columns.tobytes()
        if name not in self.cache:  # -1 (missing) shifted to 0: the records looked up know every chosen key
            self.cache[name] = cell_groups(self.codes[:, np.flatnonzero(columns)] + 1)
        return self.cache[name]
