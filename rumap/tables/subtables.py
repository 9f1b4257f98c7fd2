"""Fast secondary suppression of large hierarchical tables: HiTaS' top-down pass over subtables, then an audit.

A hierarchical table splits into subtables, one per choice of a parent node
in every dimension: the parent with its children in each dimension, a flat
table with its margins whose equations are equations of the whole table
(every equation of the whole table lies in at least one). HiTaS (de Wolf
2002, in tau-Argus) protects the subtables from the top down, each by the
optimal or heuristic method of :mod:`rumap.tables._attacker`: a cell
suppressed in one subtable must be protected, as a primary, in every other
subtable that holds it, and a published cell of a subtable already protected
is suppressed again only at a high cost; when it is, the subtables holding it
are protected again, until nothing changes.

The pass alone does not prove protection against an attacker who reads the
whole table at once, so every pattern is audited: each primary's interval by
the LPs of :mod:`rumap.tables.component_audit`; a primary short of its level
is repaired by the support of the cheapest deviation over the whole table
(an LP) and the audit runs again, so the returned pattern protects every
primary.
"""

from __future__ import annotations

import heapq
import time
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from scipy import sparse

from rumap._validation import assumes_valid
from rumap.errors import InputError
from rumap.tables._attacker import LEVEL_TOL, AttackerModel, Requirement, protect, sequential_pattern
from rumap.tables.component_audit import attacker_intervals

__all__ = ["hitas_subtables", "SubtablePattern", "protect_by_subtables"]

#: A published cell of a subtable already protected costs this many times its weight (plus the largest weight)
#: to suppress again (HiTaS keeps it published; the iteration handles the cases where that is impossible).
_REOPEN_FACTOR = 100.0


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
    return [groups[i] for i in np.lexsort((unique, level))]


@dataclass(frozen=True)
class SubtablePattern:
    """A pattern of the subtable pass and its audit.

    Parameters
    ----------
    suppressed : ndarray of bool
        The pattern (primaries included).
    low, high : ndarray
        Each primary's attacker interval over the whole table.
    protected : ndarray of bool
        Whether each primary's interval clears its levels.
    subtables : int
        Subtables protected (counting repetitions).
    repairs : int
        Primaries repaired after the audit.
    lower_bound : float
        A lower bound on the least cost (each primary needs another suppressed
        cell in each of its equations: the cheapest).
    """

    suppressed: np.ndarray
    low: np.ndarray
    high: np.ndarray
    protected: np.ndarray
    subtables: int
    repairs: int
    lower_bound: float


def _inside_rows(csc: sparse.csc_matrix, row_nnz: np.ndarray, cells: np.ndarray) -> np.ndarray:
    """The equations whose every cell is among ``cells``."""
    sub = csc[:, cells]
    counts = np.bincount(sub.indices, minlength=row_nnz.size)
    return np.flatnonzero((counts == row_nnz) & (row_nnz > 0))


def _line_bound(csr: sparse.csr_matrix, weights: np.ndarray, primaries: np.ndarray) -> float:
    """Sum over disjoint equations holding a primary of the cheapest other cell (a valid lower bound)."""
    is_primary = np.zeros(weights.size, dtype=bool)
    is_primary[primaries] = True
    bound, used = 0.0, np.zeros(weights.size, dtype=bool)
    rows = np.unique(csr[:, primaries].nonzero()[0])
    for row in rows:
        members = csr.indices[csr.indptr[row]:csr.indptr[row + 1]]
        if used[members].any():
            continue
        others = members[~is_primary[members]]
        if others.size and is_primary[members].sum() == 1:
            bound += float(weights[others].min())
            used[members] = True
    return bound


