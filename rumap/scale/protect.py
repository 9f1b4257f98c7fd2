"""Protecting the categorical keys of a file larger than memory: local suppression, PRAM, global recoding.

Each reads the file in chunks (:func:`rumap.scale.passes.file_pass`) and writes
the protected records in file order, chunk by chunk; memory holds the file's
distinct key rows and one chunk. The results equal the in-memory functions'
(:mod:`rumap.masking.categorical`) on files both can hold:

- :func:`suppress_file` runs the heuristic's rounds on the distinct key rows
  with their record counts
  (:func:`rumap.masking.suppression_rounds.suppression_rounds`), then blanks
  each record's values as its row's; the rows are found a hash partition at
  a time (:func:`rumap.scale.partitioned.blocks`) and held as codes of the
  smallest integer type (a byte a key for up to 125 categories) with their
  counts, the classes at risk are searched a chunk's worth at a time, and a
  record finds its row by a binary search in the rows' sorted numbers: a
  few bytes per distinct row beside the chunk's work;
- :func:`pram_file` draws the uniform number of record ``i`` (0-based, in file
  order) for the ``j``-th key that has a known value as the number
  ``j n + i`` of the stream of ``numpy.random.default_rng(seed)``, the order in
  which :func:`rumap.masking.pram.pram` draws them: a chunk starting at record
  ``s`` advances a copy of the generator by ``j n + s`` draws (PCG64's
  ``advance``), so a seed gives the same file whatever the chunk size; the
  categories are numbered in order of first appearance in the file, as there;
- :func:`rumap.scale.recoding.recode_file` applies :func:`rumap.masking.categorical.recode`,
  :func:`~rumap.masking.categorical.band` and
  :func:`~rumap.masking.categorical.top_bottom_code` to the distinct values
  of each recoded column of a chunk (they change each value on its own) and
  maps the chunk's records to their value's result with Polars'
  ``replace_strict``; the recoded columns are written as text.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import TYPE_CHECKING, Any

import numpy as np

from rumap._validation import SEED, Boolean, InstanceOf, validate_params
from rumap.budget import DEFAULT_BUDGET, WorkBudget
from rumap.errors import InputError
from rumap.examples import persons_file
from rumap.masking.categorical import k_out_of_reach, key_importance
from rumap.masking.pram import MAX_LISTED_PRAM_CATEGORIES, pram_chunk, pram_matrix, pram_shares
from rumap.masking.suppression_rounds import blank_chunk, suppression_rounds
from rumap.scale.frequencies import _codes, _missing_as_null, _prepared, key_frequencies
from rumap.scale.partitioned import blocks, fits_partitions, folded_rows, partition_count, survey
from rumap.scale.passes import file_pass
from rumap.scale.source import DEFAULT_CHUNK_SIZE, Source, check_out, polars_module, scan

if TYPE_CHECKING:
    import polars as pl

__all__ = ["FileSuppression", "suppress_file", "FilePram", "pram_file"]

_INDEX = "__rumap_index"


def _say(progress: bool) -> Callable[[str], None] | None:
    return (lambda line: print(line, file=sys.stderr, flush=True)) if progress else None


def _key_names(source: Source, keys: Sequence[str]) -> list[str]:
    names = [str(k) for k in keys]
    if not names:
        raise InputError("give at least one key variable")
    if len(set(names)) != len(names):
        raise InputError(f"{source.path}: a key variable is named twice")
    for name in names:
        if name not in source.columns:
            raise InputError(f"{source.path}: no column {name!r}; columns are {', '.join(source.columns)}")
    return names


def _suppressed_chunk(names: Sequence[str], rows: Callable[[pl.DataFrame], np.ndarray], marks: np.ndarray,
                      chunk: pl.DataFrame, start: int) -> tuple[pl.DataFrame, None]:
    """Local suppression's chunk kernel out of core: each record blanked as its distinct key row was.

    ``rows(chunk)`` finds each record's row; ``marks`` holds each row's suppressed keys, a bit each
    (:func:`numpy.packbits`). The blanking is :func:`rumap.masking.suppression_rounds.blank_chunk`.
    """
    blank = np.unpackbits(marks[rows(chunk)], axis=1, count=len(names)).view(bool)
    return blank_chunk(chunk, names, blank), None


def _small_codes(codes: np.ndarray, categories: int) -> np.ndarray:
    """The file's codes (0 missing, 1, 2, ...) as codes 0, 1, ... (-1 missing) in the smallest integer type.

    The type holds ``categories + 1`` (the rounds add one to the codes).
    """
    kind = np.int8 if categories < 126 else np.int16 if categories < 2**15 - 2 else np.int32
    out = np.empty(codes.shape, dtype=kind)
    np.subtract(codes, 1, out=out, casting="unsafe")
    return out


#: Distinct rows folded or looked up at once when the rows are numbered for the pass that writes.
_ROW_BLOCK = 1 << 20


class _FileRows:
    """The distinct rows of a file's keys (and household), a few bytes each, and each record's row.

    Found a hash partition of the rows at a time (:func:`rumap.scale.partitioned.blocks`)
    when the rows fold into one int64, else at once (:func:`rumap.scale.key_frequencies`).
    """

    def __init__(self, source: Source, names: list[str], columns: list[str], weight: str | None,
                 chunk_size: int, partitions: int | None, progress: bool) -> None:
        self.columns, self.p = columns, len(names)
        frame_names, frame = _prepared(source, columns, weight, check_weight=False)
        plan = survey(source, frame, frame_names, None, weight)
        self.n, self.values, self.weighted = plan.n, plan.values, weight is not None
        self._frequencies = None
        self._plan = (frame_names, frame, plan) if fits_partitions(frame_names, plan.values) else None
        self._partitions = (partitions if partitions is not None
                            else partition_count(plan.distinct, chunk_size)) if self._plan is not None else 1
        self._say = _say(progress)
        self._source, self._weight = source, weight

    def collect(self, with_fk: bool) -> list[Any]:
        """The rows: key codes (-1 missing), records, total weight, ``f_k`` (``with_fk``), household codes (-1 missing)."""
        index = np.int32 if self.n < 2**31 - 1 else np.int64
        top = max([v.len() for v in self.values[: self.p]], default=0)
        riding = len(self.columns) > self.p
        if self._plan is None:
            frequencies = key_frequencies(self._source, self.columns, self._weight)
            self._frequencies = frequencies
            codes = frequencies.codes
            return [_small_codes(codes[:, : self.p], top), frequencies.count.astype(index),
                    frequencies.weight if self.weighted else None,
                    frequencies.fk.astype(index) if with_fk else None,
                    (codes[:, -1].astype(index) - 1) if riding else None]
        frame_names, frame, plan = self._plan
        parts: list[list[np.ndarray | None]] = []
        for done, (block, _) in enumerate(blocks(self._source, frame_names, frame, self._weight, self._partitions,
                                                 plan)):
            parts.append([_small_codes(block.codes[:, : self.p], top), block.count.astype(index),
                          block.weight if self.weighted else None, block.fk.astype(index) if with_fk else None,
                          (block.codes[:, -1].astype(index) - 1) if riding else None])
            if self._say is not None and done < self._partitions:
                self._say(f"distinct key rows: partition {done + 1} of {self._partitions}")
        found: list[np.ndarray | None] = []
        for field_ in range(5):  # one field at a time: memory holds its parts and itself
            pieces = [part[field_] for part in parts]
            found.append(None if pieces[0] is None else np.concatenate(pieces))
            for part in parts:
                part[field_] = None
        return found

    def numbers(self, codes: np.ndarray, members: np.ndarray | None) -> np.ndarray | None:
        """Each row's :func:`rumap.scale.partitioned.folded_rows` (None without partitions), a block at a time."""
        if self._frequencies is not None:
            return None
        values = self.values
        numbers = np.empty(codes.shape[0], dtype=np.int64)
        for start in range(0, codes.shape[0], _ROW_BLOCK):
            block = codes[start:start + _ROW_BLOCK].astype(np.int64) + 1
            if members is not None:
                block = np.column_stack([block, members[start:start + _ROW_BLOCK].astype(np.int64) + 1])
            numbers[start:start + _ROW_BLOCK] = folded_rows(block, values)
        return numbers

    def locator(self, numbers: np.ndarray | None, marks: np.ndarray
                ) -> tuple[Callable[[pl.DataFrame], np.ndarray], np.ndarray]:
        """How to find each record's row, and ``marks`` (one row per distinct row) in that row order.

        With partitions the rows' :meth:`numbers` are sorted (in place); a
        chunk's records are found by a binary search.
        """
        if numbers is None:
            return self._frequencies.rows, marks
        order = np.argsort(numbers)
        marks = marks[order]
        del order
        numbers.sort()
        values, columns = self.values, self.columns

        def locate(chunk: pl.DataFrame) -> np.ndarray:  # folded_rows of the chunk's codes, a column at a time
            number = np.zeros(chunk.height, dtype=np.int64)
            for name, known in zip(columns, values, strict=True):
                number *= known.len() + 1
                number += _codes(_missing_as_null(chunk.get_column(name)), known)
            return np.searchsorted(numbers, number)

        return locate, marks


