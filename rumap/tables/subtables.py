"""Fast secondary suppression of large hierarchical tables: HiTaS' top-down pass over subtables.

A hierarchical table splits into subtables, one per choice of a parent node
in every dimension: the parent with its children in each dimension, a flat
table with its margins whose equations are equations of the whole table
(every equation of the whole table lies in at least one). HiTaS (de Wolf
2002, in tau-Argus) protects the subtables from the top down: in each, every
suppressed cell must move up and down by its protection level, which the
cheapest hypercube of the subtable allows (2^D cells whose alternating moves
keep every equation of the subtable; the hypercube method of sdcTable and
tau-Argus), or, when none can, the cheapest deviation of the subtable by LP.
A cell suppressed in one subtable must be protected, as a primary, in every
other subtable that holds it, and a published cell of a subtable already
protected is suppressed again only at a high cost; when it is, the subtables
holding it are protected again, until nothing changes. The work grows with
the number of primaries and subtables, each a few cells wide, not with the
size of the whole table.

The pass alone does not prove protection against an attacker who reads the
whole table at once: :func:`rumap.tables.table_suppression.suppress_table`
audits every pattern (each primary's interval by LP over every equation) and
repairs a primary short of its levels before it returns, as for every method
of its registry, where this one is ``heuristic``.
"""

from __future__ import annotations

import heapq
import itertools
from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np
from scipy import sparse
from scipy.optimize import linprog

from rumap._validation import assumes_valid
from rumap.errors import InputError
from rumap.tables._attacker import AttackerModel, Pattern, Requirement
from rumap.tables.hierarchy import TOTAL

if TYPE_CHECKING:
    from rumap.tables.ndtable import NDTable
    from rumap.tables.suppression_problem import SuppressionProblem

__all__ = ["hitas_subtables", "table_subtables", "subtable_pattern", "line_bound"]

#: A published cell of a subtable already protected costs this many times its weight (plus the largest weight)
#: to suppress again (HiTaS keeps it published; the iteration handles the cases where that is impossible).
_REOPEN_FACTOR = 100.0

#: Work units per hypercube corner examined (a requirement examines 2^D corners per cell of its subtable).
_WORK_PER_CORNER = 1.0

@assumes_valid
def hitas_subtables(parents: Sequence[np.ndarray]) -> tuple[list[np.ndarray], np.ndarray]:
    """The subtables of a hierarchical table laid out in C order over its dimensions' nodes, top-down.

    Parameters
    ----------
    parents : sequence of ndarray of int
        Each dimension's parent of every node, -1 for the total (node 0);
        the table's cells are every combination of nodes, in C order.

    Returns
    -------
    grids : list of ndarray
        One per subtable: the cells of the parent node and its children in
        every dimension, an array of D axes whose entry 0 on each axis is the
        parent (the subtable's margin).
    levels : ndarray of int
        The sum of the depths of each subtable's parent nodes (0 for the
        grand total's), increasing.

    Examples
    --------
    >>> import numpy as np
    >>> # Total > A, B; A > A1, A2 against a flat Total > x, y
    >>> grids, levels = hitas_subtables([np.array([-1, 0, 0, 1, 1]), np.array([-1, 0, 0])])
    >>> [g.tolist() for g in grids], levels.tolist()
    ([[[0, 1, 2], [3, 4, 5], [6, 7, 8]], [[3, 4, 5], [9, 10, 11], [12, 13, 14]]], [0, 1])
    """
    sizes = tuple(p.size for p in parents)
    families, depths = [], []
    for p in parents:
        depth = np.zeros(p.size, dtype=int)
        for node in range(p.size):  # parents come before their children
            depth[node] = 0 if p[node] < 0 else depth[p[node]] + 1
        inner = np.unique(p[p >= 0])
        families.append([(int(f), np.concatenate([[f], np.flatnonzero(p == f)])) for f in inner])
        depths.append(depth)
    grids, levels = [], []
    for choice in itertools.product(*families):
        grids.append(np.ravel_multi_index(np.ix_(*[members for _, members in choice]), sizes))
        levels.append(sum(int(depths[d][f]) for d, (f, _) in enumerate(choice)))
    order = np.argsort(np.array(levels, dtype=int), kind="stable")
    return [grids[i] for i in order], np.array(levels, dtype=int)[order]


