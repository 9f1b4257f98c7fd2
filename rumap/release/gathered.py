"""The steps of a streamed release that need whole columns: gathered in one pass, computed in memory, put back by chunk.

Microaggregation forms its groups from every record, rank swapping finds a
record's partners among every record's ranks, and local suppression needs the
frequencies of the keys' combinations over the whole file. Each needs only its
own columns: one pass over the file (each chunk through the steps before it,
reading only the columns those steps and this one name) gathers them, the
step is computed on them in memory by the kernel of the in-memory release
(:mod:`rumap.release.apply`), and only its result is kept until the writing
pass puts it back, chunk by chunk, at the records' places:

- a masking method of the maps' engine (microaggregation, rank swapping, one
  registered with a release step): its columns as a float array, ``8 n p``
  bytes for ``n`` records and ``p`` columns, given to the record's ``release``
  mask (the kernel's own working memory comes on top while it runs:
  microaggregation copies the array and forms an order, labels and means, a
  few arrays of ``8 n p`` bytes or of ``8 n``); the masked columns are kept,
  ``8 n p`` bytes;
- local suppression: each key's values as integer codes (4 bytes a value),
  numbered in order of first appearance over the file as
  :func:`rumap.risk.cells.key_codes` numbers them, and the dictionary of each
  key's categories; the rounds of
  :func:`rumap.masking.suppression_rounds.suppression_rounds` run on the
  distinct rows of codes with their record counts (as
  :func:`rumap.scale.protect.suppress_file` runs them), and the suppressed
  values are kept as one byte per record and key. The optimal suppression runs
  :func:`rumap.masking.optimal_suppression.optimal_suppression` on the codes.
- another step on categorical keys that needs the whole file (the elimination
  of granularity): its keys' values as a table of the whole file (objects,
  so some tens of bytes a value), given to the in-memory step's applier; its
  released keys are kept.

The released values, and the step's summary, are those of the in-memory
release of the same plan on the same file.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from rumap._validation import InstanceOf, assumes_valid, validate_params
from rumap.budget import WorkBudget
from rumap.errors import InputError
from rumap.release.methods import step_methods
from rumap.release.plan import ReleasePlan, Step

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["GatheredColumns", "GatheredSuppression", "GatheredKeys", "check_whole_file_work", "chunk_values",
           "gathered_stream", "suppression_stream", "keys_stream"]


@assumes_valid
def chunk_values(frame: pd.DataFrame, step: Step, source: str, start: int) -> np.ndarray:
    """The step's columns of a chunk as the in-memory release reads them; a message names the chunk's first record.

    Parameters
    ----------
    frame : DataFrame
        The chunk.
    step : Step
    source : str
        The file's name, for messages.
    start : int
        The chunk's first record (0-based).

    Returns
    -------
    ndarray, shape (records, columns)
    """
    import pandas as pd

    from rumap.release.step_apply import step_values

    try:  # the checks of a file need two rows: a chunk of one is checked as two
        return step_values(frame if len(frame) > 1 else pd.concat([frame, frame]), step, source)[:len(frame)]
    except InputError as exc:
        raise InputError(f"{exc} (rows counted from record {start + 1})") from None


def _example_work() -> dict[str, Any]:
    from rumap.budget import DEFAULT_BUDGET

    return {"plan": ReleasePlan((Step("microaggregation", {"k": 3}, columns=("a",)),)), "n": 100,
            "budget": DEFAULT_BUDGET}


@validate_params({"plan": InstanceOf(ReleasePlan), "n": "records", "budget": InstanceOf(WorkBudget)},
                 example=_example_work)
def check_whole_file_work(plan: ReleasePlan, n: int, budget: WorkBudget) -> None:
    """Refuse, before any pass, a step whose work on ``n`` records exceeds ``budget`` (its record's ``file_work``:
    microaggregation's algorithm).

    Parameters
    ----------
    plan : ReleasePlan
    n : int
        Records of the file (from its metadata).
    budget : WorkBudget

    Raises
    ------
    InputError
        Naming the step and, for MDAV or MWA (quadratic in ``n``), the algorithms linear in the records.

    Examples
    --------
    >>> from rumap.budget import DEFAULT_BUDGET
    >>> from rumap.release.plan import ReleasePlan, Step
    >>> plan = ReleasePlan((Step("microaggregation", {"k": 3}, columns=("a", "b")),))
    >>> check_whole_file_work(plan, 10_000, DEFAULT_BUDGET)
    >>> check_whole_file_work(plan, 10**6, DEFAULT_BUDGET)
    Traceback (most recent call last):
    ...
    rumap.errors.InputError: step 1 (microaggregation): the run needs 6.67e+11 steps (mdav of 1000000 records x 2 variables, k = 3), over the work limit of 2e+09: ask for less (--work-limit raises the limit on the command line); mdav is quadratic in the records: the algorithm mdav_partitioned (MDAV within parts of 1,000 records) or optimal_pc1 is linear
    """
    for i, step in enumerate(plan.steps):
        work = step_methods()[step.method].file_work
        if work is None:
            continue
        try:
            work(step.parameters, n, len(step.names), budget)
        except InputError as exc:
            raise InputError(f"step {i + 1} ({step.method}): {exc}") from None


def _gathered(gathered: GatheredColumns | GatheredSuppression, step: Step, file: Any) -> Any:
    """One pass gathers the step's columns, then it is computed on them in memory."""
    file.count(lambda frame, start: gathered.gather(frame, file.source, start), "its columns")
    file.stage(f"step {file.place} ({step.method}): computing on its {len(step.names)} column(s) in memory")
    gathered.compute(file.budget, file.source)
    return gathered


@assumes_valid
def gathered_stream(step: Step, file: Any) -> GatheredColumns:
    """A masking method of the maps' engine on a file (its record's ``release``): its whole columns gathered.

    Parameters
    ----------
    step : Step
    file : rumap.release.chunked.FilePass

    Returns
    -------
    GatheredColumns
    """
    return _gathered(GatheredColumns(step, file.n, file.place), step, file)


@assumes_valid
def suppression_stream(step: Step, file: Any) -> GatheredSuppression:
    """Local suppression on a file: its keys gathered as codes, suppressed in memory.

    Parameters
    ----------
    step : Step
    file : rumap.release.chunked.FilePass

    Returns
    -------
    GatheredSuppression
    """
    return _gathered(GatheredSuppression(step, file.n, file.place), step, file)


@assumes_valid
def keys_stream(step: Step, file: Any) -> GatheredKeys:
    """A step on the keys that needs the whole file's table (granularity elimination): its keys gathered, the
    in-memory step applied, put back chunk by chunk.

    Parameters
    ----------
    step : Step
    file : rumap.release.chunked.FilePass

    Returns
    -------
    GatheredKeys
    """
    return _gathered(GatheredKeys(step, file.n, file.place), step, file)


class GatheredColumns:
    """A masking method of the maps' engine on its columns of the whole file: gathered, masked, put back.

    Parameters
    ----------
    step : Step
        A step whose method has a ``release`` record (:data:`rumap.maps.methods.METHODS`).
    n : int
        Records of the file.
    place : int
        The step's place in the plan (1-based), for messages.
    """

    def __init__(self, step: Step, n: int, place: int) -> None:
        self.step, self.place = step, place
        self.values: np.ndarray | None = np.empty((n, len(step.names)))
        self.masked: np.ndarray | None = None
        self.outcome: dict = {}

    def gather(self, frame: pd.DataFrame, source: str, start: int) -> None:
        """Keep a chunk's values of the step's columns (as the steps before it left them)."""
        self.values[start:start + len(frame)] = chunk_values(frame, self.step, source, start)

    def compute(self, budget: WorkBudget, source: str) -> None:
        """Mask the gathered columns with the record's kernel; only the masked columns are kept."""
        from rumap.maps.methods import METHODS

        x, self.values = self.values, None
        step = self.step
        try:
            masked, self.outcome = METHODS[step.method].release.mask(x, step.parameters, step.columns, step.seed,
                                                                     budget)
        except InputError as exc:
            raise InputError(f"step {self.place} ({step.method}): {exc}") from None
        del x
        self.masked = np.asarray(masked, dtype=float)

    def __call__(self, frame: pd.DataFrame, source: str, start: int) -> pd.DataFrame:
        from rumap.release.step_apply import replace_columns

        return replace_columns(frame, self.step.columns, self.masked[start:start + len(frame)])

    def restart(self) -> None:
        """Nothing drawn chunk by chunk: nothing to restart."""

    def types(self) -> dict[str, Any]:
        """Numbers in, numbers out: the chunk's own types."""
        return {}

    def summary(self) -> dict:
        """The kernel's summary, as the in-memory step gives it."""
        return dict(self.outcome)


class GatheredSuppression:
    """Local suppression of the whole file's keys: their codes gathered, the rounds run, the blanks put back.

    Parameters
    ----------
    step : Step
        A ``suppress`` step.
    n : int
        Records of the file.
    place : int
        The step's place in the plan (1-based), for messages.
    """

    def __init__(self, step: Step, n: int, place: int) -> None:
        self.step, self.place, self.n = step, place, n
        self.categories: list[dict[Any, int]] = [{} for _ in step.names]
        self.codes: np.ndarray | None = np.empty((n, len(step.names)), dtype=np.int32)
        self.suppressed: np.ndarray | None = None
        self.reason: str | None = None

    def gather(self, frame: pd.DataFrame, source: str, start: int) -> None:
        """Code a chunk's key values: each category's number in order of first appearance over the file, -1 missing."""
        import pandas as pd

        rows = slice(start, start + len(frame))
        for j, (name, known) in enumerate(zip(self.step.names, self.categories, strict=True)):
            local, found = pd.factorize(frame[name], use_na_sentinel=True)
            number = np.array([known.setdefault(category, len(known)) for category in found], dtype=np.int32)
            self.codes[rows, j] = np.where(local >= 0, number[np.maximum(local, 0)] if number.size else -1, -1)

    def compute(self, budget: WorkBudget, source: str) -> None:
        """Run the suppression on the codes; only which values are suppressed is kept."""
        from rumap.masking.categorical import k_out_of_reach

        codes, self.codes = self.codes, None
        p = self.step.parameters
        try:
            self.reason = k_out_of_reach(int(p["k"]), self.n, source)
            if self.reason is not None:  # as in memory: no suppression makes a record k-anonymous; nothing suppressed
                self.suppressed = np.zeros(codes.shape, dtype=bool)
            elif p["optimal"]:
                self.suppressed = _optimal(codes, self.step, source, budget)
            else:
                self.suppressed = _heuristic(codes, self.step, budget)
        except InputError as exc:
            raise InputError(f"step {self.place} (suppress): {exc}") from None

    def __call__(self, frame: pd.DataFrame, source: str, start: int) -> pd.DataFrame:
        from rumap.masking.suppression_rounds import blank_chunk

        return blank_chunk(frame, self.step.names, self.suppressed[start:start + len(frame)])

    def restart(self) -> None:
        """Nothing drawn chunk by chunk: nothing to restart."""

    def types(self) -> dict[str, Any]:
        """The Arrow type of each key's categories, for a chunk where the key is all missing."""
        import pyarrow as pa

        out = {}
        for name, known in zip(self.step.names, self.categories, strict=True):
            try:
                kind = pa.array(list(known)).type
            except (pa.ArrowException, TypeError, ValueError):  # mixed categories: the chunks' own types
                continue
            if not pa.types.is_null(kind):
                out[name] = kind
        return out

    def summary(self) -> dict:
        """Suppressions in all and per key, as the in-memory step gives them."""
        counts = self.suppressed.sum(axis=0)
        return {"suppressed": int(counts.sum()),
                "per_variable": {name: int(c) for name, c in zip(self.step.names, counts, strict=True)},
                "k_reached": self.reason is None, "reason": self.reason}


class GatheredKeys:
    """A step on the keys of the whole file: the keys gathered as a table, the in-memory step applied, put back.

    Parameters
    ----------
    step : Step
        A step on keys whose applier needs only its keys (:data:`rumap.release.registry.STEP_METHODS`).
    n : int
        Records of the file.
    place : int
        The step's place in the plan (1-based), for messages.
    """

    def __init__(self, step: Step, n: int, place: int) -> None:
        self.step, self.place = step, place
        self.parts: list[pd.DataFrame] = []
        self.released: pd.DataFrame | None = None
        self.outcome: dict = {}

    def gather(self, frame: pd.DataFrame, source: str, start: int) -> None:
        """Keep a chunk's keys (as the steps before it left them)."""
        self.parts.append(frame[list(self.step.names)].reset_index(drop=True))

    def compute(self, budget: WorkBudget, source: str) -> None:
        """Apply the step to the gathered keys; only its released keys are kept."""
        import pandas as pd

        keys = pd.concat(self.parts, ignore_index=True) if self.parts else pd.DataFrame(columns=self.step.names)
        self.parts = []
        try:
            released, self.outcome = step_methods()[self.step.method].apply(keys, self.step, source, budget)
        except InputError as exc:
            raise InputError(f"step {self.place} ({self.step.method}): {exc}") from None
        self.released = released[list(self.step.names)]

    def __call__(self, frame: pd.DataFrame, source: str, start: int) -> pd.DataFrame:
        frame = frame.copy()
        part = self.released.iloc[start:start + len(frame)]
        for name in self.step.names:
            frame[name] = part[name].to_numpy()
        return frame

    def restart(self) -> None:
        """Nothing drawn chunk by chunk: nothing to restart."""

    def types(self) -> dict[str, Any]:
        """The Arrow type of each released key given as text or objects, for a chunk where it is all missing."""
        import pyarrow as pa

        out = {}
        for name in self.step.names:
            column = self.released[name]
            if column.dtype != object:
                continue
            try:
                kind = pa.array(column.dropna().tolist()).type
            except (pa.ArrowException, TypeError, ValueError):  # mixed values: the chunks' own types
                continue
            if not pa.types.is_null(kind):
                out[name] = kind
        return out

    def summary(self) -> dict:
        """The in-memory step's summary."""
        return dict(self.outcome)


def _heuristic(codes: np.ndarray, step: Step, budget: WorkBudget) -> np.ndarray:
    """:func:`rumap.masking.categorical.local_suppression`'s rounds on the distinct rows of codes and their counts."""
    from rumap.masking.categorical import key_importance
    from rumap.masking.suppression_rounds import suppression_rounds
    from rumap.risk.cells import distinct_rows

    p = codes.shape[1]
    k = int(step.parameters["k"])
    rank = key_importance(step.parameters["importance"] or None, list(step.names), 0.0)
    classes, row = distinct_rows(codes)
    del codes
    blank, _ = suppression_rounds(classes.astype(np.int64), k, None, None, rank, p, budget=budget,
                                  counts=np.bincount(row, minlength=classes.shape[0]))
    return blank[row]


def _optimal(codes: np.ndarray, step: Step, source: str, budget: WorkBudget) -> np.ndarray:
    """:func:`rumap.masking.optimal_suppression.optimal_suppression` of the codes (a category's code stands for it)."""
    import pandas as pd

    from rumap.masking.optimal_suppression import optimal_suppression

    frame = pd.DataFrame({name: np.where(codes[:, j] >= 0, codes[:, j], np.nan)
                          for j, name in enumerate(step.names)})
    result = optimal_suppression(frame, list(step.names), int(step.parameters["k"]),
                                 importance=step.parameters["importance"] or None, source=source, budget=budget)
    return np.asarray(result.suppressed, dtype=bool)
