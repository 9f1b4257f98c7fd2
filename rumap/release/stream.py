"""A release plan applied to a Parquet file chunk by chunk: memory that grows with the chunk, not with the file.

:func:`release_in_chunks` reads ``chunk_size`` records at a time (pyarrow's
batches, converted to pandas as :func:`rumap.io.parquet.read_parquet_frame`
converts the whole file), applies every step to the chunk and writes it to the
output Parquet file before reading the next. Only steps that mask each record
by itself, with draws that do not depend on the chunks, are streamed
(:data:`STREAMED`); the others need the whole file and are refused, naming
why and, where there is one, the command that protects a file out of core
(:data:`NOT_STREAMED`).

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

import hashlib
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from rumap._validation import InstanceOf, assumes_valid, make_constraint, validate_params
from rumap.budget import DEFAULT_BUDGET, WorkBudget
from rumap.errors import InputError
from rumap.io.outputs import atomic_outputs, check_outputs
from rumap.release.plan import ReleasePlan, Step

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["STREAMED", "NOT_STREAMED", "StreamedRelease", "check_streamed", "release_in_chunks", "file_digest"]

#: Step methods applied chunk by chunk: the first four record by record, the others on their columns gathered
#: from the whole file (:mod:`rumap.release.gathered`), as is any masking method of the maps' engine registered
#: with a release step.
STREAMED: tuple[str, ...] = ("noise", "pram", "recode", "top_bottom", "microaggregation", "rankswap", "suppress")

#: Why the table steps are not: they tabulate the whole file.
_TABLE_REASON = ("a table's steps tabulate and protect the whole file's table: release the microdata with "
                 "--chunk-size, then the table steps in memory")

#: Step methods that are not, and why.
NOT_STREAMED: dict[str, str] = {"table": _TABLE_REASON, "primary": _TABLE_REASON,
                                "secondary_suppression": _TABLE_REASON, "controlled_rounding": _TABLE_REASON,
                                "synthesize": "synthesis fits its generator on every record of the file: release "
                                              "a file that fits in memory, or a sample of it"}

#: The constraints of release_in_chunks' optional arguments.
_OPTIONAL_NAME = make_constraint([None, InstanceOf(str, "a name for messages")])
_OPTIONAL_FUNCTION = make_constraint([None, InstanceOf(Callable, "a function")])

#: Bytes read at a time for a file's digest.
_DIGEST_BLOCK = 1 << 20


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
    for i, step in enumerate(plan.steps):
        if step.method not in STREAMED and not _gathered_method(step.method):
            why = NOT_STREAMED.get(step.method, "it needs the whole file")
            raise InputError(f"step {i + 1} ({step.method}) cannot be applied chunk by chunk: {why}")


def _gathered_method(method: str) -> bool:
    """A masking method of the maps' engine with a release step: its columns gathered, masked in memory."""
    from rumap.maps.methods import METHODS

    record = METHODS.get(method)
    return record is not None and record.release is not None


@validate_params({"path": InstanceOf((str, os.PathLike), "a file path")},
                 example=lambda: {"path": Path(__file__)})
def file_digest(path: str | os.PathLike) -> str:
    """SHA-256 of a file's bytes, read a block at a time (:func:`rumap.fingerprint.bytes_digest` of its bytes).

    Parameters
    ----------
    path : str or path-like

    Returns
    -------
    str
        64 hex digits.

    Raises
    ------
    InputError
        The file cannot be read (missing, a folder, no permission).

    Examples
    --------
    >>> import tempfile, pathlib
    >>> from rumap.fingerprint import bytes_digest
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     path = pathlib.Path(folder) / "f.bin"
    ...     _ = path.write_bytes(b"abc" * 1000)
    ...     file_digest(path) == bytes_digest(b"abc" * 1000)
    True
    """
    digest = hashlib.sha256()
    try:
        with open(path, "rb") as handle:
            while block := handle.read(_DIGEST_BLOCK):
                digest.update(block)
    except OSError as exc:
        raise InputError(f"path: cannot read {os.fspath(path)!r} ({exc.strerror or exc})") from None
    return digest.hexdigest()


def _values(frame: pd.DataFrame, step: Step, source: str, start: int) -> np.ndarray:
    """The step's columns of a chunk as the in-memory release reads them; a message names the chunk's first record."""
    import pandas as pd

    from rumap.release.apply import _step_values

    try:  # the checks of a file need two rows: a chunk of one is checked as two
        return _step_values(frame if len(frame) > 1 else pd.concat([frame, frame]), step, source)[:len(frame)]
    except InputError as exc:
        raise InputError(f"{exc} (rows counted from record {start + 1})") from None


