"""Key frequencies and l-diversity a partition of the distinct key rows at a time: memory bounded by the chunk.

The distinct key rows of a file are split into ``P`` partitions by a hash of
the *partition keys*, the keys that no record misses (or, when every key
misses some value, the key that misses fewest). Two key rows match (agree on
every key both know) only if they agree on the partition keys, so a row
known on them finds all its matches in its own partition; the rows missing a
partition key (the *wild* rows) match rows of every partition, and are joined
with each. Each pass scans the file filtered to one partition, so the
streaming group-by and the join of missing-value patterns hold about
``distinct / P`` rows, plus the wild rows:

- a row of partition ``p`` gets its frequencies and l-diversity from the
  join of partition ``p`` with the wild rows, exactly;
- a wild row's frequency is what the wild rows alone give it plus, for each
  partition, what that partition's rows add (the join of ``p`` with the wild
  rows less the wild rows' own part); its l-diversity is the number of
  distinct sensitive values over the union of the partitions' pairs.

:func:`partition_count` chooses ``P`` so that a partition holds at most
about ``chunk_size`` records' rows; :func:`blocks` yields the partitions'
rows with their exact results, the wild rows last.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, NamedTuple

import numpy as np

from rumap._validation import assumes_valid
from rumap.errors import InputError
from rumap.scale.frequencies import (
    _COUNT,
    _NUMBER,
    _WEIGHT,
    KeyFrequencies,
    _by_pattern,
    _check_weight,
    _decoded,
    _encoding,
    _fits,
    _folded,
    _grouped,
    _number,
    row_codes,
    weight_checks,
    wildcard_join,
)
from rumap.scale.source import Source, polars_module

if TYPE_CHECKING:
    import polars as pl

__all__ = ["partition_count", "Survey", "survey", "fits_partitions", "blocks", "diversity_pairs", "Pairs", "folded_rows", "RowTable"]

#: The seed of the partition hash (any fixed value: a partition is a set of rows within one run).
_SEED = 20_240_611


@assumes_valid
def partition_count(n: int, chunk_size: int) -> int:
    """Partitions of ``n`` distinct key rows (at most the records) so that each holds about ``chunk_size`` of them at most.

    Parameters
    ----------
    n : int
        Distinct key rows, or records (an upper bound).
    chunk_size : int
        Records per chunk.

    Returns
    -------
    int

    Examples
    --------
    >>> partition_count(10_000_000, 1_000_000), partition_count(500, 1_000_000)
    (10, 1)
    """
    return max(1, math.ceil(n / max(1, chunk_size)))


@assumes_valid
def folded_rows(codes: np.ndarray, values: Sequence[pl.Series]) -> np.ndarray:
    """One int64 per row of key codes (:func:`rumap.scale.row_codes`), the same in every partition.

    The codes in mixed radix ``len(values[j]) + 1``, below 2^62 when
    :func:`fits_partitions` holds.

    Parameters
    ----------
    codes : ndarray of int, shape (m, p)
    values : sequence of polars.Series
        Each key's sorted values.

    Returns
    -------
    ndarray of int64, shape (m,)

    Examples
    --------
    >>> import numpy as np, polars as pl
    >>> folded_rows(np.array([[1, 0], [2, 3]]), [pl.Series(["x", "y"]), pl.Series([1, 2, 3])]).tolist()
    [4, 11]
    """
    return _folded(codes, np.array([v.len() + 1 for v in values], dtype=np.int64))[0]


@dataclass(frozen=True)
class RowTable:
    """Every distinct key row's values, sorted by its number, to look up each record of a chunk.

    Attributes
    ----------
    keys : tuple of str
    values : tuple of polars.Series
        Each key's sorted values (the codes' meaning).
    numbers : ndarray of int64
        The rows' :func:`folded_rows`, sorted.
    fk, Fk : ndarray
        Their frequencies.
    """

    keys: tuple[str, ...]
    values: tuple = field(repr=False)
    numbers: np.ndarray = field(repr=False)
    fk: np.ndarray = field(repr=False)
    Fk: np.ndarray = field(repr=False)

    def rows(self, chunk: pl.DataFrame) -> np.ndarray:
        """The row of each record of ``chunk`` (an index into ``numbers``, ``fk``, ...).

        Parameters
        ----------
        chunk : polars.DataFrame
            Records of the file, with the key columns.

        Returns
        -------
        ndarray of int, shape (len(chunk),)
        """
        return np.searchsorted(self.numbers, folded_rows(row_codes(chunk, self.keys, self.values), self.values))


def _table(source: Source, frame: pl.LazyFrame, number: pl.Expr, sums: list[pl.Expr], values: Sequence[pl.Series],
           radix: Sequence[int], offsets: Sequence[int | None], weighted: bool
           ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The distinct key rows of ``frame``'s records: codes, record counts and total weights, grouped by pattern."""
    table = source.collect(frame.group_by(number.alias(_NUMBER)).agg(sums))
    codes = _decoded(table[_NUMBER].to_numpy(), values, radix, offsets)
    count = table[_COUNT].to_numpy().astype(np.int64)
    weight = table[_WEIGHT].to_numpy().astype(float) if weighted else count.astype(float)
    del table
    order = _by_pattern(codes)[0]
    ordered = np.empty(codes.shape, dtype=codes.dtype, order="F")  # the rows in order, by columns, in one copy
    np.take(codes, order, axis=0, out=ordered)
    return ordered, count[order], weight[order]


