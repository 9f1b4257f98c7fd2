"""The one chunk runner: a method's chunk kernel executed over a source, a chunk at a time, in file order.

A kernel is ``kernel(chunk, start) -> (frame, what)``: the records
``start .. start + len(chunk) - 1`` of the source (0-based) in; out the frame
to write (or None) and what the chunk tells the caller (values changed,
distinct values; or None). Every engine runs the same kernel; the source
decides how it is cut:

- a pandas or Polars DataFrame in memory is one chunk (``start`` 0);
- a file (:class:`rumap.scale.Source`, anything with
  ``batches(chunk_size, columns)``) gives ``chunk_size`` records at a time,
  read here;
- a cluster's record ranges (:class:`rumap.scale.cluster_parts.Ranges`,
  anything with ``map_chunks(kernel, keep)``) run the kernel on the workers,
  each over the range it reads, the results coming back in file order;
- any other iterable of frames (a Parquet file's batches as pandas frames,
  :mod:`rumap.release.stream`) is taken as the chunks, in order.

Each frame the kernel returns goes to ``sink`` before the next chunk is read
(memory holds one chunk and what the caller gathers); each ``what`` goes to
``gather``. A kernel whose draws or results depend only on a record's place
(``start``) and on the whole source's summaries gives the same records
whatever the chunking: one chunk, many, or many on many workers.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from rumap._validation import InstanceOf, validate_params

__all__ = ["ChunkRun", "run_chunks", "Kernel"]

#: A chunk kernel: ``kernel(chunk, start)`` -> ``(frame to write or None, what the chunk tells)``.
Kernel = Callable[[Any, int], tuple[Any, Any]]


@dataclass(frozen=True)
class ChunkRun:
    """What a run over a source did.

    Attributes
    ----------
    records : int
        Records read.
    chunks : int
        Chunks the kernel ran on.
    """

    records: int
    chunks: int

    def to_dict(self) -> dict[str, int]:
        """Records and chunks."""
        return {"records": self.records, "chunks": self.chunks}


def _is_frame(source: Any) -> bool:
    """Whether ``source`` is a frame in memory (pandas or Polars): it has columns and a shape."""
    return hasattr(source, "shape") and hasattr(source, "columns")


def _results(source: Any, kernel: Kernel, chunk_size: int | None, columns: Sequence[str] | None,
             keep: bool) -> Iterator[tuple[Any, Any, int]]:
    """Each chunk's ``(frame or None, what, records)``, in file order."""
    if hasattr(source, "map_chunks"):
        yield from source.map_chunks(kernel, keep)
        return
    if _is_frame(source):
        chunks: Any = (source,)
    elif hasattr(source, "batches"):
        chunks = source.batches(*(() if chunk_size is None else (chunk_size,)), columns=columns)
    else:
        chunks = source
    start = 0
    for chunk in chunks:
        frame, what = kernel(chunk, start)
        length = len(chunk)
        yield (frame if keep else None), what, length
        start += length


def _example() -> dict[str, Any]:
    import pandas as pd

    return {"source": pd.DataFrame({"a": [1, 2, 3]}), "kernel": lambda chunk, start: (chunk, None)}


@validate_params({"kernel": InstanceOf(Callable, "a function"), "chunk_size": [None, "record_chunk"],
                  "columns": [None, InstanceOf((list, tuple), "a list of column names")],
                  "sink": [None, InstanceOf(Callable, "a function")],
                  "gather": [None, InstanceOf(Callable, "a function")],
                  "progress": [None, InstanceOf(Callable, "a function")]},
                 example=_example)
def run_chunks(source: Any, kernel: Kernel, *, chunk_size: int | None = None, columns: Sequence[str] | None = None,
               sink: Callable[[Any], None] | None = None, gather: Callable[[Any], None] | None = None,
               progress: Callable[..., None] | None = None) -> ChunkRun:
    """Run ``kernel`` over ``source`` a chunk at a time, in file order: one runner for every engine.

    Parameters
    ----------
    source : DataFrame, file source, cluster ranges or iterable of frames
        A frame in memory (one chunk), a :class:`rumap.scale.Source` (read
        ``chunk_size`` records at a time), a
        :class:`rumap.scale.cluster_parts.Ranges` (the kernel runs on the
        workers) or the chunks themselves.
    kernel : callable
        ``kernel(chunk, start) -> (frame or None, what)``; on a cluster it is
        sent to the workers (a module's function or a
        :func:`functools.partial` of one travels best).
    chunk_size : int, optional
        Records per chunk of a file (default: the source's).
    columns : sequence of str, optional
        The columns a file's chunks hold (default: the source's).
    sink : callable, optional
        ``sink(frame)`` writes each frame the kernel returns, in order (none:
        a cluster's workers send no frames back).
    gather : callable, optional
        ``gather(what)`` receives each chunk's ``what``, in order.
    progress : callable, optional
        ``progress(records)`` after each chunk, and ``progress(records, True)``
        once at the end (:meth:`rumap.scale.Progress.update`).

    Returns
    -------
    ChunkRun

    Examples
    --------
    >>> import pandas as pd
    >>> frame = pd.DataFrame({"a": [1, 2, 3, 4, 5]})
    >>> def double(chunk, start):
    ...     return chunk * 2, (start, len(chunk))
    >>> out, seen = [], []
    >>> run_chunks(frame, double, sink=out.append, gather=seen.append)
    ChunkRun(records=5, chunks=1)
    >>> run_chunks([frame.iloc[:2], frame.iloc[2:]], double, gather=seen.append).chunks, seen
    (2, [(0, 5), (0, 2), (2, 3)])
    >>> out[0]["a"].tolist()
    [2, 4, 6, 8, 10]
    """
    records = chunks = 0
    for frame, what, length in _results(source, kernel, chunk_size, columns, sink is not None):
        if sink is not None and frame is not None:
            sink(frame)
        if gather is not None:
            gather(what)
        records += length
        chunks += 1
        if progress is not None:
            progress(records)
    if progress is not None:
        progress(records, True)
    return ChunkRun(records, chunks)
