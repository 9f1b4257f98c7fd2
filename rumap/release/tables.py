"""Tables as steps of a release plan: the table built from microdata, its primary cells by a rule, then secondary
suppression or controlled rounding.

A ``table`` step turns the data into a :class:`rumap.release.table_state.TableState` (tau-Argus's way: the
table computed from the microdata, with the contributions of each cell); the
steps after it work on the table. The released file is the table with its
totals: a first column of row labels named after the row variable, a column per
column label and ``Total``; a suppressed cell is missing.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any

from rumap._validation import StrOptions, check_parameter
from rumap.errors import InputError
from rumap.release.methods import REQUIRED, StepMethod

if TYPE_CHECKING:
    import pandas as pd

    from rumap.budget import WorkBudget
    from rumap.release.methods import Step
    from rumap.release.table_state import TableState

__all__ = ["TABLE_STEP", "PRIMARY_STEP", "SECONDARY_SUPPRESSION_STEP",
           "CONTROLLED_ROUNDING_STEP"]


def _text_or_none(name: str, value: Any) -> str | None:
    if value is not None and (not isinstance(value, str) or not value.strip()):
        raise InputError(f"parameter {name} must be a column name or null, got {value!r}")
    return value


def _check_table(parameters: dict, names: tuple[str, ...]) -> dict:
    if len(names) > 2:
        raise InputError(f"a table spans one or two variables (rows, then columns), got {len(names)}")
    return {"response": _text_or_none("response", parameters["response"]),
            "shadow": _text_or_none("shadow", parameters["shadow"])}


def _apply_table(frame: pd.DataFrame, step: Step, source: str, budget: WorkBudget) -> tuple[TableState, dict]:
    from rumap.release.table_state import TableState
    from rumap.tables.microdata import table_from_microdata

    p = step.parameters
    table = table_from_microdata(frame, step.keys[0], step.keys[1] if len(step.keys) > 1 else None,
                                 response=p["response"], shadow=p["shadow"], budget=budget)
    state = TableState(table, step.keys[0])
    published = table.published()
    return state, {"kind": table.kind, "rows": len(published.row_labels), "columns": len(published.column_labels)}


#: The parameters of every rule (:data:`rumap.tables.rules.RULES`), each None unless the rule's: named here so that
#: the record loads without the rules' module (``tests/release/test_release_tables.py`` checks they agree).
RULE_PARAMETERS = ("k", "n", "p", "q", "threshold")


def _check_primary(parameters: dict, names: tuple[str, ...]) -> dict:
    from rumap.tables.rules import RULES

    rule = check_parameter("rule", parameters["rule"], StrOptions(list(RULES)))
    own = RULES[rule].parameters
    out: dict[str, Any] = {"rule": rule}
    for name in RULE_PARAMETERS:
        value = parameters[name]
        if value is not None and name not in own:
            raise InputError(f"parameter {name} is not one of rule {rule}'s ({', '.join(own) or 'none'})")
        out[name] = None if value is None else check_parameter(name, value, own[name])
    return out


def _apply_primary(state: TableState, step: Step, source: str, budget: WorkBudget) -> tuple[TableState, dict]:
    given = {k: v for k, v in step.parameters.items() if k != "rule" and v is not None}
    primary = tuple(state.table.primary(step.parameters["rule"], **given))
    return replace(state, primary=primary), {"primary": len(primary)}


def _needs_primaries(state: TableState, method: str) -> tuple[tuple[str, str], ...]:
    if state.primary is None:
        raise InputError(f"{method} needs the primary cells: a primary step first")
    if state.protection is not None:
        raise InputError("the table is protected already: one secondary_suppression or controlled_rounding step")
    return state.primary


def _check_suppression(parameters: dict, names: tuple[str, ...]) -> dict:
    from rumap.tables.secondary import COSTS

    protection = float(check_parameter("protection", parameters["protection"]))
    time_limit = float(check_parameter("time_limit", parameters["time_limit"]))
    return {"protection": protection, "cost": check_parameter("cost", parameters["cost"], StrOptions(list(COSTS))),
            "time_limit": time_limit}


def _apply_suppression(state: TableState, step: Step, source: str, budget: WorkBudget) -> tuple[TableState, dict]:
    from rumap.tables.secondary import suppress_secondary

    primary = _needs_primaries(state, "secondary_suppression")
    p = step.parameters
    result = suppress_secondary(state.table.published(), list(primary), protection=p["protection"], cost=p["cost"],
                                time_limit=p["time_limit"], budget=budget, frequencies=state.table.frequencies())
    return replace(state, protection=result), {"suppressed": result.suppressed_count,
                                               "secondary": len(result.secondary), "cost": result.cost,
                                               "optimal": result.optimal, "protected": result.all_protected}


def _check_rounding(parameters: dict, names: tuple[str, ...]) -> dict:
    time_limit = float(check_parameter("time_limit", parameters["time_limit"]))
    return {"base": float(check_parameter("base", parameters["base"], "rounding_base")), "time_limit": time_limit}


def _apply_rounding(state: TableState, step: Step, source: str, budget: WorkBudget) -> tuple[TableState, dict]:
    if state.protection is not None:
        raise InputError("the table is protected already: one secondary_suppression or controlled_rounding step")
    from rumap.tables.controlled_rounding import controlled_round

    result = controlled_round(state.table.published(), step.parameters["base"], time_limit=step.parameters["time_limit"],
                              budget=budget)
    return replace(state, protection=result), {"base": result.base, "optimal": result.optimal,
                                               "max_absolute_deviation": result.max_absolute_deviation}


#: Why the table steps are not applied chunk by chunk: they tabulate the whole file.
_NOT_STREAMED = ("a table's steps tabulate and protect the whole file's table: release the microdata with "
                 "--chunk-size, then the table steps in memory")

#: Why the report predicts no table step.
_NO_PREDICTION = ("a table's maps run over a rule's parameter, the protection level or the rounding base; "
                  "the report gives the protected table's audit")

_WHOLE_TABLE = {"not_streamed": _NOT_STREAMED, "no_prediction": _NO_PREDICTION}

#: The ``table`` step (:data:`rumap.release.registry.STEP_METHODS`).
TABLE_STEP = StepMethod("keys", {"response": None, "shadow": None}, False, _check_table, _apply_table, None,
                        "a table built from the microdata over one or two spanning variables (keys)",
                        stage="tabulate", **_WHOLE_TABLE)

#: The ``primary`` step (:data:`rumap.release.registry.STEP_METHODS`).
PRIMARY_STEP = StepMethod("table", {"rule": REQUIRED, **dict.fromkeys(RULE_PARAMETERS)}, False, _check_primary,
                          _apply_primary, None, "the primary cells of the table by a sensitivity rule", stage="table",
                          **_WHOLE_TABLE)

#: The ``secondary_suppression`` step (:data:`rumap.release.registry.STEP_METHODS`).
SECONDARY_SUPPRESSION_STEP = StepMethod("table", {"protection": 10.0, "cost": "value", "time_limit": 30.0}, False,
                                        _check_suppression, _apply_suppression, None,
                                        "secondary cell suppression of least cost (HiGHS), audited", stage="table",
                                        **_WHOLE_TABLE)

#: The ``controlled_rounding`` step (:data:`rumap.release.registry.STEP_METHODS`).
CONTROLLED_ROUNDING_STEP = StepMethod("table", {"base": REQUIRED, "time_limit": 30.0}, False, _check_rounding,
                                      _apply_rounding, None, "additive controlled rounding to a base", stage="table",
                                      **_WHOLE_TABLE)

