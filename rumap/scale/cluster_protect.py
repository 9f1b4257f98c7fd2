"""Protecting the categorical keys of a file on a Dask cluster: local suppression, PRAM, global recoding.

The workers read record ranges of the file (:mod:`rumap.scale.cluster_parts`,
the one-machine engine's reader) and count them; the client decides; the
workers transform their records and the client writes them to the one file
asked for, a range at a time in file order (its memory holds one range). The
workers run the one-machine engine's chunk kernels over their ranges through
the one chunk runner (:func:`rumap.engine.run_chunks` over
:class:`rumap.scale.cluster_parts.Ranges`), so the files written equal those
of :mod:`rumap.scale.protect` (``--engine scale``):

- :func:`cluster_suppress`: the distinct key rows are counted on the
  workers, the heuristic's rounds run on them on the client
  (:func:`rumap.masking.suppression_rounds.suppression_rounds`, as
  :func:`rumap.scale.protect.suppress_file` runs them), and each worker
  blanks its records' values as their row's;
- :func:`cluster_pram`: the categories in order of first appearance and their
  counts are found from each range's (first record, count) per category;
  the record ``i`` of a range starting at ``s`` draws number ``j n + s + i``
  of ``default_rng(seed)``'s stream for the ``j``-th key, as one machine;
- :func:`cluster_recode`: each worker recodes its range's distinct values
  (:func:`rumap.masking.categorical.recode`, ``band``, ``top_bottom_code``).
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from functools import partial
from typing import TYPE_CHECKING, Any

import numpy as np

from rumap._validation import SEED, Boolean, InstanceOf, validate_params
from rumap.budget import DEFAULT_BUDGET, WorkBudget
from rumap.engine import run_chunks
from rumap.errors import InputError
from rumap.examples import persons_file
from rumap.masking.pram import pram_shares
from rumap.masking.recoding import recoding_steps
from rumap.masking.suppression_rounds import suppression_rounds
from rumap.scale.cluster import cluster_client
from rumap.scale.cluster_parts import Ranges, cluster_frequencies, partitions
from rumap.scale.passes import file_pass
from rumap.scale.protect import (
    _INDEX,
    FilePram,
    FileSuppression,
    _add_changes,
    _key_names,
    _pram_chunk,
    _say,
    _suppressed_chunk,
    _suppression_settings,
)
from rumap.scale.recoding import FileRecoding, _recoded_chunk, _RecodingTally
from rumap.scale.source import check_out, polars_module, scan

if TYPE_CHECKING:
    import polars as pl

__all__ = ["cluster_suppress", "cluster_pram", "cluster_recode"]


def _workers(client: Any) -> int:
    return sum(client.nthreads().values()) if client is not None else 1


def _ranges(client: Any, source: Any, n: int, chunk_size: int | None) -> Ranges:
    """The file's record ranges on the cluster, ``chunk_size`` records each (default: two per worker thread)."""
    return Ranges(client, source.path, tuple(source.columns), tuple(partitions(n, chunk_size, _workers(client))))


@validate_params({"path": InstanceOf((str, os.PathLike), "a file path"),
                  "keys": InstanceOf((list, tuple), "a list of key columns"),
                  "out": [None, InstanceOf((str, os.PathLike), "a file path")], "k": [None, "k"],
                  "max_risk": [None, "risk_bound"], "weight": [None, InstanceOf(str, "a column name")],
                  "importance": [None, InstanceOf(Mapping, "a mapping of variable -> importance")],
                  "household": [None, InstanceOf(str, "a column name")],
                  "household_variables": InstanceOf((list, tuple), "a list of key columns"),
                  "chunk_size": [None, "record_chunk"], "budget": InstanceOf(WorkBudget), "overwrite": Boolean()},
                 example=lambda: {"path": persons_file(), "keys": ["sex", "region"], "out": None, "k": 3,
                                  "progress": False})
