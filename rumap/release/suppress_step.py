"""Local suppression to k-anonymity as a step of a release plan, and its R-U map over k.

The step suppresses key values until every combination of the keys is shared
by at least ``k`` records (:func:`rumap.masking.categorical.local_suppression`,
or the optimal :func:`rumap.masking.optimal_suppression.optimal_suppression`);
``importance`` orders the keys to keep. Its summary holds the values
suppressed (in all and by key) and whether k was reached. Its map
(:func:`rumap.maps.categorical.suppression_map`) is exact.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import numpy as np

from rumap._validation import JsonBoolean, StepName, check_parameter
from rumap._validation.text import split_names, variable_number
from rumap.errors import InputError
from rumap.maps.key_method import CategoricalMethod
from rumap.maps.method_records import Flag
from rumap.release.methods import REQUIRED, StepMethod

if TYPE_CHECKING:
    import pandas as pd

    from rumap.budget import WorkBudget
    from rumap.release.methods import Step
    from rumap.result import RUMap

__all__ = ["SUPPRESS_STEP"]


def _draw_suppression(frame, keys, values, *, weight, variable, replicates, seed, source, budget, risk=None,
                      utility=None, options=None) -> RUMap:
    from rumap.maps.categorical import suppression_map

    return suppression_map(frame, keys, values, weight=weight, source=source, budget=budget, risk=risk,
                           utility=utility, options=options)



def _stream_suppress(step: Step, file: Any) -> Any:
    from rumap.release.gathered import suppression_stream

    return suppression_stream(step, file)


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
        from rumap.masking.categorical import local_suppression

        result = local_suppression(frame, list(step.keys), k=p["k"], importance=importance, source=source,
                                   budget=budget)
    counts = result.to_dict()
    return result.data, {"suppressed": counts["suppressed"], "per_variable": counts["per_variable"],
                         "k_reached": bool(result.feasible), "reason": result.reason}


def _read_flags(given: Mapping[str, Any]) -> dict:
    """``--importance VAR:VALUE,...`` as the step's importance of the keys."""
    if "--importance" not in given:
        return {}
    importance = {}
    for part in split_names(given["--importance"], "--importance"):
        variable, value = variable_number(part, "--importance")
        importance[variable] = value
    return {"importance": importance}


#: The ``suppress`` step (:data:`rumap.release.registry.STEP_METHODS`) and its map (``simulate --method suppress``).
SUPPRESS_STEP = StepMethod(
    "keys", {"k": REQUIRED, "optimal": False, "importance": {}}, False, _check_suppress, _apply_suppress, None,
    "local suppression to k-anonymity (heuristic or optimal)", stream=_stream_suppress, anonymity="k",
    flags=(Flag("--k", "reach k-anonymity (f_k >= K)", int),
           Flag("--optimal", "the least costly suppression for --k, by mixed integer programming (HiGHS)", None)),
    text_flags=(Flag("--importance", "importance of the keys (least important suppressed first; with --optimal, the "
                                     "cost of suppressing one value)", str, "VAR:VALUE,..."),),
    read_flags=_read_flags,
    key_map=CategoricalMethod("k", True, False, _draw_suppression, "local suppression to k-anonymity, over k",
                              (1, 5, 5), "local suppression", function="rumap.maps.categorical.suppression_map",
                              grid_argument="ks", grid_help="the k of k-anonymity"),
    no_prediction="the map of local suppression is exact: its R at this k is the released file's global risk")
