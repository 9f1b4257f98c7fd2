"""A masking method of the maps' engine as a step of a release plan: its step made from its record.

A record of :data:`rumap.maps.methods.METHODS` with a ``release``
(:class:`rumap.maps.method_records.ReleaseStep`) is a step of the same name
(:data:`rumap.release.registry.STEP_METHODS`): its parameters are its grid
parameter and options, checked by the record's entries of the parameter table,
unless the record gives its own; it streams its columns gathered unless it
says how it runs on a file; the report predicts it from its empirical map.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from rumap._validation import StepName, assumes_valid, check_parameter
from rumap.errors import InputError
from rumap.maps.methods import MaskingMethod
from rumap.release.methods import REQUIRED, Step, StepMethod

if TYPE_CHECKING:
    import pandas as pd

    from rumap.budget import WorkBudget

__all__ = ["record_step"]


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
        import numpy as np

        from rumap.release.step_apply import replace_columns, step_values

        masked, summary = record.release.mask(step_values(frame, step, source), step.parameters, step.columns,
                                              step.seed, budget)
        return replace_columns(frame, step.columns, np.asarray(masked, dtype=float)), summary

    return apply


# --- how a step runs on a file and its prediction: the streamed release and the report, imported when used ---

def _stream_gathered(step: Step, file: Any) -> Any:
    from rumap.release.gathered import gathered_stream

    return gathered_stream(step, file)


def _predict_map(*args: Any, **kwargs: Any) -> tuple:
    """A masking method of the maps' engine: its empirical map at the step's value."""
    from rumap.release.prediction import _numeric_prediction

    return _numeric_prediction(*args, **kwargs)


@assumes_valid
def record_step(name: str, record: MaskingMethod) -> StepMethod:
    """The step method of the masking method ``name`` (:data:`rumap.maps.methods.METHODS`), from its record.

    Parameters
    ----------
    name : str
        The method's name in :data:`rumap.maps.methods.METHODS` (the step's too).
    record : MaskingMethod
        Its record, with a ``release``.

    Returns
    -------
    StepMethod
    """
    release = record.release
    parameters = release.parameters if release.parameters is not None else _record_parameters(record)
    check = release.check if release.check is not None else _record_check(name, record)
    return StepMethod("columns", parameters, not record.deterministic, check, _record_applier(record), name,
                      release.description or record.description, precision=release.precision,
                      stream=release.stream or _stream_gathered, predictor=_predict_map,
                      file_work=release.file_work)
