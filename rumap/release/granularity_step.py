"""Eliminating granularity as a step of a release plan: its parameters, their check, its applier.

The step runs :func:`rumap.masking.granularity.eliminate_granularity` on the
step's keys; its summary holds counts only (moves, values suppressed,
categories before and after, the largest index of each table before and after).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import numpy as np

from rumap._validation import StepName, StrOptions, check_parameter
from rumap.budget import WorkBudget
from rumap.errors import InputError
from rumap.maps.key_method import CategoricalMethod
from rumap.maps.method_records import Flag
from rumap.release.methods import StepMethod

if TYPE_CHECKING:
    import pandas as pd

    from rumap.release.methods import Step
    from rumap.result import RUMap

__all__ = ["GRANULARITY_STEP"]

_TYPES = ("proportional", "odd", "dispersed")  # rumap.tables.granularity_types.TYPES (tests check)
_MOVES = ("both", "merge", "suppress")  # rumap.masking.granularity.MOVES (tests check)


def _text_map(name: str, value: Any, names: tuple[str, ...], what: str, numbers: bool = False) -> dict:
    """``{key: {category: parent or number}}``, each key one of the step's."""
    if not isinstance(value, Mapping):
        raise InputError(f"parameter {name} must map a key variable to {what}")
    out = {}
    for variable, mapping in value.items():
        check_parameter(name, variable, StepName(names, "keys"))
        if not isinstance(mapping, Mapping) or not mapping:
            raise InputError(f"parameter {name} must map a key variable to {what}, got {mapping!r} for {variable}")
        for category, entry in mapping.items():
            good = (not isinstance(entry, bool) and isinstance(entry, (int, float)) and np.isfinite(entry)
                    and entry >= 0) if numbers else (entry is None or isinstance(entry, str))
            if not isinstance(category, str) or not good:
                raise InputError(f"parameter {name} must map a key variable to {what}, got {category!r}: "
                                 f"{entry!r} for {variable}")
        out[variable] = {c: (float(e) if numbers else e) for c, e in mapping.items()}
    return out


def _check(parameters: dict, names: tuple[str, ...]) -> dict:
    types = parameters["types"]
    if isinstance(types, str) or not isinstance(types, (list, tuple)) or not types:
        raise InputError(f"parameter types must be a list of {', '.join(_TYPES)}, got {types!r}")
    for name in types:
        check_parameter("types", name, StrOptions(_TYPES))
    ordered = parameters["ordered"]
    if ordered is not None:
        if isinstance(ordered, str) or not isinstance(ordered, (list, tuple)):
            raise InputError(f"parameter ordered must be a list of key variables or null, got {ordered!r}")
        ordered = [check_parameter("ordered", v, StepName(names, "keys")) for v in ordered]
    if len(names) < 2:
        raise InputError(f"granularity tables cross at least 2 keys, the step has {len(names)}")
    return {"level": float(check_parameter("level", parameters["level"], "granularity_threshold")),
            "types": [t for t in _TYPES if t in types], "moves": check_parameter("moves", parameters["moves"], StrOptions(_MOVES)),
            "hierarchy": _text_map("hierarchy", parameters["hierarchy"], names, "{category: parent}"),
            "ordered": ordered,
            "population": _text_map("population", parameters["population"], names, "{category: frequency}",
                                    numbers=True),
            "dispersed_frequency": int(check_parameter("dispersed_frequency", parameters["dispersed_frequency"])),
            "odd_expected": float(check_parameter("odd_expected", parameters["odd_expected"]))}


def _apply(frame: pd.DataFrame, step: Step, source: str, budget: WorkBudget) -> tuple[pd.DataFrame, dict]:
    from rumap.masking.granularity import eliminate_granularity

    p = step.parameters
    result = eliminate_granularity(frame, list(step.keys), level=p["level"], types=p["types"], moves=p["moves"],
                                   hierarchy=p["hierarchy"] or None, ordered=p["ordered"],
                                   population=p["population"] or None, dispersed_frequency=p["dispersed_frequency"],
                                   odd_expected=p["odd_expected"], source=source, budget=budget)
    merges = sum(1 for m in result.moves if m["move"] == "merge")
    return result.data, {"moves": len(result.moves), "merges": merges, "suppressions": len(result.moves) - merges,
                         "suppressed": int(sum(result.suppressed.values())), "per_variable": dict(result.suppressed),
                         "categories": result.categories, "index_before": result.index_before,
                         "index_after": result.index_after, "reached": result.reached}


def _stream_keys(step: Step, file: Any) -> Any:
    from rumap.release.gathered import keys_stream

    return keys_stream(step, file)


def _draw_granularity(frame, keys, values, *, weight, variable, replicates, seed, source, budget, risk=None,
                      utility=None, options=None) -> RUMap:
    from rumap.maps.granularity import granularity_map

    return granularity_map(frame, keys, values, weight=weight, source=source, budget=budget, risk=risk,
                           utility=utility, options=options)


#: The ``granularity`` step (:data:`rumap.release.registry.STEP_METHODS`).
GRANULARITY_STEP = StepMethod(
    "keys", {"level": 50.0, "types": list(_TYPES), "moves": "both", "hierarchy": {}, "ordered": None,
             "population": {}, "dispersed_frequency": 5, "odd_expected": 5.0},
    False, _check, _apply, None,
    "granularity eliminated after Mas: categories merged or key values suppressed until no hyper-row of the tables of "
    "2 and 3 keys is flagged",
    stream=_stream_keys,
    flags=(Flag("--level", "the index of granularity (percent) no hyper-row may reach"),),
    key_map=CategoricalMethod("level", False, False, _draw_granularity,
                              "granularity eliminated after Mas, over the critical level", (20.0, 100.0, 5),
                              "granularity elimination", function="rumap.maps.granularity.granularity_map",
                              grid_argument="levels", grid_help="critical levels of granularity (percent)"),
    no_prediction="the map of eliminating granularity is exact: at this level its R is the released file's share of "
                  "records in unit cells")
