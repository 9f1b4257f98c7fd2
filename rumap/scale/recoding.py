"""Global recoding, banding and top/bottom coding of a file larger than memory, chunk by chunk.

Each chunk's distinct values go through the in-memory steps of
:mod:`rumap.masking.categorical` and Polars puts them back on the records
(:func:`recode_file`); the risk after recoding reads the source's keys
joined to codes of the written text (:func:`recoded_keys`), not the written
file.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import TYPE_CHECKING, Any

import numpy as np

from rumap._validation import Boolean, InstanceOf, validate_params
from rumap.errors import InputError
from rumap.examples import persons_file
from rumap.masking.categorical import category_text
from rumap.masking.recoding import recode_chunk, recoding_steps
from rumap.scale.passes import file_pass
from rumap.scale.protect import _key_names
from rumap.scale.source import DEFAULT_CHUNK_SIZE, Source, check_out, polars_module, scan

if TYPE_CHECKING:
    import polars as pl

__all__ = ["FileRecoding", "recode_file", "recoded_keys"]

#: The column of a recoded value's rank among the written texts.
_RANK = "__rumap_rank"


def _as_text(column: Any) -> list[str | None]:
    """A column's values as written (:func:`rumap.masking.categorical.category_text`), None where missing."""
    import pandas as pd

    return [None if pd.isna(value) else category_text(value) for value in column.astype(object)]


def _recoded_column(column: pl.Series, steps: Sequence[Callable[[Any], Any]]
                    ) -> tuple[pl.Series, int, set[str], set[str]]:
    """A column of a chunk through ``steps`` (in-memory functions of a one-column frame), as text.

    Each step changes each value on its own, so the steps run on the
    column's distinct values (a pandas frame of them, as the whole chunk
    would convert) and the records take their value's result through one
    ``replace_strict``. Returns the column, the records whose written value
    changed, and the distinct values before and after.
    """
    pl = polars_module()
    if column.dtype.is_float():
        column = column.fill_nan(None)  # pandas reads NaN as missing
    counted = column.value_counts(sort=False)
    distinct, records = counted.get_column(column.name), counted.get_column(counted.columns[1]).to_numpy()
    frame = distinct.to_frame().to_pandas()
    try:
        protected = recode_chunk(frame, {column.name: steps})
    except InputError:  # the message counts the chunk's records, not its distinct values
        recode_chunk(column.to_frame().to_pandas(), {column.name: steps})
        raise
    old, new = _as_text(frame[column.name]), _as_text(protected[column.name])
    changed = int(records[np.array([a != b for a, b in zip(old, new, strict=True)], dtype=bool)].sum())
    written = column.replace_strict(distinct, pl.Series(new, dtype=pl.String), return_dtype=pl.String)
    return written, changed, set(old) - {None}, set(new) - {None}


def _recoded_chunk(touched: Sequence[str], steps: Mapping[str, Sequence[Callable[[Any], Any]]], chunk: pl.DataFrame,
                   start: int) -> tuple[pl.DataFrame, dict[str, tuple]]:
    """Global recoding's chunk kernel out of core: a chunk's records recoded, and per column what it changed.

    A file's chunks and a cluster's ranges run it alike. Per recoded column: the records whose written value
    changed, the distinct values before and after, and the distinct pairs of value read (a float's NaN as
    missing) and text written.
    """
    pl = polars_module()
    columns, what = [], {}
    for name in touched:
        read = chunk.get_column(name)
        try:
            column, count, old, new = _recoded_column(read, steps[name])
        except InputError as exc:  # a chunk's row named in the file: counted from the chunk's first record
            if start == 0:
                raise
            raise InputError(f"{exc} (rows counted from record {start + 1})") from None
        columns.append(column)
        pairs = pl.DataFrame([(read.fill_nan(None) if read.dtype.is_float() else read).alias("old"),
                              column.alias("new")]).unique()
        what[name] = (count, old, new, pairs)
    return chunk.with_columns(columns), what


class _RecodingTally:
    """What the chunks of a recoding changed, added up in file order into a :class:`FileRecoding`."""

    def __init__(self, touched: Sequence[str]) -> None:
        self.touched = list(touched)
        self.changed = dict.fromkeys(self.touched, 0)
        self.before: dict[str, set] = {name: set() for name in self.touched}
        self.after: dict[str, set] = {name: set() for name in self.touched}
        self.pairs: dict[str, Any] = dict.fromkeys(self.touched)

    def add(self, what: Mapping[str, tuple]) -> None:
        """Add a chunk's :func:`_recoded_chunk` counts."""
        pl = polars_module()
        for name, (count, old, new, seen) in what.items():
            self.changed[name] += count
            self.before[name].update(old)
            self.after[name].update(new)
            self.pairs[name] = seen if self.pairs[name] is None else pl.concat([self.pairs[name], seen]).unique()

    def result(self, n: int, out: str | os.PathLike | None) -> FileRecoding:
        """The recoding of ``n`` records written to ``out``."""
        kept = [name for name in self.touched if self.changed[name]]
        return FileRecoding(n, {name: self.changed[name] for name in kept},
                            {name: {"before": len(self.before[name] - {None}), "after": len(self.after[name] - {None})}
                             for name in kept},
                            None if out is None else str(out),
                            {name: table for name, table in self.pairs.items() if table is not None})


