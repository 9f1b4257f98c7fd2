"""A masking method as a step of a release plan: its record, and how a plan file names a parameter.

A record's ``check`` checks each parameter with :func:`rumap._validation.check_parameter`, by the
constraint a public function's would use: its message names the parameter (``parameter k must be ...``);
:func:`plan_key` gives it the plan file's key, the command line its flag.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from rumap._validation import assumes_valid
from rumap._validation.steps import REQUIRED
from rumap.budget import WorkBudget

if TYPE_CHECKING:
    import pandas as pd

    from rumap.release.plan import Step

__all__ = ["StepMethod", "REQUIRED", "STAGES", "plan_key"]

#: What a step takes and gives: microdata to microdata, microdata to a table, a table to a table.
STAGES = ("microdata", "tabulate", "table")

@dataclass(frozen=True)
class StepMethod:
    """A masking method as a step of a release plan.

    Parameters
    ----------
    target : {"columns", "keys", "table"}
        Whether the step protects numeric columns, categorical keys (or spans
        a table over them), or the table a plan has built (neither).
    parameters : mapping
        Its parameters and their defaults (:data:`REQUIRED` for one the step
        must give); the step's ``parameters`` get every default filled in.
    random : bool
        Whether it draws random numbers (then the step's seed matters).
    check : callable
        ``check(parameters, names) -> parameters``: the parameters checked and
        converted (``names``: the step's columns or keys).
    apply : callable
        ``apply(frame, step, source, budget) -> (frame, summary)``: the
        protected data and what the step did, counts only.
    map_method : str or None
        The method of the empirical R-U map whose prediction the report sets
        beside the step (:data:`rumap.maps.methods.METHODS`), if any.
    description : str
    stage : {"microdata", "tabulate", "table"}
        What the step takes and gives (:data:`STAGES`): microdata to microdata,
        microdata to a table built from it, or a table to a protected table.
    precision : str
        The parameter that rounds the released values to a number of decimals
        ("" for none).
    stream : callable, optional
        How the step runs on a file chunk by chunk (:func:`rumap.release.stream.release_in_chunks`):
        ``stream(step, file) -> stream``, where ``file`` (:class:`rumap.release.chunked.FilePass`) runs
        the passes it needs first (its counts, its whole columns) and the stream masks each chunk
        (``stream(frame, source, start)``, ``restart()``, ``summary()``, ``types()``). None: the step is
        not applied chunk by chunk.
    not_streamed : str
        Why not, when ``stream`` is None.
    predictor : callable, optional
        ``predictor(before, after, step, replicates, budget, targets, applied=...) -> (checks, how)``: the
        step's map simulated at its parameter, beside the release (:func:`rumap.release.report.predict_step`).
    no_prediction : str
        Why the report has no prediction, when ``predictor`` is None.
    anonymity : str
        The parameter that is the k of k-anonymity the step aims at ("" for none): the report measures the
        released file's k-anonymity at it too.
    file_work : callable, optional
        ``file_work(parameters, n, p, budget)``: refuses, before any pass over a file of ``n`` records, a step
        whose work on its ``p`` columns gathered exceeds ``budget`` (raises :class:`InputError`).
    text_flags : tuple of str
        The flags of ``python -m rumap release`` that give its parameters as text (``--merge``), refused with
        another ``--method``.
    key_map : rumap.maps.categorical.CategoricalMethod, optional
        The map of categorical keys whose points are this step at a value of the map's parameter
        (:func:`rumap.release.from_map.step_from_key_map`).
    """

    target: str
    parameters: Mapping[str, Any]
    random: bool
    check: Callable[[dict, tuple[str, ...]], dict]
    apply: Callable[[pd.DataFrame, Step, str, WorkBudget], tuple[pd.DataFrame, dict]]
    map_method: str | None
    description: str
    stage: str = field(default="microdata")
    precision: str = ""
    stream: Callable[[Step, Any], Any] | None = None
    not_streamed: str = "it needs the whole file"
    predictor: Callable[..., tuple] | None = None
    no_prediction: str = "no map"
    anonymity: str = ""
    file_work: Callable[[Mapping[str, Any], int, int, WorkBudget], None] | None = None
    text_flags: tuple[str, ...] = ()
    key_map: Any = None


@assumes_valid
def plan_key(message: str, index: int) -> str:
    """A step's message with the parameter it names given by its key in the plan file (``steps[0].parameters.k``).

    Parameters
    ----------
    message : str
        A check's message (``parameter k must be ...``).
    index : int
        The step's place in the plan's ``steps`` list (0-based, as the key counts).

    Returns
    -------
    str

    Examples
    --------
    >>> plan_key("parameter k must be an integer >= 1, got 0", 1)
    'steps[1].parameters.k must be an integer >= 1, got 0'
    """
    prefix = "parameter "
    return f"steps[{index}].parameters.{message[len(prefix):]}" if message.startswith(prefix) else message
