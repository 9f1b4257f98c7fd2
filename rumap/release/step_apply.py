"""Applying one step of a release plan: its record's applier on the data, its columns read and put back.

The step's record is the registry's (:data:`rumap.release.registry.STEP_METHODS`, through
:func:`rumap.release.methods.step_methods`); :func:`rumap.release.apply.apply_plan` applies a plan's steps in
order, and the streamed release (:mod:`rumap.release.chunked`, :mod:`rumap.release.gathered`) a step's chunks.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from rumap._validation import InstanceOf, assumes_valid, validate_params
from rumap.budget import DEFAULT_BUDGET, WorkBudget
from rumap.errors import InputError
from rumap.io.data import numeric_columns
from rumap.release.methods import Step, step_methods
from rumap.release.table_state import TableState

__all__ = ["StepOutcome", "apply_step", "known_columns", "category_counts", "replace_columns", "step_values"]


@assumes_valid
def replace_columns(frame: pd.DataFrame, names: Sequence[str], values: np.ndarray) -> pd.DataFrame:
    """A copy of ``frame`` with ``names`` replaced by the columns of ``values``, every other column as it was.

    Parameters
    ----------
    frame : DataFrame
    names : sequence of str
        The columns replaced, in the order of ``values``' columns.
    values : ndarray
        One column per name.

    Returns
    -------
    DataFrame
    """
    out = frame.copy()
    for j, name in enumerate(names):
        out[name] = values[:, j]
    return out


@assumes_valid
def step_values(frame: pd.DataFrame, step: Step, source: str) -> np.ndarray:
    """The step's columns of ``frame`` as a C-ordered float array (an :class:`InputError` names a bad column).

    Parameters
    ----------
    frame : DataFrame
    step : Step
        The step whose ``columns`` are read.
    source : str
        The data's name, for messages.

    Returns
    -------
    ndarray
    """
    # C order, as the maps' engine gets its data: MWA's groups can depend on the memory layout (ties broken
    # by sums in another order), and a step must mask as its map does
    return np.ascontiguousarray(numeric_columns(frame, list(step.columns), source=source))


@assumes_valid
def known_columns(frame: pd.DataFrame, names: Sequence[str], source: str) -> list[str]:
    """``names``, each a column of ``frame`` (else an :class:`InputError` naming the first missing one).

    Parameters
    ----------
    frame : DataFrame
    names : sequence of str
    source : str
        The data's name, for messages.

    Returns
    -------
    list of str
    """
    missing = [n for n in names if n not in frame.columns]
    if missing:
        raise InputError(f"{source}: no column {missing[0]!r}; columns are {', '.join(map(str, frame.columns))}")
    return list(names)



@dataclass(frozen=True)
class StepOutcome:
    """What one step did: the step and its counts (never data values).

    Parameters
    ----------
    step : Step
    summary : dict
        Method-specific counts and measures (groups and SSE/SST of
        microaggregation, suppressions per variable, PRAM's changed values...).
    """

    step: Step
    summary: dict = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """The step (a plan entry) and its summary."""
        return {**self.step.to_dict(), "summary": dict(self.summary)}


@validate_params({"frame": InstanceOf((pd.DataFrame, TableState), "a pandas DataFrame or a TableState"),
                  "source": InstanceOf(str, "a name for messages"), "budget": InstanceOf(WorkBudget)},
                 example=lambda: {"frame": pd.DataFrame({"a": [1.0, 2.0, 4.0, 8.0]}),
                                  "step": _example_step()})
def apply_step(frame: pd.DataFrame | TableState, step: Step, source: str = "the data",
               budget: WorkBudget = DEFAULT_BUDGET) -> tuple[pd.DataFrame, StepOutcome]:
    """Apply one step to a data set: the protected data and what the step did.

    Parameters
    ----------
    frame : DataFrame or TableState
        The data; the step's columns or keys must be among its columns.
    step : Step
        A step of a release plan (:class:`rumap.release.plan.Step`); a table's
        steps after the ``table`` step take and give a :class:`TableState`.
    source : str
        The data's name, for messages.
    budget : WorkBudget
        Limits the work of the methods that check it.

    Returns
    -------
    data : DataFrame
        The protected data, every column in its place.
    outcome : StepOutcome

    Examples
    --------
    >>> import pandas as pd
    >>> from rumap.release.plan import Step
    >>> step = Step("microaggregation", {"k": 2}, columns=("a",))
    >>> data, outcome = apply_step(pd.DataFrame({"a": [1.0, 2.0, 4.0, 8.0], "b": list("wxyz")}), step)
    >>> data["a"].tolist(), data["b"].tolist(), outcome.summary["groups"]
    ([1.5, 1.5, 6.0, 6.0], ['w', 'x', 'y', 'z'], 2)
    """
    if not isinstance(step, Step):
        raise InputError(f"step must be a Step, got {type(step).__name__}")
    record = step_methods()[step.method]
    on_table = isinstance(frame, TableState)
    if on_table != (record.stage == "table"):
        raise InputError(f"{step.method} works on a table: a table step first" if record.stage == "table"
                         else f"{step.method} works on microdata: it comes before the table step")
    if on_table:
        out, summary = record.apply(frame, step, source, budget)
        return out, StepOutcome(step, summary)
    known_columns(frame, step.names, source)
    out, summary = record.apply(frame, step, source, budget)
    if record.stage == "tabulate":
        return out, StepOutcome(step, summary)
    return out[list(frame.columns)], StepOutcome(step, summary)


def _example_step() -> Step:
    return Step("microaggregation", {"k": 2}, columns=("a",))


@assumes_valid
def category_counts(before: pd.DataFrame, after: pd.DataFrame, names: Sequence[str]) -> dict:
    """Number of categories of each key before and after the step (counts, not categories).

    Parameters
    ----------
    before, after : DataFrame
        The data before and after the step.
    names : sequence of str
        The keys counted.

    Returns
    -------
    dict
        ``{key: {"before": n, "after": n}}``.
    """
    return {name: {"before": int(before[name].nunique()), "after": int(after[name].nunique())} for name in names}
