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

The released values, and the step's summary, are those of the in-memory
release of the same plan on the same file.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from rumap._validation import InstanceOf, validate_params
from rumap.budget import WorkBudget
from rumap.errors import InputError
from rumap.release.plan import ReleasePlan, Step

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["GatheredColumns", "GatheredSuppression", "check_whole_file_work"]

#: Microaggregation algorithms whose work grows with the square of the records.
QUADRATIC = ("mdav", "mwa")


def _example_work() -> dict[str, Any]:
    from rumap.budget import DEFAULT_BUDGET

    return {"plan": ReleasePlan((Step("microaggregation", {"k": 3}, columns=("a",)),)), "n": 100,
            "budget": DEFAULT_BUDGET}


@validate_params({"plan": InstanceOf(ReleasePlan), "n": "records", "budget": InstanceOf(WorkBudget)},
                 example=_example_work)
def check_whole_file_work(plan: ReleasePlan, n: int, budget: WorkBudget) -> None:
    """Refuse, before any pass, a microaggregation step whose algorithm's work on ``n`` records exceeds ``budget``.

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
    from rumap.masking.microaggregation import ALGORITHMS

    for i, step in enumerate(plan.steps):
        if step.method != "microaggregation":
            continue
        name, k, p = step.parameters["algorithm"], int(step.parameters["k"]), len(step.names)
        try:
            budget.check_work(ALGORITHMS[name].cost(n, p, max(k, 1)),
                              f"{name} of {n} records x {p} variables, k = {k}")
        except InputError as exc:
            hint = (f"; {name} is quadratic in the records: the algorithm mdav_partitioned (MDAV within parts of "
                    "1,000 records) or optimal_pc1 is linear" if name in QUADRATIC else "")
            raise InputError(f"step {i + 1} (microaggregation): {exc}{hint}") from None


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
        from rumap.release.stream import _values

        self.values[start:start + len(frame)] = _values(frame, self.step, source, start)

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
        from rumap.release.apply import _replace_columns

        return _replace_columns(frame, self.step.columns, self.masked[start:start + len(frame)])

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
