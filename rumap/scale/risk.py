"""Individual, household and global risk, k-anonymity and l-diversity of a file larger than memory.

The measures of :mod:`rumap.risk.individual` (the mu-Argus individual risk,
``1 - prod(1 - r_i)`` over a household, distinct l-diversity, with a missing
key value matching any category), computed from the file's distinct key rows
(:func:`rumap.scale.key_frequencies`) and, for what needs each record,
chunk by chunk (:func:`rumap.scale.apply_chunks`): memory holds the distinct
key rows, one hash partition of the households' sums (and each record's
household risk) and one chunk, never the file.
"""

from __future__ import annotations

import math
import os
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from rumap._validation import Boolean, InstanceOf, StrOptions, assumes_valid, validate_params
from rumap.errors import InputError
from rumap.examples import persons_file
from rumap.result import json_safe
from rumap.risk.identity import IdentityResult
from rumap.risk.poisson_gamma import BETA_ESTIMATORS
from rumap.scale.frequencies import KeyFrequencies, _prepared, check_code_column, key_frequencies
from rumap.scale.partitioned import (
    RowTable,
    blocks,
    diversity_pairs,
    fits_partitions,
    folded_rows,
    partition_count,
    survey,
)
from rumap.scale.passes import apply_chunks
from rumap.scale.source import (
    DEFAULT_CHUNK_SIZE,
    Progress,
    Source,
    check_out,
    chunks_to,
    polars_module,
    scan,
)

if TYPE_CHECKING:
    import polars as pl

__all__ = ["ScaleRisk", "individual_risk", "row_risk", "l_diversity_rows", "identity_risk", "FileFrequencies",
           "frequencies_file"]



@dataclass(frozen=True)
class ScaleRisk:
    """Totals of the individual risk of a file (its per-record values go to a file, not to memory).

    Attributes
    ----------
    keys : tuple of str
    n : int
        Records.
    weighted : bool
    expected_reidentifications : float
        Sum of the individual risks.
    global_risk : float
        Their mean.
    max_risk : float
        The highest individual risk.
    records_at_max : int
        Records with it.
    distinct_rows : int
        Distinct key rows (a missing value counted as a value of its own).
    household_expected_reidentifications : float or None
        Sum over records of their household's risk.
    households : int or None
    k : int or None
    k_anonymity_violations : int or None
        Records with ``f_k < k``.
    sensitive : str or None
    l_diversity_min : int or None
        The least distinct l-diversity of a record.
    l_diversity_one : int or None
        Records whose key group shows one value of the sensitive variable.
    records_out : str or None
        The file the per-record values were written to.
    """

    keys: tuple[str, ...]
    n: int
    weighted: bool
    expected_reidentifications: float
    global_risk: float
    max_risk: float
    records_at_max: int
    distinct_rows: int
    household_expected_reidentifications: float | None = None
    households: int | None = None
    k: int | None = None
    k_anonymity_violations: int | None = None
    sensitive: str | None = None
    l_diversity_min: int | None = None
    l_diversity_one: int | None = None
    records_out: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """The totals under the keys of :meth:`rumap.risk.individual.IndividualRisk.to_dict`, and the engine's own.

        Returns
        -------
        dict
        """
        out: dict[str, Any] = {"n": self.n, "keys": list(self.keys),
                               "expected_reidentifications": self.expected_reidentifications,
                               "global_risk": self.global_risk, "max_risk": self.max_risk,
                               "records_at_max": self.records_at_max, "distinct_rows": self.distinct_rows,
                               "weighted": self.weighted, "engine": "scale", "records_out": self.records_out}
        if self.household_expected_reidentifications is not None:
            out["household_expected_reidentifications"] = self.household_expected_reidentifications
            out["households"] = self.households
        if self.k is not None:
            out["k"] = self.k
            out["k_anonymity_violations"] = self.k_anonymity_violations
        if self.sensitive is not None:
            out["l_diversity_min"] = self.l_diversity_min
            out["l_diversity_one"] = self.l_diversity_one
        return json_safe(out)

    def to_frame(self):
        """Two columns, quantity and value.

        Returns
        -------
        pandas.DataFrame
        """
        import pandas as pd

        d = self.to_dict()
        d["keys"] = " x ".join(self.keys)
        return pd.DataFrame({"quantity": list(d), "value": list(d.values())})


