"""A file's record ranges read on a Dask cluster's workers by the one-machine engine's reader.

The file is cut into ranges of records (partitions, ``chunk_size`` records
each); a worker reads its range with the reader of :func:`rumap.scale.scan`
(Polars, the same types and missing values as one machine) and returns what
the client needs: the distinct key rows (and key row, sensitive value pairs)
with their records and weights, a household's sums, or the records
transformed. :func:`each_part` hands the partitions to the workers and gives
the results back in file order, a few in flight at a time, so the client
holds one partition's result at a time; :class:`Ranges` makes the partitions
a source of the one chunk runner (:func:`rumap.engine.run_chunks`), whose
kernel each worker runs over the range it reads: every pass over a cluster's
ranges goes through it. :func:`cluster_frequencies` builds
from the workers' distinct rows the :class:`rumap.scale.KeyFrequencies` that
:func:`rumap.scale.key_frequencies` finds on one machine (a missing value
matching any category), and the distinct (key row, sensitive value) pairs.
"""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING, Any

import numpy as np

from rumap._validation import InstanceOf, assumes_valid, validate_params
from rumap.engine import run_chunks
from rumap.errors import InputError
from rumap.examples import persons_file
from rumap.scale.frequencies import (
    _COUNT,
    _WEIGHT,
    KeyFrequencies,
    _bad_weight,
    _by_pattern,
    _prepared,
    row_codes,
    wildcard_join,
)
from rumap.scale.source import DEFAULT_CHUNK_SIZE, Source, polars_module, scan

if TYPE_CHECKING:
    import polars as pl

__all__ = ["partitions", "read_part", "each_part", "Ranges", "cluster_frequencies", "frequencies_of_rows"]

@assumes_valid
def partitions(n: int, chunk_size: int | None, workers: int = 1) -> list[tuple[int, int]]:
    """The record ranges ``(start, length)`` of ``n`` records, ``chunk_size`` each.

    Parameters
    ----------
    n : int
        Records.
    chunk_size : int or None
        Records per partition (default: two partitions per worker, at most
        :data:`rumap.scale.DEFAULT_CHUNK_SIZE` records each).
    workers : int
        Worker threads of the cluster.

    Returns
    -------
    list of (int, int)

    Examples
    --------
    >>> partitions(10, 4)
    [(0, 4), (4, 4), (8, 2)]
    >>> partitions(10, None, workers=2)
    [(0, 3), (3, 3), (6, 3), (9, 1)]
    """
    size = chunk_size or min(DEFAULT_CHUNK_SIZE, max(1, math.ceil(n / max(1, 2 * workers))))
    return [(start, min(size, n - start)) for start in range(0, n, size)]


@assumes_valid
def read_part(path: str, columns: Sequence[str], start: int, length: int) -> pl.DataFrame:
    """Records ``start .. start + length - 1`` of a file, in file order, as :func:`rumap.scale.scan` reads them.

    Parameters
    ----------
    path : str
    columns : sequence of str
    start, length : int

    Returns
    -------
    polars.DataFrame

    Examples
    --------
    >>> read_part(persons_file(), ["sex"], 1, 2)["sex"].to_list()
    ['f', 'm']
    """
    pl = polars_module()
    query = scan(path).lazy(list(columns)).slice(start, length)
    try:
        return query.collect()
    except (pl.exceptions.ComputeError, pl.exceptions.SchemaError, pl.exceptions.InvalidOperationError,
            OSError) as exc:
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise InputError(f"{path}: cannot read the file: {first}") from None


def _shared(client: Any, value: Any) -> Any:
    """``value`` sent once to every worker (a future of it), or itself without a client."""
    if client is None or isinstance(value, (str, int, float, type(None))):
        return value
    return client.scatter([value], broadcast=True, hash=False)[0]  # a dict or list as one value, not one per item


@assumes_valid
def each_part(client: Any, task: Callable[..., Any], parts: Sequence[tuple[int, int]], *shared: Any
              ) -> Iterator[Any]:
    """``task(*shared, start, length)`` of each partition, on the workers, the results in file order.

    At most two tasks per worker thread are in flight; a result is released
    on the cluster once given back, so the client and the workers hold a few
    partitions' results at a time. Without a client the partitions run here,
    one after another. A task's error is raised here, the first partition's
    first.

    Parameters
    ----------
    client : distributed.Client or None
    task : callable
    parts : sequence of (int, int)
    *shared
        Arguments sent once to every worker.

    Yields
    ------
    object
        Each partition's result.

    Examples
    --------
    >>> list(each_part(None, lambda a, start, length: a + start + length, [(0, 2), (2, 1)], 10))
    [12, 13]
    """
    if client is None:
        for start, length in parts:
            yield task(*shared, start, length)
        return
    shared = tuple(_shared(client, value) for value in shared)
    window = max(2, 2 * sum(client.nthreads().values()))
    waiting = iter(parts)
    running: deque = deque()

    def submit() -> None:
        for start, length in waiting:
            running.append(client.submit(task, *shared, start, length, pure=False))
            return

    for _ in range(window):
        submit()
    try:
        while running:
            future = running.popleft()
            result = future.result()
            future.release()
            submit()
            yield result
    finally:
        for future in running:
            future.cancel()


