"""SUDA2 of a file larger than memory: the search on the distinct key rows, the scores written chunk by chunk.

Every result of SUDA2 (:mod:`rumap.risk.suda`) depends on a record's key
values only: only a record whose whole key (a missing value a value of its
own) no other record shares can have a minimal sample unique, and the search
already runs on the distinct key rows with their numbers of records. Here the
distinct rows and their counts come from one streaming group-by
(:func:`rumap.scale.key_frequencies`), the search and the scores run on them,
and each record takes its row's values in a chunked pass
(:func:`rumap.scale.apply_chunks`) that writes them to a file: memory
follows the number of distinct key rows, not the number of records.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from math import comb
from typing import TYPE_CHECKING, Any

import numpy as np

from rumap._validation import Boolean, InstanceOf, validate_params
from rumap.budget import DEFAULT_BUDGET, WorkBudget
from rumap.errors import InputError
from rumap.examples import persons_file
from rumap.risk.suda import (
    DEFAULT_DIS_FRACTION,
    DEFAULT_MAX_SIZE,
    row_msus,
    row_scores,
    searched_size,
    smallest_msu,
    suda_weights,
    variable_table,
)
from rumap.scale.frequencies import _encoding, _fits, _key_values, _number, _prepared, key_frequencies
from rumap.scale.passes import apply_chunks
from rumap.scale.source import (
    DEFAULT_CHUNK_SIZE,
    Progress,
    Source,
    check_out,
    polars_module,
    scan,
)

if TYPE_CHECKING:
    import polars as pl

__all__ = ["FileSuda", "suda_file"]


@dataclass(frozen=True)
class FileSuda:
    """SUDA2 of a file: the totals of :class:`rumap.risk.suda.SudaResult` (each record's values went to a file).

    Attributes
    ----------
    keys : tuple of str
    max_size : int
        Largest MSU size searched.
    dis_fraction : float
    n : int
        Records.
    distinct_rows : int
        Distinct key rows searched.
    msus_by_size : tuple of int
        MSUs of each size, 1 to ``max_size``, over the file.
    special_uniques : int
        Records with at least one MSU.
    sample_uniques : int
    dis : float
        The file's DIS risk.
    variables : tuple of (str, int)
        Per key variable, the MSUs that include it, most first.
    max_score, max_dis_score : float
        The highest SUDA and DIS scores.
    out : str or None
        The file of each record's ``msus``, ``smallest_msu``, ``score`` and ``dis_score``.
    """

    keys: tuple[str, ...]
    max_size: int
    dis_fraction: float
    n: int
    distinct_rows: int
    msus_by_size: tuple[int, ...]
    special_uniques: int
    sample_uniques: int
    dis: float
    variables: tuple[tuple[str, int], ...]
    max_score: float
    max_dis_score: float
    out: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """The totals of :meth:`rumap.risk.suda.SudaResult.to_dict`, the highest scores and the file written
        (``records_out``), as :meth:`rumap.scale.ScaleRisk.to_dict` names it."""
        return {"n": self.n, "keys": list(self.keys), "max_size": self.max_size, "dis_fraction": self.dis_fraction,
                "msus_by_size": {str(k + 1): int(c) for k, c in enumerate(self.msus_by_size)},
                "special_uniques": self.special_uniques, "sample_uniques": self.sample_uniques, "dis": self.dis,
                "variables": [{"variable": v, "msus": int(c)} for v, c in self.variables],
                "max_score": self.max_score, "max_dis_score": self.max_dis_score,
                "distinct_rows": self.distinct_rows, "engine": "scale", "records_out": self.out}

    def to_frame(self) -> Any:
        """MSUs per key variable, most first."""
        import pandas as pd

        return pd.DataFrame(list(self.variables), columns=["variable", "msus"])


#: Records counted per distinct key row, at most: SUDA2 asks only whether a row holds 1, 2 or more records.
_COUNT_CAP = 3


def _count_type(most: int) -> type:
    """The smallest unsigned integer type holding ``most``."""
    return next(t for t in (np.uint8, np.uint16, np.uint32) if most <= np.iinfo(t).max) if most < 2**32 else np.int64


@dataclass
class _KeyRows:
    """The distinct key rows of a file: how to code them for the search and how to find each record's row.

    ``number`` holds one sorted int64 per distinct row (the keys folded in
    mixed ``radix``, 0 for a missing value), or is None when the keys are
    too many or too varied for one int64 (then ``frequencies`` holds the rows).
    """

    names: list[str]
    count: np.ndarray
    n: int
    number: np.ndarray | None = None
    radix: tuple[int, ...] = ()
    encode: Any = None
    frequencies: Any = None

    def codes(self) -> np.ndarray:
        """The rows' codes in the smallest signed type, -1 for a missing value, one contiguous column per key."""
        if self.number is None:
            wide = self.frequencies.codes
            codes = np.empty(wide.shape, dtype=_signed_type(int(wide.max(initial=0))), order="F")
            for j in range(wide.shape[1]):
                codes[:, j] = wide[:, j] - 1
            return codes
        codes = np.empty((self.number.size, len(self.radix)), dtype=_signed_type(max(self.radix)), order="F")
        rest = self.number
        for j in range(len(self.radix) - 1, -1, -1):
            rest, digit = np.divmod(rest, self.radix[j])
            codes[:, j] = digit - 1
        return codes

    def drop_numbers(self) -> None:
        """Free ``number`` while the search holds the codes (:meth:`restore_numbers` makes it again)."""
        if self.number is not None:
            self.number = np.zeros(0, dtype=np.int64)

    def restore_numbers(self, codes: np.ndarray) -> None:
        """``number`` folded again from :meth:`codes` (the same sorted numbers)."""
        if self.number is None:
            return
        number = np.zeros(codes.shape[0], dtype=np.int64)
        for j, size in enumerate(self.radix):
            number *= size
            number += codes[:, j]
            number += 1
        self.number = number

    def rows(self, chunk: pl.DataFrame) -> np.ndarray:
        """Each record's distinct row (an index into ``count`` and the search's arrays)."""
        if self.number is None:
            return self.frequencies.rows(chunk)
        return np.searchsorted(self.number, self.encode(chunk))


def _signed_type(most: int) -> type:
    """The smallest signed integer type holding ``most`` and -1."""
    return next(t for t in (np.int8, np.int16, np.int32) if most <= np.iinfo(t).max) if most < 2**31 else np.int64


def _distinct_key_rows(source: Source, keys: Sequence[str], chunk_size: int, progress: bool) -> _KeyRows:
    """The file's distinct key rows (a missing value a value of its own) and their records (up to 3), out of core.

    Two chunked passes over a Parquet file: each key's values, then each
    record's row as one int64 (:func:`rumap.scale.frequencies._encoding`),
    its chunk's distinct numbers merged into the sorted numbers found so far.
    Memory follows the distinct rows (9 bytes each) and the chunk, not the
    records; Polars' streaming group-by, which a CSV file still takes (its
    batches are read ahead whole), held about a hundred bytes a distinct row.
    """
    pl = polars_module()
    names, frame = _prepared(source, keys, None)
    text = source.format != "parquet"  # a text file: streaming queries (its batches would be read ahead whole)
    floats = [k for k, t in source.lazy(names).collect_schema().items() if t.is_float()]

    def chunks(label: str) -> Any:
        meter = Progress(label, enabled=progress)
        done = 0
        for chunk in source.batches(chunk_size, names):
            done += chunk.height
            yield chunk.with_columns([pl.col(k).fill_nan(None) for k in floats]) if floats else chunk
            meter.update(done)
        meter.update(done, final=True)

    found: list[Any] = [None] * len(names)
    for chunk in () if text else chunks("key values"):
        for j, name in enumerate(names):
            values = chunk.get_column(name).drop_nulls().unique()
            found[j] = values if found[j] is None else pl.concat([found[j], values]).unique()
    values = _key_values(source, frame, names) if text else tuple(
        v.sort() if v is not None else pl.Series(name, [], dtype=source.lazy([name]).collect_schema()[name])
        for name, v in zip(names, found, strict=True))
    parts, radix, _ = _encoding(names, values)
    if not _fits(radix):
        frequencies = key_frequencies(source, names)
        return _KeyRows(names, np.minimum(frequencies.count, _COUNT_CAP).astype(np.uint8), frequencies.n,
                        frequencies=frequencies)
    fold = _number(parts, radix)

    def encode(chunk: pl.DataFrame) -> np.ndarray:
        chunk = chunk.with_columns([pl.col(k).fill_nan(None) for k in floats]) if floats else chunk
        return chunk.select(fold.alias("number")).get_column("number").to_numpy()

    number = np.zeros(0, dtype=np.int64)
    count = np.zeros(0, dtype=np.uint8)
    n = 0
    if text:
        table = source.collect(frame.group_by(fold.alias("number")).agg(pl.len().alias("count")))
        order = np.argsort(table["number"].to_numpy())
        number = table["number"].to_numpy()[order]
        records = table["count"].to_numpy()[order]
        n = int(records.sum())
        count = np.minimum(records, _COUNT_CAP).astype(np.uint8)
        del table, order, records
    for chunk in () if text else chunks("distinct key rows"):
        n += chunk.height
        mine, records = np.unique(encode(chunk), return_counts=True)
        at = np.searchsorted(number, mine)
        seen = at < number.size
        seen[seen] = number[at[seen]] == mine[seen]
        count[at[seen]] = np.minimum(count[at[seen]] + np.minimum(records[seen], _COUNT_CAP), _COUNT_CAP)
        fresh = ~seen
        number = np.insert(number, at[fresh], mine[fresh])
        count = np.insert(count, at[fresh], np.minimum(records[fresh], _COUNT_CAP).astype(np.uint8))
    if n < 1:
        raise InputError(f"{source.path} has no records")
    return _KeyRows(names, count, n, number=number, radix=tuple(radix), encode=encode)


def _per_row(found: np.ndarray, weights: np.ndarray, block: int = 1 << 20) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Each row's MSUs (all sizes), smallest MSU size (0 for none) and SUDA score, a block of rows at a time.

    The score is :func:`rumap.risk.suda.row_scores`'s ``found @ weights``
    (the same values: integers, exact in float64).
    """
    m = found.shape[0]
    total = np.empty(m, dtype=_count_type(int(found.shape[1]) * int(np.iinfo(found.dtype).max)))
    smallest = np.empty(m, dtype=np.uint8 if found.shape[1] < 256 else np.int64)
    score = np.empty(m)
    for start in range(0, m, block):
        part = found[start:start + block]
        total[start:start + block] = part.sum(axis=1)
        smallest[start:start + block] = smallest_msu(part)
        score[start:start + block] = part.astype(np.float64) @ weights
    return total, smallest, score


@validate_params({"source": InstanceOf(Source), "keys": InstanceOf((list, tuple), "a list of key columns"),
                  "max_size": [None, "max_size"], "dis_fraction": "dis_fraction",
                  "out": [None, InstanceOf((str, os.PathLike), "a file path")],
                  "chunk_size": "record_chunk",
                  "budget": InstanceOf(WorkBudget), "overwrite": Boolean()},
                 example=lambda: {"source": scan(persons_file()), "keys": ["sex", "region"], "out": None,
                                  "progress": False})
def suda_file(source: Source, keys: Sequence[str], out: str | os.PathLike | None = None,
              max_size: int | None = DEFAULT_MAX_SIZE, dis_fraction: float = DEFAULT_DIS_FRACTION,
              chunk_size: int = DEFAULT_CHUNK_SIZE, progress: bool = True,
              budget: WorkBudget = DEFAULT_BUDGET, overwrite: bool = False) -> FileSuda:
    """SUDA2's minimal sample uniques, SUDA and DIS scores of a file, out of core.

    The same values as :func:`rumap.risk.suda.suda2` on a file both can hold.

    Parameters
    ----------
    source : Source
        From :func:`rumap.scale.scan`.
    keys : sequence of str
        The key variables.
    out : str or path-like or None
        The ``.parquet`` or ``.csv`` file of each record's ``msus``,
        ``smallest_msu``, ``score`` and ``dis_score``, in file order (None:
        the totals only).
    max_size : int, optional
        Largest MSU size searched (default: the number of keys).
    dis_fraction : float, default 0.01
        The sampling fraction of the DIS score.
    chunk_size : int
        Records per chunk written.
    progress : bool
        Report the passes on stderr.
    budget : WorkBudget
        Distinct key rows x variables x subsets of up to ``max_size`` variables, checked first.
    overwrite : bool
        Replace an existing ``out`` (default: refuse it).

    Returns
    -------
    FileSuda

    References
    ----------
    Manning, Haglin & Keane (2008), SUDA2; Skinner & Elliot (2002), DIS;
    sdcMicro's ``suda2``.

    Examples
    --------
    >>> result = suda_file(scan(persons_file()), ["sex", "region"], progress=False)
    >>> result.sample_uniques, result.special_uniques, result.msus_by_size
    (2, 1, (1, 0))
    """
    check_out(out, [("source", source.path)], overwrite)
    pl = polars_module()
    rows = _distinct_key_rows(source, keys, chunk_size, progress)
    names, count, n = rows.names, rows.count, rows.n
    p = len(names)
    size = searched_size(max_size, p)
    subsets = sum(comb(p, k) * k for k in range(1, size + 1))
    budget.check_work(float(subsets) * count.size, f"{count.size} distinct key rows x {subsets} variables over the "
                                                   f"subsets of up to {size} keys")
    meter = Progress("SUDA2 on the distinct key rows", enabled=progress)
    codes = rows.codes()
    rows.drop_numbers()
    found, per_variable = row_msus(codes, count, size, dtype=_count_type(max(comb(p, k) for k in range(1, size + 1))))
    rows.restore_numbers(codes)
    del codes
    meter.update(n, final=True)
    total, smallest, score = _per_row(found, suda_weights(p, size))
    msus_by_size = found.sum(axis=0, dtype=np.int64)
    del found
    score, dis_score, dis, uniques = row_scores(score, count, p, float(dis_fraction))
    if out is not None:

        def per_record(chunk: pl.DataFrame, start: int) -> pl.DataFrame:
            at = rows.rows(chunk)
            return pl.DataFrame({"msus": total[at].astype(np.int64), "smallest_msu": smallest[at].astype(np.int64),
                                 "score": score[at], "dis_score": dis_score[at]})

        apply_chunks(source, per_record, out=out, chunk_size=chunk_size, columns=names, progress=progress,
                     label=f"writing {out}", overwrite=overwrite)
    return FileSuda(keys=tuple(names), max_size=size, dis_fraction=float(dis_fraction), n=n,
                    distinct_rows=int(count.size), msus_by_size=tuple(int(c) for c in msus_by_size),
                    special_uniques=int((total > 0).sum()), sample_uniques=uniques, dis=dis,
                    variables=tuple((str(v), int(c)) for v, c in variable_table(names, per_variable).itertuples(
                        index=False)),
                    max_score=float(score.max()), max_dis_score=float(dis_score.max()),
                    out=None if out is None else str(out))
