"""The steps of a streamed release that run record by record: each chunk masked as it comes, after a pass that
counts where the step needs the whole file's counts.

Each step's record names its stream (:attr:`rumap.release.methods.StepMethod.stream`):
``stream(step, file)`` asks the :class:`FilePass` for the passes it needs first and gives the object that
masks each chunk (``stream(frame, source, start)``, ``restart()``, ``summary()``, ``types()``).
:func:`rumap.release.stream.release_in_chunks` runs them; :mod:`rumap.release.gathered` holds the steps that
need whole columns.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np

from rumap._validation import assumes_valid
from rumap.budget import WorkBudget
from rumap.errors import InputError

if TYPE_CHECKING:
    import pandas as pd

    from rumap.release.methods import Step

__all__ = ["FilePass", "coding_stream", "pram_stream"]


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

    Its summary sums the chunks' coded values (``coded``: top and bottom coding's summary counts them) and
    merges their distinct categories, before and after.
    """

    def __init__(self, step: Step, coded: bool = False) -> None:
        self.step, self.coded_summary = step, coded
        p = step.parameters
        changed = {*p.get("merge", {}), *([p["variable"]] if p.get("variable") is not None else [])}
        self.changed = sorted(changed, key=list(step.keys).index)
        self.restart()

    def __call__(self, frame: pd.DataFrame, source: str, start: int) -> pd.DataFrame:
        from rumap.release.step_apply import apply_step

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
        if self.coded_summary:
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

        from rumap.masking.pram import pram_shares

        self.step = step
        self.seed = int(np.random.SeedSequence().entropy) if step.seed is None else int(step.seed)
        self.n = categories.n
        drawn = [(name, counts) for name, counts in categories.counts.items() if counts]
        self.keys = [(name, pd.Index(list(counts), dtype=object), np.array(list(counts), dtype=object),
                      pram_shares(list(counts.values()))) for name, counts in drawn]
        self.restart()

    def __call__(self, frame: pd.DataFrame, source: str, start: int) -> pd.DataFrame:
        from rumap.masking.pram import pram_chunk

        frame = frame.copy()
        theta = float(self.step.parameters["theta"])
        for j, (name, index, values, shares) in enumerate(self.keys):
            codes = index.get_indexer(frame[name].astype(object))
            known = codes >= 0
            out = np.full(len(frame), np.nan, dtype=object)
            released = pram_chunk(codes, shares, theta, self.seed, j * self.n + start)[known]
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


class FilePass:
    """What a step's stream gets of the file (:attr:`rumap.release.methods.StepMethod.stream`).

    Parameters
    ----------
    n : int
        Records of the file.
    source : str
        How messages name the file.
    budget : WorkBudget
    place : int
        The step's place in the plan (1-based).
    counting : callable
        ``counting(i, add, what)``: one pass over the file through the steps before step ``i`` (0-based).
    stage : callable(str), optional
        Told what each pass does.

    Attributes
    ----------
    passes : int
        The passes over the file the step asked for (:meth:`count`).
    """

    def __init__(self, n: int, source: str, budget: WorkBudget, place: int,
                 counting: Callable[[int, Callable[[pd.DataFrame, int], None], str], None],
                 stage: Callable[[str], None] | None) -> None:
        self.n, self.source, self.budget, self.place = n, source, budget, place
        self._counting, self._stage = counting, stage
        self.passes = 0

    def count(self, add: Callable[[pd.DataFrame, int], None], what: str) -> None:
        """One pass over the file through the steps before this one, each chunk and its first record's place
        given to ``add``; ``what`` the pass is for, in words (``"its keys' counts"``)."""
        self.passes += 1
        self._counting(self.place - 1, add, what)

    def values(self, frame: pd.DataFrame, step: Step, source: str, start: int) -> np.ndarray:
        """The step's columns of a chunk as numbers, as the in-memory release reads them; a message names the
        chunk's first record."""
        from rumap.release.gathered import chunk_values

        return chunk_values(frame, step, source, start)

    def replace(self, frame: pd.DataFrame, columns: tuple[str, ...], released: np.ndarray) -> pd.DataFrame:
        """The chunk with ``columns`` replaced by ``released``, each keeping its type as the in-memory step does."""
        from rumap.release.step_apply import replace_columns

        return replace_columns(frame, columns, released)

    def refusal(self, step: Step, exc: InputError) -> InputError:
        """A step's refusal as the release says it: the step's place and method, and the plan's key."""
        from rumap.release.methods import plan_key

        return InputError(f"step {self.place} ({step.method}): {plan_key(str(exc), self.place - 1)}")

    def stage(self, text: str) -> None:
        """Say what the step does now (long work on a large file)."""
        if self._stage is not None:
            self._stage(text)


@assumes_valid
def coding_stream(step: Step, file: FilePass, coded: bool = False) -> _CodingStream:
    """Global recoding, or top and bottom coding (``coded``: the coded values counted), on a file: each value
    mapped by itself, chunk by chunk.

    Parameters
    ----------
    step : Step
    file : FilePass
    coded : bool, default False
        Whether the step's summary counts the values coded above and below (top and bottom coding's does).

    Returns
    -------
    stream
    """
    return _CodingStream(step, coded)


@assumes_valid
def pram_stream(step: Step, file: FilePass) -> _PramStream:
    """PRAM on a file: one pass counts each key's categories, then the draws at each record's place.

    Parameters
    ----------
    step : Step
    file : FilePass

    Returns
    -------
    stream
    """
    categories = _Categories(step.keys)
    file.count(lambda frame, start: categories.add(frame), "its keys' counts")
    return _PramStream(step, categories)