class _NoiseStream:
    """A noise step over the chunks: its noise shape (from the whole file) and its generator, record after record."""

    def __init__(self, step: Step, shape_factor: np.ndarray) -> None:
        from rumap.maps.methods import _noise_step_spec as _noise_spec
        from rumap.maps.methods import refuse_noise_past_magnitude
        from rumap.masking.noise import size_parameter

        self.step = step
        self.spec = _noise_spec(step.parameters, step.columns)
        size = size_parameter(self.spec.relative)  # as in memory, before any chunk is masked
        refuse_noise_past_magnitude(shape_factor, step.parameters[size], self.spec, size, step.columns)
        self.shape_factor = shape_factor
        self.restart()

    def __call__(self, frame: pd.DataFrame, source: str, start: int) -> pd.DataFrame:
        from rumap.maps.methods import _noise_released
        from rumap.masking.noise import mask_with, size_parameter, standard_noise
        from rumap.release.apply import _replace_columns

        x = _values(frame, self.step, source, start)
        scale = float(np.sqrt(self.step.parameters[size_parameter(self.spec.relative)]))
        noise = standard_noise(self.rng, x, self.spec, self.shape_factor)
        released, summary = _noise_released(x, mask_with(x, noise, scale, self.spec), self.step.parameters,
                                           self.step.columns)
        for name, count in summary["sign_changed"].items():
            self.changed[name] += count
        return _replace_columns(frame, self.step.columns, released)

    def restart(self) -> None:
        """Back to the first record's draws, for a new pass over the file."""
        self.rng = np.random.default_rng(self.step.seed)
        self.changed = dict.fromkeys(self.step.columns, 0)

    def summary(self) -> dict:
        """The records whose sign the noise changed, summed over the chunks, as in memory."""
        return {"sign_changed": dict(self.changed)}

    def types(self) -> dict[str, Any]:
        """Numbers in, numbers out: the chunk's own types."""
        return {}


class _Distinct:
    """The distinct known values of a column over the chunks (``nunique``): numbers in arrays, others in a set."""

    def __init__(self) -> None:
        self.arrays: list[np.ndarray] = []
        self.held = 0
        self.merged = 0
        self.objects: set = set()

    def add(self, column: pd.Series) -> None:
        import pandas as pd

        known = column.dropna()
        if pd.api.types.is_numeric_dtype(known) and not pd.api.types.is_bool_dtype(known):
            values = np.unique(known.to_numpy(dtype=float))
            self.arrays.append(values)
            self.held += values.size
            if self.held > 2 * self.merged + 65_536:  # merged now and then: memory about twice the distinct values
                self._merge()
        else:
            self.objects.update(known.unique().tolist())

    def _merge(self) -> None:
        merged = np.unique(np.concatenate(self.arrays)) if self.arrays else np.empty(0)
        self.arrays, self.held, self.merged = [merged], merged.size, merged.size

    def count(self) -> int:
        self._merge()
        if not self.objects:
            return int(self.arrays[0].size)
        return len(self.objects | set(self.arrays[0].tolist()))


class _CodingStream:
    """A recode or top and bottom coding step: each value mapped by itself, a chunk as the in-memory step does.

    Its summary sums the chunks' coded values and merges their distinct categories, before and after.
    """

    def __init__(self, step: Step) -> None:
        self.step = step
        p = step.parameters
        changed = {*p.get("merge", {}), *([p["variable"]] if p.get("variable") is not None else [])}
        self.changed = sorted(changed, key=list(step.keys).index)
        self.restart()

    def __call__(self, frame: pd.DataFrame, source: str, start: int) -> pd.DataFrame:
        from rumap.release.apply import apply_step

        out, outcome = apply_step(frame, self.step, source)
        for side, count in outcome.summary.get("coded", {}).items():
            self.coded[side] += count
        for name in self.changed:
            self.before[name].add(frame[name])
            self.after[name].add(out[name])
        return out

    def restart(self) -> None:
        """Nothing drawn: the summary's counts start again."""
        self.coded = {"above": 0, "below": 0}
        self.before = {name: _Distinct() for name in self.changed}
        self.after = {name: _Distinct() for name in self.changed}

    def summary(self) -> dict:
        """Values coded above and below (top and bottom coding), each changed key's categories before and after."""
        categories = {name: {"before": self.before[name].count(), "after": self.after[name].count()}
                      for name in self.changed}
        if self.step.method == "top_bottom":
            return {"coded": dict(self.coded), "categories": categories}
        return {"categories": categories}

    def types(self) -> dict[str, Any]:
        """The Arrow type of the columns it writes (text labels), for a chunk where they are all missing."""
        import pyarrow as pa

        p = self.step.parameters
        written = [*p.get("merge", {}), *([p["variable"]] if p.get("variable") is not None else [])]
        return dict.fromkeys(written, pa.string())