def _kernel_part(path: str, columns: list[str], kernel: Callable[[Any, int], tuple[Any, Any]], keep: bool,
                 start: int, length: int) -> tuple[pl.DataFrame | None, Any]:
    """A chunk kernel's ``(frame, what)`` over a range the worker reads (the frame only when ``keep``)."""
    frame, what = kernel(read_part(path, columns, start, length), start)
    return (frame if keep else None), what


@dataclass(frozen=True)
class Ranges:
    """A file's record ranges on a cluster: a source of the chunk runner (:func:`rumap.engine.run_chunks`).

    The runner's kernel runs on the workers, each over the range it reads
    (:func:`read_part`), the results coming back in file order
    (:func:`each_part`); it is sent once to every worker.

    Parameters
    ----------
    client : distributed.Client or None
        The cluster (None: the ranges run here, one after another).
    path : str
        The file every worker reads.
    columns : tuple of str
        The columns a range holds.
    parts : tuple of (int, int)
        The ranges ``(start, length)`` (:func:`partitions`).

    Examples
    --------
    >>> from rumap.engine import run_chunks
    >>> seen = []
    >>> run_chunks(Ranges(None, persons_file(), ("sex",), ((0, 3), (3, 1))),
    ...            lambda chunk, start: (None, chunk["sex"].to_list()), gather=seen.append), seen
    (ChunkRun(records=4, chunks=2), [['f', 'f', 'm'], ['m']])
    """

    client: Any
    path: str
    columns: tuple[str, ...]
    parts: tuple[tuple[int, int], ...]

    def map_chunks(self, kernel: Callable[[Any, int], tuple[Any, Any]], keep: bool
                   ) -> Iterator[tuple[pl.DataFrame | None, Any, int]]:
        """Each range's ``(frame or None, what, records)``, in file order.

        Parameters
        ----------
        kernel : callable
        keep : bool
            Whether the workers send the frames back.

        Yields
        ------
        tuple
        """
        found = each_part(self.client, _kernel_part, self.parts, self.path, list(self.columns), kernel, keep)
        for (frame, what), (_, length) in zip(found, self.parts, strict=True):
            yield frame, what, length


def _rows_of_chunk(path: str, by: list[str], weight: str | None, chunk: pl.DataFrame, start: int
                   ) -> tuple[None, tuple[pl.DataFrame, float]]:
    """The kernel of the counting pass: a range's distinct rows of ``by`` with their records and total weight,
    and its weights' sum."""
    pl = polars_module()
    chunk = chunk.with_columns([pl.col(c).fill_nan(None) for c in by if chunk.schema[c].is_float()])
    sums = [pl.len().alias(_COUNT)]
    total = 0.0
    if weight is not None:
        bad = chunk.with_row_index("row").filter(_bad_weight(weight)).head(1)
        if bad.height:
            raise InputError(f"{path}: weight {weight!r} must be a number >= 1 in every record, "
                             f"got {bad[weight].item()} in row {start + bad['row'].item() + 1}")
        total = float(chunk[weight].cast(pl.Float64).sum())
        sums.append(pl.col(weight).cast(pl.Float64).sum().alias(_WEIGHT))
    return None, (chunk.group_by(by).agg(sums), total)