def _block(names: Sequence[str], values: tuple, codes: np.ndarray, count: np.ndarray, weight: np.ndarray,
           fk: np.ndarray, Fk: np.ndarray, n: int, weighted: bool) -> KeyFrequencies:
    return KeyFrequencies(keys=tuple(names), values=values, codes=codes, count=count, weight=weight,
                          fk=np.rint(fk).astype(np.int64), Fk=Fk if weighted else np.rint(fk), n=n,
                          weighted=weighted)


class Survey(NamedTuple):
    """What one pass over a file finds: its records, each column's values, each key's missing values, its distinct rows.

    Parameters
    ----------
    n : int
    values : tuple of polars.Series
        Each key's (and the sensitive variable's) sorted distinct values.
    missing : list of int
        Each key's missing values.
    distinct : int
        The distinct rows of the keys (and the sensitive variable),
        estimated by HyperLogLog: within a few percent, to choose the
        number of partitions, never to count.
    """

    n: int
    values: tuple
    missing: list
    distinct: int


@assumes_valid
def survey(source: Source, frame: pl.LazyFrame, names: list[str], sensitive: str | None = None,
           weight: str | None = None) -> Survey:
    """One streaming pass: the records, each key's values and missing values, the distinct rows, the weights' checks.

    Parameters
    ----------
    source : Source
    frame : polars.LazyFrame
        The keys (a float's NaN as missing), ``sensitive`` and ``weight``.
    names : list of str
    sensitive : str, optional
    weight : str, optional
        A numeric column, refused unless every value is >= 1 and their sum a population.

    Returns
    -------
    Survey

    Examples
    --------
    >>> from rumap.examples import persons_file
    >>> from rumap.scale.source import scan
    >>> found = survey(scan(persons_file()), scan(persons_file()).lazy(), ["sex", "region"], weight="w")
    >>> found.n, [v.to_list() for v in found.values], found.missing, found.distinct
    (4, [['f', 'm'], ['a', 'b']], [0, 1], 3)
    """
    pl = polars_module()
    columns = [*names, *([sensitive] if sensitive is not None else [])]
    # a Parquet file's values one column per query: Polars' streaming reader held every column's row groups at once
    apart = source.format == "parquet"
    found = source.collect(frame.select([pl.len().alias(_COUNT), pl.struct(columns).hash(_SEED).approx_n_unique()
                                         .alias(_NUMBER), *(weight_checks(weight) if weight is not None else [])]
                                        + [pl.col(k).null_count().alias(f"{k}\0") for k in names]
                                        + ([] if apart else [pl.col(k).drop_nulls().unique().sort().implode()
                                                             for k in columns])))
    if weight is not None:
        _check_weight(source, weight, found)
    n = int(found[_COUNT].item())
    if n < 1:
        raise InputError(f"{source.path} has no records")
    values = tuple(source.collect(frame.select(pl.col(k).drop_nulls().unique())).get_column(k).sort() if apart
                   else found[k][0] for k in columns)
    return Survey(n, values, [int(found[f"{k}\0"].item()) for k in names], int(found[_NUMBER].item()))