@dataclass(frozen=True)
class FileSuppression:
    """What local suppression of a file did (its records went to a file).

    Attributes
    ----------
    keys : tuple of str
    n : int
        Records.
    k : int or None
    max_risk : float or None
    rounds : int
    per_variable : tuple of int
        Values suppressed per key.
    feasible : bool
    reason : str or None
    out : str or None
        The file written.
    """

    keys: tuple[str, ...]
    n: int
    k: int | None
    max_risk: float | None
    rounds: int
    per_variable: tuple[int, ...]
    feasible: bool = True
    reason: str | None = None
    out: str | None = None

    @property
    def suppressed_share(self) -> float:
        """Share of the key values suppressed."""
        return sum(self.per_variable) / (self.n * len(self.keys)) if self.n and self.keys else 0.0

    def to_dict(self) -> dict[str, Any]:
        """The keys of :meth:`rumap.masking.categorical.SuppressionResult.to_dict`."""
        return {"keys": list(self.keys), "k": self.k, "max_risk": self.max_risk, "rounds": self.rounds,
                "suppressed": int(sum(self.per_variable)), "suppressed_share": self.suppressed_share,
                "per_variable": dict(zip(self.keys, self.per_variable, strict=True)), "feasible": self.feasible,
                "reason": self.reason}

    def to_frame(self) -> Any:
        """Suppressions per key variable."""
        import pandas as pd

        return pd.DataFrame({"variable": list(self.keys), "suppressed": list(self.per_variable)})


