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
from functools import partial
from typing import Any

import numpy as np
import pandas as pd

from rumap._validation import InstanceOf, JsonBoolean, StepName, assumes_valid, check_parameter, validate_params
from rumap.budget import DEFAULT_BUDGET, WorkBudget
from rumap.errors import InputError
from rumap.io.data import read_table_bytes, table_bytes
from rumap.maps.categorical import CATEGORICAL_METHODS
from rumap.maps.method_records import LiveTable
from rumap.maps.methods import METHODS, MaskingMethod
from rumap.masking.categorical import band, local_suppression, pram, recode, top_bottom_code
from rumap.release.cellkey_step import CELLKEY_STEP_METHODS
from rumap.release.chunked import coding_stream, pram_stream
from rumap.release.granularity_step import GRANULARITY_STEP
from rumap.release.methods import REQUIRED, StepMethod, plan_key, use_step_methods
from rumap.release.plan import ReleasePlan, Step
from rumap.release.step_apply import StepOutcome, _known, _replace_columns, _step_values, apply_step
from rumap.release.swap_step import SWAP_STEP
from rumap.release.synthesis import SYNTHESIS_STEP_METHODS
from rumap.release.tables import TABLE_STEP_METHODS, TableState

__all__ = ["StepMethod", "STEP_METHODS", "StepOutcome", "ReleaseResult", "apply_step", "apply_plan",
           "round_trip", "REQUIRED", "unreached", "check_plan_work"]


# --- a masking method of the maps' engine: its step from its record ----------------------------

def _record_parameters(record: MaskingMethod) -> dict[str, Any]:
    """The step's parameters and defaults a record without its own gives: its grid parameter, then its options."""
    implied = {key for grid in record.grids for key in grid.implies}
    first: dict[str, Any] = {g.name: REQUIRED if len(record.grids) == 1 else None for g in record.grids}
    # an option that follows the attacked column names one of the step's columns: None, the first
    return {**first, **{o.name: None if o.follows else o.default for o in record.options if o.name not in implied}}


def _record_check(name: str, record: MaskingMethod) -> Callable[[dict, tuple[str, ...]], dict]:
    """The check of a step of the method ``name`` whose record gives none: its grid's value, its options."""
    def check(parameters: dict, names: tuple[str, ...]) -> dict:
        given = [g for g in record.grids if parameters.get(g.name) is not None]
        if len(given) != 1:
            raise InputError(f"{name} needs one of the parameters {' or '.join(g.name for g in record.grids)}")
        grid = given[0]
        (value,) = grid.check([check_parameter(grid.name, parameters[grid.name], grid.entry)])
        for option in record.options:
            if option.follows and parameters.get(option.name) is not None:
                check_parameter(option.name, parameters[option.name], StepName(names, "columns"))
        options, _ = record.map_options({k: v for k, v in parameters.items() if v is not None}, names)
        try:
            checked = record.checked_options(name, options)
        except InputError as exc:
            raise InputError(f"parameter {exc}") from None
        return record.step_parameters(checked, value, names)

    return check


def _record_applier(record: MaskingMethod) -> Callable[[pd.DataFrame, Step, str, WorkBudget],
                                                       tuple[pd.DataFrame, dict]]:
    """A step's applier: the record's ``release.mask`` of the step's columns, every other column as it was."""
    def apply(frame: pd.DataFrame, step: Step, source: str, budget: WorkBudget) -> tuple[pd.DataFrame, dict]:
        masked, summary = record.release.mask(_step_values(frame, step, source), step.parameters, step.columns,
                                              step.seed, budget)
        return _replace_columns(frame, step.columns, np.asarray(masked, dtype=float)), summary

    return apply


# --- how a step runs on a file and its prediction: the streamed release and the report, imported when used ---

def _stream_gathered(step: Step, file: Any) -> Any:
    from rumap.release.gathered import gathered_stream

    return gathered_stream(step, file)


def _stream_suppress(step: Step, file: Any) -> Any:
    from rumap.release.gathered import suppression_stream

    return suppression_stream(step, file)


def _predict_map(*args: Any, **kwargs: Any) -> tuple:
    """A masking method of the maps' engine: its empirical map at the step's value."""
    from rumap.release.prediction import _numeric_prediction

    return _numeric_prediction(*args, **kwargs)


def _predict_pram(*args: Any, **kwargs: Any) -> tuple:
    from rumap.release.prediction import _pram_prediction

    return _pram_prediction(*args, **kwargs)


def _record_step(name: str, record: MaskingMethod) -> StepMethod:
    """The step method of the masking method ``name`` (:data:`rumap.maps.methods.METHODS`), from its record."""
    release = record.release
    parameters = release.parameters if release.parameters is not None else _record_parameters(record)
    check = release.check if release.check is not None else _record_check(name, record)
    return StepMethod("columns", parameters, not record.deterministic, check, _record_applier(record), name,
                      release.description or record.description, precision=release.precision,
                      stream=release.stream or _stream_gathered, predictor=_predict_map,
                      file_work=release.file_work)


