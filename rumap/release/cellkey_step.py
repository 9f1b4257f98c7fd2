"""The cell key method as a step of a release plan: microdata to a published frequency table.

The step's keys are the table's dimensions (flat; 1 to 5); its parameters
the perturbation table's D (``max_perturbation``), V (``variance``) and
``js``, and the column of record keys (``record_key``; without it the keys
are drawn from the step's seed). The released file is the published table:
one row per cell, the codes (``Total`` for a total) and the value::

    {"method": "cell_key", "keys": ["region", "sex"], "seed": 1,
     "parameters": {"max_perturbation": 3, "variance": 1.08, "js": 1}}
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rumap._validation import check_parameter
from rumap.errors import InputError
from rumap.release.methods import REQUIRED, StepMethod

if TYPE_CHECKING:
    import pandas as pd

    from rumap.budget import WorkBudget
    from rumap.release.methods import Step

__all__ = ["CELL_KEY_STEP"]


def _check_cell_key(parameters: dict, names: tuple[str, ...]) -> dict:
    record_key = parameters["record_key"]
    if record_key is not None and (not isinstance(record_key, str) or not record_key.strip()):
        raise InputError(f"parameter record_key must be a column name or null, got {record_key!r}")
    return {"max_perturbation": int(check_parameter("max_perturbation", parameters["max_perturbation"],
                                            "ckm_max_perturbation")),
            "variance": float(check_parameter("variance", parameters["variance"], "lambda2")),
            "js": int(check_parameter("js", parameters["js"], "ckm_js")), "record_key": record_key}


def _apply_cell_key(frame: pd.DataFrame, step: Step, source: str, budget: WorkBudget) -> tuple[pd.DataFrame, dict]:
    from rumap.tables.cellkey import cellkey_table
    from rumap.tables.ptable import create_ptable

    p = step.parameters
    ptable = create_ptable(p["max_perturbation"], p["variance"], p["js"])
    if p["record_key"] is not None and p["record_key"] not in frame.columns:
        raise InputError(f"parameter record_key: no column {p['record_key']!r} in {source}")
    result = cellkey_table(frame, list(step.keys), ptable, record_key=p["record_key"], seed=step.seed)
    summary: dict[str, Any] = {"cells": result.table.size, "additivity": result.additivity()}
    return result.to_frame(), summary


#: The ``cell_key`` step (:data:`rumap.release.registry.STEP_METHODS`).
CELL_KEY_STEP = StepMethod(
    "keys", {"max_perturbation": REQUIRED, "variance": REQUIRED, "js": 0, "record_key": None}, True, _check_cell_key,
    _apply_cell_key, None, "the cell key method: a frequency table with consistent random perturbation",
    stage="tabulate",
    not_streamed="the cell key method tabulates the whole file: run table ckm (its scale engine reads a file of any "
                 "size)",
    no_prediction="the cell key method's map runs over the perturbation's variance: simulate --method ckm")