@dataclass(frozen=True)
class FileRecoding:
    """What global recoding of a file changed.

    Attributes
    ----------
    n : int
    changed : dict
        ``{column: records whose value was changed}`` (as written: 1 and 1.0
        alike), only columns with some.
    categories : dict
        ``{column: {"before": distinct values, "after": distinct values}}`` of the changed columns.
    out : str or None
    written : dict
        ``{column: polars.DataFrame}``, each recoded column's distinct pairs
        of value read (``old``, a float's NaN as missing) and text written
        (``new``), for :func:`recoded_keys`.
    """

    n: int
    changed: dict
    categories: dict
    out: str | None = None
    written: dict = field(default_factory=dict, repr=False, compare=False)

    def to_dict(self) -> dict[str, Any]:
        """Records changed and categories before and after, per changed column."""
        return {"n": self.n, "changed": dict(self.changed), "categories": dict(self.categories), "out": self.out}


@validate_params({"source": InstanceOf(Source), "mapping": [None, InstanceOf(Mapping, "variable -> merges")],
                  "out": [None, InstanceOf((str, os.PathLike), "a file path")],
                  "chunk_size": "record_chunk", "overwrite": Boolean()},
                 example=lambda: {"source": scan(persons_file()), "out": None,
                                  "mapping": {"region": {"a": "ab", "b": "ab"}}, "progress": False})
def recode_file(source: Source, out: str | os.PathLike | None, mapping: Mapping[str, Mapping[Any, Any]] | None = None,
                bands: Sequence[tuple[str, float]] = (), top: Sequence[tuple[str, float]] = (),
                bottom: Sequence[tuple[str, float]] = (), chunk_size: int = DEFAULT_CHUNK_SIZE,
                progress: bool = True, overwrite: bool = False) -> FileRecoding:
    """Global recoding, banding and top/bottom coding of a file, chunk by chunk, in that order.

    Parameters
    ----------
    source : Source
    out : str or path-like or None
        The ``.parquet`` or ``.csv`` file written (None: count only).
    mapping, bands, top, bottom
        The recoding, as in :func:`rumap.masking.recoding.recoding_steps`.
    chunk_size : int
    progress : bool
    overwrite : bool
        Replace an existing ``out`` (default: refuse it).

    Returns
    -------
    FileRecoding

    Examples
    --------
    >>> recode_file(scan(persons_file()), None, {"region": {"a": "ab", "b": "ab"}}, progress=False).categories
    {'region': {'before': 2, 'after': 1}}
    """
    check_out(out, [("source", source.path)], overwrite)
    steps = recoding_steps(mapping, bands, top, bottom, source=source.path)
    touched = list(steps)
    _key_names(source, touched)
    tally = _RecodingTally(touched)
    n = file_pass(source, partial(_recoded_chunk, touched, steps), out, inputs=[("source", source.path)],
                  overwrite=overwrite, chunk_size=chunk_size, progress=progress, label="global recoding",
                  gather=tally.add)
    return tally.result(n, out)


@dataclass(frozen=True)
class _RecodedKeys(Source):
    """The source file with recoded columns read as the rank of their written text among its sorted values."""

    ranks: tuple = field(default=(), repr=False, compare=False)

    def lazy(self, columns: Sequence[str] | None = None) -> pl.LazyFrame:
        # a join with each column's small table: replace_strict held the whole column in the streaming engine
        pl = polars_module()
        frame = super().lazy(columns)
        chosen = set(self.columns if columns is None else columns)
        schema = frame.collect_schema()
        for name, old, rank, missing in self.ranks:
            if name not in chosen:
                continue
            if schema[name].is_float():
                frame = frame.with_columns(pl.col(name).fill_nan(None))
            table = pl.LazyFrame([old.alias(name), rank.alias(_RANK)])
            code = pl.col(_RANK) if missing is None else (
                pl.when(pl.col(name).is_null()).then(pl.lit(missing, pl.Int64)).otherwise(pl.col(_RANK)))
            frame = (frame.join(table, on=name, how="left", maintain_order="left")
                     .with_columns(code.alias(name)).drop(_RANK))
        return frame


@validate_params({"source": InstanceOf(Source), "recoding": InstanceOf(FileRecoding)},
                 example=lambda: {"source": scan(persons_file()),
                                  "recoding": recode_file(scan(persons_file()), None, {"region": {"a": "ab"}},
                                                          progress=False)})
def recoded_keys(source: Source, recoding: FileRecoding) -> Source | None:
    """The recoded records as :func:`recode_file` wrote them, read from its source with compact integer codes.

    Each recoded column reads as the rank (0, 1, ...) of its written text
    among the sorted distinct texts (missing where the text is), so two
    records agree on it exactly when their written texts do, and key rows
    fold to the same numbers as the written file's: the risk measures of
    :mod:`rumap.scale.risk` on it equal those on the written file, without
    reading its text columns (Polars holds text read from Parquet in
    memory growing with the file).

    Parameters
    ----------
    source : Source
        The file :func:`recode_file` read.
    recoding : FileRecoding
        What it returned.

    Returns
    -------
    Source or None
        None when a value was written as two texts (never by the recodings,
        which change each value on its own).

    Examples
    --------
    >>> source = scan(persons_file())
    >>> view = recoded_keys(source, recode_file(source, None, {"region": {"a": "ab", "b": "ab"}}, progress=False))
    >>> view.lazy(["region"]).collect()["region"].to_list()
    [0, 0, None, 0]
    """
    pl = polars_module()
    ranks = []
    for name, table in recoding.written.items():
        if table.get_column("old").n_unique() != table.height:
            return None
        texts = table.get_column("new").drop_nulls().unique().sort()
        rank = table.get_column("new").replace_strict(texts, pl.int_range(0, texts.len(), eager=True),
                                                      default=None, return_dtype=pl.Int64)
        known = table.get_column("old").is_not_null()
        missing = rank.filter(~known)
        ranks.append((name, table.get_column("old").filter(known), rank.filter(known),
                      missing.item() if missing.len() else None))
    return _RecodedKeys(source.path, source.format, source.columns, source.separator, tuple(ranks))