def _suppression_settings(source: Source, keys: Sequence[str], dimension: int | None,
                         importance: Mapping[str, float] | None, household: str | None,
                         household_variables: Sequence[str], weight: str | None
                         ) -> tuple[list[str], int, Any, list[int], bool]:
    """The checked settings of a file's local suppression, on one machine or a cluster.

    Returns the key names, the largest combination searched, the keys' order
    of suppression, the positions of the household variables among the keys
    and whether the household's code rides along as one more column.
    """
    names = _key_names(source, keys)
    depth = len(names) if dimension is None else int(dimension)
    if not 1 <= depth <= len(names):
        raise InputError(f"dimension must be between 1 and the number of keys ({len(names)}), got {dimension!r}")
    rank = key_importance(importance, names, 0.0)
    shared = [names.index(str(v)) for v in household_variables if str(v) in names]
    if len(shared) != len(household_variables):
        unknown = [v for v in household_variables if str(v) not in names]
        raise InputError(f"household variables must be keys; {', '.join(map(repr, unknown))} is not")
    if shared and household is None:
        raise InputError("household_variables need the household identifier column (household)")
    if shared and household == weight:
        raise InputError(f"{source.path}: the household column {household!r} is also the weight")
    riding = shared and household not in names  # a household's code rides along as one more column
    return names, depth, rank, shared, bool(riding)


