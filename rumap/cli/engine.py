"""The command line's engines: ``--engine auto|memory|scale`` and ``--chunk-size``, the choice ``auto`` makes, and
the refusals that say which engine or key would work.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence

from rumap._validation import InstanceOf, assumes_valid, validate_params
from rumap.cli.flags import check_flag
from rumap.errors import InputError

__all__ = ["ENGINE_NAMES", "AUTO_MEMORY_BYTES", "add_engine_flags", "scale_engine", "work_refusal"]

#: The engines of a command that reads a data file: ``memory`` (the file in a pandas frame), ``scale`` (out of core,
#: :mod:`rumap.scale`), or ``auto``: out of core when the step can stream and its columns would take more than
#: :data:`AUTO_MEMORY_BYTES` in memory (:func:`rumap.io.table_size.in_memory_bytes`), in memory otherwise.
ENGINE_NAMES = ("auto", "memory", "scale")

#: The in-memory size of a step's columns over which ``--engine auto`` runs it out of core (about 400,000 records
#: of 8 keys): from there on the scale engine is both faster and smaller (10^6 census-like records x 8 keys,
#: ``risk individual``: 1.2 s and 330 MB out of core, 3.1 s and 685 MB in memory).
AUTO_MEMORY_BYTES = 128 * 2**20


@assumes_valid
def add_engine_flags(parser: argparse.ArgumentParser) -> None:
    """Add ``--engine``, ``--chunk-size`` and ``--quiet``: files larger than memory.

    Parameters
    ----------
    parser : argparse.ArgumentParser
    """
    parser.add_argument("--engine", default="auto", choices=list(ENGINE_NAMES),
                        help="memory: read the file into memory; scale: out of core, a chunk at a time (CSV or "
                             "Parquet); auto (default): scale when the step's columns would take more than "
                             f"{AUTO_MEMORY_BYTES // 2**20} MB in memory (rows from the file's metadata or a "
                             "sample) and the step can stream")
    parser.add_argument("--chunk-size", type=int, metavar="N",
                        help="records per chunk of the scale engine (default 1,000,000): bounds its memory")
    parser.add_argument("--quiet", action="store_true", help="no progress lines on stderr (scale engine)")


def _megabytes(size: float) -> str:
    return f"{size / 2**20:,.0f} MB"


@validate_params({"args": InstanceOf(argparse.Namespace), "path": InstanceOf(str, "a file path"),
                  "columns": [None, InstanceOf((list, tuple), "column names")],
                  "memory_only": [None, InstanceOf(str, "the flag that keeps the step in memory")]},
                 example=lambda: {"args": argparse.Namespace(engine="memory", chunk_size=None), "path": "x.csv"})
def scale_engine(args: argparse.Namespace, path: str, columns: Sequence[str] | None = None,
                 memory_only: str | None = None) -> bool:
    """Whether a command reads ``path`` out of core: ``--engine scale``, or ``auto`` and a step too large for memory.

    ``auto`` decides from the work, not from the file's bytes on disk: the
    memory the step's columns would take (:func:`rumap.io.table_size.table_shape`:
    the rows from a Parquet file's metadata or a sample of a text) over
    :data:`AUTO_MEMORY_BYTES`, or a file over the in-memory reader's limit
    (:data:`rumap.io.data.MAX_BYTES`), runs out of core when the step can
    stream: a CSV or Parquet file, Polars installed, no ``memory_only`` flag.
    A run the in-memory reader would refuse is refused here, before any work,
    with what would work instead.

    Parameters
    ----------
    args : argparse.Namespace
        With the flags of :func:`add_engine_flags`.
    path : str
        The data file.
    columns : sequence of str, optional
        The columns the step uses (default: every column of the file).
    memory_only : str, optional
        The flag given that only the in-memory engine takes (``"--merge"``), if any.

    Returns
    -------
    bool

    Raises
    ------
    InputError
        ``--chunk-size`` with ``--engine memory``, or a file the in-memory
        reader cannot take on a path that must stay in memory.

    Examples
    --------
    >>> import argparse
    >>> scale_engine(argparse.Namespace(engine="memory", chunk_size=None), "x.csv")
    False
    """
    import os

    from rumap.io.data import MAX_BYTES

    if args.chunk_size is not None:
        check_flag("--chunk-size", "record_chunk", args.chunk_size)
    if args.engine == "scale":
        return True
    if args.engine == "memory" and args.chunk_size is not None:
        raise InputError("--chunk-size goes with --engine scale")
    try:
        size = os.stat(path).st_size
    except OSError:
        return False  # the reader names the problem
    streams = _can_stream(path)
    if args.engine == "memory":
        if size > MAX_BYTES:
            raise InputError(f"{path} is {_megabytes(size)}, over the in-memory reader's {_megabytes(MAX_BYTES)} "
                             "limit: " + ("give --engine scale (out of core, a chunk at a time)" if streams else
                                          "write it as CSV or Parquet and give --engine scale (out of core)"))
        return False
    from rumap.io.table_size import in_memory_bytes, table_shape

    shape = table_shape(path)
    large = size > MAX_BYTES or (shape is not None and in_memory_bytes(shape, columns) > AUTO_MEMORY_BYTES)
    if not large and args.chunk_size is None:
        return False
    if memory_only is None and streams:
        return True
    if size > MAX_BYTES:
        instead = (f"drop {memory_only} (the scale engine then runs it out of core)" if memory_only is not None
                   and streams else
                   "write it as CSV or Parquet (the scale engine reads those out of core)" if not _scannable(path)
                   else "install the scale engine (pip install 'rumap[scale]')")
        raise InputError(f"{path} is {_megabytes(size)}, over the in-memory reader's {_megabytes(MAX_BYTES)} limit, "
                         f"and this step cannot run out of core as asked: {instead}")
    return False


def _scannable(path: str) -> bool:
    """Whether the scale engine reads the file's format (CSV/TSV or Parquet)."""
    from pathlib import Path

    from rumap.scale.source import SCAN_FORMATS

    return Path(path).suffix.lower() in SCAN_FORMATS


def _can_stream(path: str) -> bool:
    """Whether the scale engine can read the file: its format, and Polars installed."""
    import importlib.util

    return _scannable(path) and importlib.util.find_spec("polars") is not None


@assumes_valid
def work_refusal(message: str, scale: bool = True) -> str:
    """A work-limit refusal with what would work instead of only a larger limit.

    Parameters
    ----------
    message : str
        The refusal (:meth:`rumap.budget.WorkBudget.check_work`'s).
    scale : bool
        Whether ``--engine scale`` would run the step out of core (an in-memory
        step that can stream); a coarser key helps every step.

    Returns
    -------
    str
        ``message`` itself when it is not a work-limit refusal.

    Examples
    --------
    >>> work_refusal("the run needs 3e+10 steps (x), over the work limit of 2e+09: ask for less")
    'the run needs 3e+10 steps (x), over the work limit of 2e+09: ask for less; --engine scale runs it out of core, a chunk at a time, or coarsen a key (protect recode --merge or --band)'
    """
    if "over the work limit" not in message:
        return message
    return (message + "; " + ("--engine scale runs it out of core, a chunk at a time, or " if scale else "")
            + "coarsen a key (protect recode --merge or --band)")
