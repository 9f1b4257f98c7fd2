"""Fast secondary suppression of large hierarchical tables: HiTaS' top-down pass over subtables.

A hierarchical table splits into subtables, one per choice of a parent node
in every dimension: the parent with its children in each dimension, a flat
table with its margins whose equations are equations of the whole table
(every equation of the whole table lies in at least one). HiTaS (de Wolf
2002, in tau-Argus) protects the subtables from the top down, each by the
cheapest-deviation heuristic (or the cutting-plane MILP) of
:mod:`rumap.tables._attacker` on the subtable's few cells: a cell suppressed
in one subtable must be protected, as a primary, in every other subtable
that holds it, and a published cell of a subtable already protected is
suppressed again only at a high cost; when it is, the subtables holding it
are protected again, until nothing changes. Each LP is the size of a
subtable, so the pass grows with the number of subtables, not with the
square of the table.

The pass alone does not prove protection against an attacker who reads the
whole table at once: :func:`rumap.tables.table_suppression.suppress_table`
audits every pattern (each primary's interval by LP over every equation) and
repairs a primary short of its levels before it returns, as for every method
of its registry, where this one is ``heuristic``.
"""

from __future__ import annotations

import heapq
import time
from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np
from scipy import sparse
from scipy.optimize import linprog

from rumap._validation import assumes_valid
from rumap.errors import InputError
from rumap.tables._attacker import AttackerModel, Pattern, protect, sequential_pattern
from rumap.tables.hierarchy import TOTAL

if TYPE_CHECKING:
    from rumap.tables.ndtable import NDTable
    from rumap.tables.table_suppression import SuppressionProblem

__all__ = ["hitas_subtables", "table_subtables", "subtable_pattern", "line_bound"]

#: A published cell of a subtable already protected costs this many times its weight (plus the largest weight)
#: to suppress again (HiTaS keeps it published; the iteration handles the cases where that is impossible).
_REOPEN_FACTOR = 100.0

#: Seconds of the time limit given to each subtable at most (pruning, or the MILP with ``exact``).
_SUBTABLE_SECONDS = 2.0


@assumes_valid
def hitas_subtables(codes: np.ndarray, parents: Sequence[np.ndarray]) -> list[np.ndarray]:
    """The subtables of a hierarchical table, top-down: the cells of each, one array per subtable.

    Parameters
    ----------
    codes : ndarray of int, shape (n, D)
        Each cell's node in each dimension's hierarchy.
    parents : sequence of ndarray of int
        Each dimension's parent of every node, -1 for the total.

    Returns
    -------
    list of ndarray
        The cells of each subtable, ordered by the depth of their parent
        nodes (the grand total's subtable first).

    Examples
    --------
    >>> import numpy as np
    >>> # one dimension: Total > A, B; A > A1, A2
    >>> parents = [np.array([-1, 0, 0, 1, 1])]
    >>> [s.tolist() for s in hitas_subtables(np.arange(5)[:, None], parents)]
    [[0, 1, 2], [1, 3, 4]]
    """
    return _leveled_subtables(codes, parents)[0]


def _leveled_subtables(codes: np.ndarray, parents: Sequence[np.ndarray]) -> tuple[list[np.ndarray], np.ndarray]:
    """:func:`hitas_subtables` with the level of each subtable (the sum of its parent nodes' depths)."""
    codes = np.asarray(codes, dtype=int)
    n, dims = codes.shape
    sizes = [p.size for p in parents]
    depth, has_children = [], []
    for p in parents:
        d = np.zeros(p.size, dtype=int)
        for _ in range(p.size):
            new = np.where(p >= 0, d[np.maximum(p, 0)] + 1, 0)
            if np.array_equal(new, d):
                break
            d = new
        depth.append(d)
        children = np.zeros(p.size, dtype=bool)
        children[p[p >= 0]] = True
        has_children.append(children)
    keys, members = [], []
    for choice in range(2 ** dims):
        family = np.empty((n, dims), dtype=int)
        for j in range(dims):
            own = (choice >> j) & 1
            node = codes[:, j]
            family[:, j] = np.where(has_children[j][node], node, -1) if own else parents[j][node]
        valid = (family >= 0).all(axis=1)
        keys.append(np.ravel_multi_index(tuple(family[valid].T), sizes) if dims else np.zeros(0, dtype=int))
        members.append(np.flatnonzero(valid))
    key = np.concatenate(keys)
    cell = np.concatenate(members)
    order = np.lexsort((cell, key))
    key, cell = key[order], cell[order]
    unique, starts = np.unique(key, return_index=True)
    groups = np.split(cell, starts[1:])
    family_nodes = np.unravel_index(unique, sizes)
    level = sum(depth[j][family_nodes[j]] for j in range(dims))
    order = np.lexsort((unique, level))
    return [groups[i] for i in order], np.asarray(level)[order]