@validate_params({"source": InstanceOf(Source), "keys": InstanceOf((list, tuple), "a list of key columns"),
                  "out": [None, InstanceOf((str, os.PathLike), "a file path")], "k": [None, "k"],
                  "max_risk": [None, "risk_bound"],
                  "weight": [None, InstanceOf(str, "a column name")],
                  "importance": [None, InstanceOf(Mapping, "a mapping of variable -> importance")],
                  "household": [None, InstanceOf(str, "a column name")],
                  "household_variables": InstanceOf((list, tuple), "a list of key columns"),
                  "chunk_size": "record_chunk",
                  "partitions": [None, "key_partitions"],
                  "budget": InstanceOf(WorkBudget), "overwrite": Boolean()},
                 example=lambda: {"source": scan(persons_file()), "keys": ["sex", "region"], "out": None, "k": 3,
                                  "progress": False})
def suppress_file(source: Source, keys: Sequence[str], out: str | os.PathLike | None, k: int | None = None,
                  max_risk: float | None = None, weight: str | None = None,
                  importance: Mapping[str, float] | None = None, dimension: int | None = None,
                  household: str | None = None, household_variables: Sequence[str] = (),
                  chunk_size: int = DEFAULT_CHUNK_SIZE, progress: bool = True,
                  budget: WorkBudget = DEFAULT_BUDGET, partitions: int | None = None,
                  overwrite: bool = False) -> FileSuppression:
    """Local suppression of a file to k-anonymity or a risk threshold, out of core.

    The same rule and results as
    :func:`rumap.masking.categorical.local_suppression`. With households the
    rounds run on the distinct rows of key values and household (records of
    one household with the same key values share every decision), so memory
    holds about one row per record's household and key values rather than
    per key value.

    The distinct rows are found a hash partition at a time (about
    ``chunk_size`` rows each) and kept as codes in the smallest integer type
    with their counts; the rounds work on the classes at risk; the pass that
    writes finds each record's row by a binary search in the rows' numbers
    and blanks it by the row's bits of suppressed keys.

    Parameters
    ----------
    source : Source
        From :func:`rumap.scale.scan`.
    keys : sequence of str
    out : str or path-like or None
        The ``.parquet`` or ``.csv`` file written (None: count only).
    k : int, optional
        Reach ``f_k >= k``.
    max_risk : float, optional
        Reach individual risk at most this.
    weight : str, optional
        Sampling weights, for the individual risk.
    importance : mapping, optional
        ``{variable: importance}``, the least important suppressed first.
    dimension : int, optional
        Largest combination searched for unsafe cells (default all keys).
    household : str, optional
        Household identifier column, with ``household_variables``.
    household_variables : sequence of str
        Keys the same for every member of a household: suppressed in one
        member, they are suppressed in all.
    chunk_size : int
        Records per chunk written, and distinct rows per partition.
    progress : bool
        Report the rounds and the pass on stderr.
    budget : WorkBudget
    partitions : int, optional
        Hash partitions of the distinct rows (default: from ``chunk_size``).
    overwrite : bool
        Replace an existing ``out`` (default: refuse it).

    Returns
    -------
    FileSuppression

    Examples
    --------
    >>> result = suppress_file(scan(persons_file()), ["sex", "region"], None, k=3, progress=False)
    >>> result.per_variable, result.rounds
    ((4, 1), 3)
    """
    check_out(out, [("source", source.path)], overwrite)
    if k is None and max_risk is None:
        raise InputError("give k (k-anonymity), max_risk (individual risk) or both")
    names, depth, rank, shared, riding = _suppression_settings(source, keys, dimension, importance, household,
                                                               household_variables, weight)
    table = _FileRows(source, names, [*names, str(household)] if riding else names, weight, chunk_size, partitions,
                      progress)
    n = table.n
    reason = k_out_of_reach(k, n, source.path)
    if reason is not None:
        return FileSuppression(tuple(names), n, k, max_risk, 0, (0,) * len(names), False, reason)
    # codes 0, 1, ... of the categories (every one present in the file), -1 missing; the household's code: -1
    # for a missing identifier, all such records one household (as pandas.factorize)
    found = table.collect(with_fk=not shared and k is not None and max_risk is None)
    classes, count, members = found[0], found[1], found[4]
    if shared and not riding:
        members = classes[:, names.index(str(household))].astype(np.int64)
    # the classes at risk followed a chunk's worth at a time; f_k dropped after the first round
    blank, rounds = suppression_rounds(classes, k, max_risk, found[2], rank, depth, members, tuple(shared),
                                       budget=budget, progress=_say(progress), counts=count,
                                       first_fk=found.pop(3), followed=chunk_size)
    del found
    per_variable = tuple(int(count[blank[:, j]].sum()) for j in range(len(names)))
    if out is not None:
        marks = np.packbits(blank, axis=1)  # each row's suppressed keys, a bit each
        del blank, count
        numbers = table.numbers(classes, members if riding else None)
        del classes, members
        locate, marks = table.locator(numbers, marks)
        del numbers
        file_pass(source, partial(_suppressed_chunk, names, locate, marks), out, inputs=[("source", source.path)],
                  overwrite=overwrite, chunk_size=chunk_size, progress=progress, label="local suppression")
    return FileSuppression(tuple(names), n, k, max_risk, rounds, per_variable,
                           out=None if out is None else str(out))


