"""A record-wise pass of the out-of-core engines: a chunk kernel run over a file's chunks or a cluster's ranges.

:func:`file_pass` runs a kernel through the one chunk runner
(:func:`rumap.engine.run_chunks`) with what a pass over a file adds: the
chunks written to ``out`` in file order and renamed into place at the end
(:func:`rumap.scale.source.chunks_to`), and progress on stderr
(:class:`rumap.scale.Progress`). The source is a file
(:class:`rumap.scale.Source`, read here) or a cluster's record ranges
(:class:`rumap.scale.cluster_parts.Ranges`, read on the workers): the same
kernel, the same file written. :func:`apply_chunks` is the public pass over a
file: a transform of each chunk, its results written in order.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from rumap._validation import Boolean, InstanceOf, assumes_valid, validate_params
from rumap.engine import run_chunks
from rumap.engine.runner import Kernel
from rumap.examples import persons_file
from rumap.scale.source import DEFAULT_CHUNK_SIZE, Progress, Source, chunks_to, scan

if TYPE_CHECKING:
    import polars as pl

__all__ = ["apply_chunks", "file_pass"]


@assumes_valid
def file_pass(source: Any, kernel: Kernel, out: str | os.PathLike | None, *, inputs: Sequence[tuple[str, Any]],
              overwrite: bool = False, chunk_size: int | None = None, columns: Sequence[str] | None = None,
              progress: bool = True, label: str = "records", gather: Callable[[Any], None] | None = None) -> int:
    """Run ``kernel`` over ``source``, write the frames it returns to ``out``; the records read.

    Parameters
    ----------
    source : Source or Ranges
        A file read here ``chunk_size`` records at a time, or a cluster's ranges.
    kernel : callable
        ``kernel(chunk, start) -> (frame or None, what)`` (:func:`rumap.engine.run_chunks`).
    out : str or path-like or None
        The ``.parquet`` or ``.csv`` file written (None: nothing is written, and a cluster's workers send no
        frames back).
    inputs : sequence of (flag, path)
        The files the run reads, which ``out`` may not be.
    overwrite : bool
        Replace an existing ``out``.
    chunk_size : int, optional
        Records per chunk of a file.
    columns : sequence of str, optional
        The columns a file's chunks hold.
    progress : bool
        Report progress on stderr.
    label : str
        Names the pass in the progress lines.
    gather : callable, optional
        ``gather(what)`` receives each chunk's ``what``, in file order.

    Returns
    -------
    int

    Examples
    --------
    >>> from rumap.examples import persons_file
    >>> from rumap.scale.source import scan
    >>> seen = []
    >>> file_pass(scan(persons_file()), lambda chunk, start: (None, (start, chunk.height)), None,
    ...           inputs=[], chunk_size=3, progress=False, gather=seen.append), seen
    (4, [(0, 3), (3, 1)])
    """
    meter = Progress(label, enabled=progress)
    with chunks_to(out, inputs, overwrite) as write:
        return run_chunks(source, kernel, chunk_size=chunk_size, columns=columns, sink=write, gather=gather,
                          progress=meter.update).records


@validate_params({"source": InstanceOf(Source), "out": [None, InstanceOf((str, os.PathLike), "a file path")],
                  "chunk_size": "record_chunk",
                  "columns": [None, InstanceOf((list, tuple), "a list of column names")],
                  "progress": InstanceOf(bool, "True or False"), "label": InstanceOf(str, "a label"),
                  "overwrite": Boolean()},
                 example=lambda: {"source": scan(persons_file()), "transform": lambda chunk, start: chunk})
def apply_chunks(source: Source, transform: Callable[[pl.DataFrame, int], pl.DataFrame | None],
                 out: str | os.PathLike | None = None, chunk_size: int = DEFAULT_CHUNK_SIZE,
                 columns: Sequence[str] | None = None, progress: bool = True, label: str = "records",
                 overwrite: bool = False) -> int:
    """Read ``chunk_size`` records at a time in file order, transform them, write each result before the next read.

    Memory holds one chunk (and what ``transform`` keeps), whatever the file's size. The pass is the one chunk
    runner's (:func:`rumap.engine.run_chunks`, through :func:`file_pass`).

    Parameters
    ----------
    source : Source
        From :func:`rumap.scale.source.scan`.
    transform : callable
        ``transform(chunk, start)`` with ``chunk`` a Polars DataFrame of the
        records ``start .. start + len(chunk) - 1`` (0-based); returns the
        frame to write, or None.
    out : str or path-like, optional
        A ``.parquet`` or ``.csv`` file the transformed chunks are written to
        in order (default: nothing is written), renamed into place only once
        every chunk is written: a failure leaves no part of it. It may not be
        the source's file.
    chunk_size : int
        Records per chunk.
    columns : sequence of str, optional
        The columns read (default: the source's).
    progress : bool
        Report progress on stderr.
    label : str
        Names the pass in the progress lines.
    overwrite : bool
        Replace an existing ``out`` (default: refuse it).

    Returns
    -------
    int
        The number of records read.

    Examples
    --------
    >>> import polars as pl
    >>> sizes = []
    >>> apply_chunks(scan(persons_file()), lambda chunk, start: sizes.append((start, chunk.height)),
    ...              chunk_size=3, progress=False)
    4
    >>> sizes
    [(0, 3), (3, 1)]
    """
    return file_pass(source, lambda chunk, start: (transform(chunk, start), None), out,
                     inputs=[("source", source.path)], overwrite=overwrite, chunk_size=chunk_size, columns=columns,
                     progress=progress, label=label)