class _Categories:
    """Each key's categories in order of first appearance over the chunks, and their counts."""

    def __init__(self, names: tuple[str, ...]) -> None:
        self.counts: dict[str, dict[Any, int]] = {name: {} for name in names}
        self.n = 0

    def add(self, frame: pd.DataFrame) -> None:
        import pandas as pd

        self.n += len(frame)
        for name, counts in self.counts.items():
            codes, categories = pd.factorize(frame[name], use_na_sentinel=True)
            found = np.bincount(codes[codes >= 0], minlength=len(categories))
            for category, count in zip(categories, found, strict=True):
                counts[category] = counts.get(category, 0) + int(count)


class _PramStream:
    """A PRAM step over the chunks: the whole file's categories and counts, and the draws at each record's place.

    Key ``j`` (counting the keys with a known value) and record ``i`` take uniform number ``j n + i`` of
    ``default_rng(seed)``, as :func:`rumap.masking.pram.pram` draws them for the whole file.
    """

    def __init__(self, step: Step, categories: _Categories) -> None:
        import pandas as pd

        from rumap.masking.pram import _pram_shares

        self.step = step
        self.seed = int(np.random.SeedSequence().entropy) if step.seed is None else int(step.seed)
        self.n = categories.n
        drawn = [(name, counts) for name, counts in categories.counts.items() if counts]
        self.keys = [(name, pd.Index(list(counts), dtype=object), np.array(list(counts), dtype=object),
                      _pram_shares(list(counts.values()))) for name, counts in drawn]
        self.restart()

    def __call__(self, frame: pd.DataFrame, source: str, start: int) -> pd.DataFrame:
        from rumap.masking.pram import _pram_draw

        frame = frame.copy()
        theta = float(self.step.parameters["theta"])
        for j, (name, index, values, shares) in enumerate(self.keys):
            codes = index.get_indexer(frame[name].astype(object))
            known = codes >= 0
            generator = np.random.PCG64(self.seed)
            generator.advance(j * self.n + start)
            draws = np.random.Generator(generator).random(len(frame))
            out = np.full(len(frame), np.nan, dtype=object)
            released = _pram_draw(codes[known], shares, theta, draws[known])
            self.changed[name] += int((released != codes[known]).sum())
            out[known] = values[released]
            frame[name] = out
        return frame

    def restart(self) -> None:
        """Each chunk's draws are found from its first record: only the summary's counts start again."""
        self.changed = dict.fromkeys(self.step.keys, 0)

    def summary(self) -> dict:
        """Values changed per key, as the in-memory step counts them."""
        return {"changed": dict(self.changed)}

    def types(self) -> dict[str, Any]:
        """The Arrow type of each drawn key (that of its categories), for a chunk where it is all missing."""
        import pyarrow as pa

        return {name: pa.array(values).type for name, _, values, _ in self.keys}


@dataclass
class _Moments:
    """Count, mean and sum of squared deviations (p x p) of chunks, merged as they come (Chan et al.)."""

    n: int = 0
    mean: np.ndarray | None = None
    m2: np.ndarray | None = None

    def add(self, x: np.ndarray) -> None:
        k = x.shape[0]
        if k == 0:
            return
        mean = x.mean(axis=0)
        centred = x - mean
        m2 = centred.T @ centred
        if self.mean is None:
            self.n, self.mean, self.m2 = k, mean, m2
            return
        delta = mean - self.mean
        total = self.n + k
        self.m2 = self.m2 + m2 + np.outer(delta, delta) * (self.n * k / total)
        self.mean = self.mean + delta * (k / total)
        self.n = total

    def covariance(self) -> np.ndarray:
        return self.m2 / (self.n - 1)


def _shape_factor(step: Step, covariance: np.ndarray | None, p: int) -> np.ndarray:
    """The step's ``L`` (:func:`rumap.masking.noise.noise_shape`) from the whole file's covariance."""
    from rumap.maps.methods import _noise_step_spec as _noise_spec
    from rumap.masking.noise import noise_shape_of_covariance

    spec = _noise_spec(step.parameters, step.columns)
    if covariance is None:  # absolute uncorrelated noise: L = I, no pass
        return np.eye(p)
    return noise_shape_of_covariance(covariance, spec)


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


