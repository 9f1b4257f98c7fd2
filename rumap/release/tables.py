"""Tables as steps of a release plan: the table built from microdata, its primary cells by a rule, then secondary
suppression or controlled rounding.

A ``table`` step turns the data into a :class:`TableState` (tau-Argus's way: the
table computed from the microdata, with the contributions of each cell); the
steps after it work on the table. The released file is the table with its
totals: a first column of row labels named after the row variable, a column per
column label and ``Total``; a suppressed cell is missing.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from rumap._validation import StrOptions, check_parameter
from rumap.budget import WorkBudget
from rumap.errors import InputError
from rumap.release.methods import REQUIRED, StepMethod
from rumap.tables.controlled_rounding import ControlledRounding, controlled_round
from rumap.tables.microdata import MicrodataTable, table_from_microdata
from rumap.tables.published import TOTAL_LABEL
from rumap.tables.rules import RULES
from rumap.tables.secondary import COSTS, SecondarySuppression, suppress_secondary

if TYPE_CHECKING:
    from rumap.release.methods import Step

__all__ = ["TableState", "TABLE_STEP", "PRIMARY_STEP", "SECONDARY_SUPPRESSION_STEP",
           "CONTROLLED_ROUNDING_STEP"]


@dataclass(frozen=True)
class TableState:
    """A table built by a plan, and what later steps did to it.

    Parameters
    ----------
    table : MicrodataTable
        The table built from the microdata.
    row_variable : str
        The spanning variable of the rows (the released file's first column).
    primary : tuple of (str, str), optional
        The primary cells of a rule (None before a ``primary`` step).
    protection : SecondarySuppression or ControlledRounding, optional
        The protected table (None before it is protected).
    """

    table: MicrodataTable
    row_variable: str
    primary: tuple[tuple[str, str], ...] | None = None
    protection: SecondarySuppression | ControlledRounding | None = None

    def to_frame(self) -> pd.DataFrame:
        """The released table: row labels, then each column with the totals; a suppressed cell is missing."""
        published = self.table.published()
        values = np.array(published.values, dtype=float)
        shape = values.shape
        if isinstance(self.protection, ControlledRounding):
            values = np.asarray(self.protection.rounded, dtype=float).reshape(shape)
        elif isinstance(self.protection, SecondarySuppression):
            values = np.where(np.array(self.protection.status) == "published",
                              self.protection.values, np.nan).reshape(shape)
        elif self.primary:  # primaries marked, not yet protected: they are not published
            rows = {label: i for i, label in enumerate([*published.row_labels, TOTAL_LABEL])}
            columns = {label: j for j, label in enumerate([*published.column_labels, TOTAL_LABEL])}
            for row, column in self.primary:
                values[rows[row], columns[column]] = np.nan
        frame = pd.DataFrame(values, columns=[str(c) for c in (*published.column_labels, TOTAL_LABEL)])
        frame.insert(0, self.row_variable if self.row_variable not in frame.columns else f"{self.row_variable} ",
                     [*published.row_labels, TOTAL_LABEL])
        return frame

    def summary(self) -> dict[str, Any]:
        """What was released of the table: its size, suppressed cells, audit intervals of the primaries, cost.

        The audit intervals are about published cells and stay; the primaries' values, and the required
        intervals around them (whose midpoint is the value), are left out.
        """
        published = self.table.published()
        out: dict[str, Any] = {"kind": self.table.kind, "rows": len(published.row_labels),
                               "columns": len(published.column_labels),
                               "primary": [list(p) for p in self.primary or ()]}
        if isinstance(self.protection, SecondarySuppression):
            audit = self.protection.audit_frame()[["row", "column", "min", "max", "protected"]]
            out.update({"protection": "secondary suppression", "suppressed": self.protection.suppressed_count,
                        "secondary": [list(s) for s in self.protection.secondary], "cost": self.protection.cost,
                        "optimal": self.protection.optimal, "protected": self.protection.all_protected,
                        "audit": audit.to_dict(orient="records")})
        elif isinstance(self.protection, ControlledRounding):
            out.update({"protection": "controlled rounding", "base": self.protection.base,
                        "total_absolute_deviation": self.protection.total_absolute_deviation,
                        "max_absolute_deviation": self.protection.max_absolute_deviation,
                        "optimal": self.protection.optimal, "max_risk": self.protection.max_risk})
        else:
            out.update({"protection": None, "suppressed": len(self.primary or ())})
        return out


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
    p = step.parameters
    table = table_from_microdata(frame, step.keys[0], step.keys[1] if len(step.keys) > 1 else None,
                                 response=p["response"], shadow=p["shadow"], budget=budget)
    state = TableState(table, step.keys[0])
    published = table.published()
    return state, {"kind": table.kind, "rows": len(published.row_labels), "columns": len(published.column_labels)}


#: The parameters of every rule (:data:`rumap.tables.rules.RULES`), each None unless the rule's.
_RULE_PARAMETERS = sorted({name for rule in RULES.values() for name in rule.parameters})


def _check_primary(parameters: dict, names: tuple[str, ...]) -> dict:
    rule = check_parameter("rule", parameters["rule"], StrOptions(list(RULES)))
    own = RULES[rule].parameters
    out: dict[str, Any] = {"rule": rule}
    for name in _RULE_PARAMETERS:
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
    protection = float(check_parameter("protection", parameters["protection"]))
    time_limit = float(check_parameter("time_limit", parameters["time_limit"]))
    return {"protection": protection, "cost": check_parameter("cost", parameters["cost"], StrOptions(list(COSTS))),
            "time_limit": time_limit}


def _apply_suppression(state: TableState, step: Step, source: str, budget: WorkBudget) -> tuple[TableState, dict]:
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
PRIMARY_STEP = StepMethod("table", {"rule": REQUIRED, **dict.fromkeys(_RULE_PARAMETERS)}, False, _check_primary,
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