@assumes_valid
def table_subtables(table: NDTable) -> tuple[list[np.ndarray], np.ndarray]:
    """The subtables of an :class:`~rumap.tables.ndtable.NDTable` (grids of cell positions) and their levels.

    Parameters
    ----------
    table : NDTable

    Returns
    -------
    grids : list of ndarray
        The cells of each subtable, top-down (:func:`hitas_subtables`).
    levels : ndarray of int

    Examples
    --------
    >>> from rumap.tables.ndtable import example_table
    >>> grids, levels = table_subtables(example_table())  # regions Total > North, South > NA, NB, SA, SB
    >>> [g.shape for g in grids], levels.tolist()
    ([(3, 4), (3, 4), (3, 4)], [0, 1, 1])
    """
    parents = []
    for h in table.hierarchies:
        index = {code: i + 1 for i, code in enumerate(h.codes)}
        parents.append(np.array([-1, *(0 if p == TOTAL else index[p] for p in h.parents)], dtype=np.int64))
    return hitas_subtables(parents)


def _inside_rows(csc: sparse.csc_matrix, row_nnz: np.ndarray, cells: np.ndarray) -> np.ndarray:
    """The equations whose every cell is among ``cells``."""
    counts = np.bincount(csc[:, cells].indices, minlength=row_nnz.size)
    return np.flatnonzero((counts == row_nnz) & (row_nnz > 0))


@assumes_valid
def line_bound(equations: sparse.spmatrix, weights: np.ndarray, primaries: np.ndarray,
               covers: Sequence[tuple[np.ndarray, float]] = ()) -> float:
    """A lower bound on the least cost: the LP relaxation of "each primary's equations hold another suppression".

    Parameters
    ----------
    equations : sparse matrix
        The table's equations.
    weights : ndarray
        Each cell's cost.
    primaries : ndarray of int
    covers : sequence of (array or sparse row, float)
        Further constraints c @ x >= r every pattern meets.

    Returns
    -------
    float
        min w @ x over 0 <= x <= 1 (primaries at 1, free of cost) such that
        every equation holding exactly one primary holds another suppressed
        cell; every protecting pattern meets these, so its cost is at least this.

    Examples
    --------
    >>> import numpy as np
    >>> from scipy import sparse
    >>> a = sparse.csr_matrix(np.array([[1.0, 1.0, 1.0, -1.0]]))  # 2 + 3 + 5 = 10, the 2 primary
    >>> line_bound(a, np.array([2.0, 3.0, 5.0, 10.0]), np.array([0]))
    3.0
    """
    csr = sparse.csr_matrix(equations)
    n = csr.shape[1]
    is_primary = np.zeros(n, dtype=bool)
    is_primary[primaries] = True
    indicator = csr.astype(bool).astype(float)
    per_row = indicator @ is_primary.astype(float)
    rows = np.flatnonzero(per_row == 1)
    free = np.flatnonzero(~is_primary)
    matrix = indicator[rows][:, free]
    rhs = np.ones(rows.size)
    for coefficients, r in covers:
        row = sparse.csr_matrix(coefficients).reshape(1, n)
        left = r - float(row[:, is_primary].sum())
        if left > 0:
            matrix = sparse.vstack([matrix, row[:, free]])
            rhs = np.append(rhs, left)
    if matrix.shape[0] == 0 or free.size == 0:
        return 0.0
    res = linprog(weights[free], A_ub=-matrix.tocsr(), b_ub=-rhs, bounds=(0.0, 1.0), method="highs")
    return max(0.0, float(res.fun)) if res.status == 0 else 0.0