@dataclass(frozen=True)
class FilePram:
    """What PRAM of a file did: each key's categories and counts (its matrix) and the values changed.

    Attributes
    ----------
    keys : tuple of str
    theta : float
    n : int
    matrices : dict
        ``{variable: (categories, counts)}``, categories in order of first appearance.
    changed : dict
        ``{variable: values changed}``.
    out : str or None
    """

    keys: tuple[str, ...]
    theta: float
    n: int
    matrices: dict = field(repr=False)
    changed: dict = field(repr=False)
    out: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """The keys of :meth:`rumap.masking.pram.PramResult.to_dict`."""
        return {"keys": list(self.keys), "theta": self.theta,
                "changed_share": {k: self.changed[k] / self.n if self.n else 0.0 for k in self.keys},
                "matrices": {k: {"categories": [str(c) for c in cats], "counts": [int(c) for c in counts],
                                 "matrix": (pram_matrix(counts, self.theta).tolist()
                                            if len(cats) <= MAX_LISTED_PRAM_CATEGORIES else None)}
                             for k, (cats, counts) in self.matrices.items()}}


def _first_appearance(source: Source, name: str) -> tuple[pl.Series, np.ndarray]:
    """A column's categories in order of first appearance in the file, and their counts."""
    pl = polars_module()
    table = source.collect(source.lazy([name]).with_row_index(_INDEX).drop_nulls(name)
                           .group_by(name).agg(pl.len().alias("count"), pl.col(_INDEX).min()).sort(_INDEX))
    return table[name], table["count"].to_numpy().astype(np.int64)


@validate_params({"source": InstanceOf(Source), "keys": InstanceOf((list, tuple), "a list of key columns"),
                  "theta": "theta", "seed": SEED,
                  "out": [None, InstanceOf((str, os.PathLike), "a file path")],
                  "chunk_size": "record_chunk", "overwrite": Boolean()},
                 example=lambda: {"source": scan(persons_file()), "keys": ["sex"], "theta": 0.5, "seed": 1,
                                  "out": None, "progress": False})
