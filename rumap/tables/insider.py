"""The insider: a respondent who knows its own contribution to a suppressed cell narrows its range."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import pandas as pd

from rumap._validation import PARAMETERS, InstanceOf, validate_params
from rumap.errors import InputError
from rumap.result import json_safe
from rumap.tables.bounds import TableBounds, suppression_bounds
from rumap.tables.entropy import count_values_kernel, uniform_risk_kernel
from rumap.tables.published import PublishedTable, paper_table1

__all__ = ["InsiderView", "insider_view", "InsiderBounds", "insider_bounds"]


@dataclass(frozen=True)
class InsiderView:
    """What an insider and an outsider know about the rest of a cell.

    An insider who contributed ``contribution`` to a cell known to lie in
    [cell_min, cell_max] knows the other contributors' total lies in
    [max(cell_min - contribution, 0), cell_max - contribution]; an outsider
    only knows it lies in [0, cell_max].

    Parameters
    ----------
    cell_min, cell_max, contribution : float
    insider_min, insider_max, outsider_min, outsider_max : float
        The two ranges for the other contributors' total.
    insider_values, outsider_values : float
        m for each range.
    insider_risk, outsider_risk : float
        1 / log2 m.
    """

    cell_min: float
    cell_max: float
    contribution: float
    insider_min: float
    insider_max: float
    outsider_min: float
    outsider_max: float
    insider_values: float
    outsider_values: float
    insider_risk: float
    outsider_risk: float

    @property
    def insider_relative_width(self) -> float:
        """Width of the insider's range over its midpoint (the paper's "within 1%" for 595..604)."""
        mid = (self.insider_min + self.insider_max) / 2
        return (self.insider_max - self.insider_min) / mid if mid > 0 else math.inf

    @property
    def outsider_relative_width(self) -> float:
        """Width of the outsider's range over the insider's midpoint (the paper's "almost 170%")."""
        mid = (self.insider_min + self.insider_max) / 2
        return (self.outsider_max - self.outsider_min) / mid if mid > 0 else math.inf

    def to_frame(self) -> pd.DataFrame:
        """Two rows, insider and outsider: min, max, values, risk."""
        return pd.DataFrame({
            "intruder": ["insider", "outsider"], "min": [self.insider_min, self.outsider_min],
            "max": [self.insider_max, self.outsider_max], "values": [self.insider_values, self.outsider_values],
            "risk": [self.insider_risk, self.outsider_risk],
            "relative_width": [self.insider_relative_width, self.outsider_relative_width]})

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dictionary."""
        return json_safe({**{k: getattr(self, k) for k in self.__dataclass_fields__},
                          "insider_relative_width": self.insider_relative_width,
                          "outsider_relative_width": self.outsider_relative_width})


@validate_params({"cell_min": PARAMETERS["own_contribution"], "contribution": PARAMETERS["own_contribution"],
                  "resolution": "resolution"},
                 example=lambda: {"cell_min": 0.0, "cell_max": 406.0, "contribution": 100.0})
def insider_view(cell_min: float, cell_max: float, contribution: float, resolution: float = 1.0) -> InsiderView:
    """Ranges and risks of the other contributors' total for an insider and an outsider.

    Parameters
    ----------
    cell_min, cell_max : float
        The cell's bounds from the published tables (e.g. from LP bounds).
    contribution : float
        The insider's own contribution, at most ``cell_max``.
    resolution : float, default 1

    Returns
    -------
    InsiderView

    Notes
    -----
    The paper's example: 995 <= z <= 1004 and company A contributes 400; A
    knows company B's turnover lies in [595, 604] (m = 10, DR = 0.301) while
    an outsider only knows it lies in (0, 1004] (DR = 0.100). For the
    insider, 1 / H(z | released tables) becomes 1 / H(z | released tables,
    insider's contribution).

    References
    ----------
    Domingo-Ferrer, Oganian & Torra, Section 4.4 (last paragraph).
    """
    low = cell_min
    high = float(cell_max)
    if not math.isfinite(high) or high < low:
        raise InputError(f"cell_max must be a finite number >= cell_min = {low:g}, got {cell_max!r}")
    own = contribution
    if own > high:
        raise InputError(f"contribution {own:g} exceeds the cell's largest possible value {high:g}")
    ins_lo, ins_hi = max(low - own, 0.0), high - own
    m_in = float(count_values_kernel(ins_lo, ins_hi, resolution))
    m_out = float(count_values_kernel(0.0, high, resolution))
    return InsiderView(low, high, own, ins_lo, ins_hi, 0.0, high, m_in, m_out,
                       float(uniform_risk_kernel(max(m_in, 1.0))), float(uniform_risk_kernel(max(m_out, 1.0))))


@dataclass(frozen=True)
class InsiderBounds:
    """Bounds of a table's suppressed cells for an outsider and for an insider of one cell.

    Parameters
    ----------
    row, column : str
        The insider's cell.
    contribution : float
        The insider's own contribution to it.
    outsider, insider : TableBounds
        All suppressed cells' bounds without and with x[row, column] >= contribution.
    view : InsiderView
        The other contributors' total in the insider's cell, for both.
    """

    row: str
    column: str
    contribution: float
    outsider: TableBounds
    insider: TableBounds
    view: InsiderView

    def to_frame(self) -> pd.DataFrame:
        """One row per suppressed cell: outsider and insider min, max, values, risk."""
        out = self.outsider.to_frame()
        ins = self.insider.to_frame()
        for col in ("min", "max", "values", "risk"):
            out[f"insider_{col}"] = ins[col].to_numpy()
        return out

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dictionary."""
        return json_safe({"row": self.row, "column": self.column, "contribution": self.contribution,
                          "outsider": self.outsider.to_dict(), "insider": self.insider.to_dict(),
                          "view": self.view.to_dict()})


@validate_params({"table": InstanceOf(PublishedTable, "a PublishedTable (see rumap.tables.table_files.published_table_from_frame)"), "contribution": PARAMETERS["own_contribution"], "resolution": "resolution"},
                 example=lambda: {"table": paper_table1(), "row": "5", "column": "5", "contribution": 50.0})
def insider_bounds(table: PublishedTable, row: str, column: str, contribution: float, *,
                   resolution: float = 1.0) -> InsiderBounds:
    """A posteriori risk for a respondent who knows its own contribution to a suppressed cell.

    Knowing x[row, column] >= contribution tightens that cell and, through the
    margins, the other suppressed cells; the insider's uncertainty about the
    other contributors in its cell is [min - contribution, max - contribution].

    Parameters
    ----------
    table : PublishedTable
    row, column : str
        Labels of a suppressed cell.
    contribution : float
        The insider's contribution, >= 0.
    resolution : float, default 1

    Returns
    -------
    InsiderBounds

    References
    ----------
    Domingo-Ferrer, Oganian & Torra, Sections 3 and 4.4 (insiders).
    """
    outsider = suppression_bounds(table, resolution=resolution)
    key = (str(row), str(column))
    cell = outsider.cell(*key)
    own = contribution
    if own > cell["max"]:
        raise InputError(f"contribution {own:g} exceeds the largest value {cell['max']:g} of row {key[0]!r}, "
                         f"column {key[1]!r}")
    insider = suppression_bounds(table, resolution=resolution, lower={key: own})
    inner = insider.cell(*key)
    view = insider_view(inner["min"], inner["max"], own, resolution)
    return InsiderBounds(key[0], key[1], own, outsider, insider, view)