def _cube(grid: np.ndarray, position: tuple[int, ...], sign: int, level: float, values: np.ndarray,
          costs: np.ndarray) -> np.ndarray | None:
    """The cells of the cheapest hypercube of ``grid`` that moves the cell at ``position`` by ``sign * level``.

    A hypercube picks, in every dimension, a partner of the cell's index; its
    2^D corners move by +-level, the sign of a corner the product over the
    dimensions where it takes the partner of -1 (two children) or +1 (a child
    and the parent, the subtable's margin), so every equation of the subtable
    holds. A corner that falls moves by at most its value; empty cells (-1)
    cannot be used. Returns None when no hypercube can.
    """
    dims = grid.ndim
    partners, flips = [], []
    for d in range(dims):
        others = np.delete(np.arange(grid.shape[d]), position[d])
        partners.append(others)
        flips.append(np.where((others == 0) | (position[d] == 0), 1.0, -1.0))
    shape = tuple(p.size for p in partners)
    total = np.zeros(shape)
    feasible = np.ones(shape, dtype=bool)
    corners = []
    for corner in itertools.product((0, 1), repeat=dims):
        index, move = [], np.full(shape, float(sign))
        for d in range(dims):
            axis = [1] * dims
            axis[d] = shape[d]
            if corner[d]:
                index.append(partners[d].reshape(axis))
                move = move * flips[d].reshape(axis)
            else:
                index.append(np.full(axis, position[d]))
        cells = np.broadcast_to(grid[tuple(index)], shape)
        corners.append(cells)
        safe = np.maximum(cells, 0)
        feasible &= (cells >= 0) & ((move > 0) | (values[safe] >= level * (1 - 1e-9)))
        total = total + np.where(cells >= 0, costs[safe], 0.0)
    if not feasible.any():
        return None
    best = np.unravel_index(int(np.argmin(np.where(feasible, total, np.inf))), shape)
    return np.array([cells[best] for cells in corners])


def _model_subtables(problem: SuppressionProblem) -> list[np.ndarray]:
    """The subtables of every table of ``problem`` as grids of model cells (-1 for an empty cell), top-down."""
    grids, levels = [], []
    for table, local in zip(problem.tables, problem.positions, strict=True):
        for grid, level in zip(*table_subtables(table), strict=True):
            model_grid = local[grid]
            if (model_grid >= 0).sum() > 1:
                grids.append(model_grid)
                levels.append(level)
    order = np.argsort(np.array(levels, dtype=np.int64), kind="stable")
    return [grids[i] for i in order]


