"""What a method of secondary suppression of n-dimensional tables is given (:mod:`rumap.tables.table_suppression`).

Its own module, below both the methods' registry and HiTaS' pass over the
subtables (:mod:`rumap.tables.subtables`), which each take one.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import sparse

from rumap.budget import DEFAULT_BUDGET, WorkBudget
from rumap.tables._attacker import AttackerModel
from rumap.tables.ndtable import NDTable

__all__ = ["SuppressionProblem"]


@dataclass(frozen=True)
class SuppressionProblem:
    """What a solution method is given: the attacker's model cells, their equations, costs and requirements.

    Parameters
    ----------
    values : ndarray
        The model's cells (the non-empty cells of the tables, a shared cell once).
    equations : scipy.sparse.csr_matrix
        Every additivity equation over the model's cells.
    weights : ndarray
        The cost of suppressing each model cell.
    primaries : ndarray of int
        The model positions of the primaries.
    upper, lower : ndarray
        Each primary's upper and lower protection level.
    covers : tuple of (scipy.sparse row, float)
        Constraints c @ x >= r every pattern x must meet (the singleton rules).
    time_limit : float
        Nominal seconds for the method, turned into its solve limit
        (:meth:`rumap.tables._attacker.SolveLimit.of_seconds`).
    tables : tuple of NDTable
        The tables.
    positions : tuple of ndarray
        For each table, the model position of each of its cells (-1 for an empty cell).
    lower_bounds, upper_bounds : ndarray, optional
        External bounds lb_i <= y_i <= ub_i the attacker knows (default 0 <= y_i).
    rhs : ndarray, optional
        b of the equations A y = b (default 0; only the audit reads it).
    budget : WorkBudget
        The work limit; each method checks what it will do against it.
    """

    values: np.ndarray
    equations: sparse.csr_matrix
    weights: np.ndarray
    primaries: np.ndarray
    upper: np.ndarray
    lower: np.ndarray
    covers: tuple[tuple[sparse.csr_matrix, float], ...]
    time_limit: float
    tables: tuple[NDTable, ...]
    positions: tuple[np.ndarray, ...]
    lower_bounds: np.ndarray | None = None
    upper_bounds: np.ndarray | None = None
    rhs: np.ndarray | None = None
    budget: WorkBudget = DEFAULT_BUDGET

    def attacker(self) -> AttackerModel:
        """The attacker's LPs on these cells and equations (deviations capped by the cells' sum, or the bounds)."""
        return AttackerModel(self.values, self.equations, self.weights, network=False,
                             fall=None if self.lower_bounds is None else self.values - self.lower_bounds,
                             rise=None if self.upper_bounds is None else self.upper_bounds - self.values)