def pram_file(source: Source, keys: Sequence[str], theta: float, seed: int | None, out: str | os.PathLike | None,
              chunk_size: int = DEFAULT_CHUNK_SIZE, progress: bool = True, overwrite: bool = False) -> FilePram:
    """Invariant PRAM of a file's keys, out of core, equal to :func:`rumap.masking.pram.pram` with the same seed.

    Parameters
    ----------
    source : Source
    keys : sequence of str
    theta : float
        Probability that a value is kept.
    seed : int or None
        The seed (an integer: the draws of a chunk are found from it and the
        chunk's first record; None draws one).
    out : str or path-like or None
        The ``.parquet`` or ``.csv`` file written (None: count the changes only).
    chunk_size : int
        Records per chunk (the file written does not depend on it).
    progress : bool
    overwrite : bool
        Replace an existing ``out`` (default: refuse it).

    Returns
    -------
    FilePram

    Examples
    --------
    >>> result = pram_file(scan(persons_file()), ["sex"], 1.0, 3, None, progress=False)
    >>> result.changed, result.matrices["sex"][1].tolist()
    ({'sex': 0}, [2, 2])
    """
    check_out(out, [("source", source.path)], overwrite)
    if isinstance(seed, np.random.Generator):
        raise InputError("seed must be an integer for a file (its chunks' draws are found from it), not a Generator")
    seed = int(np.random.SeedSequence().entropy) if seed is None else int(seed)
    names = _key_names(source, keys)
    n = source.count()
    categories = {name: _first_appearance(source, name) for name in names}
    drawn = [name for name in names if categories[name][0].len()]
    offset = {name: j * n for j, name in enumerate(drawn)}  # pram draws n uniforms per key with a known value
    shares = {name: pram_shares(categories[name][1]) for name in drawn}
    changed = dict.fromkeys(names, 0)

    kernel = partial(_pram_chunk, {name: categories[name][0] for name in drawn}, shares, float(theta), seed, offset)
    file_pass(source, kernel, out, inputs=[("source", source.path)], overwrite=overwrite, chunk_size=chunk_size,
              progress=progress, label="PRAM", gather=lambda counts: _add_changes(changed, counts))
    return FilePram(tuple(names), float(theta), n,
                    {name: (categories[name][0].to_list(), categories[name][1]) for name in drawn}, changed,
                    None if out is None else str(out))


def _add_changes(changed: dict[str, int], counts: Mapping[str, int]) -> None:
    """Add a chunk's values changed per key to ``changed``."""
    for name, count in counts.items():
        changed[name] += count


def _pram_chunk(values: Mapping[str, pl.Series], shares: Mapping[str, np.ndarray], theta: float, seed: int,
                offset: Mapping[str, int], chunk: pl.DataFrame, start: int) -> tuple[pl.DataFrame, dict[str, int]]:
    """PRAM's chunk kernel out of core: a chunk's records with PRAM applied to each key of ``values``, and the
    values each changed.

    Record ``start + i``'s draw for a key is number ``offset[key] + start + i``
    of ``PCG64(seed)``'s stream, as :func:`rumap.masking.pram.pram` draws it
    (:func:`rumap.masking.pram.pram_chunk`); a missing value stays missing.
    A file's chunks and a cluster's ranges run it alike.
    """
    pl = polars_module()
    columns, changed = [], {}
    for name, categories in values.items():
        codes = chunk[name].replace_strict(categories, pl.int_range(0, categories.len(), eager=True), default=None,
                                           return_dtype=pl.Int64)
        known = codes.is_not_null().to_numpy()
        codes = codes.fill_null(-1).to_numpy()
        released = pram_chunk(codes, shares[name], theta, seed, offset[name] + start)
        changed[name] = int((released != codes).sum())
        columns.append(categories.gather(pl.Series(np.where(known, released, 0))).alias(name)
                       .zip_with(pl.Series(known), pl.Series([None], dtype=categories.dtype)))
    return chunk.with_columns(columns), changed