@assumes_valid
def fits_partitions(names: list[str], values: Sequence[pl.Series]) -> bool:
    """Whether rows of these keys' ``values`` fold into one int64 (in the query and as codes), which partitions need.

    Parameters
    ----------
    names : list of str
    values : sequence of polars.Series

    Returns
    -------
    bool

    Examples
    --------
    >>> import polars as pl
    >>> fits_partitions(["a"], [pl.Series(["x", "y"])])
    True
    """
    return _fits(_encoding(names, values)[1])


@assumes_valid
def blocks(source: Source, names: list[str], frame: pl.LazyFrame, weight: str | None, partitions: int,
           plan: Survey, sensitive: str | None = None) -> Iterator[tuple[KeyFrequencies, np.ndarray | None]]:
    """The distinct key rows a partition at a time, with their exact frequencies (and l-diversity of ``sensitive``).

    Parameters
    ----------
    source : Source
    names : list of str
        The key columns (checked).
    frame : polars.LazyFrame
        The keys (a float's NaN as missing), the weight and ``sensitive``.
    weight : str or None
    partitions : int
    plan : tuple
        What :func:`survey` found in ``frame`` (with ``sensitive``).
    sensitive : str, optional

    Yields
    ------
    KeyFrequencies, ndarray or None
        A partition's rows (``n`` the file's records) with their ``fk`` and
        ``Fk`` (a missing value matching any category), and the distinct
        l-diversity of each; the wild rows come last. The rows' ``values`` are
        the file's, so codes and :func:`folded_rows` agree across partitions.

    Examples
    --------
    >>> from rumap.examples import persons_file
    >>> from rumap.scale.source import scan
    >>> source = scan(persons_file())
    >>> plan = survey(source, source.lazy(), ["sex", "region"])
    >>> [(b.fk.tolist(), b.Fk.tolist()) for b, _ in blocks(source, ["sex", "region"], source.lazy(), "w", 2, plan)]
    [([2, 2], [13.0, 13.0]), ([2], [30.0]), ([], [])]
    """
    pl = polars_module()
    n, values, missing, _ = plan
    key_values = values[: len(names)]
    parts, radix, offsets = _encoding(names, key_values)
    split = [j for j in range(len(names)) if missing[j] == 0] or [int(np.argmin(missing))]
    known = pl.all_horizontal([pl.col(names[j]).is_not_null() for j in split])
    part = _number([parts[j] for j in split], [radix[j] for j in split]).hash(_SEED) % partitions
    number = _number(parts, radix)
    sums = [pl.len().alias(_COUNT)]
    if weight is not None:
        sums.append(pl.col(weight).cast(pl.Float64).sum().alias(_WEIGHT))
    weighted = weight is not None
    if any(missing[j] for j in split):
        wild = _table(source, frame.filter(~known), number, sums, key_values, radix, offsets, weighted)
    else:  # every record knows the partition keys: no pass for the wild rows
        wild = (np.zeros((0, len(names)), dtype=np.int32, order="F"), np.zeros(0, dtype=np.int64), np.zeros(0))
    wild_fk, wild_Fk = wildcard_join(*wild)
    added_fk, added_Fk = np.zeros(wild_fk.size), np.zeros(wild_Fk.size)
    wild_pairs: list[Pairs] = []
    for p in range(partitions):
        mine = frame.filter(known & (part == p))
        codes, count, total = _table(source, mine, number, sums, key_values, radix, offsets, weighted)
        m = count.size
        if wild[1].size:
            both = (np.asfortranarray(np.vstack([codes, wild[0]])), np.concatenate([count, wild[1]]),
                    np.concatenate([total, wild[2]]))
        else:  # no wild rows: the partition's own, as they are
            both = (codes, count, total)
        del codes, count, total
        fk, Fk = wildcard_join(*both)
        added_fk += fk[m:] - wild_fk  # what this partition's rows add to each wild row
        added_Fk += Fk[m:] - wild_Fk
        diversity = None
        if sensitive is not None:
            joined = _block(names, key_values, *both, fk, Fk, n, weighted)
            pairs = diversity_pairs(source, frame.filter((known & (part == p)) | ~known), joined, sensitive, values)
            diversity = pairs.part(0, m).counts(m)
            wild_pairs.append(pairs.part(m, m + wild[1].size))
            del joined, pairs
        yield _block(names, key_values, both[0][:m], both[1][:m], both[2][:m], fk[:m], Fk[:m], n, weighted), diversity
        del both, fk, Fk
    diversity = Pairs.union(wild_pairs, wild[1].size).counts(wild[1].size) if sensitive is not None else None
    yield _block(names, key_values, *wild, wild_fk + added_fk, wild_Fk + added_Fk, n, weighted), diversity