@assumes_valid
def table_subtables(table: NDTable) -> tuple[list[np.ndarray], np.ndarray]:
    """The subtables of an :class:`~rumap.tables.ndtable.NDTable` (cell positions) and their levels.

    Parameters
    ----------
    table : NDTable

    Returns
    -------
    subtables : list of ndarray
        The cells of each subtable, top-down.
    levels : ndarray of int
        The sum of the depths of each subtable's parent nodes (0 for the grand total's).

    Examples
    --------
    >>> from rumap.tables.ndtable import example_table
    >>> subtables, levels = table_subtables(example_table())  # regions Total > North, South > NA, NB, SA, SB
    >>> [len(s) for s in subtables], levels.tolist()
    ([12, 12, 12], [0, 1, 1])
    """
    parents = []
    for h in table.hierarchies:
        index = {code: i + 1 for i, code in enumerate(h.codes)}
        parents.append(np.array([-1, *(0 if p == TOTAL else index[p] for p in h.parents)], dtype=np.int64))
    codes = np.column_stack(np.unravel_index(np.arange(table.size), table.shape))
    return _leveled_subtables(codes, parents)


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
    covers : sequence of (ndarray, float)
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
        left = r - float(coefficients[is_primary].sum())
        if left > 0:
            matrix = sparse.vstack([matrix, sparse.csr_matrix(coefficients[free][None, :])])
            rhs = np.append(rhs, left)
    if matrix.shape[0] == 0 or free.size == 0:
        return 0.0
    res = linprog(weights[free], A_ub=-matrix.tocsr(), b_ub=-rhs, bounds=(0.0, 1.0), method="highs")
    return max(0.0, float(res.fun)) if res.status == 0 else 0.0


def _model_subtables(problem: SuppressionProblem) -> list[np.ndarray]:
    """The subtables of every table of ``problem`` in the model's cells, top-down across the tables."""
    groups, levels = [], []
    for table, local in zip(problem.tables, problem.positions, strict=True):
        subtables, level = table_subtables(table)
        for cells, lv in zip(subtables, level, strict=True):
            model_cells = np.unique(local[cells][local[cells] >= 0])
            if model_cells.size > 1:
                groups.append(model_cells)
                levels.append(lv)
    order = np.argsort(np.array(levels, dtype=np.int64), kind="stable")
    return [groups[i] for i in order]


@assumes_valid
def subtable_pattern(problem: SuppressionProblem, exact: bool = False) -> Pattern:
    """The HiTaS pass over the subtables of ``problem``'s tables: a pattern for the registry's audit.

    Parameters
    ----------
    problem : SuppressionProblem
        The cells, equations, costs, primaries and levels
        (:class:`rumap.tables.table_suppression.SuppressionProblem`).
    exact : bool, default False
        Protect each subtable by the cutting-plane MILP (each with a share of
        the time limit) instead of the cheapest-deviation heuristic.

    Returns
    -------
    Pattern
        The pattern, its cost and the lower bound of :func:`line_bound`.

    Notes
    -----
    Subtables are taken top-down from a queue. In a subtable, every cell
    already suppressed is required to move by the largest level of the
    primaries that caused it (at most its value downwards), its cost paid; a
    published cell of a subtable already protected costs far more. A cell
    newly suppressed puts back on the queue every protected subtable holding
    it. The singleton rules' covers are then met by their cheapest cells.

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
    subtables = _model_subtables(problem)
    network = len(problem.tables) == 1 and len(problem.tables[0].dims) <= 2
    seconds = min(_SUBTABLE_SECONDS, problem.time_limit / max(len(subtables), 1))
    suppressed = np.zeros(n, dtype=bool)
    suppressed[problem.primaries] = True
    need_up, need_down = np.zeros(n), np.zeros(n)
    need_up[problem.primaries], need_down[problem.primaries] = problem.upper, problem.lower
    seen = np.zeros(n, dtype=bool)
    holding = sparse.csr_matrix(
        (np.ones(sum(s.size for s in subtables)),
         (np.concatenate([np.zeros(0, dtype=np.int64), *subtables]),
          np.repeat(np.arange(len(subtables)), [s.size for s in subtables]))), shape=(n, len(subtables)))
    done = np.zeros(len(subtables), dtype=bool)
    queue = list(range(len(subtables)))
    queued = np.ones(len(subtables), dtype=bool)
    big = float(weights.max(initial=0.0)) + 1.0
    solved = 0
    while queue:
        t = heapq.heappop(queue)
        queued[t] = False
        cells = subtables[t]
        required = np.flatnonzero(suppressed[cells])
        fresh = ~seen[cells]
        seen[cells], done[t] = True, True
        if required.size == 0:
            continue
        rows = _inside_rows(csc, row_nnz, cells)
        local_weights = np.where(~fresh & ~suppressed[cells], _REOPEN_FACTOR * weights[cells] + big, weights[cells])
        model = AttackerModel(values[cells], csr[rows][:, cells], local_weights, network=network)
        up = need_up[cells[required]]
        down = np.minimum(need_down[cells[required]], values[cells[required]])
        try:
            if exact:
                local = protect(model, required, up, down, method="auto", time_limit=seconds).suppressed
            else:
                local = sequential_pattern(model, required, up, down, deadline=time.monotonic() + seconds)
        except InputError:  # no pattern inside the subtable: the audit's repair over the whole table takes over
            continue
        solved += 1
        new = cells[local & ~suppressed[cells]]
        if new.size:
            suppressed[new] = True
            need_up[new] = np.maximum(need_up[new], up.max(initial=0.0))
            need_down[new] = np.maximum(need_down[new], down.max(initial=0.0))
            again = np.unique(holding[new].indices)
            for s in again[done[again] & ~queued[again] & (again != t)]:
                heapq.heappush(queue, int(s))
                queued[s] = True
    for coefficients, r in problem.covers:
        support = np.flatnonzero(coefficients > 0)
        for i in support[np.argsort(weights[support], kind="stable")]:
            if coefficients[support] @ suppressed[support] >= r - 1e-9:
                break
            suppressed[i] = True
    secondary = suppressed.copy()
    secondary[problem.primaries] = False
    cost = float(weights @ secondary)
    bound = min(cost, line_bound(csr, weights, problem.primaries, problem.covers))
    return Pattern(suppressed, cost, bound, cost <= bound * (1 + 1e-9) + 1e-9, "heuristic", solved, 0)