def cluster_suppress(path: str | os.PathLike, keys: Sequence[str], out: str | os.PathLike | None,
                     k: int | None = None, max_risk: float | None = None, weight: str | None = None,
                     importance: Mapping[str, float] | None = None, dimension: int | None = None,
                     household: str | None = None, household_variables: Sequence[str] = (), scheduler: Any = None,
                     chunk_size: int | None = None, progress: bool = True,
                     budget: WorkBudget = DEFAULT_BUDGET, overwrite: bool = False) -> FileSuppression:
    """Local suppression of a file on a Dask cluster, equal to :func:`rumap.scale.protect.suppress_file`.

    Parameters
    ----------
    path : str or path-like
        A ``.parquet`` or ``.csv`` file every worker can read.
    keys, out, k, max_risk, weight, importance, dimension, household, household_variables, budget, overwrite
        As in :func:`rumap.scale.protect.suppress_file`.
    scheduler : str or distributed.Client, optional
        The scheduler's address or a client (default: the ranges run here).
    chunk_size : int, optional
        Records per range (default: two ranges per worker thread, at most 10^6 records each).
    progress : bool
        Report the rounds and the records written on stderr.

    Returns
    -------
    FileSuppression

    Examples
    --------
    >>> result = cluster_suppress(persons_file(), ["sex", "region"], None, k=3, progress=False)
    >>> result.per_variable, result.rounds
    ((4, 1), 3)
    """
    if k is None and max_risk is None:
        raise InputError("give k (k-anonymity), max_risk (individual risk) or both")
    check_out(out, [("path", path)], overwrite)
    source = scan(path)
    names, depth, rank, shared, riding = _suppression_settings(source, keys, dimension, importance, household,
                                                               household_variables, weight)
    client, own = cluster_client(scheduler)
    try:
        frequencies = cluster_frequencies(source, [*names, household] if riding else names, weight, None, client,
                                          chunk_size)[0]
        n = frequencies.n
        if k is not None and k > n:
            reason = (f"k = {k} is more than the {n} records of {source.path}: no suppression makes a record "
                      f"{k}-anonymous (a record shares its key with at most {n}); nothing was suppressed")
            return FileSuppression(tuple(names), n, k, max_risk, 0, (0,) * len(names), False, reason)
        classes = np.empty((frequencies.codes.shape[0], len(names)), dtype=np.int64)
        for j in range(len(names)):  # codes 0, 1, ... of the categories present, -1 missing
            column = frequencies.codes[:, j]
            present = np.unique(column[column > 0])
            classes[:, j] = np.where(column > 0, np.searchsorted(present, column), -1)
        members = None
        if shared:
            members = frequencies.codes[:, -1 if riding else names.index(str(household))].astype(np.int64) - 1
        blank, rounds = suppression_rounds(classes, k, max_risk, frequencies.weight if frequencies.weighted else None,
                                           rank, depth, members, tuple(shared), budget=budget,
                                           progress=_say(progress), counts=frequencies.count,
                                           first_fk=None if shared else frequencies.fk)
        if out is not None:
            frequencies._numbers()  # the rows' look-up made once, here, and sent with them
            file_pass(_ranges(client, source, n, chunk_size),
                      partial(_suppressed_chunk, names, frequencies.rows, np.packbits(blank, axis=1)), out,
                      inputs=[("path", source.path)], overwrite=overwrite, progress=progress,
                      label="local suppression")
    finally:
        if own:
            client.close()
    per_variable = tuple(int(v) for v in (blank * frequencies.count[:, None]).sum(axis=0))
    return FileSuppression(tuple(names), n, k, max_risk, rounds, per_variable, out=None if out is None else str(out))


def _first_chunk(names: list[str], chunk: pl.DataFrame, start: int) -> tuple[None, dict[str, pl.DataFrame]]:
    """The kernel of PRAM's counting pass: each key's categories in a range, their records and first record."""
    pl = polars_module()
    chunk = chunk.with_row_index(_INDEX, offset=start)
    return None, {name: chunk.select(_INDEX, name).drop_nulls(name).group_by(name)
                  .agg(pl.len().alias("count"), pl.col(_INDEX).min()) for name in names}


@validate_params({"path": InstanceOf((str, os.PathLike), "a file path"),
                  "keys": InstanceOf((list, tuple), "a list of key columns"), "theta": "theta", "seed": SEED,
                  "out": [None, InstanceOf((str, os.PathLike), "a file path")], "chunk_size": [None, "record_chunk"],
                  "overwrite": Boolean()},
                 example=lambda: {"path": persons_file(), "keys": ["sex"], "theta": 0.5, "seed": 1, "out": None,
                                  "progress": False})