def _batches(path: str | os.PathLike, chunk_size: int, source: str, columns: list[str] | None = None) -> Any:
    """The file's records as pandas frames of ``chunk_size`` records, converted as a whole file would be.

    Only ``columns`` when given (all by default). Without pyarrow's read-ahead (``pre_buffer``), which holds
    several row groups: the memory is that of one row group being decoded and one chunk.
    """
    import pyarrow.parquet as pq

    from rumap.io.parquet import _open

    _open(path, source)  # the checks and messages of reading the whole file
    reader = pq.ParquetFile(path, pre_buffer=False)
    return (batch.to_pandas() for batch in reader.iter_batches(batch_size=chunk_size, columns=columns))


def _file_columns(path: str | os.PathLike, plan: ReleasePlan, source: str) -> tuple[list[str], int]:
    """The file's columns and records (from its metadata), refusing a step's column that it lacks."""
    from rumap.io.parquet import _open

    reader = _open(path, source)
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

    from rumap.release.apply import check_plan_work
    from rumap.release.gathered import GatheredColumns, GatheredSuppression, check_whole_file_work
    from rumap.release.methods import plan_key
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

    def counting_pass(i: int, add: Callable[[pd.DataFrame, int], None]) -> None:
        """One pass over the file through the steps before step ``i``, each chunk given to ``add``.

        Only the columns of the steps up to ``i`` are read: a step reads and writes its own columns only.
        """
        wanted = {name for step in plan.steps[:i + 1] for name in step.names}
        if stage is not None:
            stage(f"step {i + 1} ({plan.steps[i].method}): a pass over the {n} records for "
                  + {"noise": "its covariance", "pram": "its keys' counts"}.get(plan.steps[i].method, "its columns"))
        start = 0
        for frame in _batches(path, chunk_size, source, [name for name in names if name in wanted]):
            frame = through(frame, start)
            add(frame, start)
            start += len(frame)
        for stream in streams:
            stream.restart()

    from rumap.maps.methods import _noise_step_spec as _noise_spec

    for i, step in enumerate(plan.steps):
        if step.method in ("recode", "top_bottom"):
            streams.append(_CodingStream(step))
            continue
        passes += 1
        if step.method == "pram":
            categories = _Categories(step.keys)
            counting_pass(i, lambda frame, start, categories=categories: categories.add(frame))
            streams.append(_PramStream(step, categories))
            continue
        if step.method != "noise":  # whole columns: gathered in this pass, computed, kept
            gathered = (GatheredSuppression if step.method == "suppress" else GatheredColumns)(step, n, i + 1)
            counting_pass(i, lambda frame, start, gathered=gathered: gathered.gather(frame, source, start))
            if stage is not None:
                stage(f"step {i + 1} ({step.method}): computing on its {len(step.names)} column(s) in memory")
            gathered.compute(budget, source)
            streams.append(gathered)
            continue
        spec = _noise_spec(step.parameters, step.columns)
        covariance = None
        if spec.relative or (spec.correlated and len(step.columns) > 1):
            moments = _Moments()
            counting_pass(i, lambda frame, start, step=step, moments=moments:
                          moments.add(_values(frame, step, source, start)))
            if moments.n < 2:
                raise InputError(f"{source}: noise needs at least 2 records, got {moments.n}")
            covariance = moments.covariance()
        else:  # absolute uncorrelated noise: L = I, no pass
            passes -= 1
        try:
            streams.append(_NoiseStream(step, _shape_factor(step, covariance, len(step.columns))))
        except InputError as exc:
            raise InputError(f"step {i + 1} ({step.method}): {plan_key(str(exc), i)}") from None
    written = {name: kind for stream in streams for name, kind in stream.types().items()}
    writer, rows, chunks, schema = None, 0, 0, None
    with atomic_outputs(out, flag="out") as (temporary,):
        try:
            for frame in _batches(path, chunk_size, source):
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
                empty = pq.read_schema(path)
                writer = pq.ParquetWriter(temporary, empty)
                columns_out = len(empty)
            else:
                columns_out = len(schema)
        finally:
            if writer is not None:
                writer.close()
    return StreamedRelease(rows=rows, columns=columns_out, chunks=chunks, passes=passes,
                           summaries=tuple(stream.summary() for stream in streams))
