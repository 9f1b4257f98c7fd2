"""The attacker's interval of chosen cells of a large suppressed table, one small LP pair per cell.

Cells y_i with published values a_i are linked by equations A y = 0. When the
set S is suppressed, an attacker who knows A and y >= 0 can place cell k
anywhere in [a_k + min d_k, a_k + max d_k] over the deviations d with A d = 0,
d_i = 0 outside S and d_i >= -a_i. The LP separates: a suppressed cell that is
the only suppressed cell of a published equation is known (its deviation is
0), and what remains falls into the connected components of the graph linking
suppressed cells through equations they share. Each cell's two LPs run over
its component alone, so the audit of a table with 10^5 cells costs LPs of the
size of a component, not of the table.
"""

from __future__ import annotations

import math

import numpy as np
from scipy import sparse
from scipy.optimize import linprog
from scipy.sparse.csgraph import connected_components

from rumap._validation import assumes_valid
from rumap.errors import InputError

__all__ = ["attacker_intervals"]


def _free_cells(equations: sparse.csc_matrix, suppressed: np.ndarray) -> np.ndarray:
    """Suppressed cells whose deviation is not forced to 0 by an equation in which they are the only free cell."""
    free = suppressed.copy()
    while True:
        per_row = np.asarray(equations[:, free].astype(bool).sum(axis=1)).ravel()
        lonely_rows = np.flatnonzero(per_row == 1)
        if lonely_rows.size == 0:
            return free
        forced = np.unique(equations[lonely_rows].tocsr()[:, free].nonzero()[1])
        free[np.flatnonzero(free)[forced]] = False


@assumes_valid
def attacker_intervals(values: np.ndarray, equations: sparse.spmatrix, suppressed: np.ndarray,
                       cells: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The smallest and largest value the attacker can give each of ``cells`` (LP over its component).

    Parameters
    ----------
    values : ndarray, shape (n,)
        Every cell's value, non-negative.
    equations : sparse matrix, shape (m, n)
        The table's equations, ``equations @ values == 0``.
    suppressed : ndarray of bool, shape (n,)
        The suppression pattern.
    cells : ndarray of int
        The cells to audit (published ones get their own value).

    Returns
    -------
    low, high : ndarray
        The attacker's interval of each cell (``high`` is ``inf`` when unbounded).

    Examples
    --------
    >>> import numpy as np
    >>> from scipy import sparse
    >>> # a row of three cells and its total: 2 + 3 + 5 = 10, the first two suppressed
    >>> equations = sparse.csr_matrix(np.array([[1.0, 1.0, 1.0, -1.0]]))
    >>> values = np.array([2.0, 3.0, 5.0, 10.0])
    >>> low, high = attacker_intervals(values, equations, np.array([True, True, False, False]), np.array([0, 1]))
    >>> low.tolist(), high.tolist()
    [[0.0, 0.0], [5.0, 5.0]]
    """
    values = np.asarray(values, dtype=float)
    csc = sparse.csc_matrix(equations)
    cells = np.asarray(cells, dtype=int)
    low, high = values[cells].copy(), values[cells].copy()
    free = _free_cells(csc, np.asarray(suppressed, dtype=bool))
    columns = np.flatnonzero(free)
    if columns.size == 0:
        return low, high
    sub = csc[:, columns].tocsr()
    rows = np.flatnonzero(np.diff(sub.indptr) > 0)
    sub = sub[rows]
    incidence = sub.T.tocsr().astype(bool).astype(float)
    graph = sparse.bmat([[None, incidence], [incidence.T, None]], format="csr")
    _, labels = connected_components(graph, directed=False)
    cell_labels, row_labels = labels[:columns.size], labels[columns.size:]
    position = np.full(values.size, -1)
    position[columns] = np.arange(columns.size)
    order = np.argsort(cell_labels, kind="stable")
    starts = np.searchsorted(cell_labels[order], np.arange(cell_labels.max() + 2))
    row_order = np.argsort(row_labels, kind="stable")
    row_starts = np.searchsorted(row_labels[row_order], np.arange(cell_labels.max() + 2))
    for j, cell in enumerate(cells):
        p = position[cell]
        if p < 0:
            continue
        component = cell_labels[p]
        members = order[starts[component]:starts[component + 1]]
        component_rows = row_order[row_starts[component]:row_starts[component + 1]]
        matrix = sub[component_rows][:, members]
        objective = np.zeros(members.size)
        objective[np.searchsorted(members, p)] = 1.0
        bounds = np.column_stack([-values[columns[members]], np.full(members.size, np.inf)])
        for sign in (1.0, -1.0):
            res = linprog(sign * objective, A_eq=matrix if matrix.shape[0] else None,
                          b_eq=np.zeros(matrix.shape[0]) if matrix.shape[0] else None, bounds=bounds,
                          method="highs")
            if res.status == 3 and sign < 0:
                high[j] = math.inf
            elif res.status != 0:
                raise InputError(f"the audit's linear program failed: {res.message}")
            elif sign > 0:
                low[j] = values[cell] + res.fun
            else:
                high[j] = values[cell] - res.fun
    return low, high
