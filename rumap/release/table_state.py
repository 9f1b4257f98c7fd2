"""A table built by a release plan, and what the table steps did to it.

:class:`TableState` is what the steps after a ``table`` step
(:mod:`rumap.release.tables`) take and give; :meth:`TableState.to_frame` is
the released table.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from rumap.tables.controlled_rounding import ControlledRounding
from rumap.tables.microdata import MicrodataTable
from rumap.tables.published import TOTAL_LABEL
from rumap.tables.secondary import SecondarySuppression

__all__ = ["TableState"]


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
