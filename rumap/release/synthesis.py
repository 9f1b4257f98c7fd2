"""Synthesis as a step of a release plan: every column of the data replaced by a generator's synthetic records.

The step ``synthesize`` fits a generator of :data:`rumap.synthesis.GENERATORS`
(parameter ``generator``, default ``cart``) on the data it is applied to and
releases one synthetic copy of as many records. Its ``columns`` are every
column of the data, in the order of synthesis (a step changes no column it does
not name, and synthesis replaces them all, so that no original record is
released). Its parameters are the generator and each
generator's own parameter (``minbucket``, ``shrinkage``; null: the generator's
default; a parameter of another generator is refused).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rumap._validation import StrOptions, check_parameter
from rumap.budget import WorkBudget
from rumap.errors import InputError
from rumap.release.methods import StepMethod

if TYPE_CHECKING:
    import pandas as pd

    from rumap.release.methods import Step

__all__ = ["SYNTHESIS_STEP_METHODS"]

#: The generators' names and parameters, as :data:`rumap.synthesis.GENERATORS` holds them (imported when a step
#: is checked or applied; ``tests/release/test_synthesis_step.py`` checks they agree).
GENERATOR_PARAMETERS = {"cart": "minbucket", "copula": "shrinkage"}


def _check(parameters: dict, names: tuple[str, ...]) -> dict:
    from rumap.synthesis import GENERATORS

    generator = check_parameter("generator", parameters["generator"], StrOptions(tuple(GENERATORS)))
    out: dict[str, Any] = {"generator": generator}
    for other, parameter in GENERATOR_PARAMETERS.items():
        value = parameters.get(parameter)
        if value is None:
            out[parameter] = None
        elif other != generator:
            raise InputError(f"parameter {parameter} is a parameter of generator {other}, not of {generator}")
        else:
            out[parameter] = check_parameter(parameter, value)
    return out


def _apply(frame: pd.DataFrame, step: Step, source: str, budget: WorkBudget) -> tuple[pd.DataFrame, dict]:
    from rumap.synthesis import GENERATORS, synthesize

    generator = step.parameters["generator"]
    parameter = GENERATORS[generator].parameter
    order = list(step.names)
    left = [str(c) for c in frame.columns if str(c) not in order]
    if left:
        raise InputError(f"synthesize replaces every column: name them all in its columns, in the order of "
                         f"synthesis ({len(left)} not named, the first {left[0]!r})")
    budget.check_work(float(frame.shape[0]) * max(len(order), 1) * max(frame.shape[0].bit_length(), 1),
                      f"synthesis of {frame.shape[0]} records x {len(order)} columns")
    result = synthesize(frame.rename(columns=str), generator, order, step.parameters.get(parameter),
                        seed=step.seed, source=source)
    copy = result.copies[0][[str(c) for c in frame.columns]].set_axis(frame.columns, axis=1)
    return copy, {"generator": generator, **result.parameters, "rows": int(copy.shape[0]), "synthesised": order}


#: The synthesis step by name.
SYNTHESIS_STEP_METHODS: dict[str, StepMethod] = {
    "synthesize": StepMethod("columns", {"generator": "cart", **dict.fromkeys(GENERATOR_PARAMETERS.values())},
                             True, _check, _apply, None,
                             "synthetic data: every column drawn by a generator fitted on the data (cart, copula)",
                             not_streamed="synthesis fits its generator on every record of the file: release a file "
                                          "that fits in memory, or a sample of it",
                             no_prediction="a synthetic file's measures are in its report (risk synthetic): its map "
                                           "is simulate --method cart or copula"),
}