@assumes_valid
def row_risk(frequencies: KeyFrequencies) -> np.ndarray:
    """The individual risk of each distinct key row: ``1 / f_k`` without weights, else the mu-Argus formula.

    Parameters
    ----------
    frequencies : KeyFrequencies

    Returns
    -------
    ndarray of float, shape (m,)

    Examples
    --------
    >>> row_risk(key_frequencies(scan(persons_file()), ["sex"])).tolist()
    [0.5, 0.5]
    """
    from rumap.risk.individual import individual_risk_kernel

    if not frequencies.weighted:
        return 1.0 / frequencies.fk
    return individual_risk_kernel(frequencies.fk, np.maximum(frequencies.Fk, frequencies.fk))


@assumes_valid
def l_diversity_rows(source: Source, frequencies: KeyFrequencies, sensitive: str) -> np.ndarray:
    """Distinct l-diversity of each distinct key row: values of ``sensitive`` among the records matching it.

    A missing key value matches any category and missing sensitive values are
    not counted, as in :func:`rumap.risk.individual.l_diversity`. The file is
    reduced to its distinct (key row, sensitive value) pairs; for each pair of
    missing-value patterns the pairs are joined on the keys both know
    (:func:`rumap.scale.partitioned.diversity_pairs`).

    Parameters
    ----------
    source : Source
    frequencies : KeyFrequencies
        Of ``source`` on its keys.
    sensitive : str
        The sensitive column (not a key).

    Returns
    -------
    ndarray of int64, shape (m,)

    Examples
    --------
    >>> source = scan(persons_file())
    >>> l_diversity_rows(source, key_frequencies(source, ["sex"]), "region").tolist()
    [1, 1]
    """
    pl = polars_module()
    keys = list(frequencies.keys)
    frame = source.lazy([*keys, sensitive])
    schema = frame.collect_schema()
    frame = frame.with_columns([pl.col(c).fill_nan(None) for c in [*keys, sensitive] if schema[c].is_float()])
    return diversity_pairs(source, frame, frequencies, sensitive).counts(frequencies.codes.shape[0])


class _Totals:
    """The file's totals, added up over blocks of its distinct key rows.

    The expected re-identifications are summed exactly (``math.fsum``, each
    block's rounded sum and its remainder), so they do not depend on the
    order of the rows, which Polars' group-by does not fix, nor on the blocks.
    """

    def __init__(self, k: int | None) -> None:
        self.k = k
        self.top, self.at_top, self.distinct, self.violations = -np.inf, 0, 0, 0
        self.sums: list[float] = []
        self.l_min, self.l_one = None, 0

    @property
    def expected(self) -> float:
        return math.fsum(self.sums)

    def add(self, block: KeyFrequencies, risk: np.ndarray, diversity: np.ndarray | None) -> None:
        count = block.count
        if count.size == 0:
            return
        products = np.ascontiguousarray(count * risk, dtype=float)
        total = math.fsum(memoryview(products))  # a memoryview gives fsum Python floats, not NumPy scalars: twice as fast
        self.sums += [total, math.fsum(memoryview(np.append(products, -total)))]
        top = float(risk.max())
        if top > self.top:
            self.top, self.at_top = top, 0
        if top >= self.top:
            self.at_top += int(count[risk >= top].sum())
        self.distinct += int(count.size)
        if self.k is not None:
            self.violations += int(count[block.fk < self.k].sum())
        if diversity is not None:
            low = int(diversity.min())
            self.l_min = low if self.l_min is None else min(self.l_min, low)
            self.l_one += int(count[diversity == 1].sum())