# --- categorical keys ------------------------------------------------------------------------

def _categories(before: pd.DataFrame, after: pd.DataFrame, names: Sequence[str]) -> dict:
    """Number of categories of each key before and after the step (counts, not categories)."""
    return {name: {"before": int(before[name].nunique()), "after": int(after[name].nunique())} for name in names}


def _check_recode(parameters: dict, names: tuple[str, ...]) -> dict:
    merge = parameters["merge"]
    if not isinstance(merge, Mapping) or not all(
            isinstance(v, str) and isinstance(m, Mapping) and all(isinstance(a, str) and isinstance(b, str)
                                                                  for a, b in m.items()) for v, m in merge.items()):
        raise InputError("parameter merge must map a variable to {old category: new category} (all text)")
    for variable in merge:
        check_parameter("merge", variable, StepName(names, "keys"))
    out: dict[str, Any] = {"merge": {v: dict(m) for v, m in merge.items()}}
    if parameters["band_width"] is None:
        if parameters["variable"] is not None:
            raise InputError("parameter variable goes with band_width (the variable banded)")
        if not merge:
            raise InputError("recode needs band_width with variable (banding), merge (categories merged), or both")
        out.update(band_width=None, variable=None, origin=0.0)
        return out
    out["band_width"] = float(check_parameter("band_width", parameters["band_width"]))
    if parameters["variable"] is None:
        raise InputError("parameter band_width needs variable (the numeric key banded)")
    out["variable"] = check_parameter("variable", parameters["variable"], StepName(names, "keys"))
    out["origin"] = check_parameter("origin", parameters["origin"], [None, "value"])
    if out["origin"] is None:
        raise InputError("parameter origin must be a finite number")
    return out


def _as_text(column: pd.Series) -> pd.Series:
    """The values as text (``3`` for a whole number read as 3.0), missing values kept missing."""
    def text(value: Any) -> Any:
        if isinstance(value, float) and value.is_integer():
            return str(int(value))
        return str(value)

    return column.astype(object).where(column.isna(), column.map(text, na_action="ignore"))


def _apply_recode(frame: pd.DataFrame, step: Step, source: str, budget: WorkBudget) -> tuple[pd.DataFrame, dict]:
    p = step.parameters
    out = frame
    if p["merge"]:
        out = frame.copy()
        for variable in p["merge"]:
            (name,) = _known(frame, [variable], source)
            out[name] = _as_text(out[name])
        out = recode(out, p["merge"], source=source)
    if p["band_width"] is not None:
        out = band(out, p["variable"], p["band_width"], origin=p["origin"], source=source)
    changed = sorted({*p["merge"], *([p["variable"]] if p["variable"] else [])}, key=list(step.keys).index)
    return out, {"categories": _categories(frame, out, changed)}


def _check_top_bottom(parameters: dict, names: tuple[str, ...]) -> dict:
    out = {"variable": check_parameter("variable", parameters["variable"], StepName(names, "keys")),
           "above": check_parameter("above", parameters["above"], [None, "value"]),
           "below": check_parameter("below", parameters["below"], [None, "value"])}
    if out["above"] is None and out["below"] is None:
        raise InputError("top_bottom needs the parameter above, below or both")
    if out["above"] is not None and out["below"] is not None and out["below"] > out["above"]:
        raise InputError(f"parameter below ({out['below']:g}) must not exceed above ({out['above']:g})")
    return out


def _apply_top_bottom(frame: pd.DataFrame, step: Step, source: str, budget: WorkBudget) -> tuple[pd.DataFrame, dict]:
    p = step.parameters
    out = top_bottom_code(frame, p["variable"], above=p["above"], below=p["below"], source=source)
    values = pd.to_numeric(frame[p["variable"]], errors="coerce")
    coded = {"above": int((values > p["above"]).sum()) if p["above"] is not None else 0,
             "below": int((values < p["below"]).sum()) if p["below"] is not None else 0}
    return out, {"coded": coded, "categories": _categories(frame, out, [p["variable"]])}


def _check_suppress(parameters: dict, names: tuple[str, ...]) -> dict:
    importance = parameters["importance"]
    if not isinstance(importance, Mapping) or not all(
            isinstance(v, str) and not isinstance(c, bool) and isinstance(c, (int, float)) and np.isfinite(c)
            for v, c in importance.items()):
        raise InputError("parameter importance must map key variables to finite numbers")
    for variable in importance:
        check_parameter("importance", variable, StepName(names, "keys"))
    return {"k": int(check_parameter("k", parameters["k"])),
            "optimal": check_parameter("optimal", parameters["optimal"], JsonBoolean()),
            "importance": {v: float(c) for v, c in importance.items()}}