@dataclass(frozen=True)
class Pairs:
    """The sensitive values each key row's group holds: a bit mask per row (up to 63 values), else pair numbers.

    Parameters
    ----------
    levels : int
        One more than the sensitive values' codes (1, 2, ...).
    masks : ndarray of uint64, optional
        Bit ``v`` of row ``i``'s mask is set when its group holds value ``v`` (``levels <= 64``).
    numbers : ndarray of int64, optional
        Otherwise: the sorted distinct ``row * levels + value``.
    """

    levels: int
    masks: np.ndarray | None = field(default=None, repr=False)
    numbers: np.ndarray | None = field(default=None, repr=False)

    def counts(self, m: int) -> np.ndarray:
        """The distinct l-diversity of rows ``0 .. m - 1``.

        Parameters
        ----------
        m : int

        Returns
        -------
        ndarray of int64, shape (m,)
        """
        if self.masks is not None:
            return np.bitwise_count(self.masks).astype(np.int64)
        return np.bincount(self.numbers // self.levels, minlength=m).astype(np.int64)

    def part(self, start: int, stop: int) -> Pairs:
        """The pairs of rows ``start .. stop - 1``, numbered from 0.

        Parameters
        ----------
        start, stop : int

        Returns
        -------
        Pairs
        """
        if self.masks is not None:
            return Pairs(self.levels, masks=self.masks[start:stop])
        row = self.numbers // self.levels
        return Pairs(self.levels, numbers=self.numbers[(row >= start) & (row < stop)] - start * self.levels)

    @staticmethod
    def union(parts: Sequence[Pairs], m: int) -> Pairs:
        """The values the same ``m`` rows' groups hold in any of ``parts`` (of one ``levels``).

        Parameters
        ----------
        parts : sequence of Pairs
        m : int

        Returns
        -------
        Pairs
        """
        levels = parts[0].levels
        if parts[0].masks is not None:
            return Pairs(levels, masks=np.bitwise_or.reduce([p.masks for p in parts], axis=0)
                         if parts else np.zeros(m, dtype=np.uint64))
        return Pairs(levels, numbers=np.unique(np.concatenate([p.numbers for p in parts])))


@assumes_valid
def diversity_pairs(source: Source, frame: pl.LazyFrame, frequencies: KeyFrequencies, sensitive: str,
                    values: tuple | None = None) -> Pairs:
    """The distinct sensitive values each key row's group holds (its records and those matching it).

    A missing key value matches any category and missing sensitive values are
    not counted. ``frame``'s records are reduced to their distinct (key row,
    sensitive value) pairs; for each pair of missing-value patterns the pairs
    are joined on the keys both know: up to 63 values as a bit mask per row
    (or of the pairs' key), more as numbers ``row * levels + value``.

    Parameters
    ----------
    source : Source
    frame : polars.LazyFrame
        Records with the keys and ``sensitive`` (a float's NaN as missing),
        each of whose key rows is among ``frequencies``' rows.
    frequencies : KeyFrequencies
        Key rows, coded by the file's values.
    sensitive : str
    values : tuple of polars.Series, optional
        The file's values of each key and of ``sensitive`` (default: found in ``frame``).

    Returns
    -------
    Pairs

    Examples
    --------
    >>> from rumap.scale import key_frequencies, scan
    >>> from rumap.examples import persons_file
    >>> source = scan(persons_file())
    >>> diversity_pairs(source, source.lazy(), key_frequencies(source, ["sex"]), "region").counts(2).tolist()
    [1, 1]
    """
    pl = polars_module()
    keys = list(frequencies.keys)
    m = frequencies.codes.shape[0]
    _, seen, both = _grouped(source, frame.filter(pl.col(sensitive).is_not_null()), [*keys, sensitive], [pl.len()],
                             values)
    levels = (int(both[:, -1].max()) + 1 if both.shape[0] else 1) if values is None else values[-1].len() + 1
    if both.shape[0] == 0:
        return Pairs(levels, masks=np.zeros(m, dtype=np.uint64)) if levels <= 64 else Pairs(
            levels, numbers=np.zeros(0, dtype=np.int64))
    if values is None:
        for j in range(len(keys)):  # the pairs' codes of a key's values, as the whole file codes them
            if seen[j].len():
                recode = np.concatenate([[0], frequencies.values[j].search_sorted(seen[j]).to_numpy() + 1])
                both[:, j] = recode[both[:, j]]
    row = frequencies.rows_of_codes(both[:, :-1])
    value = both[:, -1].astype(np.int64)
    del both
    import pandas as pd

    codes = frequencies.codes
    order, patterns, bounds = _by_pattern(codes)
    pattern = np.empty(m, dtype=np.int64)
    for q in range(patterns.size):
        pattern[order[bounds[q]:bounds[q + 1]]] = q
    radix = codes.max(axis=0).astype(np.int64) + 1
    rows_of = [np.sort(order[bounds[q]:bounds[q + 1]]) for q in range(patterns.size)]
    pairs_of = _members(pattern[row], patterns.size)
    masked = levels <= 64
    if masked:
        bits = np.left_shift(np.uint64(1), value.astype(np.uint64))
        masks = np.zeros(m, dtype=np.uint64)
        np.bitwise_or.at(masks, row, bits)
    else:
        found = [row * levels + value]  # one number per (key row, sensitive value) a row's group holds
    for q, mask_q in enumerate(patterns):
        mine = pairs_of[q]
        for r, mask_r in enumerate(patterns):
            lookers = rows_of[r]
            if q == r or mine.size == 0 or lookers.size == 0:
                continue
            shared = int(mask_q & mask_r)
            if shared == 0:
                if masked:
                    masks[lookers] |= np.bitwise_or.reduce(bits[mine])
                else:
                    seen_values = np.unique(value[mine])
                    found.append((lookers[:, None] * levels + seen_values[None, :]).reshape(-1))
                continue
            columns = [j for j in range(codes.shape[1]) if shared >> j & 1]
            block = np.empty((rows_of[q].size + lookers.size, len(columns)), dtype=np.int64, order="F")
            for i, j in enumerate(columns):
                block[:, i] = np.concatenate([codes[rows_of[q], j], codes[lookers, j]])
            key = _folded(block, radix[columns])[0]
            del block
            theirs = key[: rows_of[q].size][np.searchsorted(rows_of[q], row[mine])]  # each pair's row's number
            ours = key[rows_of[q].size:]
            if masked:  # the values of each key the pairs hold, looked up by the lookers
                distinct, where = np.unique(theirs, return_inverse=True)
                held = np.zeros(distinct.size, dtype=np.uint64)
                np.bitwise_or.at(held, where.reshape(-1), bits[mine])
                at = pd.Index(distinct).get_indexer(ours)
                hit = at >= 0
                masks[lookers[hit]] |= held[at[hit]]
                continue
            meeting = pd.Series(ours).isin(theirs).to_numpy()  # only the lookers some pair matches
            table = pl.DataFrame({"key": theirs, "value": value[mine]}).unique()
            joined = pl.DataFrame({"row": lookers[meeting], "key": ours[meeting]}).join(table, on="key")
            found.append(joined["row"].to_numpy().astype(np.int64) * levels + joined["value"].to_numpy())
    if masked:
        return Pairs(levels, masks=masks)
    return Pairs(levels, numbers=np.unique(np.concatenate(found)))


def _members(group: np.ndarray, groups: int) -> list[np.ndarray]:
    """The indices of each group's members, for groups numbered ``0 .. groups - 1``."""
    order = np.argsort(group, kind="stable")
    starts = np.searchsorted(group[order], np.arange(groups + 1))
    return [order[starts[g]:starts[g + 1]] for g in range(groups)]