def _household_sums(chunk: pl.DataFrame, household: str, risk: np.ndarray
                    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Per household of a chunk: its id, the sum of ``log(1 - r)``, whether a member is surely identified, its size;
    and each record's household among them."""
    import pandas as pd

    group, uniques = pd.factorize(chunk.get_column(household).to_numpy())
    return (np.asarray(uniques), np.bincount(group, weights=np.log1p(-np.minimum(risk, 1.0 - 1e-16))),
            np.bincount(group, weights=(risk >= 1.0).astype(float)), np.bincount(group).astype(float), group)


def _combined(partial: list[tuple[np.ndarray, ...]]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The household of each of every chunk's households, the households' risk and their sizes."""
    import pandas as pd

    group = pd.factorize(np.concatenate([p[0] for p in partial]))[0]
    log, certain, size = (np.bincount(group, weights=np.concatenate([p[i] for p in partial])) for i in (1, 2, 3))
    return group, np.where(certain > 0, 1.0, -np.expm1(log)), size


def _household_risk(source: Source, rows: Any, risk: np.ndarray, names: list[str], household: str, n: int,
                    chunk_size: int, partitions: int | None, progress: bool) -> tuple[np.ndarray, float, int]:
    """Each record's household risk in file order, the sum of it over records, and the households.

    The households are summed a hash partition of their ids at a time, one
    pass over the file each, so that memory holds one partition's households
    (and the records' risk), not every household. By default there are as
    many partitions as hold about ``chunk_size`` households each (their number
    estimated in a streaming pass over the household column).
    """
    from rumap.scale.partitioned import _SEED

    if partitions is None:
        pl = polars_module()
        estimate = source.collect(source.lazy([household]).select(pl.col(household).approx_n_unique())).item()
        partitions = partition_count(int(estimate), chunk_size)

    at_record = np.empty(n)
    small = np.int32 if chunk_size < 2**31 else np.int64  # a record's place and household within its chunk
    expected, households = 0.0, 0
    for part in range(partitions):
        partial: list[tuple[np.ndarray, ...]] = []
        members: list[tuple[int, np.ndarray, int, np.ndarray]] = []
        seen = [0]

        def sums(chunk: pl.DataFrame, start: int, part: int = part, partial: list = partial,
                 members: list = members, seen: list = seen) -> None:
            ids = chunk.get_column(household)
            if ids.null_count():
                row = start + int(np.argmax(ids.is_null().to_numpy())) + 1
                raise InputError(f"{source.path}: household {household!r} is missing in row {row}")
            where = np.arange(chunk.height, dtype=small)
            if partitions > 1:
                mine = (ids.hash(_SEED) % partitions == part).to_numpy()
                chunk, where = chunk.filter(mine), where[mine]
            if chunk.height == 0:
                return
            *block, group = _household_sums(chunk, household, risk[rows.rows(chunk)])
            partial.append(tuple(block))
            members.append((start, where, seen[0], group.astype(small)))
            seen[0] += block[0].size

        apply_chunks(source, sums, chunk_size=chunk_size, columns=[*names, household], progress=progress,
                     label="household risk" if partitions == 1 else f"household risk, part {part + 1} of {partitions}")
        if not partial:
            continue
        group, household_risk, size = _combined(partial)
        partial.clear()
        for start, where, offset, slot in members:
            at_record[start + where] = household_risk[group[offset + slot]]
        members.clear()
        expected += float(np.dot(size, household_risk))
        households += int(household_risk.size)
    return at_record, expected, households


@validate_params({"source": InstanceOf(Source), "keys": InstanceOf((list, tuple), "a list of key columns"),
                  "weight": [None, InstanceOf(str, "a column name")],
                  "household": [None, InstanceOf(str, "a column name")], "k": [None, "k"],
                  "sensitive": [None, InstanceOf(str, "a column name")],
                  "out": [None, InstanceOf((str, os.PathLike), "a file path")],
                  "chunk_size": "record_chunk",
                  "progress": InstanceOf(bool, "True or False"),
                  "partitions": [None, "key_partitions"],
                  "household_partitions": [None, "household_partitions"], "overwrite": Boolean()},
                 example=lambda: {"source": scan(persons_file()), "keys": ["sex", "region"], "weight": "w", "k": 2})
def individual_risk(source: Source, keys: Sequence[str], weight: str | None = None, household: str | None = None,
                    k: int | None = None, sensitive: str | None = None, out: str | os.PathLike | None = None,
                    chunk_size: int = DEFAULT_CHUNK_SIZE, progress: bool = True,
                    partitions: int | None = None, household_partitions: int | None = None,
                    overwrite: bool = False) -> ScaleRisk:
    """Individual, household and global risk, k-anonymity and l-diversity of a file, out of core.

    Parameters
    ----------
    source : Source
        From :func:`rumap.scale.scan`.
    keys : sequence of str
        The intruder's key variables.
    weight : str, optional
        Sampling weights (default: the file is a census, risk ``1 / f_k``).
    household : str, optional
        Household identifier: adds the household risk.
    k : int, optional
        Count the records violating k-anonymity.
    sensitive : str, optional
        Adds distinct l-diversity of this variable.
    out : str or path-like, optional
        A ``.parquet`` or ``.csv`` file for the per-record values, in file
        order: ``fk``, ``Fk``, ``risk`` (and ``household_risk``, ``l_diversity``).
    chunk_size : int
        Records per chunk of the record-wise passes, and about the most
        distinct key rows held at once: the key rows are split into
        ``ceil(distinct / chunk_size)`` partitions (the distinct rows, or
        with ``sensitive`` the distinct pairs of key row and sensitive value,
        estimated in the first pass), one streaming pass each
        (:mod:`rumap.scale.partitioned`).
    progress : bool
        Report the passes on stderr.
    partitions : int, optional
        The number of partitions (default: from ``chunk_size``); 1 holds
        every key row at once, in one pass. Per-record values (``household``,
        ``out``) keep a number, the frequencies and the risk of every
        distinct key row.
    household_partitions : int, optional
        With ``household``, the households are summed in this many hash
        partitions of their ids, one pass over the file each (default: as
        many as hold about ``chunk_size`` households each); memory holds one
        partition's households and each record's household risk (8 bytes a
        record).
    overwrite : bool
        Replace an existing ``out`` (default: refuse it).

    Returns
    -------
    ScaleRisk
        Totals equal to those of :func:`rumap.risk.individual.individual_risk`
        (sums added in another order).

    Examples
    --------
    >>> result = individual_risk(scan(persons_file()), ["sex", "region"], k=2, progress=False)
    >>> result.expected_reidentifications, result.k_anonymity_violations
    (2.0, 0)
    """
    check_out(out, [("source", source.path)], overwrite)
    pl = polars_module()
    for name, what in ((household, "household"), (sensitive, "sensitive variable")):
        if name is not None and name in keys:
            raise InputError(f"{source.path}: the {what} {name!r} is also a key")
    for name in (sensitive, household):
        if name is not None and name not in scan(source.path).columns:
            raise InputError(f"{source.path}: no column {name!r}; columns are {', '.join(scan(source.path).columns)}")
        if name is not None:
            check_code_column(source, name, source.lazy([name]).collect_schema()[name])
    keep = household is not None or out is not None
    diversity = None
    count_of = partitions if partitions is not None else partition_count(source.count(), chunk_size)
    plan = None
    if count_of > 1:
        names, frame = _prepared(source, keys, weight, [sensitive] if sensitive is not None else [],
                                 check_weight=False)
        meter = Progress("key values (one streaming pass)", enabled=progress)
        plan = survey(source, frame, names, sensitive, weight)
        meter.update(plan.n, final=True)
        if not fits_partitions(names, plan.values[: len(names)]):
            plan = None
        elif partitions is None:  # as many partitions as the distinct rows (or pairs with l-diversity) need
            count_of = partition_count(plan.distinct, chunk_size)
    if plan is None:
        meter = Progress("key frequencies (one streaming pass)", enabled=progress)
        frequencies = key_frequencies(source, keys, weight)
        meter.update(frequencies.n, final=True)
        diversity = None
        if sensitive is not None:
            meter = Progress(f"l-diversity of {sensitive}", enabled=progress)
            diversity = l_diversity_rows(source, frequencies, sensitive)
            meter.update(frequencies.n, final=True)
        parts: Any = [(frequencies, diversity)]
    else:
        parts = blocks(source, names, frame, weight, count_of, plan, sensitive)
    totals = _Totals(k)
    kept: list[tuple[np.ndarray, ...]] = []
    meter = Progress("key rows", count_of if plan is not None else 1, enabled=progress, unit="partition(s)")
    for done, (block, block_diversity) in enumerate(parts):
        block_risk = row_risk(block)
        totals.add(block, block_risk, block_diversity)
        if keep and plan is not None:
            kept.append((folded_rows(block.codes, block.values), block.fk, block.Fk, block_risk,
                         *([block_diversity] if block_diversity is not None else [])))
        meter.update(done + 1)
    names = list(block.keys)
    if plan is None:
        rows: Any = block
        risk, diversity = block_risk, block_diversity
    elif keep:
        numbers, fk, Fk, risk, *rest = (np.concatenate(column) for column in zip(*kept, strict=True))
        kept.clear()
        order = np.argsort(numbers, kind="stable")
        rows = RowTable(tuple(names), block.values, numbers[order], fk[order], Fk[order])
        risk = risk[order]
        diversity = rest[0][order] if rest else None
        del numbers, fk, Fk, rest, order
    household_er = households = None
    by_record = None
    if household is not None:
        by_record, household_er, households = _household_risk(
            source, rows, risk, names, household, block.n, chunk_size, household_partitions, progress)
    if out is not None:
        def per_record(chunk: pl.DataFrame, start: int) -> pl.DataFrame:
            at_row = rows.rows(chunk)
            frame = pl.DataFrame({"fk": rows.fk[at_row], "Fk": rows.Fk[at_row], "risk": risk[at_row]})
            if by_record is not None:
                frame = frame.with_columns(pl.Series("household_risk", by_record[start:start + chunk.height]))
            if diversity is not None:
                frame = frame.with_columns(pl.Series("l_diversity", diversity[at_row]))
            return frame

        apply_chunks(source, per_record, out=out, chunk_size=chunk_size, columns=names, progress=progress,
                     label=f"writing {out}", overwrite=overwrite)
    n = block.n
    return ScaleRisk(keys=tuple(names), n=n, weighted=block.weighted,
                     expected_reidentifications=totals.expected, global_risk=totals.expected / n,
                     max_risk=totals.top, records_at_max=totals.at_top, distinct_rows=totals.distinct,
                     household_expected_reidentifications=household_er, households=households, k=k,
                     k_anonymity_violations=None if k is None else totals.violations, sensitive=sensitive,
                     l_diversity_min=None if sensitive is None else totals.l_min,
                     l_diversity_one=None if sensitive is None else totals.l_one,
                     records_out=None if out is None else str(out))



@validate_params({"source": InstanceOf(Source), "key": InstanceOf((list, tuple), "a list of key columns"),
                  "N": "N", "a": "a", "max_risk": [None, "risk_bound"], "cells": [None, "cells"],
                  "method": StrOptions(BETA_ESTIMATORS)},
                 example=lambda: {"source": scan(persons_file()), "key": ["sex"], "N": 1000.0, "a": 10.0})
def identity_risk(source: Source, key: Sequence[str], N: float, a: float, max_risk: float | None = None,
                  cells: int | None = None, method: str = "ml") -> IdentityResult:
    """Population uniques and identification risk of a file's key (Mokken et al. 1992), out of core.

    Parameters
    ----------
    source : Source
        From :func:`rumap.scale.scan`.
    key : sequence of str
        The key variables (no missing value).
    N, a, max_risk, cells, method
        As in :func:`rumap.risk.identity.identity_risk_from_data`.

    Returns
    -------
    IdentityResult
        Equal to :func:`rumap.risk.identity.identity_risk_from_data` on the file.

    Examples
    --------
    >>> identity_risk(scan(persons_file()), ["sex"], N=1000.0, a=10.0).observed_cells
    2
    """
    from rumap.risk.identity import identity_from_frequencies

    frequencies = key_frequencies(source, key)
    names = list(frequencies.keys)
    if frequencies.rows_with_missing:
        pl = polars_module()
        frame = source.lazy(names)
        schema = frame.collect_schema()
        gone = [(pl.col(c).is_null() | pl.col(c).is_nan()) if schema[c].is_float() else pl.col(c).is_null()
                for c in names]
        first = source.collect(frame.with_row_index("row").filter(pl.any_horizontal(gone)).head(1)
                               .select("row", *[g.alias(c) for g, c in zip(gone, names, strict=True)]))
        column = next(c for c in names if first[c].item())
        raise InputError(f"{source.path}: key column {column!r} has a missing value in row {first['row'].item() + 1}")
    k = int(np.prod([float(v.len()) for v in frequencies.values])) if cells is None else cells
    return identity_from_frequencies(frequencies.count, names, k, N, a, max_risk, method, source.path)


def _table_frame(block: KeyFrequencies) -> pl.DataFrame:
    """Distinct key rows as records: the key values (missing where the key is), ``count``, ``weight``, ``fk``, ``Fk``."""
    pl = polars_module()
    columns = []
    for j, name in enumerate(block.keys):
        code = block.codes[:, j].astype(np.int64)
        values = block.values[j]
        if values.len() == 0:
            columns.append(pl.Series(name, [None] * code.size, dtype=values.dtype))
            continue
        column = values.gather(pl.Series(np.maximum(code - 1, 0))).alias(name)
        columns.append(column.scatter(np.flatnonzero(code == 0), None) if (code == 0).any() else column)
    extra = [pl.Series("count", block.count)]
    if block.weighted:
        extra.append(pl.Series("weight", block.weight))
    return pl.DataFrame([*columns, *extra, pl.Series("fk", block.fk), pl.Series("Fk", block.Fk)])


@dataclass(frozen=True)
class FileFrequencies:
    """The summary of a file's key frequencies (:meth:`rumap.scale.KeyFrequencies.to_dict`), the table in a file.

    Attributes
    ----------
    summary : dict
        ``n``, ``keys``, ``distinct_rows``, ``sample_uniques``, ``records_with_missing_keys``, ``weighted``.
    partitions : int
        Hash partitions of the distinct key rows, one streaming pass each.
    out : str or None
        The file of the distinct key rows.
    """

    summary: dict
    partitions: int
    out: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """The summary, ``partitions``, ``records_out`` and ``"engine": "scale"``."""
        return {**self.summary, "partitions": self.partitions, "records_out": self.out, "engine": "scale"}


@validate_params({"source": InstanceOf(Source), "keys": InstanceOf((list, tuple), "a list of key columns"),
                  "weight": [None, InstanceOf(str, "a column name")],
                  "out": [None, InstanceOf((str, os.PathLike), "a file path")],
                  "chunk_size": "record_chunk", "partitions": [None, "key_partitions"], "overwrite": Boolean()},
                 example=lambda: {"source": scan(persons_file()), "keys": ["sex", "region"], "out": None,
                                  "progress": False})
def frequencies_file(source: Source, keys: Sequence[str], out: str | os.PathLike | None = None,
                     weight: str | None = None, chunk_size: int = DEFAULT_CHUNK_SIZE, partitions: int | None = None,
                     progress: bool = True, overwrite: bool = False) -> FileFrequencies:
    """The table of a file's distinct key rows with their frequencies, written a hash partition at a time.

    The rows and values of :func:`rumap.scale.key_frequencies` (a missing
    value matching any category), found as :func:`individual_risk` finds
    them: the distinct key rows split by a hash of the keys into
    ``ceil(distinct / chunk_size)`` partitions, one streaming pass each, each
    partition's rows written before the next is read. Memory follows the
    partition, not the table.

    Parameters
    ----------
    source : Source
        From :func:`rumap.scale.scan`.
    keys : sequence of str
        The key variables.
    out : str or path-like or None
        The ``.parquet`` or ``.csv`` file of the distinct key rows: the key
        values, ``count``, ``weight`` (with a weight), ``fk`` and ``Fk``, a
        partition after another (None: the summary only).
    weight : str, optional
        Column of sampling weights (each >= 1).
    chunk_size : int
        Distinct key rows per partition, about.
    partitions : int, optional
        The number of partitions (default from ``chunk_size``).
    progress : bool
        Report the passes on stderr.
    overwrite : bool
        Replace an existing ``out`` (default: refuse it).

    Returns
    -------
    FileFrequencies

    Examples
    --------
    >>> frequencies_file(scan(persons_file()), ["sex", "region"], weight="w", progress=False).to_dict()["sample_uniques"]
    0
    """
    check_out(out, [("source", source.path)], overwrite)
    count_of = partitions if partitions is not None else partition_count(source.count(), chunk_size)
    plan = None
    if count_of > 1:
        names, frame = _prepared(source, keys, weight, check_weight=False)
        meter = Progress("key values (one streaming pass)", enabled=progress)
        plan = survey(source, frame, names, None, weight)
        meter.update(plan.n, final=True)
        if not fits_partitions(names, plan.values[: len(names)]):
            plan = None
        elif partitions is None:
            count_of = partition_count(plan.distinct, chunk_size)
    parts: Any = blocks(source, names, frame, weight, count_of, plan) if plan is not None else None
    if parts is None:
        count_of = 1
        parts = [(key_frequencies(source, keys, weight), None)]
    meter = Progress("key rows", count_of, enabled=progress, unit="partition(s)")
    summary: dict[str, Any] = {}
    with chunks_to(out, [("source", source.path)], overwrite) as write:
        for done, (block, _) in enumerate(parts):
            mine = block.to_dict()
            for key in ("distinct_rows", "sample_uniques", "records_with_missing_keys"):
                summary[key] = summary.get(key, 0) + mine[key]
            summary.update({k: mine[k] for k in ("n", "keys", "weighted")})
            if write is not None:
                table = _table_frame(block)
                for start in range(0, table.height, chunk_size):
                    write(table.slice(start, chunk_size))
                del table
            meter.update(done + 1)
    ordered = {k: summary[k] for k in ("n", "keys", "distinct_rows", "sample_uniques", "records_with_missing_keys",
                                       "weighted")}
    return FileFrequencies(ordered, count_of, None if out is None else str(out))
