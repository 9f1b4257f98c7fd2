"""The audit of a suppression pattern: each primary's attacker interval by batched LPs, and a pattern's gap.

Given the published values, the table's equations A y = 0 and the suppressed
cells, the attacker's range of each primary is the minimum and maximum of
that cell over the non-negative (or externally bounded) solutions agreeing
with every published cell. The LPs of independent groups of suppressed cells
(the connected components of the equations restricted to them) are solved
together in block-diagonal batches. Used by
:mod:`rumap.tables.table_suppression` on every pattern before it is returned,
and by :mod:`rumap.tables.jj`.
"""

from __future__ import annotations

import numpy as np
from scipy import sparse
from scipy.optimize import linprog

from rumap._validation import assumes_valid
from rumap.errors import InputError
from rumap.tables._attacker import Pattern

__all__ = ["audit_pattern", "pattern_gap"]

#: Most variables of one batched audit LP (copies of the suppressed cells, one per primary and direction): HiGHS
#: solves a few small block-diagonal LPs faster than one large one, and faster without its presolve.
_AUDIT_BATCH_VARIABLES = 4000


@assumes_valid
def audit_pattern(values: np.ndarray, equations: sparse.spmatrix, suppressed: np.ndarray,
                  cells: np.ndarray, rhs: np.ndarray | None = None, lower: np.ndarray | None = None,
                  upper: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """The attacker's interval [min, max] of each cell of ``cells`` given the suppressed ones (batched LPs).

    Parameters
    ----------
    values : ndarray
        Every cell's value.
    equations : scipy.sparse matrix
        A with A @ values = 0.
    suppressed : ndarray of bool
        The pattern.
    cells : ndarray of int
        The cells whose interval is wanted (a published one's is its value).
    rhs : ndarray, optional
        b of A y = b (default 0).
    lower, upper : ndarray, optional
        External bounds on every cell (default 0 and none).

    Returns
    -------
    min, max : ndarray
        LP bounds over lower <= y <= upper, A y = b and y = a off the pattern (inf when unbounded).

    Notes
    -----
    The LPs of a batch of cells are one block-diagonal LP (each copy of the
    suppressed cells linked to the cell by equations holding suppressed cells
    minimises or maximises its own cell), solved by HiGHS at once.

    Examples
    --------
    >>> import numpy as np
    >>> from scipy import sparse
    >>> a = sparse.csr_matrix([[1.0, 1.0, -1.0]])  # y0 + y1 = y2
    >>> audit_pattern(np.array([3.0, 4.0, 7.0]), a, np.array([True, True, False]), np.array([0]))
    (array([0.]), array([7.]))
    """
    values = np.asarray(values, dtype=float)
    equations = sparse.csr_matrix(equations)
    cells = np.asarray(cells, dtype=np.int64)
    low, high = values[cells].copy(), values[cells].copy()
    hidden = np.flatnonzero(suppressed)
    if hidden.size == 0:
        return low, high
    sub = equations[:, hidden].tocsc()
    rhs = (np.zeros(equations.shape[0]) if rhs is None else np.asarray(rhs, dtype=float)) - (
        equations[:, ~suppressed] @ values[~suppressed])
    incidence = sub.copy()
    incidence.data = np.ones_like(incidence.data)
    size = hidden.size + equations.shape[0]
    graph = sparse.bmat([[None, incidence.T], [incidence, None]], format="csr")
    _, labels = sparse.csgraph.connected_components(graph, directed=False)
    where = {int(c): j for j, c in enumerate(hidden)}
    cap = 10.0 * float(np.abs(values).sum()) + 1.0
    low_bound = np.zeros(values.size) if lower is None else np.asarray(lower, dtype=float)
    high_bound = np.full(values.size, cap) if upper is None else np.minimum(np.asarray(upper, dtype=float), cap)
    box = np.column_stack([low_bound[hidden], high_bound[hidden]])
    jobs = []  # (output position, sign, component's hidden columns, its equation rows)
    components: dict[int, tuple[np.ndarray, np.ndarray]] = {}
    for out, cell in enumerate(cells):
        if int(cell) not in where:
            continue
        label = labels[where[int(cell)]]
        if label not in components:
            members = np.flatnonzero(labels[:hidden.size] == label)
            rows = np.flatnonzero(labels[hidden.size:size] == label)
            components[label] = (members, rows)
        jobs.extend((out, sign, label) for sign in (1.0, -1.0))
    start = 0
    while start < len(jobs):
        end, used = start, 0
        while end < len(jobs) and (end == start or used + components[jobs[end][2]][0].size <= _AUDIT_BATCH_VARIABLES):
            used += components[jobs[end][2]][0].size
            end += 1
        _solve_batch(jobs[start:end], components, sub, rhs, where, cells, box, cap, low, high)
        start = end
    return low, high


def _solve_batch(jobs: list[tuple[int, float, int]], components: dict[int, tuple[np.ndarray, np.ndarray]],
                 sub: sparse.csc_matrix, rhs: np.ndarray, where: dict[int, int], cells: np.ndarray, box: np.ndarray,
                 cap: float, low: np.ndarray, high: np.ndarray) -> None:
    blocks, rhs_parts, objective, offsets, bounds = [], [], [], [], []
    offset = 0
    for out, sign, label in jobs:
        members, rows = components[label]
        blocks.append(sub[rows][:, members])
        rhs_parts.append(rhs[rows])
        c = np.zeros(members.size)
        c[np.searchsorted(members, where[int(cells[out])])] = sign
        objective.append(c)
        bounds.append(box[members])
        offsets.append(offset)
        offset += members.size
    matrix = sparse.block_diag(blocks, format="csr")
    res = linprog(np.concatenate(objective), A_eq=matrix, b_eq=np.concatenate(rhs_parts),
                  bounds=np.vstack(bounds), method="highs", options={"presolve": False})
    if res.status != 0:
        raise InputError(f"the audit's linear program failed: {res.message}")
    for (out, sign, _), first, c in zip(jobs, offsets, objective, strict=True):
        value = float(res.x[first + int(np.flatnonzero(c)[0])])
        if sign > 0:
            low[out] = value
        else:
            high[out] = np.inf if value >= 0.5 * cap else value


@assumes_valid
def pattern_gap(pattern: Pattern) -> float:
    """(cost - lower bound) / cost of a pattern, 0 when proven optimal or free.

    Parameters
    ----------
    pattern : rumap.tables._attacker.Pattern

    Returns
    -------
    float
    """
    if pattern.optimal or pattern.cost <= 0:
        return 0.0
    return max(0.0, (pattern.cost - pattern.lower_bound) / pattern.cost)