def cluster_pram(path: str | os.PathLike, keys: Sequence[str], theta: float, seed: int | None,
                 out: str | os.PathLike | None, scheduler: Any = None, chunk_size: int | None = None,
                 progress: bool = True, overwrite: bool = False) -> FilePram:
    """Invariant PRAM of a file's keys on a Dask cluster, equal to :func:`rumap.scale.protect.pram_file`.

    Parameters
    ----------
    path : str or path-like
    keys : sequence of str
    theta : float
        Probability that a value is kept.
    seed : int or None
        The seed (None draws one).
    out : str or path-like or None
        The ``.parquet`` or ``.csv`` file written (None: count the changes only).
    scheduler : str or distributed.Client, optional
    chunk_size : int, optional
        Records per range (the file written does not depend on it).
    progress : bool
    overwrite : bool
        Replace an existing ``out`` (default: refuse it).

    Returns
    -------
    FilePram

    Examples
    --------
    >>> result = cluster_pram(persons_file(), ["sex"], 1.0, 3, None, progress=False)
    >>> result.changed, result.matrices["sex"][1].tolist()
    ({'sex': 0}, [2, 2])
    """
    if isinstance(seed, np.random.Generator):
        raise InputError("seed must be an integer for a file (its chunks' draws are found from it), not a Generator")
    pl = polars_module()
    check_out(out, [("path", path)], overwrite)
    seed = int(np.random.SeedSequence().entropy) if seed is None else int(seed)
    source = scan(path)
    names = _key_names(source, keys)
    n = source.count()
    client, own = cluster_client(scheduler)
    try:
        parts = partitions(n, chunk_size, _workers(client))
        found: list[dict[str, pl.DataFrame]] = []
        run_chunks(Ranges(client, source.path, tuple(names), tuple(parts)), partial(_first_chunk, names),
                   gather=found.append)
        categories = {}
        for name in names:
            table = (pl.concat([part[name] for part in found]).group_by(name)
                     .agg(pl.col("count").sum(), pl.col(_INDEX).min()).sort(_INDEX)) if found else None
            categories[name] = ((table[name], table["count"].to_numpy().astype(np.int64)) if table is not None
                                else (pl.Series(name, [], dtype=source.lazy([name]).collect_schema()[name]),
                                      np.zeros(0, dtype=np.int64)))
        del found
        drawn = [name for name in names if categories[name][0].len()]
        offset = {name: j * n for j, name in enumerate(drawn)}  # pram draws n uniforms per key with a known value
        shares = {name: pram_shares(categories[name][1]) for name in drawn}
        changed = dict.fromkeys(names, 0)
        kernel = partial(_pram_chunk, {name: categories[name][0] for name in drawn}, shares, float(theta), seed,
                         offset)
        file_pass(Ranges(client, source.path, tuple(source.columns), tuple(parts)), kernel, out,
                  inputs=[("path", source.path)], overwrite=overwrite, progress=progress, label="PRAM",
                  gather=lambda counts: _add_changes(changed, counts))
    finally:
        if own:
            client.close()
    return FilePram(tuple(names), float(theta), n,
                    {name: (categories[name][0].to_list(), categories[name][1]) for name in drawn}, changed,
                    None if out is None else str(out))


@validate_params({"path": InstanceOf((str, os.PathLike), "a file path"),
                  "mapping": [None, InstanceOf(Mapping, "variable -> merges")],
                  "out": [None, InstanceOf((str, os.PathLike), "a file path")], "chunk_size": [None, "record_chunk"],
                  "overwrite": Boolean()},
                 example=lambda: {"path": persons_file(), "out": None, "mapping": {"region": {"a": "ab", "b": "ab"}},
                                  "progress": False})
def cluster_recode(path: str | os.PathLike, out: str | os.PathLike | None,
                   mapping: Mapping[str, Mapping[Any, Any]] | None = None, bands: Sequence[tuple[str, float]] = (),
                   top: Sequence[tuple[str, float]] = (), bottom: Sequence[tuple[str, float]] = (),
                   scheduler: Any = None, chunk_size: int | None = None, progress: bool = True,
                   overwrite: bool = False) -> FileRecoding:
    """Global recoding, banding and top/bottom coding of a file on a Dask cluster, as :func:`rumap.scale.recoding.recode_file`.

    Parameters
    ----------
    path : str or path-like
    out : str or path-like or None
    mapping, bands, top, bottom
        As in :func:`rumap.scale.recoding.recode_file`.
    scheduler : str or distributed.Client, optional
    chunk_size : int, optional
        Records per range.
    progress : bool
    overwrite : bool
        Replace an existing ``out`` (default: refuse it).

    Returns
    -------
    FileRecoding

    Examples
    --------
    >>> cluster_recode(persons_file(), None, {"region": {"a": "ab", "b": "ab"}}, progress=False).categories
    {'region': {'before': 2, 'after': 1}}
    """
    check_out(out, [("path", path)], overwrite)
    source = scan(path)
    steps = recoding_steps(mapping, bands, top, bottom, source=source.path)
    touched = list(steps)
    _key_names(source, touched)
    n = source.count()
    client, own = cluster_client(scheduler)
    tally = _RecodingTally(touched)
    try:
        file_pass(_ranges(client, source, n, chunk_size), partial(_recoded_chunk, touched, steps), out,
                  inputs=[("path", source.path)], overwrite=overwrite, progress=progress, label="global recoding",
                  gather=tally.add)
    finally:
        if own:
            client.close()
    return tally.result(n, out)
