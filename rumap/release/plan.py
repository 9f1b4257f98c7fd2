"""A release plan: the ordered steps that turn a data set into the protected one, and its JSON file.

A step is a masking method of :data:`rumap.release.registry.STEP_METHODS`, its
parameters, the numeric ``columns`` or categorical ``keys`` it protects, and a
seed, and, for a step applied from a map, its ``origin``: the map it came from,
the fingerprint of the data the map was drawn on and the decision that set its
value (:data:`ORIGIN_KEYS`). The plan file is an object whose ``steps`` list
holds one object per step with those keys; the ``steps`` of ``python -m rumap release --json`` are
such a list, so one release's output is a plan for the next. A step's
parameters are stored with every default filled in, so the file says all that
the release used, and reading a plan and writing it again gives the same bytes.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from rumap._validation import PARAMETERS, InstanceOf, validate_params
from rumap._validation.fields import parse_json
from rumap.errors import InputError
from rumap.release.methods import ORIGIN_KEYS, STEP_KEYS, Step

__all__ = ["PLAN_FORMAT", "ORIGIN_KEYS", "STEP_KEYS", "Step", "ReleasePlan", "read_plan"]

#: The ``format`` of a plan file.
PLAN_FORMAT = "rumap-release-plan/1"

def _check_step_count(count: int) -> None:
    """Refuse a plan of more steps than its entry ``plan_steps`` allows, before any step is read or applied."""
    most = PARAMETERS["plan_steps"].high
    if count > most:
        raise InputError(f"steps: a release plan holds at most {most:g} steps, got {count}")


@dataclass(frozen=True)
class ReleasePlan:
    """An ordered list of steps; applied to a data set it gives the protected data set.

    Parameters
    ----------
    steps : sequence of Step
        At least one.

    Examples
    --------
    >>> plan = ReleasePlan([Step("microaggregation", {"k": 3}, columns=["income"])])
    >>> read_plan(plan.to_json()) == plan
    True
    """

    steps: tuple[Step, ...]

    def __post_init__(self) -> None:
        if isinstance(self.steps, (str, bytes)) or not isinstance(self.steps, Sequence):
            raise InputError(f"steps must be a list of steps, got {type(self.steps).__name__}")
        if not self.steps:
            raise InputError("a release plan needs at least one step")
        _check_step_count(len(self.steps))
        for i, step in enumerate(self.steps):
            if not isinstance(step, Step):
                raise InputError(f"step {i + 1} must be a Step, got {type(step).__name__}")
        object.__setattr__(self, "steps", tuple(self.steps))

    def to_dict(self) -> dict[str, Any]:
        """The plan file's object: ``format``, ``rumap_version`` and ``steps``."""
        from rumap import __version__

        return {"format": PLAN_FORMAT, "rumap_version": __version__, "steps": [s.to_dict() for s in self.steps]}

    def to_json(self) -> str:
        """The plan file's text; :func:`read_plan` reads it back to the same plan, and writing that gives this text."""
        return json.dumps(self.to_dict(), indent=2, allow_nan=False) + "\n"

    def to_frame(self):
        """One row per step: method, parameters, columns or keys, seed."""
        import pandas as pd

        return pd.DataFrame([{"step": i + 1, "method": s.method, "parameters": json.dumps(s.parameters),
                              "columns": ",".join(s.names), "seed": s.seed} for i, s in enumerate(self.steps)])


@validate_params({"text": InstanceOf((str, bytes), "text or bytes")},
                 example=lambda: {"text": '{"steps": [{"method": "pram", "parameters": {"theta": 0.8}, '
                                          '"keys": ["sex"], "seed": 1}]}'})
def read_plan(text: str | bytes) -> ReleasePlan:
    """Read a plan file: an object whose ``steps`` list holds the steps.

    The JSON of ``python -m rumap release --json`` is one: its other keys are
    left aside. A ``format`` key, when present, must be :data:`PLAN_FORMAT`.

    Parameters
    ----------
    text : str or bytes
        The file's content.

    Returns
    -------
    ReleasePlan

    Raises
    ------
    InputError
        Not JSON, no ``steps`` list, or a bad step (named by its number).

    Examples
    --------
    >>> plan = read_plan('{"steps": [{"method": "noise", "parameters": {"lambda2_frac": 0.1}, "columns": ["a"]}]}')
    >>> plan.steps[0].seed, plan.steps[0].parameters["lambda2_frac"]
    (0, 0.1)
    """
    if isinstance(text, bytes):
        try:
            text = text.decode("utf-8-sig")
        except UnicodeDecodeError:
            raise InputError("the plan is not UTF-8 text") from None
    data = parse_json(text, "the plan")
    if not isinstance(data, dict) or not isinstance(data.get("steps"), list):
        raise InputError("the plan must be an object with a \"steps\" list")
    if "format" in data and data["format"] != PLAN_FORMAT:
        raise InputError(f"not a release plan (expected \"format\": \"{PLAN_FORMAT}\", got {data['format']!r})")
    _check_step_count(len(data["steps"]))
    return ReleasePlan(tuple(Step.from_dict(entry, f"step {i + 1}", i) for i, entry in enumerate(data["steps"])))