@assumes_valid
def protect_by_subtables(values: np.ndarray, equations: sparse.spmatrix, weights: np.ndarray,
                         primaries: np.ndarray, upper: np.ndarray, lower: np.ndarray,
                         subtables: Sequence[np.ndarray], *, network: bool, method: str = "heuristic",
                         time_limit: float = 2.0, deadline: float | None = None) -> SubtablePattern:
    """A pattern protecting every primary: the HiTaS pass over ``subtables``, audited and repaired.

    Parameters
    ----------
    values : ndarray, shape (n,)
        Every cell's value.
    equations : sparse matrix, shape (m, n)
        The whole table's equations.
    weights : ndarray, shape (n,)
        The cost of suppressing each cell.
    primaries : ndarray of int
        The primary cells.
    upper, lower : ndarray
        Each primary's upper and lower protection levels.
    subtables : sequence of ndarray
        The cells of each subtable, top-down (:func:`hitas_subtables`).
    network : bool
        Whether each subtable is a 2-D table with its margins (its deviations
        decompose into cycles).
    method : {"heuristic", "auto", "milp"}
        How each subtable is protected (:func:`rumap.tables._attacker.protect`).
    time_limit : float
        Seconds per subtable.
    deadline : float, optional
        A ``time.monotonic()`` after which subtables are protected by the
        heuristic alone.

    Returns
    -------
    SubtablePattern

    Examples
    --------
    >>> import numpy as np
    >>> from scipy import sparse
    >>> # Total > A, B in rows, two columns and their total: a flat 3 x 3 table with its margins
    >>> cells = np.array([[10, 20], [5, 8]], dtype=float)
    >>> full = np.zeros((3, 3)); full[1:, :2] = cells; full[1:, 2] = cells.sum(1); full[0] = full[1:].sum(0)
    >>> index = np.arange(9).reshape(3, 3)
    >>> rows = [[index[0, c], index[1, c], index[2, c]] for c in range(3)]
    >>> rows += [[index[r, 2], index[r, 0], index[r, 1]] for r in range(3)]
    >>> a = sparse.lil_matrix((6, 9))
    >>> for i, (t, p, q) in enumerate(rows): a[i, t], a[i, p], a[i, q] = 1, -1, -1
    >>> codes = np.array([[r, c] for r in range(3) for c in range(3)])
    >>> parents = [np.array([-1, 0, 0]), np.array([2, 2, -1])]
    >>> result = protect_by_subtables(full.ravel(), a.tocsr(), full.ravel(), np.array([4]), np.array([1.0]),
    ...                               np.array([1.0]), hitas_subtables(codes, parents), network=True)
    >>> np.flatnonzero(result.suppressed).tolist(), bool(result.protected.all())
    [3, 4, 6, 7]
    """
    values = np.asarray(values, dtype=float)
    csr = sparse.csr_matrix(equations)
    csc = csr.tocsc()
    row_nnz = np.diff(csr.indptr)
    n = values.size
    weights = np.asarray(weights, dtype=float)
    primaries = np.asarray(primaries, dtype=int)
    suppressed = np.zeros(n, dtype=bool)
    suppressed[primaries] = True
    need_up, need_down = np.zeros(n), np.zeros(n)
    need_up[primaries], need_down[primaries] = upper, lower
    seen = np.zeros(n, dtype=bool)
    pairs_sub = np.concatenate([np.full(s.size, t) for t, s in enumerate(subtables)]) if subtables else np.zeros(0)
    pairs_cell = np.concatenate(list(subtables)) if subtables else np.zeros(0, dtype=int)
    holding = sparse.csr_matrix((np.ones(pairs_cell.size), (pairs_cell, pairs_sub)), shape=(n, len(subtables)))
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
        if required.size == 0:
            seen[cells], done[t] = True, True
            continue
        rows = _inside_rows(csc, row_nnz, cells)
        local_weights = np.where(seen[cells] & ~suppressed[cells], _REOPEN_FACTOR * weights[cells] + big,
                                 weights[cells])
        model = AttackerModel(values[cells], csr[rows][:, cells], local_weights, network=network)
        up = need_up[cells[required]]
        down = np.minimum(need_down[cells[required]], values[cells[required]])
        late = deadline is not None and time.monotonic() > deadline
        try:
            if method == "heuristic" or late:
                local = sequential_pattern(model, required, up, down, deadline=time.monotonic() + time_limit)
            else:
                local = protect(model, required, up, down, method=method, time_limit=time_limit).suppressed
        except InputError:  # no pattern inside the subtable: the audit's repair takes over
            seen[cells], done[t] = True, True
            continue
        solved += 1
        new = cells[local & ~suppressed[cells]]
        seen[cells], done[t] = True, True
        if new.size:
            suppressed[new] = True
            need_up[new] = np.maximum(need_up[new], up.max(initial=0.0))
            need_down[new] = np.maximum(need_down[new], down.max(initial=0.0))
            again = np.unique(holding[new].indices)
            for s in again[done[again] & ~queued[again] & (again != t)]:
                heapq.heappush(queue, int(s))
                queued[s] = True
    model = AttackerModel(values, csr, weights, network=False)
    repairs = 0
    while True:
        low, high = attacker_intervals(values, csr, suppressed, primaries)
        slack_up = LEVEL_TOL * np.maximum(1.0, values[primaries]) + 1e-9
        short_up = high < values[primaries] + upper - slack_up
        short_down = low > values[primaries] - lower + slack_up
        if not (short_up | short_down).any():
            break
        for k, up_k, down_k, su, sd in zip(primaries, upper, lower, short_up, short_down, strict=True):
            for sign, level, short in ((1, up_k, su), (-1, down_k, sd)):
                if short:
                    suppressed |= model.deviation_path(Requirement(int(k), sign, float(level)), suppressed)
                    repairs += 1
    slack = LEVEL_TOL * np.maximum(1.0, values[primaries]) + 1e-9
    protected = (high >= values[primaries] + upper - slack) & (low <= values[primaries] - lower + slack)
    return SubtablePattern(suppressed, low, high, protected, solved, repairs, _line_bound(csr, weights, primaries))
