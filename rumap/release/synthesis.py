"""Synthesis as a step of a release plan: every column of the data replaced by a generator's synthetic records.

The step ``synthesize`` fits a generator of :data:`rumap.synthesis.GENERATORS`
(parameter ``generator``, default ``cart``) on the data it is applied to and
releases one synthetic copy of as many records. Every column of the data is
synthesised, so that no original value is released: the step's ``columns``
(optional; those of the map it was applied from) are synthesised first, in
their order, and the data's other columns follow in theirs. Its parameters are the generator and each
generator's own parameter (``minbucket``, ``shrinkage``, ``epsilon``; null: the generator's
default; a parameter of another generator is refused).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rumap._validation import StrOptions, check_parameter
from rumap.budget import WorkBudget
from rumap.errors import InputError
from rumap.maps.method_records import Flag
from rumap.release.methods import Step, StepMethod
from rumap.synthesis.generators import GENERATORS

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["SYNTHESIS_STEP", "SYNTHESIS"]

#: The synthesis step's name.
SYNTHESIS = "synthesize"

def _check(parameters: dict, names: tuple[str, ...]) -> dict:
    generator = check_parameter("generator", parameters["generator"], StrOptions(tuple(GENERATORS)))
    out: dict[str, Any] = {"generator": generator}
    for other, record in GENERATORS.items():
        parameter = record.parameter
        value = parameters.get(parameter)
        if value is None:
            out[parameter] = None
        elif other != generator:
            raise InputError(f"parameter {parameter} is a parameter of generator {other}, not of {generator}")
        else:
            out[parameter] = check_parameter(parameter, value, GENERATORS[other].entry)
    return out


def _apply(frame: pd.DataFrame, step: Step, source: str, budget: WorkBudget) -> tuple[pd.DataFrame, dict]:
    from rumap.synthesis import synthesize

    generator = step.parameters["generator"]
    parameter = GENERATORS[generator].parameter
    order = list(step.names)
    order += [str(c) for c in frame.columns if str(c) not in order]
    budget.check_work(float(frame.shape[0]) * max(len(order), 1) * max(frame.shape[0].bit_length(), 1),
                      f"synthesis of {frame.shape[0]} records x {len(order)} columns")
    result = synthesize(frame.rename(columns=str), generator, order, step.parameters.get(parameter),
                        seed=step.seed, source=source)
    copy = result.copies[0][[str(c) for c in frame.columns]].set_axis(frame.columns, axis=1)
    return copy, {"generator": generator, **result.parameters, "rows": int(copy.shape[0]), "synthesised": order}


def _predict(before: pd.DataFrame, after: pd.DataFrame, step: Step, replicates: int, budget: WorkBudget,
             targets: Any = (), applied: bool = False) -> tuple[tuple, str]:
    """The release's measures beside the generator's map at the step's parameter, simulated ``replicates`` times.

    The measures are those that need neither a holdout nor keys: ``nndr`` and ``pmse``, and the common
    ``linkage`` and ``common`` (:mod:`rumap.maps.synthetic`), each named by its axis (``1 − nndr (R)``). The
    map's copies are fitted on half of the records (its holdout share), the release on all of them; with the
    map's seed, replicates, holdout share and one copy, a measure the map draws has the map's mean there.
    """
    from rumap.maps.synthetic import SYNTHETIC_RISKS, SYNTHETIC_UTILITIES, measure_synthetic, synthetic_maps
    from rumap.release.prediction import _check

    generator = step.parameters["generator"]
    record = GENERATORS[generator]
    value = record.check(step.parameters.get(record.parameter))
    names = list(step.names) or [str(c) for c in before.columns]
    original, release = before.rename(columns=str), after.rename(columns=str)
    runs = max(int(replicates), 2)
    checks = []
    for m in synthetic_maps(original, generator, [value], "nndr", "pmse", runs, columns=names, seed=step.seed or 0):
        for measure, records, axis, mean, se in ((m.knowledge, SYNTHETIC_RISKS, "R", m.risk[0], m.risk_se[0]),
                                                 (m.config["utility"], SYNTHETIC_UTILITIES, "U", m.utility[0],
                                                  m.utility_se[0])):
            checks.append(_check(f"{records[measure].short or measure} ({axis})",
                                 measure_synthetic(original, release, measure, names), float(mean), float(se), runs))
    return tuple(checks), (f"the map at {record.parameter} = {value:g}, {runs} synthetic releases, each fitted on "
                           "half of the records")


#: The ``synthesize`` step (:data:`rumap.release.registry.STEP_METHODS`, under :data:`SYNTHESIS`).
SYNTHESIS_STEP = StepMethod(
    "columns", {"generator": "cart", **dict.fromkeys(record.parameter for record in GENERATORS.values())}, True,
    _check, _apply, None,
    "synthetic data: every column drawn by a generator fitted on the data (cart, copula, mst)", predictor=_predict,
    every_column=True,
    flags=(Flag("--generator", f"the generator, {', '.join(GENERATORS)} (default cart)", str),
           *(Flag(f"--{record.parameter}", f"{name}'s {record.label} (default {record.default:g})",
                  int if record.integer else float) for name, record in GENERATORS.items())),
    not_streamed="synthesis fits its generator on every record of the file: release a file that fits in memory, or a "
                 "sample of it")