@assumes_valid
def frequencies_of_rows(table: pl.DataFrame, names: Sequence[str], weighted: bool) -> KeyFrequencies:
    """The :class:`rumap.scale.KeyFrequencies` of distinct key rows with their records (and total weights).

    Parameters
    ----------
    table : polars.DataFrame
        One row per distinct key row (missing values null): the keys,
        ``__rumap_count`` and, when ``weighted``, ``__rumap_weight``.
    names : sequence of str
    weighted : bool

    Returns
    -------
    KeyFrequencies
        What :func:`rumap.scale.key_frequencies` finds for the file the rows count.

    Examples
    --------
    >>> import polars as pl
    >>> table = pl.DataFrame({"sex": ["f", "m", None], "__rumap_count": [2, 1, 1]})
    >>> frequencies_of_rows(table, ["sex"], False).fk.tolist()
    [3, 2, 4]
    """
    names = list(names)
    values = tuple(table[k].drop_nulls().unique().sort() for k in names)
    codes = np.asfortranarray(row_codes(table, names, values), dtype=np.int32)
    count = table[_COUNT].to_numpy().astype(np.int64)
    totals = table[_WEIGHT].to_numpy().astype(float) if weighted else count.astype(float)
    order = _by_pattern(codes)[0]
    codes, count, totals = np.asfortranarray(codes[order]), count[order], totals[order]
    fk, Fk = wildcard_join(codes, count, totals)
    return KeyFrequencies(keys=tuple(names), values=values, codes=codes, count=count, weight=totals,
                          fk=np.rint(fk).astype(np.int64), Fk=Fk if weighted else np.rint(fk),
                          n=int(count.sum()), weighted=weighted)


@validate_params({"source": InstanceOf(Source), "keys": InstanceOf((list, tuple), "a list of key columns"),
                  "weight": [None, InstanceOf(str, "a column name")],
                  "sensitive": [None, InstanceOf(str, "a column name")],
                  "chunk_size": [None, "record_chunk"]},
                 example=lambda: {"source": scan(persons_file()), "keys": ["sex"], "weight": "w"})
def cluster_frequencies(source: Source, keys: Sequence[str], weight: str | None = None,
                        sensitive: str | None = None, client: Any = None, chunk_size: int | None = None
                        ) -> tuple[KeyFrequencies, pl.DataFrame | None]:
    """The key frequencies of a file counted on a Dask cluster, and its distinct (key row, sensitive value) pairs.

    Each worker groups its partition by the keys (and ``sensitive``); the
    client adds the partitions' groups up and joins the missing-value
    patterns. Weights are refused as one machine refuses them, naming the
    first bad record.

    Parameters
    ----------
    source : Source
        A file every worker can read at ``source.path``.
    keys : sequence of str
    weight : str, optional
    sensitive : str, optional
        Also return the distinct pairs of key row and value of this column
        (a float's NaN as missing).
    client : distributed.Client, optional
        Default: the partitions are read here, one after another.
    chunk_size : int, optional
        Records per partition (default: :func:`partitions`).

    Returns
    -------
    KeyFrequencies
        Equal to :func:`rumap.scale.key_frequencies` (weights added in another order).
    polars.DataFrame or None
        The pairs: the keys, ``sensitive`` and their records.

    Examples
    --------
    >>> found, _ = cluster_frequencies(scan(persons_file()), ["sex", "region"], weight="w")
    >>> found.to_frame()[["sex", "count", "fk", "Fk"]].values.tolist()
    [['f', 2, 2, 30.0], ['m', 1, 2, 13.0], ['m', 1, 2, 13.0]]
    """
    from rumap.risk.individual import MAX_POPULATION

    pl = polars_module()
    if sensitive is not None and sensitive not in source.columns:
        raise InputError(f"{source.path}: no column {sensitive!r}; columns are {', '.join(source.columns)}")
    names, _ = _prepared(source, keys, weight, [sensitive] if sensitive is not None else [], check_weight=False)
    by = [*names, *([sensitive] if sensitive is not None else [])]
    parts = partitions(source.count(), chunk_size, sum(client.nthreads().values()) if client is not None else 1)
    if not parts:
        raise InputError(f"{source.path} has no records")
    found: list[tuple[pl.DataFrame, float]] = []
    run_chunks(Ranges(client, source.path, (*by, *([weight] if weight is not None else [])), tuple(parts)),
               partial(_rows_of_chunk, source.path, by, weight), gather=found.append)
    tables = [table for table, _ in found]
    total = sum((part_total for _, part_total in found), 0.0)
    del found
    if weight is not None and not total <= MAX_POPULATION:
        raise InputError(f"{source.path}: the weights {weight!r} sum to {total:.3g} population units, more than "
                         f"{MAX_POPULATION:.0e}: sampling weights count people or units, so this column is not a weight")
    sums = [pl.col(_COUNT).sum()] + ([pl.col(_WEIGHT).sum()] if weight is not None else [])
    grouped = pl.concat(tables).group_by(by).agg(sums)
    del tables
    rows = grouped.group_by(names).agg(sums) if sensitive is not None else grouped
    frequencies = frequencies_of_rows(rows, names, weight is not None)
    return frequencies, grouped.select([*by, _COUNT]) if sensitive is not None else None