@assumes_valid
def subtable_pattern(problem: SuppressionProblem) -> Pattern:
    """The HiTaS pass over the subtables of ``problem``'s tables: a pattern for the registry's audit.

    Parameters
    ----------
    problem : SuppressionProblem
        The cells, equations, costs, primaries and levels
        (:class:`rumap.tables.table_suppression.SuppressionProblem`).

    Returns
    -------
    Pattern
        The pattern, its cost and the lower bound of :func:`line_bound`.

    Notes
    -----
    Subtables are taken top-down from a queue. In a subtable, each suppressed
    cell (largest first) must move up and down by its level: a primary's, or
    for a cell suppressed in another subtable the largest level of the cells
    that caused it (at most its value downwards). A direction the suppressed
    cells of the subtable allow already (a hypercube of them, else the
    attacker's LP on the subtable) adds nothing; otherwise it takes the
    cheapest hypercube of the subtable that allows the move (a published
    cell of a subtable already protected costs far more than its weight),
    or, when none can, the cheapest deviation of the subtable by LP. A cell newly suppressed puts
    back on the queue every protected subtable holding it. The singleton
    rules' covers are then met by their cheapest cells.

    Examples
    --------
    >>> from rumap.tables.ndtable import example_table
    >>> from rumap.tables.table_suppression import suppress_table
    >>> table = example_table()
    >>> result = suppress_table(table, table.primary_mask("threshold", threshold=2), method="heuristic")
    >>> result.all_protected, result.method
    (True, 'heuristic')
    """
    values, weights = problem.values, problem.weights
    csr = sparse.csr_matrix(problem.equations)
    csc = csr.tocsc()
    row_nnz = np.diff(csr.indptr)
    n = values.size
    grids = _model_subtables(problem)
    widest = max((g.size * 2 ** g.ndim for g in grids), default=0)
    problem.budget.check_work(_WORK_PER_CORNER * 2 * max(problem.primaries.size, 1) * widest,
                              f"{2 * problem.primaries.size} requirements x hypercubes of subtables of up to "
                              f"{max((g.size for g in grids), default=0)} cells")
    flats = [np.sort(g[g >= 0]) for g in grids]
    network = len(problem.tables) == 1 and len(problem.tables[0].dims) <= 2
    suppressed = np.zeros(n, dtype=bool)
    suppressed[problem.primaries] = True
    need_up, need_down = np.zeros(n), np.zeros(n)
    need_up[problem.primaries], need_down[problem.primaries] = problem.upper, problem.lower
    costs = np.where(suppressed, 0.0, weights)
    reopen = _REOPEN_FACTOR * weights + float(weights.max(initial=0.0)) + 1.0
    holding = sparse.csr_matrix(
        (np.ones(sum(f.size for f in flats)),
         (np.concatenate([np.zeros(0, dtype=np.int64), *flats]),
          np.repeat(np.arange(len(grids)), [f.size for f in flats]))), shape=(n, len(grids)))
    done = np.zeros(len(grids), dtype=bool)
    queue = list(range(len(grids)))
    queued = np.ones(len(grids), dtype=bool)
    visits = 0
    while queue:
        t = heapq.heappop(queue)
        queued[t] = False
        grid, cells = grids[t], flats[t]
        visits += 1
        added: list[int] = []
        model = None
        positions = np.argwhere((grid >= 0) & suppressed[np.maximum(grid, 0)])
        for position in sorted(map(tuple, positions), key=lambda p: -values[grid[p]]):
            cell = int(grid[position])
            for sign, level in ((1, need_up[cell]), (-1, min(need_down[cell], values[cell]))):
                if level <= 0:
                    continue
                cube = _cube(grid, position, sign, level, values, costs)
                if cube is not None and not costs[cube].any():
                    continue  # a hypercube of suppressed cells moves it already
                if model is None:
                    rows = _inside_rows(csc, row_nnz, cells)
                    model = AttackerModel(values[cells], csr[rows][:, cells], costs[cells], network=network)
                req = Requirement(int(np.searchsorted(cells, cell)), sign, float(level))
                if model.attack(req, suppressed[cells])[1] is None:
                    continue  # the subtable's suppressed cells move it already (the attacker's LP)
                if cube is None:  # no hypercube: the subtable's cheapest deviation (LP), else the audit's repair
                    model.weights = costs[cells]
                    try:
                        cube = cells[model.deviation_path(req, suppressed[cells])]
                    except InputError:
                        continue
                new = cube[~suppressed[cube]]
                if new.size:
                    suppressed[new], costs[new] = True, 0.0
                    need_up[new] = np.maximum(need_up[new], need_up[cell])
                    need_down[new] = np.maximum(need_down[new], level)
                    added.extend(int(i) for i in new)
        done[t] = True
        costs[cells] = np.where(suppressed[cells], 0.0, reopen[cells])
        if added:
            again = np.unique(holding[np.array(added)].indices)
            for other in again[done[again] & ~queued[again] & (again != t)]:
                heapq.heappush(queue, int(other))
                queued[other] = True
    for coefficients, r in problem.covers:
        row = sparse.csr_matrix(coefficients).reshape(1, n)
        support, weight = row.indices[row.data > 0], row.data[row.data > 0]
        for j in np.argsort(weights[support], kind="stable"):
            if weight @ suppressed[support] >= r - 1e-9:
                break
            suppressed[support[j]] = True
    secondary = suppressed.copy()
    secondary[problem.primaries] = False
    cost = float(weights @ secondary)
    bound = min(cost, line_bound(csr, weights, problem.primaries, problem.covers))
    return Pattern(suppressed, cost, bound, cost <= bound * (1 + 1e-9) + 1e-9, "heuristic", visits, 0)
