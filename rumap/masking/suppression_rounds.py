"""The rounds of the heuristic local suppression, on classes of records with the same key values.

:func:`rumap.masking.categorical.local_suppression` reaches k-anonymity (or a
risk threshold) by rounds: each round finds the records at risk and blanks, in
each, the key variable that occurs most often among the record's unsafe
combinations of key variables. Everything a round decides about a record
depends only on its key values (known or missing), so the rounds run here on
the distinct rows of key codes, each standing for its records, and a record
takes its class's decision. Three things keep a round's work near the number
of distinct rows rather than records x combinations:

- the wildcard frequency ``f_k`` only grows when values are blanked (a missing
  value matches more), so a class safe once stays safe: each round counts the
  frequencies of the classes at risk in the last round only
  (:func:`rumap.risk.cells.class_wildcard_frequencies` with ``looking``);
- a cell of a combination of keys is unsafe whenever a cell of a smaller
  combination it lies in is unsafe (its frequency can only be smaller), and
  the records of a cell share every smaller cell: a combination's cells are
  counted only over the classes lying in safe cells, holding a class at risk,
  of all its sub-combinations, level by level (as the Apriori algorithm
  prunes item sets; :func:`rumap.risk.cells.safe_cells`); a class's unsafe
  combinations are all its combinations minus the safe ones;
- cells of a combination whose codes span a small range are counted with one
  ``bincount``, without a hash table.

With households, a household variable blanked in one member is blanked in all
(records of one class may then part ways: the classes are formed again).

The decided suppressions are put on the records by one chunk kernel,
:func:`blank_chunk`: the file in memory is one chunk, a file read in chunks, a
cluster's ranges and a release plan's streamed step are many
(:func:`rumap.engine.run_chunks`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from math import comb
from typing import Any

import numpy as np
import pandas as pd

from rumap._validation import assumes_valid
from rumap.budget import WorkBudget
from rumap.risk.cells import class_wildcard_frequencies, distinct_rows, pattern_count, safe_cells
from rumap.risk.individual import individual_risk_kernel

__all__ = ["suppression_rounds", "blank_chunk"]

#: Classes at risk whose choice of a variable is made at once (bounds the float64 scores held).
_CHOICE_BLOCK = 1 << 16


def _index_type(size: int) -> type:
    """The integer type of indices below ``size``: 4 bytes when they fit."""
    return np.int32 if size < 2**31 - 1 else np.int64


def _unsafe_counts(codes: np.ndarray, counts: np.ndarray, rows: np.ndarray, threshold: int,
                   dimension: int) -> np.ndarray:
    """For each class in ``rows``, how often each variable occurs among its unsafe combinations.

    A combination is unsafe for a class when the class knows its keys and fewer
    than ``threshold`` records share the class's values on them. Only the cells
    of the classes in ``rows`` are counted: a combination's cells over the
    classes lying, for every sub-combination one key smaller, in a safe cell
    that holds a class of ``rows``.
    """
    p = codes.shape[1]
    known_rows = codes[rows] >= 0
    # every combination of up to `dimension` known keys that holds key j: sum over d of C(K - 1, d - 1)
    holding = np.array([sum(comb(kk - 1, d - 1) for d in range(1, min(dimension, kk) + 1)) if kk else 0
                        for kk in range(p + 1)], dtype=float)
    exact = np.float32 if holding.max() < 2**24 else np.float64  # whole numbers, exact in either
    held = holding.astype(exact)[known_rows.sum(axis=1)]
    unsafe = np.empty((p, rows.size), dtype=exact)  # one row per key
    for j in range(p):
        unsafe[j] = np.where(known_rows[:, j], held, 0)
    del known_rows, held
    position = np.full(codes.shape[0], -1, dtype=_index_type(codes.shape[0]))
    position[rows] = np.arange(rows.size)
    indicator = np.zeros(rows.size, dtype=exact)
    for columns, followed, safe in safe_cells(codes, counts, rows, threshold, dimension):
        mine = position[followed[safe]]
        if 8 * mine.size < rows.size or len(columns) == 1:  # few: subtract where they are
            for j in columns:
                unsafe[j, mine] -= 1.0
            continue
        indicator[mine] = 1.0  # many: whole rows of the table, faster than scattered updates
        for j in columns:
            np.subtract(unsafe[j], indicator, out=unsafe[j])
        indicator[mine] = 0.0
    return unsafe.T


def _distinct(codes: np.ndarray, block: int | None) -> tuple[np.ndarray, np.ndarray]:
    """:func:`rumap.risk.cells.distinct_rows`, numbered in hash parts of about ``block`` rows when given.

    Equal rows have equal numbers, so they fall in one part: each part is
    hashed on its own, and memory holds a few bytes per row and one part's
    hash table. The classes are numbered part by part (the rounds do not
    depend on the order of the classes).
    """
    m, p = codes.shape
    radix = codes.max(axis=0, initial=-1).astype(np.int64) + 2 if m else np.ones(p, dtype=np.int64)
    if block is None or m <= block or float(np.prod(radix.astype(float))) >= 2.0**62:
        return distinct_rows(codes)
    number = np.zeros(m, dtype=np.int64)
    for j in range(p):  # missing (-1) as 0
        number *= radix[j]
        number += codes[:, j]
        number += 1
    parts = -(-m // block)
    hashed = number.view(np.uint64) * np.uint64(0x9E3779B97F4A7C15)
    hashed >>= np.uint64(40)
    hashed %= np.uint64(parts)
    part = hashed.astype(np.int32)
    del hashed
    row = np.empty(m, dtype=_index_type(m))
    firsts: list[np.ndarray] = []
    for q in range(parts):
        members = np.flatnonzero(part == q)
        label, distinct = pd.factorize(number[members])
        first = np.empty(distinct.size, dtype=np.int64)
        first[label[::-1]] = members[::-1]  # each class's first row
        row[members] = label + sum(f.size for f in firsts)
        firsts.append(first)
        del members, label, distinct
    del number, part
    first = np.concatenate(firsts)
    return codes[first], row


def _summed(row: np.ndarray, values: np.ndarray | None, size: int, block: int | None) -> np.ndarray:
    """``bincount(row, weights=values, minlength=size)`` of whole numbers, a block of rows at a time when given.

    The sums of whole numbers (below 2^53) are exact in any order, so equal to one ``bincount``'s.
    """
    if block is None or values is None or row.size <= block:
        return np.bincount(row, weights=values, minlength=size)
    total = np.zeros(size)
    for start in range(0, row.size, block):
        total += np.bincount(row[start:start + block], weights=values[start:start + block], minlength=size)
    return total


def _choices(score: np.ndarray, blank: np.ndarray, rank: np.ndarray, bonus: np.ndarray) -> np.ndarray:
    """The variable each class at risk blanks: a block of classes at a time, in float64."""
    choice = np.empty(score.shape[0], dtype=np.int64)
    for start in range(0, score.shape[0], _CHOICE_BLOCK):
        part = score[start:start + _CHOICE_BLOCK].astype(np.float64)
        part[blank[start:start + _CHOICE_BLOCK]] = -np.inf  # already blank
        # most frequent in the unsafe combinations; then least important; then most categories
        choice[start:start + _CHOICE_BLOCK] = np.argmax(part * 1e6 - rank * 1e3 + bonus, axis=1)
    return choice


@assumes_valid
def suppression_rounds(codes: np.ndarray, k: int | None, max_risk: float | None, weights: np.ndarray | None,
                       rank: np.ndarray, dimension: int, members: np.ndarray | None = None,
                       shared: tuple[int, ...] = (), budget: WorkBudget | None = None,
                       progress: Callable[[str], None] | None = None, counts: np.ndarray | None = None,
                       first_fk: np.ndarray | None = None, followed: int | None = None) -> tuple[np.ndarray, int]:
    """Which key values the heuristic local suppression blanks, and its number of rounds.

    Parameters
    ----------
    codes : ndarray of int, shape (n, p)
        Key codes (-1 for missing), from :func:`rumap.risk.cells.key_codes`: one
        row per record, or per class of records with ``counts``.
    k : int or None
        Reach ``f_k >= k`` (missing values match any category).
    max_risk : float or None
        Reach individual risk at most this.
    weights : ndarray of float, shape (n,), or None
        Sampling weights (for the individual risk); with ``counts``, each
        row's total weight.
    rank : ndarray of float, shape (p,)
        The keys' importance: the least important goes first among equally frequent ones.
    dimension : int
        Largest combination of keys searched for unsafe cells.
    members : ndarray of int, shape (n,), optional
        Each row's household number, with ``shared``.
    shared : tuple of int
        Columns blanked in a whole household when blanked in one member.
    budget : WorkBudget, optional
        Checked before each round: patterns of missing values x classes x keys.
    progress : callable(str), optional
        Told what each round did.
    counts : ndarray of int, shape (n,), optional
        The records each row of ``codes`` stands for (default 1 each); with
        ``members``, rows of one household's records with the same key values.
    first_fk : ndarray, shape (n,), optional
        Each row's ``f_k`` before any suppression, when known (the file's
        key frequencies): the first round of a k-anonymity target (without
        ``max_risk``) takes it instead of counting it again.
    followed : int, optional
        Classes at risk searched for unsafe combinations at once, and rows
        hashed at once when the classes are formed (default all): memory
        holds a few numbers per class and per class followed, whatever the
        classes at risk. A class's unsafe combinations do not depend on the
        others followed with it (the records of a cell lie in the same cells
        of every smaller combination), so the result does not depend on it.

    Returns
    -------
    suppressed : ndarray of bool, shape (n, p)
    rounds : int

    Examples
    --------
    >>> import numpy as np
    >>> codes = np.array([[0, 0], [0, 0], [1, 0], [1, 1], [1, 1], [0, 2]])
    >>> suppressed, rounds = suppression_rounds(codes, 2, None, None, np.zeros(2), 2)
    >>> suppressed.sum(axis=0).tolist(), rounds
    ([0, 2], 2)
    >>> distinct = np.array([[0, 0], [1, 0], [1, 1], [0, 2]])
    >>> suppression_rounds(distinct, 2, None, None, np.zeros(2), 2, counts=np.array([2, 1, 2, 1]))[0].tolist()
    [[False, False], [False, True], [False, False], [False, True]]
    """
    n, p = codes.shape
    units = None if counts is None else np.asarray(counts)  # whole numbers: bincount adds them as floats
    categories = codes.max(axis=0).astype(np.int64) + 1
    threshold = max(k if k is not None else 1, 2)
    # a class's values as its records' codes (``codes`` itself is not changed)
    current, row = _distinct(codes, followed)
    row = row.astype(_index_type(n), copy=False)
    # a table of households: number -1 (a missing identifier, one household) indexes its last entry
    households = None if members is None else int(np.max(members, initial=-1)) + 2
    looking: np.ndarray | None = None  # the classes that may be at risk (all at first)
    rounds = 0
    while rounds <= p * n:  # each round blanks at least one value, so this ends
        rounds += 1
        counts = _summed(row, units, current.shape[0], followed)
        weight = counts if weights is None else np.bincount(row, weights=weights, minlength=current.shape[0])
        if budget is not None:
            patterns = pattern_count(current)
            budget.check_work(float(patterns) * current.shape[0] * p,
                              f"{patterns} patterns of missing key values x {current.shape[0]} classes of records "
                              f"x {p} keys")
        if rounds == 1 and k is not None and max_risk is None:  # a class of k records or more is k-anonymous
            looking = counts < k
        if rounds == 1 and first_fk is not None and k is not None and max_risk is None:
            fk = np.zeros(current.shape[0])
            fk[row] = first_fk  # rows with the same values have the same f_k
            first_fk = None
        else:
            fk, Fk = class_wildcard_frequencies(current, counts, weight, looking, followed)
        at_risk = np.zeros(current.shape[0], dtype=bool) if k is None else fk < k
        if looking is not None:
            at_risk &= looking
        if max_risk is not None:
            risk = 1.0 / np.maximum(fk, 1.0) if weights is None \
                else individual_risk_kernel(np.maximum(fk, 1.0), np.maximum(Fk, fk))
            at_risk |= risk > max_risk
        fk = Fk = None
        rows = np.flatnonzero(at_risk & (current >= 0).any(axis=1))
        if progress is not None:
            progress(f"round {rounds}: {int(counts[rows].sum())} records in {rows.size} classes at risk "
                     f"({current.shape[0]} classes)")
        if rows.size == 0:
            break
        choice = np.empty(rows.size, dtype=np.int64)
        step = rows.size if followed is None else max(1, -(-rows.size // -(-rows.size // max(1, followed))))
        for start in range(0, rows.size, step):
            part = rows[start:start + step]
            choice[start:start + step] = _choices(_unsafe_counts(current, counts, part, threshold, dimension),
                                                  current[part] < 0, rank, categories / (categories.max() + 1.0))
        current[rows, choice] = -1
        del choice
        sources = np.arange(current.shape[0])
        if households is not None:  # a household variable goes for the whole household
            for j in shared:
                value = current[row, j]
                blank = (value < 0) & (codes[:, j] >= 0)
                hit = np.zeros(households, dtype=bool)
                hit[members[blank]] = True  # the households with a member's value blanked
                spread = hit[members] & ~blank & (value >= 0)
                del value, blank, hit
                if spread.any():
                    moved, where = np.unique(row[spread], return_inverse=True)
                    extra = current[moved]
                    extra[:, j] = -1
                    row = row.copy()
                    row[spread] = current.shape[0] + where.reshape(-1)
                    current = np.concatenate([current, extra])
                    sources = np.concatenate([sources, sources[moved]])
                del spread
        current, group = _distinct(current, followed)
        group = group.astype(row.dtype, copy=False)
        row = group[row]
        live = np.bincount(row, minlength=current.shape[0]) > 0
        if not live.all():  # a class whose records all left for their household's blanks
            renumber = (np.cumsum(live) - 1).astype(row.dtype)
            current, row, group = current[live], renumber[row], np.where(live[group], renumber[group], -1)
        if k is not None and max_risk is None:  # f_k never falls: only the classes at risk now can stay at risk
            looking = np.zeros(current.shape[0], dtype=bool)
            still = group[at_risk[sources]]
            looking[still[still >= 0]] = True
    suppressed = np.empty((n, p), dtype=bool)
    for j in range(p):
        suppressed[:, j] = (current[row, j] < 0) & (codes[:, j] >= 0)
    return suppressed, rounds


@assumes_valid
def blank_chunk(chunk: Any, names: Sequence[str], blank: np.ndarray, copy: bool = True) -> Any:
    """Local suppression's one chunk kernel: a chunk's records with the chosen key values set missing.

    A pandas chunk's keys become objects (text as read, a blank ``NaN``), as
    :func:`rumap.masking.categorical.local_suppression` leaves them; a Polars
    chunk's keys keep their type, a blank null.

    Parameters
    ----------
    chunk : pandas.DataFrame or polars.DataFrame
        The records.
    names : sequence of str
        The key variables.
    blank : ndarray of bool, shape (records, len(names))
        Which of each record's key values are suppressed.
    copy : bool
        Blank a copy of a pandas chunk (False: the chunk itself).

    Returns
    -------
    DataFrame
        The chunk with the values blanked.

    Examples
    --------
    >>> frame = pd.DataFrame({"sex": ["f", "m"], "region": ["a", "b"]})
    >>> blank_chunk(frame, ["sex", "region"], np.array([[True, False], [False, False]])).to_dict("list")
    {'sex': [nan, 'm'], 'region': ['a', 'b']}
    """
    if not isinstance(chunk, pd.DataFrame):
        import polars as pl

        return chunk.with_columns([pl.when(pl.lit(pl.Series(blank[:, j]))).then(None).otherwise(pl.col(name))
                                   .alias(name) for j, name in enumerate(names) if blank[:, j].any()])
    frame = chunk.copy() if copy else chunk
    for j, name in enumerate(names):
        frame[name] = frame[name].astype(object)
        if blank[:, j].any():
            frame.loc[blank[:, j], name] = np.nan
    return frame