def _apply_suppress(frame: pd.DataFrame, step: Step, source: str, budget: WorkBudget) -> tuple[pd.DataFrame, dict]:
    p = step.parameters
    importance = p["importance"] or None
    if p["optimal"]:
        from rumap.masking.optimal_suppression import optimal_suppression

        result = optimal_suppression(frame, list(step.keys), p["k"], importance=importance, source=source,
                                     budget=budget)
    else:
        result = local_suppression(frame, list(step.keys), k=p["k"], importance=importance, source=source,
                                   budget=budget)
    counts = result.to_dict()
    return result.data, {"suppressed": counts["suppressed"], "per_variable": counts["per_variable"],
                         "k_reached": bool(result.feasible), "reason": result.reason}


def _check_pram(parameters: dict, names: tuple[str, ...]) -> dict:
    return {"theta": float(check_parameter("theta", parameters["theta"]))}


def _apply_pram(frame: pd.DataFrame, step: Step, source: str, budget: WorkBudget) -> tuple[pd.DataFrame, dict]:
    result = pram(frame, list(step.keys), step.parameters["theta"], seed=step.seed, source=source)
    changed = {k: int(v) for k, v in zip(result.keys, result.changed.sum(axis=0), strict=True)}
    return result.data, {"changed": changed}


#: The steps that are no masking method of the maps' engine, by name (tables' steps in
#: :data:`rumap.release.tables.TABLE_STEP_METHODS`).
_OTHER_STEP_METHODS: dict[str, StepMethod] = {
    "recode": StepMethod("keys", {"band_width": None, "variable": None, "origin": 0.0, "merge": {}}, False,
                         _check_recode, _apply_recode, None,
                         "global recoding: a numeric key into bands, categories merged", stream=coding_stream,
                         text_flags=("--band-variable", "--merge"), key_map=CATEGORICAL_METHODS["recode"],
                         no_prediction="no simulated map (banding's map is exact; merges of categories have no map)"),
    "top_bottom": StepMethod("keys", {"variable": REQUIRED, "above": None, "below": None}, False, _check_top_bottom,
                             _apply_top_bottom, None, "top and bottom coding", stream=partial(coding_stream, coded=True),
                             text_flags=("--top", "--bottom"),
                             no_prediction="top and bottom coding has no map"),
    "suppress": StepMethod("keys", {"k": REQUIRED, "optimal": False, "importance": {}}, False, _check_suppress,
                           _apply_suppress, None, "local suppression to k-anonymity (heuristic or optimal)",
                           stream=_stream_suppress, anonymity="k", text_flags=("--importance",),
                           key_map=CATEGORICAL_METHODS["suppress"],
                           no_prediction="the map of local suppression is exact: its R at this k is the released "
                                         "file's global risk"),
    "pram": StepMethod("keys", {"theta": REQUIRED}, True, _check_pram, _apply_pram, None, "invariant PRAM",
                       stream=pram_stream, predictor=_predict_pram, key_map=CATEGORICAL_METHODS["pram"]),
    "granularity": GRANULARITY_STEP,
    "swap": SWAP_STEP,
    **SYNTHESIS_STEP_METHODS,
    **TABLE_STEP_METHODS,
    **CELLKEY_STEP_METHODS,
}


class _StepMethods(LiveTable):
    """A live view: the step of every record of :data:`METHODS` that has a ``release``, then the other steps."""

    def __init__(self) -> None:
        self._made: dict[str, tuple[MaskingMethod, StepMethod]] = {}

    def _masking(self) -> dict[str, StepMethod]:
        out = {}
        for name, record in METHODS.items():
            if record.release is None:
                continue
            made = self._made.get(name)
            if made is None or made[0] is not record:  # a method registered (or replaced) since
                made = self._made[name] = (record, _record_step(name, record))
            out[name] = made[1]
        return out

    def table(self) -> dict[str, StepMethod]:
        """Every step method as registered now."""
        return {**self._masking(), **_OTHER_STEP_METHODS}


#: Masking methods as steps of a release plan, by name: a masking method of the maps' engine brings its own
#: (its record's ``release``, :class:`rumap.maps.method_records.ReleaseStep`, under its name, when
#: :func:`rumap.maps.methods.register_method` adds it); the others are one entry each.
STEP_METHODS: Mapping[str, StepMethod] = _StepMethods()
use_step_methods(STEP_METHODS)


@assumes_valid
def check_plan_work(plan: ReleasePlan, records: int, columns: int, budget: WorkBudget,
                    replicates: int | None = None) -> None:
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
    total = float(records) * max(columns, 1) * len(plan.steps)
    what = f"{len(plan.steps)} step(s) x {records} records x {columns} columns"
    if replicates:
        total += float(replicates) * records * sum(max(len(step.names), 1) for step in plan.steps)
        what += f", and {replicates} simulated releases of each step's columns"
    budget.check_work(total, what)


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
