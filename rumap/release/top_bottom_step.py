"""Top and bottom coding as a step of a release plan: the values of a numeric key above or below a bound, coded.

The step codes ``variable``'s values above ``above`` and below ``below``
(:func:`rumap.masking.categorical.top_bottom_code`); its summary holds how many
were coded each way and the key's number of categories before and after. It
has no map.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import partial
from typing import TYPE_CHECKING, Any

from rumap._validation import StepName, check_parameter
from rumap._validation.text import variable_number
from rumap.errors import InputError
from rumap.maps.method_records import Flag
from rumap.release.chunked import coding_stream
from rumap.release.methods import REQUIRED, StepMethod

if TYPE_CHECKING:
    import pandas as pd

    from rumap.budget import WorkBudget
    from rumap.release.methods import Step

__all__ = ["TOP_BOTTOM_STEP"]


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
    import pandas as pd

    from rumap.masking.categorical import top_bottom_code
    from rumap.release.step_apply import category_counts

    p = step.parameters
    out = top_bottom_code(frame, p["variable"], above=p["above"], below=p["below"], source=source)
    values = pd.to_numeric(frame[p["variable"]], errors="coerce")
    coded = {"above": int((values > p["above"]).sum()) if p["above"] is not None else 0,
             "below": int((values < p["below"]).sum()) if p["below"] is not None else 0}
    return out, {"coded": coded, "categories": category_counts(frame, out, [p["variable"]])}


def _read_flags(given: Mapping[str, Any]) -> dict:
    """``--top VAR:LIMIT`` and ``--bottom VAR:LIMIT`` as the step's variable and bounds (one variable)."""
    limits = [variable_number(given[flag], flag) + (side,) for flag, side in (("--top", "above"), ("--bottom", "below"))
              if flag in given]
    out: dict[str, Any] = {}
    if limits:
        if len({variable for variable, _, _ in limits}) > 1:
            raise InputError("--top and --bottom must name the same variable (one step codes one variable)")
        out["variable"] = limits[0][0]
        out.update({side: value for _, value, side in limits})
    return out


#: The ``top_bottom`` step (:data:`rumap.release.registry.STEP_METHODS`).
TOP_BOTTOM_STEP = StepMethod(
    "keys", {"variable": REQUIRED, "above": None, "below": None}, False, _check_top_bottom, _apply_top_bottom, None,
    "top and bottom coding", stream=partial(coding_stream, coded=True), text_flags=(Flag("--top", "values of VAR above LIMIT become '>LIMIT'", str, "VAR:LIMIT"),
                                                              Flag("--bottom", "values of VAR below LIMIT become '<LIMIT'", str,
                                                                   "VAR:LIMIT")),
    read_flags=_read_flags,
    no_prediction="top and bottom coding has no map")
