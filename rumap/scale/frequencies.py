"""Key frequencies of a file larger than memory: one streaming group-by, then a join of missing-value patterns.

The file is reduced to its *distinct key rows* (a missing value is a value
of its own here) with the number of records and the total weight of each, in
Polars' streaming engine. A missing key value matches any category (as in
:func:`rumap.risk.individual.key_frequencies_with_missing` and sdcMicro's
``freqCalc``): the rows are grouped by their pattern of known keys and, for
each pair of patterns, the smaller side's counts are tabulated on the keys
both patterns know and the larger side looks its values up, so that no row
is compared with every other; within one pattern the rows are distinct and
match only themselves. Every record of the file then has the frequency
``f_k`` and weighted frequency ``F_k`` of its key row, found by
:meth:`KeyFrequencies.rows` one chunk at a time.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from rumap._validation import PARAMETERS, InstanceOf, assumes_valid, validate_params
from rumap._validation.constraints import shown
from rumap.errors import InputError
from rumap.examples import persons_file
from rumap.scale.source import Source, polars_module, scan

if TYPE_CHECKING:
    import pandas as pd
    import polars as pl

__all__ = ["KeyFrequencies", "key_frequencies", "wildcard_join", "row_codes"]

_COUNT, _WEIGHT, _NUMBER = "__rumap_count", "__rumap_weight", "__rumap_number"


def _folded(codes: np.ndarray, radix: np.ndarray) -> tuple[np.ndarray, list[tuple[int, Any]]]:
    """One int64 per row of non-negative ``codes`` (each below its ``radix``), equal exactly for equal rows.

    The columns are folded in mixed radix; before the product could pass 2^62
    the partial numbers are replaced by their rank among the distinct partial
    numbers (the fold's ``steps`` record those, to encode other rows alike).
    """
    combined = np.zeros(codes.shape[0], dtype=np.int64)
    span = 1
    steps: list[tuple[int, Any]] = []
    for j in range(codes.shape[1]):
        if span * int(radix[j]) >= 2**62:
            distinct, combined = np.unique(combined, return_inverse=True)
            combined = combined.astype(np.int64).reshape(-1)
            span = int(distinct.size)
            steps.append((-1, distinct))
        combined = combined * int(radix[j]) + codes[:, j]
        span *= int(radix[j])
        steps.append((j, int(radix[j])))
    return combined, steps


def _refold(codes: np.ndarray, steps: list[tuple[int, Any]]) -> np.ndarray:
    """The numbers of :func:`_folded` for other rows, each of which occurs among the rows folded there."""
    combined = np.zeros(codes.shape[0], dtype=np.int64)
    for j, value in steps:
        if j < 0:
            combined = np.searchsorted(value, combined).astype(np.int64)
        else:
            combined = combined * value + codes[:, j]
    return combined


@assumes_valid
def wildcard_join(codes: np.ndarray, count: np.ndarray, weight: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Frequencies of distinct key rows when a missing value (code 0) matches any category.

    Parameters
    ----------
    codes : ndarray of int, shape (m, p)
        Distinct rows: code 0 is missing, 1, 2, ... the categories.
    count : ndarray, shape (m,)
        Records with each row.
    weight : ndarray, shape (m,)
        Their total weight.

    Returns
    -------
    fk : ndarray of float, shape (m,)
        Records sharing the row's key value (every row agreeing on the keys both know).
    Fk : ndarray of float, shape (m,)
        Their total weight.

    Examples
    --------
    >>> import numpy as np
    >>> fk, Fk = wildcard_join(np.array([[1, 1], [1, 2], [2, 1], [0, 1]]), np.ones(4), np.ones(4))
    >>> fk.tolist()
    [2.0, 1.0, 2.0, 3.0]
    """
    m, p = codes.shape
    if m == 0:
        return np.zeros(0), np.zeros(0)
    order, patterns, bounds = _by_pattern(codes)
    ordered = bool(np.all(order[1:] > order[:-1]))  # rows already grouped by pattern: no copy
    if ordered:
        grouped = codes
    else:
        grouped = np.empty(codes.shape, dtype=codes.dtype, order="F")
        for j in range(p):
            grouped[:, j] = codes[order, j]
    count = np.asarray(count, dtype=float)[order]
    weight = np.asarray(weight, dtype=float)[order]
    fk, Fk = count.copy(), weight.copy()  # distinct rows with the same known keys: each matches itself only
    radix = codes.max(axis=0).astype(np.int64) + 1
    for q in range(patterns.size):
        one = slice(int(bounds[q]), int(bounds[q + 1]))
        for r in range(q + 1, patterns.size):  # each pair of patterns once, both ways
            other = slice(int(bounds[r]), int(bounds[r + 1]))
            shared = int(patterns[q] & patterns[r])
            if shared == 0:
                fk[one] += count[other].sum()
                Fk[one] += weight[other].sum()
                fk[other] += count[one].sum()
                Fk[other] += weight[one].sum()
                continue
            columns = [j for j in range(p) if shared >> j & 1]
            size = one.stop - one.start
            if _fits(radix[columns]):  # the shared keys folded straight from the columns, no copy of them
                key = np.zeros(size + other.stop - other.start, dtype=np.int64)
                for j in columns:
                    key[:size] *= radix[j]
                    key[:size] += grouped[one, j]
                    key[size:] *= radix[j]
                    key[size:] += grouped[other, j]
            else:
                block = np.empty((size + other.stop - other.start, len(columns)), dtype=np.int64, order="F")
                for i, j in enumerate(columns):
                    block[:size, i] = grouped[one, j]
                    block[size:, i] = grouped[other, j]
                key = _folded(block, radix[columns])[0]
                del block
            found = _exchange(key[:size], key[size:], count[one], weight[one], count[other], weight[other])
            for (looked, weighed), into in zip(found, (one, other), strict=True):
                fk[into] += looked
                Fk[into] += weighed
    if ordered:
        return fk, Fk
    out_fk, out_Fk = np.empty(m), np.empty(m)
    out_fk[order] = fk
    out_Fk[order] = Fk
    return out_fk, out_Fk


def _by_pattern(codes: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Rows ordered by their pattern of known keys (code > 0): the order, the patterns (bit masks) and each's bounds."""
    import pandas as pd

    bits = np.zeros(codes.shape[0], dtype=np.int64)
    for j in range(codes.shape[1]):
        bits |= (codes[:, j] > 0).astype(np.int64) << j
    pattern, patterns = pd.factorize(bits)  # few patterns: a hash, then a radix sort of small integers
    del bits
    pattern = pattern.astype(np.int16 if patterns.size < 2**15 else np.int64)
    order = np.argsort(pattern, kind="stable")
    return order, np.asarray(patterns), np.searchsorted(pattern[order], np.arange(patterns.size + 1))


def _exchange(a: np.ndarray, b: np.ndarray, count_a: np.ndarray, weight_a: np.ndarray, count_b: np.ndarray,
              weight_b: np.ndarray) -> tuple[tuple[np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray]]:
    """What each row of ``a`` finds among ``b`` (count, weight) with its number, and each row of ``b`` among ``a``.

    The smaller side's distinct numbers are hashed once; the larger side is looked up in them once, for both ways.
    """
    import pandas as pd

    swap = a.size > b.size
    small, large = (b, a) if swap else (a, b)
    count_s, weight_s, count_l, weight_l = ((count_b, weight_b, count_a, weight_a) if swap
                                            else (count_a, weight_a, count_b, weight_b))
    table, where = np.unique(small, return_inverse=True)
    where = where.reshape(-1)
    at = pd.Index(table).get_indexer(large)  # -1 for a number the small side lacks: the last entry, a zero, below
    to_large = (np.append(np.bincount(where, weights=count_s, minlength=table.size), 0.0)[at],
                np.append(np.bincount(where, weights=weight_s, minlength=table.size), 0.0)[at])
    at += 1  # the misses to bin 0, dropped
    to_small = (np.bincount(at, weights=count_l, minlength=table.size + 1)[1:][where],
                np.bincount(at, weights=weight_l, minlength=table.size + 1)[1:][where])
    return (to_large, to_small) if swap else (to_small, to_large)


@validate_params({"values": InstanceOf((list, tuple), "one Series of sorted values per key")},
                 example=lambda: {"chunk": polars_module().DataFrame({"a": ["x", None]}),
                                  "keys": ["a"], "values": [polars_module().Series(["x"])]})
def row_codes(chunk: pl.DataFrame, keys: Sequence[str], values: Sequence[pl.Series]) -> np.ndarray:
    """The key codes of a chunk of records: 0 for a missing value, ``1 + i`` for ``values[j][i]``.

    Parameters
    ----------
    chunk : polars.DataFrame
        Records with the key columns.
    keys : sequence of str
        The key columns.
    values : sequence of polars.Series
        Each key's sorted distinct values.

    Returns
    -------
    ndarray of int64, shape (len(chunk), len(keys))
        Each record's values must be among ``values`` (records of the file they were found in).

    Examples
    --------
    >>> import polars as pl
    >>> row_codes(pl.DataFrame({"a": ["y", None, "x"]}), ["a"], [pl.Series(["x", "y"])]).ravel().tolist()
    [2, 0, 1]
    """
    return np.column_stack([_codes(_missing_as_null(chunk.get_column(name)), values[j])
                            for j, name in enumerate(keys)]) if keys else np.zeros((chunk.height, 0), dtype=np.int64)


def _codes(column: pl.Series, values: pl.Series) -> np.ndarray:
    """``1 + i`` for ``values[i]`` (sorted), 0 for a missing value: a binary search per value."""
    if values.len() == 0:
        return np.zeros(column.len(), dtype=np.int64)
    if values.dtype.is_integer() and int(values[-1]) - int(values[0]) <= 4 * values.len() + 4096:
        low = int(values[0])  # small integer categories: one table look-up per value
        table = np.zeros(int(values[-1]) - low + 1, dtype=np.int64)
        table[values.to_numpy().astype(np.int64) - low] = np.arange(1, values.len() + 1)
        known = column.is_not_null().to_numpy()
        codes = np.zeros(column.len(), dtype=np.int64)
        codes[known] = table[column.to_numpy()[known].astype(np.int64) - low]
        return codes
    codes = values.search_sorted(column.fill_null(values[0])).to_numpy().astype(np.int64) + 1
    codes[column.is_null().to_numpy()] = 0
    return codes


def _missing_as_null(column: pl.Series) -> pl.Series:
    """A float column's NaN as missing (pandas reads NaN as a missing value)."""
    return column.fill_nan(None) if column.dtype.is_float() else column


@dataclass(frozen=True)
class KeyFrequencies:
    """Frequencies of the distinct key rows of a file, and how to find each record's row.

    Attributes
    ----------
    keys : tuple of str
        The key variables.
    values : tuple of polars.Series
        Each key's sorted distinct values (code ``1 + i`` is ``values[j][i]``).
    codes : ndarray of int32, shape (m, p)
        The distinct key rows (0 for a missing value).
    count : ndarray of int64, shape (m,)
        Records with exactly each row.
    weight : ndarray of float, shape (m,)
        Their total weight (their number without weights).
    fk : ndarray of int64, shape (m,)
        Sample frequency of each row's key value (a missing value matching any category).
    Fk : ndarray of float, shape (m,)
        Its weighted frequency (equal to ``fk`` without weights).
    n : int
        Records in the file.
    weighted : bool
        Whether a weight column was given.
    """

    keys: tuple[str, ...]
    values: tuple[Any, ...] = field(repr=False)
    codes: np.ndarray = field(repr=False)
    count: np.ndarray = field(repr=False)
    weight: np.ndarray = field(repr=False)
    fk: np.ndarray = field(repr=False)
    Fk: np.ndarray = field(repr=False)
    n: int
    weighted: bool
    _lookup: dict = field(repr=False, compare=False, default_factory=dict)

    def _numbers(self) -> dict[str, Any]:
        """One number per distinct row (a hash index of them), its fold and the rows in key order, made once."""
        if not self._lookup:
            import pandas as pd

            number, steps = _folded(self.codes, self.codes.max(axis=0).astype(np.int64) + 1)
            self._lookup.update(index=pd.Index(number), steps=steps)
        return self._lookup

    @property
    def rows_with_missing(self) -> int:
        """Records with a missing key value."""
        return int(self.count[(self.codes == 0).any(axis=1)].sum())

    def rows(self, chunk: pl.DataFrame) -> np.ndarray:
        """The distinct row of each record of ``chunk`` (an index into ``codes``, ``fk``, ...).

        Parameters
        ----------
        chunk : polars.DataFrame
            Records of the same file, with the key columns.

        Returns
        -------
        ndarray of int, shape (len(chunk),)
        """
        return self.rows_of_codes(row_codes(chunk, self.keys, self.values))

    def rows_of_codes(self, codes: np.ndarray) -> np.ndarray:
        """The distinct row of records given by their key codes (as :func:`row_codes` makes them).

        Parameters
        ----------
        codes : ndarray of int, shape (r, p)
            Codes of rows of the same file.

        Returns
        -------
        ndarray of int, shape (r,)
        """
        lookup = self._numbers()
        return lookup["index"].get_indexer(_refold(codes, lookup["steps"]))

    def to_frame(self) -> pd.DataFrame:
        """One row per distinct key row, in the order of the key values: the values (missing where the key is), ``count``, ``fk``, ``Fk``.

        Returns
        -------
        pandas.DataFrame
        """
        import pandas as pd

        order = np.argsort(self._numbers()["index"].to_numpy(), kind="stable")  # by the key values, missing first
        frame = pd.DataFrame({name: np.asarray(self.values[j].to_list() + [None], dtype=object)[self.codes[order, j] - 1]
                              for j, name in enumerate(self.keys)})
        return frame.assign(count=self.count[order], fk=self.fk[order], Fk=self.Fk[order])

    def to_dict(self) -> dict[str, Any]:
        """The summary: records, distinct key rows, sample uniques and records with a missing key value.

        Returns
        -------
        dict
        """
        return {"n": self.n, "keys": list(self.keys), "distinct_rows": int(self.codes.shape[0]),
                "sample_uniques": int(self.count[self.fk == 1].sum()),
                "records_with_missing_keys": self.rows_with_missing, "weighted": self.weighted}


def _key_values(source: Source, frame: pl.LazyFrame, names: list[str]) -> tuple[pl.Series, ...]:
    """Each key's sorted distinct values (one streaming query)."""
    pl = polars_module()
    found = source.collect(frame.select([pl.col(k).drop_nulls().unique().sort().implode() for k in names]))
    return tuple(found[k][0] for k in names)


def _encoding(names: list[str], values: Sequence[pl.Series]) -> tuple[list[pl.Expr], list[int], list[int | None]]:
    """Each key as a small integer in the query (0 missing): the expressions, their radices and integer offsets.

    Small integer categories are coded by their offset from the least value
    (``value - offset + 1``), other values by their rank (``offset`` None).
    """
    pl = polars_module()
    parts, radix, offsets = [], [], []
    for k, v in zip(names, values, strict=True):
        low = int(v[0]) if v.len() and v.dtype.is_integer() else 0
        if v.len() and v.dtype.is_integer() and int(v[-1]) - low <= 4 * v.len() + 4096:
            parts.append((pl.col(k).cast(pl.Int64) - low + 1).fill_null(0))
            radix.append(int(v[-1]) - low + 2)
            offsets.append(low)
        else:
            parts.append(pl.col(k).replace_strict(v, pl.int_range(1, v.len() + 1, eager=True), default=0,
                                                  return_dtype=pl.Int64).fill_null(0))
            radix.append(v.len() + 1)
            offsets.append(None)
    return parts, radix, offsets


def _fits(radix: Sequence[int]) -> bool:
    """Whether rows coded in these radices fold into one int64 below 2^62."""
    return float(np.prod(np.array(radix, dtype=float))) < 2.0**62


def _number(parts: Sequence[pl.Expr], radix: Sequence[int]) -> pl.Expr:
    """The parts folded in mixed radix into one int64 per record."""
    pl = polars_module()
    number = pl.lit(0, pl.Int64)
    for part, r in zip(parts, radix, strict=True):
        number = number * r + part
    return number


def _decoded(number: np.ndarray, values: Sequence[pl.Series], radix: Sequence[int],
             offsets: Sequence[int | None]) -> np.ndarray:
    """The key codes (0 missing, ``1 + rank``) of rows folded by :func:`_number`, as int32 in Fortran order."""
    rest = number.astype(np.int64)
    codes = np.empty((rest.size, len(values)), dtype=np.int32, order="F")
    for j in range(len(values) - 1, -1, -1):
        rest, digit = np.divmod(rest, radix[j])
        if offsets[j] is None:
            codes[:, j] = digit
            continue
        lookup = np.zeros(radix[j], dtype=np.int64)  # offset + 1 -> 1 + rank among the values; 0 stays missing
        lookup[values[j].to_numpy().astype(np.int64) - offsets[j] + 1] = np.arange(1, values[j].len() + 1)
        codes[:, j] = lookup[digit]
    return codes


def _grouped(source: Source, frame: pl.LazyFrame, names: list[str], sums: list[pl.Expr],
             values: tuple[pl.Series, ...] | None = None) -> tuple[pl.DataFrame, tuple[pl.Series, ...], np.ndarray]:
    """The distinct key rows with ``sums``, each key's sorted values, and the rows' codes.

    Each key's values are found first; the keys are then folded into one
    integer per record in the query (small integers by offset, other values by
    their rank), so the streaming group-by hashes one column. Keys too many
    or too varied for one int64 are grouped as columns. Given ``values``
    (each key's values in a larger file), the rows are coded by them.
    """
    values = _key_values(source, frame, names) if values is None else values
    parts, radix, offsets = _encoding(names, values)
    if not _fits(radix):
        table = source.collect(frame.group_by(names).agg(sums))
        return table, values, np.asfortranarray(row_codes(table, names, values), dtype=np.int32)
    table = source.collect(frame.group_by(_number(parts, radix).alias(_NUMBER)).agg(sums))
    return table, values, _decoded(table[_NUMBER].to_numpy(), values, radix, offsets)


def weight_checks(weight: str) -> list[pl.Expr]:
    """Whether a record's weight is not a number >= 1 (``bad``), and their sum (``total``): one query's columns."""
    pl = polars_module()
    w = pl.col(weight).cast(pl.Float64)
    return [_bad_weight(weight).any().alias("bad"), w.sum().alias("total")]


def _bad_weight(weight: str, strict: bool = True) -> pl.Expr:
    pl = polars_module()
    w = pl.col(weight).cast(pl.Float64, strict=strict)
    return w.is_null() | w.is_nan() | w.is_infinite() | (w < PARAMETERS["sampling_weight"].low)


def _check_weight(source: Source, weight: str, summary: pl.DataFrame | None = None) -> None:
    """Refuse a weight column that is not a number >= 1 in every record, or sums past a population, naming the row.

    ``summary`` holds the columns of :func:`weight_checks` when a query already found them.
    """
    from rumap.risk.individual import MAX_POPULATION

    frame = source.lazy([weight])
    dtype = frame.collect_schema()[weight]
    if dtype.is_nested():  # lists or structs: no record holds a number
        first = source.collect(frame.head(1)).to_series().to_list()[:1]
        got = f"{shown(first[0])} in row 1" if first else f"values of type {dtype}"
        raise InputError(f"{source.path}: weight {weight!r} must be a number >= 1 in every record, got {got}")
    if not dtype.is_numeric():  # read as text: the first value that is no number (or, failing that, no weight)
        pl = polars_module()
        number = pl.col(weight).cast(pl.Float64, strict=False)
        found = source.collect(frame.with_row_index("row").filter(
            (number.is_null() & pl.col(weight).is_not_null()) | _bad_weight(weight, strict=False)).head(1))
        where = f"got {found[weight].item()} in row {found['row'].item() + 1}" if found.height else f"got {dtype}"
        raise InputError(f"{source.path}: weight {weight!r} must be a number >= 1 in every record, {where}")
    if summary is None:
        summary = source.collect(frame.select(weight_checks(weight)))
    if summary["bad"].item():
        found = source.collect(frame.with_row_index("row").filter(_bad_weight(weight)).head(1))
        raise InputError(f"{source.path}: weight {weight!r} must be a number >= 1 in every record, "
                         f"got {found[weight].item()} in row {found['row'].item() + 1}")
    total = float(summary["total"].item())
    if not total <= MAX_POPULATION:
        raise InputError(f"{source.path}: the weights {weight!r} sum to {total:.3g} population units, more than "
                         f"{MAX_POPULATION:.0e}: sampling weights count people or units, so this column is not a weight")


def check_code_column(source: Source, name: str, dtype: Any) -> None:
    """Refuse a column whose values are lists, arrays, structs or objects: a code is text or a number."""
    pl = polars_module()
    if dtype.is_nested() or dtype == pl.Object:
        raise InputError(f"{source.path}: column {name!r} holds values of type {dtype}, which are no codes: "
                         "codes are text or numbers")


def _prepared(source: Source, keys: Sequence[str], weight: str | None, extra: Sequence[str] = (),
              check_weight: bool = True) -> tuple[list[str], pl.LazyFrame]:
    """The key names and the lazy frame of the keys and ``extra`` columns (a float's NaN as missing) and weight, checked.

    The weights' values are checked later when not ``check_weight`` (:func:`weight_checks` in another query).
    """
    pl = polars_module()
    names = [str(k) for k in keys]
    if not names:
        raise InputError("keys must name at least one key variable")
    if len(set(names)) != len(names):
        raise InputError(f"{source.path}: a key variable is named twice")
    available = scan(source.path).columns
    for name in [*names, *([weight] if weight is not None else [])]:
        if name not in available:
            raise InputError(f"{source.path}: no column {name!r}; columns are {', '.join(available)}")
    if weight is not None:
        if weight in names:
            raise InputError(f"{source.path}: the weight column {weight!r} is also a key")
        if check_weight:
            _check_weight(source, weight)
        elif not source.lazy([weight]).collect_schema()[weight].is_numeric():
            _check_weight(source, weight)  # refuses it, naming the first value
    frame = source.lazy([*names, *([weight] if weight is not None else []), *extra])
    schema = frame.collect_schema()
    for name in [*names, *extra]:
        check_code_column(source, name, schema[name])
    frame = frame.with_columns([pl.col(k).fill_nan(None) for k in [*names, *extra] if schema[k].is_float()])
    return names, frame


@validate_params({"source": InstanceOf(Source), "keys": InstanceOf((list, tuple), "a list of key columns"),
                  "weight": [None, InstanceOf(str, "a column name")]},
                 example=lambda: {"source": scan(persons_file()), "keys": ["sex", "region"], "weight": "w"})
def key_frequencies(source: Source, keys: Sequence[str], weight: str | None = None) -> KeyFrequencies:
    """Sample and weighted frequencies of the key values of a file, out of core.

    Parameters
    ----------
    source : Source
        From :func:`rumap.scale.scan`.
    keys : sequence of str
        The key variables.
    weight : str, optional
        Column of sampling weights (each >= 1), refused like
        :func:`rumap.risk.individual.sampling_weights` refuses them.

    Returns
    -------
    KeyFrequencies
        ``fk`` and ``Fk`` of each distinct key row equal to what
        :func:`rumap.risk.individual.key_frequencies_with_missing` gives each
        of its records.

    Examples
    --------
    >>> result = key_frequencies(scan(persons_file()), ["sex", "region"], weight="w")
    >>> result.to_frame()[["sex", "count", "fk", "Fk"]].to_dict(orient="list")
    {'sex': ['f', 'm', 'm'], 'count': [2, 1, 1], 'fk': [2, 2, 2], 'Fk': [30.0, 13.0, 13.0]}
    >>> result.to_frame()["region"].tolist()
    ['a', nan, 'b']
    """
    names, frame = _prepared(source, keys, weight)
    pl = polars_module()
    sums = [pl.len().alias(_COUNT)]
    if weight is not None:
        sums.append(pl.col(weight).cast(pl.Float64).sum().alias(_WEIGHT))
    table, values, codes = _grouped(source, frame, names, sums)
    n = int(table[_COUNT].sum()) if table.height else 0
    if n < 1:
        raise InputError(f"{source.path} has no records")
    count = table[_COUNT].to_numpy().astype(np.int64)
    totals = table[_WEIGHT].to_numpy().astype(float) if weight is not None else count.astype(float)
    del table
    order = _by_pattern(codes)[0]  # the rows grouped by pattern once, here, so that the join copies nothing
    grouped = np.empty(codes.shape, dtype=codes.dtype, order="F")
    for j in range(codes.shape[1]):
        grouped[:, j] = codes[order, j]
    codes = grouped
    count, totals = count[order], totals[order]
    del order
    fk, Fk = wildcard_join(codes, count, totals)
    return KeyFrequencies(keys=tuple(names), values=values, codes=codes, count=count, weight=totals,
                          fk=np.rint(fk).astype(np.int64), Fk=Fk if weight is not None else np.rint(fk),
                          n=n, weighted=weight is not None)
