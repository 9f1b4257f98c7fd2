"""A release plan applied to a Parquet file chunk by chunk: memory that grows with the chunk, not with the file.

:func:`release_in_chunks` reads ``chunk_size`` records at a time (pyarrow's
batches, converted to pandas as :func:`rumap.io.parquet.read_parquet_frame`
converts the whole file), applies every step to the chunk and writes it to the
output Parquet file before reading the next. A step's record says how it runs
on a file (:attr:`rumap.release.methods.StepMethod.stream`: record by record,
after a pass that counts, or on its whole columns gathered; :data:`STREAMED`);
the others need the whole file and are refused, naming why and, where there
is one, the command that protects a file out of core (:data:`NOT_STREAMED`).

Additive noise draws its normal numbers from ``default_rng(seed)`` record
after record, as :func:`rumap.masking.noise.add_noise` does, so the released
values equal the in-memory release's. Noise relative to the variances, or
correlated like the data, needs the columns' covariance first: one more pass
over the file (through the steps before it) sums the chunks' moments, equal to
the in-memory covariance up to rounding (about 1e-15 relative).

Recoding and top and bottom coding map each value by itself: each chunk goes
through the in-memory step. PRAM's matrix needs each key's categories (in
order of first appearance) and counts over the whole file: one more pass
(through the steps before it) counts them, and the uniforms of key ``j`` and
record ``i`` are number ``j n + i`` of ``default_rng(seed)``'s stream, as
:func:`rumap.masking.pram.pram` draws them (keys without a known value draw
none), found for each chunk by advancing the generator.

Microaggregation, rank swapping (or another masking method of the maps'
engine with a release step) and local suppression need whole columns: one more
pass (through the steps before it, reading only the columns those steps and
this one name) gathers the step's own columns, the step is computed on them in
memory by the in-memory release's kernel, and its result, only those columns,
is put back chunk by chunk (:mod:`rumap.release.gathered`). Memory then holds
the step's columns (8 bytes a value; a key's value as a 4-byte code), not the
file. Steps after it stream as before, in the plan's order.

Each step's summary is that of the in-memory release (:attr:`StreamedRelease.summaries`):
counts summed over the chunks, distinct categories merged over them, and the
whole-column steps' summaries from their kernels.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from rumap._validation import InstanceOf, assumes_valid, make_constraint, validate_params
from rumap.budget import DEFAULT_BUDGET, WorkBudget
from rumap.errors import InputError
from rumap.io.formats import file_digest, parquet_batches, parquet_schema
from rumap.io.outputs import atomic_outputs, check_outputs
from rumap.release.plan import ReleasePlan, Step

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["StreamedRelease", "check_streamed", "release_in_chunks", "file_digest"]

def __getattr__(name: str) -> Any:
    """``STREAMED``: the step methods whose record says how they run chunk by chunk (:attr:`StepMethod.stream`);
    ``NOT_STREAMED``: the others, each with why not (``not_streamed``); both of the methods registered now."""
    from rumap.release.apply import STEP_METHODS

    if name == "STREAMED":
        return tuple(method for method, record in STEP_METHODS.items() if record.stream is not None)
    if name == "NOT_STREAMED":
        return {method: record.not_streamed for method, record in STEP_METHODS.items() if record.stream is None}
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


#: The constraints of release_in_chunks' optional arguments.
_OPTIONAL_NAME = make_constraint([None, InstanceOf(str, "a name for messages")])
_OPTIONAL_FUNCTION = make_constraint([None, InstanceOf(Callable, "a function")])


@validate_params({"plan": InstanceOf(ReleasePlan)},
                 example=lambda: {"plan": ReleasePlan((Step("noise", {"lambda2_frac": 0.1}, columns=("a",)),))})
def check_streamed(plan: ReleasePlan) -> None:
    """Refuse a plan with a step that cannot be applied chunk by chunk, naming the step and why.

    Parameters
    ----------
    plan : ReleasePlan

    Raises
    ------
    InputError

    Examples
    --------
    >>> from rumap.release.plan import ReleasePlan, Step
    >>> check_streamed(ReleasePlan((Step("microaggregation", {"k": 3}, columns=("a",)),)))
    >>> check_streamed(ReleasePlan((Step("table", keys=("a",)),)))
    Traceback (most recent call last):
    ...
    rumap.errors.InputError: step 1 (table) cannot be applied chunk by chunk: a table's steps tabulate and protect the whole file's table: release the microdata with --chunk-size, then the table steps in memory
    """
    from rumap.release.apply import STEP_METHODS

    for i, step in enumerate(plan.steps):
        record = STEP_METHODS.get(step.method)  # None: a method no longer registered
        if record is None or record.stream is None:
            why = "it needs the whole file" if record is None else record.not_streamed
            raise InputError(f"step {i + 1} ({step.method}) cannot be applied chunk by chunk: {why}")




@dataclass(frozen=True)
class StreamedRelease:
    """What :func:`release_in_chunks` wrote.

    Attributes
    ----------
    rows, columns : int
        Records and columns of the released file.
    chunks : int
        Chunks read in the releasing pass.
    passes : int
        Passes over the file (1, plus one per noise step that needs the file's covariance, one per PRAM
        step, which needs its keys' counts, and one per step that needs whole columns, which gathers them).
    summaries : tuple of dict
        Each step's summary, as the in-memory release's ``StepOutcome.summary``.
    """

    rows: int
    columns: int
    chunks: int
    passes: int
    summaries: tuple[dict, ...] = ()


def _file_columns(path: str | os.PathLike, plan: ReleasePlan, source: str) -> tuple[list[str], int]:
    """The file's columns and records (from its metadata), refusing a step's column that it lacks."""
    from rumap.io.parquet import open_parquet

    reader = open_parquet(path, source)
    names = list(reader.schema_arrow.names)
    for step in plan.steps:
        missing = [name for name in step.names if name not in names]
        if missing:
            raise InputError(f"{source}: no column {missing[0]!r}; columns are {', '.join(names)}")
    return names, int(reader.metadata.num_rows)


@assumes_valid
def release_in_chunks(path: str | os.PathLike, plan: ReleasePlan, out: str | os.PathLike, chunk_size: int,
                      source: str | None = None, progress: Callable[[int], None] | None = None,
                      budget: WorkBudget = DEFAULT_BUDGET, stage: Callable[[str], None] | None = None,
                      overwrite: bool = False) -> StreamedRelease:
    """Apply ``plan`` to the Parquet file ``path`` chunk by chunk and write the Parquet file ``out``.

    Steps that mask record by record (noise, PRAM, recoding, top and bottom coding) hold a chunk; a step that
    needs whole columns (microaggregation, rank swapping, local suppression) holds its own columns of every
    record, gathered in one more pass, and its result (:mod:`rumap.release.gathered`): memory grows with the
    chunk and with those columns, not with the file's other columns.

    Parameters
    ----------
    path : str or path-like
        The original Parquet file, of any size.
    plan : ReleasePlan
        Steps on microdata (:func:`check_streamed`), applied in order to each chunk.
    out : str or path-like
        The released ``.parquet`` file; the other columns pass through, in their order. It is written to a
        hidden temporary file beside it and renamed into place once every chunk is written: a run that fails
        leaves no part of it. It may not be ``path`` (under any spelling or link).
    chunk_size : int
        Records per chunk: memory grows with it, the released values do not change with it.
    source : str, optional
        How messages name the file.
    progress : callable(records), optional
        Called after each chunk written with the records written so far.
    budget : WorkBudget
        Limits the whole-column steps' work, as in memory; a quadratic microaggregation over it is refused
        before any pass.
    stage : callable(str), optional
        Told what each pass before the writing one does (long work on a large file).
    overwrite : bool
        Replace an existing ``out`` (default: refuse it).

    Returns
    -------
    StreamedRelease

    Examples
    --------
    >>> import tempfile, pathlib
    >>> import pandas as pd
    >>> from rumap.release.plan import ReleasePlan, Step
    >>> from rumap.release.apply import apply_plan
    >>> frame = pd.DataFrame({"a": [1.0, 2.0, 4.0, 8.0, 9.0], "b": list("vwxyz")})
    >>> plan = ReleasePlan((Step("noise", {"lambda2_frac": 0.5}, columns=("a",), seed=3),
    ...                     Step("microaggregation", {"k": 2}, columns=("a",))))
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     original, released = pathlib.Path(folder) / "in.parquet", pathlib.Path(folder) / "out.parquet"
    ...     frame.to_parquet(original, index=False)
    ...     done = release_in_chunks(original, plan, released, chunk_size=2)
    ...     streamed = pd.read_parquet(released)
    >>> done.chunks, done.passes, streamed["b"].tolist(), done.summaries[1]["groups"]
    (3, 3, ['v', 'w', 'x', 'y', 'z'], 2)
    >>> in_memory = apply_plan(frame, plan)
    >>> bool(abs(streamed["a"] - in_memory.data["a"]).max() < 1e-12)
    True
    """
    import pyarrow as pa
    import pyarrow.parquet as pq

    from rumap.release.apply import STEP_METHODS, check_plan_work
    from rumap.release.chunked import FilePass
    from rumap.release.gathered import check_whole_file_work
    from rumap.release.plan import ReleasePlan

    if not isinstance(plan, ReleasePlan):
        raise InputError(f"plan must be a ReleasePlan, got {type(plan).__name__}")
    check_streamed(plan)
    if isinstance(chunk_size, bool) or not isinstance(chunk_size, (int, np.integer)) or chunk_size < 1:
        raise InputError(f"chunk_size must be a whole number >= 1, got {chunk_size}")
    if not isinstance(budget, WorkBudget):
        raise InputError(f"budget must be a WorkBudget, got {type(budget).__name__}")
    if not isinstance(out, (str, os.PathLike)):
        raise InputError(f"out must be a file path, got {type(out).__name__}")
    if not isinstance(overwrite, (bool, np.bool_)):
        raise InputError(f"overwrite must be True or False, got {overwrite!r}")
    _OPTIONAL_NAME.check("source", source)
    _OPTIONAL_FUNCTION.check("progress", progress)
    _OPTIONAL_FUNCTION.check("stage", stage)
    check_outputs([("out", out)], [("path", path)], bool(overwrite))
    source = str(path) if source is None else source
    names, n = _file_columns(path, plan, source)
    check_whole_file_work(plan, n, budget)
    check_plan_work(plan, n, len(names), budget)
    streams: list[Any] = []
    passes = 1

    def through(frame: pd.DataFrame, start: int) -> pd.DataFrame:
        try:
            for stream in streams:
                frame = stream(frame, source, start)
        except InputError as exc:  # a chunk's row named in the file: counted from the chunk's first record
            if start == 0 or "rows counted from record" in str(exc):
                raise
            raise InputError(f"{exc} (rows counted from record {start + 1})") from None
        return frame

    def counting_pass(i: int, add: Callable[[pd.DataFrame, int], None], what: str) -> None:
        """One pass over the file through the steps before step ``i``, each chunk given to ``add``.

        Only the columns of the steps up to ``i`` are read: a step reads and writes its own columns only.
        """
        wanted = {name for step in plan.steps[:i + 1] for name in step.names}
        if stage is not None:
            stage(f"step {i + 1} ({plan.steps[i].method}): a pass over the {n} records for {what}")
        start = 0
        for frame in parquet_batches(path, chunk_size, source, [name for name in names if name in wanted]):
            frame = through(frame, start)
            add(frame, start)
            start += len(frame)
        for stream in streams:
            stream.restart()

    for i, step in enumerate(plan.steps):
        file = FilePass(n, source, budget, i + 1, counting_pass, stage)
        streams.append(STEP_METHODS[step.method].stream(step, file))
        passes += file.passes
    written = {name: kind for stream in streams for name, kind in stream.types().items()}
    writer, rows, chunks, schema = None, 0, 0, None
    with atomic_outputs(out, flag="out") as (temporary,):
        try:
            for frame in parquet_batches(path, chunk_size, source):
                columns = list(frame.columns)
                table = pa.Table.from_pandas(through(frame, rows)[columns], preserve_index=False)
                if writer is None:  # a column the steps wrote, all missing in the first chunk: the type of its values
                    schema = pa.schema([field.with_type(written[field.name]) if field.name in written
                                        and table.column(field.name).null_count == table.num_rows else field
                                        for field in table.schema])
                    writer = pq.ParquetWriter(temporary, schema)
                writer.write_table(table.cast(schema))
                rows += table.num_rows
                chunks += 1
                if progress is not None:
                    progress(rows)
            if writer is None:  # a file without records: its columns, no rows
                empty = parquet_schema(path)
                writer = pq.ParquetWriter(temporary, empty)
                columns_out = len(empty)
            else:
                columns_out = len(schema)
        finally:
            if writer is not None:
                writer.close()
    return StreamedRelease(rows=rows, columns=columns_out, chunks=chunks, passes=passes,
                           summaries=tuple(stream.summary() for stream in streams))
