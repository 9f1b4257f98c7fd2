"""Applying a release plan's steps: one record per masking method, each step's randomness from its own seed.

A step names a method of :data:`STEP_METHODS`, its parameters, the numeric
``columns`` or categorical ``keys`` it protects and a seed. Its applier calls
the masking function of :mod:`rumap.masking` that the method's R-U map uses (a
masking method of the maps' engine gives its step in its record,
:class:`rumap.maps.method_records.ReleaseStep`); the other columns pass through
unchanged, in their order. A step is a function of the data it gets and of the
step alone (its generator is ``numpy.random.default_rng(seed)``), so a plan
applied at once and its steps applied one release at a time give the same data.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from rumap._validation import InstanceOf, assumes_valid, validate_params
from rumap.budget import DEFAULT_BUDGET, WorkBudget
from rumap.errors import InputError
from rumap.io.data import read_table_bytes, table_bytes
from rumap.release.methods import REQUIRED, StepMethod, plan_key
from rumap.release.plan import ReleasePlan, Step
from rumap.release.registry import STEP_METHODS
from rumap.release.step_apply import StepOutcome, apply_step
from rumap.release.table_state import TableState

__all__ = ["StepMethod", "STEP_METHODS", "StepOutcome", "ReleaseResult", "apply_step", "apply_plan",
           "round_trip", "REQUIRED", "unreached", "check_plan_work"]


@assumes_valid
def check_plan_work(plan: ReleasePlan, records: int, columns: int, budget: WorkBudget,
                    replicates: int | None = None, instead: Callable[[int], str] | None = None) -> None:
    """Refuse, before any step, a plan whose steps' work summed passes the budget's work limit.

    A step's work counts each value of the data once (the step's pass over the
    records and the data's way to the next step: records x columns) and, with
    predictions, its map's simulated releases of its columns or keys
    (replicates x records x its columns); the plan's is the sum of its steps'.
    A step's own kernel checks what it adds (microaggregation's algorithm).

    Parameters
    ----------
    plan : ReleasePlan
    records, columns : int
        The data's size.
    budget : WorkBudget
    replicates : int, optional
        Simulated releases per step of the report's predictions (None: no prediction).
    instead : callable, optional
        ``instead(fits) -> words``: what would fit, given the most simulated
        releases that would (0: none), in the caller's words (a front end's
        flags); without it the message says ``ask for less``.

    Raises
    ------
    InputError
        Naming the steps, the size and the limit.

    Examples
    --------
    >>> from rumap.budget import DEFAULT_BUDGET
    >>> from rumap.release.plan import ReleasePlan, Step
    >>> plan = ReleasePlan((Step("noise", {"lambda2_frac": 0.1}, columns=["a"]),) * 20)
    >>> check_plan_work(plan, 10**6, 10, DEFAULT_BUDGET)
    >>> check_plan_work(plan, 10**6, 10, DEFAULT_BUDGET, replicates=200)
    Traceback (most recent call last):
    ...
    rumap.errors.InputError: the run needs 4.2e+09 steps (20 step(s) x 1000000 records x 10 columns, and 200 simulated releases of each step's columns), over the work limit of 2e+09: ask for less (--work-limit raises the limit on the command line)
    """
    base = float(records) * max(columns, 1) * len(plan.steps)
    what = f"{len(plan.steps)} step(s) x {records} records x {columns} columns"
    per_release = float(records) * sum(max(len(step.names), 1) for step in plan.steps)
    total = base
    if replicates:
        total += replicates * per_release
        what += f", and {replicates} simulated releases of each step's columns"
    fits = max(int((budget.work - base) // per_release), 0) if per_release else 0
    budget.check_work(total, what, "" if instead is None else instead(min(fits, replicates or 0)))


@assumes_valid
def unreached(steps: Sequence[Step], summaries: Sequence[Mapping[str, Any]]) -> list[str]:
    """What each step whose summary says it did not reach its goal (``"k_reached": false``) did not reach, and why.

    A release goes on past such a step (its file is written), and says so: the command line's JSON and lines,
    the report and the dashboard show these.

    Parameters
    ----------
    steps : sequence of Step
    summaries : sequence of mapping
        Each step's summary, in order.

    Returns
    -------
    list of str

    Examples
    --------
    >>> from rumap.release.plan import Step
    >>> unreached([Step("suppress", {"k": 9}, keys=["sex"])], [{"k_reached": False, "reason": "k = 9 is too many"}])
    ['step 1 (suppress) did not reach k-anonymity: k = 9 is too many']
    """
    return [f"step {i + 1} ({step.method}) did not reach k-anonymity: {summary.get('reason')}"
            for i, (step, summary) in enumerate(zip(steps, summaries, strict=True))
            if summary.get("k_reached") is False]


@dataclass(frozen=True)
class ReleaseResult:
    """A data set protected by a release plan.

    Parameters
    ----------
    data : DataFrame
        The protected data: the original columns in their order; for a plan
        that builds a table, the released table (:meth:`TableState.to_frame`).
    outcomes : tuple of StepOutcome
        One per step, in order.
    inputs : tuple of DataFrame or TableState
        What each step was applied to (the first is the original).
    table : TableState, optional
        The table a plan built and protected.
    """

    data: pd.DataFrame = field(repr=False)
    outcomes: tuple[StepOutcome, ...]
    inputs: tuple[pd.DataFrame | TableState, ...] = field(repr=False)
    table: TableState | None = field(default=None, repr=False)

    @property
    def microdata(self) -> pd.DataFrame:
        """The released microdata: the data, or what the table was built from."""
        if self.table is None:
            return self.data
        return [state for state in self.inputs if isinstance(state, pd.DataFrame)][-1]

    def to_dict(self) -> dict[str, Any]:
        """Rows, columns and the steps with their summaries (no data values)."""
        return {"rows": int(self.data.shape[0]), "columns": [str(c) for c in self.data.columns],
                "steps": [o.to_dict() for o in self.outcomes]}

    def to_frame(self) -> pd.DataFrame:
        """One row per step: method, parameters, columns or keys, seed."""
        return pd.DataFrame([{"step": i + 1, "method": o.step.method, "parameters": o.step.parameters,
                              "columns": ",".join(o.step.names), "seed": o.step.seed}
                             for i, o in enumerate(self.outcomes)])


@validate_params({"frame": InstanceOf(pd.DataFrame, "a pandas DataFrame"), "name": InstanceOf(str, "a file name")},
                 example=lambda: {"frame": pd.DataFrame({"a": [1.0, 2.5]}), "name": "released.csv"})
def round_trip(frame: pd.DataFrame, name: str) -> pd.DataFrame:
    """The data as it reads back from a file of ``name``'s format (written and read in memory).

    Parameters
    ----------
    frame : DataFrame
    name : str
        A file name; its extension is the format.

    Returns
    -------
    DataFrame
    """
    return read_table_bytes(table_bytes(frame, name), name)


@validate_params({"frame": InstanceOf(pd.DataFrame, "a pandas DataFrame"), "source": InstanceOf(str, "a name for messages"),
                  "between": [None, InstanceOf(str, "a file name")], "budget": InstanceOf(WorkBudget)},
                 example=lambda: {"frame": pd.DataFrame({"a": [1.0, 2.0, 4.0, 8.0]}), "plan": _example_plan()})
def apply_plan(frame: pd.DataFrame, plan: ReleasePlan, source: str = "the data", between: str | None = None,
               budget: WorkBudget = DEFAULT_BUDGET) -> ReleaseResult:
    """Apply a release plan's steps in order.

    Parameters
    ----------
    frame : DataFrame
        The original data.
    plan : ReleasePlan
        The steps (:class:`rumap.release.plan.ReleasePlan`).
    source : str
        The data's name, for messages.
    between : str, optional
        A file name: between two steps the data pass through its format, in
        memory, as if each step were released to such a file and read back by
        the next, so the plan gives the bytes that its steps released one at a
        time give.
    budget : WorkBudget

    Returns
    -------
    ReleaseResult

    Examples
    --------
    >>> import pandas as pd
    >>> from rumap.release.plan import ReleasePlan, Step
    >>> plan = ReleasePlan((Step("rankswap", {"swap_percent": 50.0}, columns=("a",), seed=1),
    ...                     Step("microaggregation", {"k": 2}, columns=("a",))))
    >>> result = apply_plan(pd.DataFrame({"a": [1.0, 2.0, 4.0, 8.0]}), plan)
    >>> sorted(result.data["a"].tolist()), len(result.outcomes)
    ([1.5, 1.5, 6.0, 6.0], 2)
    """
    if not isinstance(plan, ReleasePlan):
        raise InputError(f"plan must be a ReleasePlan, got {type(plan).__name__}")
    check_plan_work(plan, frame.shape[0], frame.shape[1], budget)
    current, inputs, outcomes = frame, [], []
    for i, step in enumerate(plan.steps):
        if i > 0 and between is not None and isinstance(current, pd.DataFrame):
            current = round_trip(current, between)
        inputs.append(current)
        try:
            current, outcome = apply_step(current, step, source, budget)
        except InputError as exc:
            raise InputError(f"step {i + 1} ({step.method}): {plan_key(str(exc), i)}") from None
        outcomes.append(outcome)
    if isinstance(current, TableState):
        return ReleaseResult(current.to_frame(), tuple(outcomes), tuple(inputs), table=current)
    return ReleaseResult(current, tuple(outcomes), tuple(inputs))


def _example_plan() -> ReleasePlan:
    return ReleasePlan((Step("microaggregation", {"k": 2}, columns=("a",)),))
