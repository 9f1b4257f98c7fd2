"""Invariant PRAM as a step of a release plan, and its R-U map over the retention probability.

The step draws each key's released category by invariant PRAM
(:func:`rumap.masking.categorical.pram`) at retention probability ``theta``
from the step's seed; its summary holds the number of values changed per key.
Its map (:func:`rumap.maps.categorical.pram_map`) is simulated, and predicts the
release in the report.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rumap._validation import check_parameter
from rumap.maps.key_method import CategoricalMethod
from rumap.maps.method_records import Flag
from rumap.release.chunked import pram_stream
from rumap.release.methods import REQUIRED, StepMethod

if TYPE_CHECKING:
    import pandas as pd

    from rumap.budget import WorkBudget
    from rumap.release.methods import Step
    from rumap.result import RUMap

__all__ = ["PRAM_STEP"]


def _draw_pram(frame, keys, values, *, weight, variable, replicates, seed, source, budget, risk=None, utility=None,
               options=None) -> RUMap:
    from rumap.maps.categorical import pram_map

    return pram_map(frame, keys, values, replicates=replicates, seed=seed, source=source, budget=budget, risk=risk,
                    utility=utility, options=options, weight=weight)



def _predict_pram(*args: Any, **kwargs: Any) -> tuple:
    from rumap.release.prediction import _pram_prediction

    return _pram_prediction(*args, **kwargs)


def _check_pram(parameters: dict, names: tuple[str, ...]) -> dict:
    return {"theta": float(check_parameter("theta", parameters["theta"]))}


def _apply_pram(frame: pd.DataFrame, step: Step, source: str, budget: WorkBudget) -> tuple[pd.DataFrame, dict]:
    from rumap.masking.categorical import pram

    result = pram(frame, list(step.keys), step.parameters["theta"], seed=step.seed, source=source)
    changed = {k: int(v) for k, v in zip(result.keys, result.changed.sum(axis=0), strict=True)}
    return result.data, {"changed": changed}


#: The ``pram`` step (:data:`rumap.release.registry.STEP_METHODS`) and its map (``simulate --method pram``).
PRAM_STEP = StepMethod(
    "keys", {"theta": REQUIRED}, True, _check_pram, _apply_pram, None, "invariant PRAM", stream=pram_stream,
    predictor=_predict_pram, flags=(Flag("--theta", "probability that a value is kept, in [0, 1]"),),
    key_map=CategoricalMethod("theta", False, True, _draw_pram, "invariant PRAM, over the retention probability",
                              (0.2, 1.0, 5), "pram", function="rumap.maps.categorical.pram_map",
                              grid_argument="thetas", grid_help="retention probabilities"))
