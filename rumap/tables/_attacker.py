"""The attacker's subproblems of secondary cell suppression and the Fischetti-Salazar cutting-plane MILP.

Cells i = 1..n with nominal values a_i >= 0 are linked by equations A y = 0
(every total minus its parts). Suppressing the set S lets the attacker move
cell k by a deviation d with A d = 0, d_i = 0 outside S and -a_i <= d_i
(non-negativity of y = a + d), or within external bounds
-lb_i <= d_i <= ub_i known to the attacker. A primary k is protected upwards when some such
d has d_k >= UPL_k and downwards when some has d_k <= -LPL_k.

For each primary and direction the attacker's LP max s^T d (s = +-e_k) over
-a_i x_i <= d_i <= u_i x_i has a dual whose value is linear in x; any dual
solution gives the valid inequality sum_i (lambda_l,i a_i - lambda_u,i u_i) x_i
>= level (Fischetti & Salazar 2001, "capacity constraints"), violated by an
unprotected pattern. The master MILP minimises sum_i w_i x_i over these cuts
(scipy.optimize.milp, HiGHS) until every attacker LP is satisfied: the
solution is then optimal when HiGHS proved the last master optimal.

The solve stops on work, never on wall time (:class:`SolveLimit`, apart from
the work budget that refuses too large a problem beforehand): a number
of rounds of cuts at the master's LP relaxation, of master MILPs, of
branch-and-bound nodes per master and of the heuristic's removal trials, all
derived from the ``time_limit`` a caller gives (seconds on a reference
machine, :data:`WORK_PER_SECOND`). HiGHS is deterministic, so the same
problem and limit give the same pattern on any machine and under any load.
HiGHS's own clock is kept only as a safety net far above the solve limit
(:data:`SAFETY_FACTOR`), not reached in normal runs; a result it cuts short
says so (``stopped_on`` ``"time_limit"``).

For a 2-D table with its totals the equations are those of a network, so a
deviation can be decomposed into cycles and capping d_i at the protection level
(u_i = level) loses nothing; for other equation systems u_i is the sum of all
cell values.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy import sparse
from scipy.optimize import Bounds, LinearConstraint, linprog, milp
from scipy.sparse.csgraph import connected_components

from rumap._validation import assumes_valid
from rumap.errors import InputError

#: Relative tolerance on protection levels (the LPs' feasibility tolerance is ~1e-7).
LEVEL_TOL = 1e-7

#: Relative gap of the master MILPs while protection cuts are still being found, and of the last, exact one.
EARLY_GAP = 0.05
EXACT_GAP = 1e-9

#: Most rounds of cuts at the master's LP relaxation before the MILP masters.
FRACTIONAL_ROUNDS = 30

#: The work one second of ``time_limit`` buys (on a reference machine): rounds of cuts at the LP relaxation,
#: master MILPs, branch-and-bound nodes of one master, and removals tried by the heuristic's pruning.
WORK_PER_SECOND = {"fractional": 10.0, "rounds": 4.0, "nodes": 2000.0, "prunes": 20.0}

#: Removals the heuristic's pruning tries whatever the limit (a protecting pattern is always completed).
MIN_PRUNES = 50

#: HiGHS's own time limit on a master is this many times ``time_limit`` (plus a minute): a safety net against a
#: pathological master that the solve limit does not bound, not reached in normal runs.
SAFETY_FACTOR = 10.0


@dataclass(frozen=True)
class SolveLimit:
    """The deterministic stopping rule of :func:`protect`: how much work a solve may do.

    Parameters
    ----------
    fractional : int
        Rounds of cuts separated at the master's LP relaxation.
    rounds : int
        Master MILPs (rounds of cuts at integer patterns).
    nodes : int
        Branch-and-bound nodes of one master MILP (HiGHS ``mip_max_nodes``).
    prunes : int
        Secondaries the heuristic tries to drop.
    safety_seconds : float
        HiGHS's time limit on one master (a safety net; see the module notes).

    Examples
    --------
    >>> SolveLimit.of_seconds(30).to_dict()
    {'fractional': 30, 'rounds': 120, 'nodes': 60000, 'prunes': 650}
    """

    fractional: int
    rounds: int
    nodes: int
    prunes: int
    safety_seconds: float

    @classmethod
    def of_seconds(cls, seconds: float) -> SolveLimit:
        """The work ``seconds`` of ``time_limit`` buy (:data:`WORK_PER_SECOND`), whatever the machine."""
        rate = WORK_PER_SECOND
        return cls(min(FRACTIONAL_ROUNDS, math.floor(rate["fractional"] * seconds)),
                   math.floor(rate["rounds"] * seconds), max(1, math.floor(rate["nodes"] * seconds)),
                   MIN_PRUNES + math.floor(rate["prunes"] * seconds), SAFETY_FACTOR * seconds + 60.0)

    def to_dict(self) -> dict[str, int]:
        """``{"fractional", "rounds", "nodes", "prunes"}``: the limits that decide the result."""
        return {"fractional": self.fractional, "rounds": self.rounds, "nodes": self.nodes, "prunes": self.prunes}

#: Most variables of one batch of attacker LPs solved as one block-diagonal LP.
BATCH_VARIABLES = 20000

#: Rounds of joint LPs that meet many requirements with one deviation (:meth:`AttackerModel.certified`), the least
#: share of the remaining requirements a round must meet for another round, and the relative margin above a level
#: that counts as met (a requirement on the margin gets its own LP).
CERTIFY_ROUNDS = 10
CERTIFY_SHARE = 0.01
CERTIFY_MARGIN = 1e-6


@dataclass(frozen=True)
class Requirement:
    """One attacker subproblem: move cell ``cell`` by ``sign * level`` (sign +1 upwards, -1 downwards)."""

    cell: int
    sign: int
    level: float


@dataclass(frozen=True)
class Pattern:
    """A suppression pattern found by :func:`protect`: the mask, its cost and what proves it."""

    suppressed: np.ndarray
    cost: float
    lower_bound: float
    optimal: bool
    method: str
    iterations: int
    cuts: int
    #: Why the search stopped short of a proof: None (it completed), ``"solve_limit"`` or ``"time_limit"``
    #: (HiGHS's safety net, see the module notes).
    stopped_on: str | None = None


class AttackerModel:
    """Cells, their equations and costs, with the attacker's LPs."""

    def __init__(self, values: np.ndarray, equations: np.ndarray, weights: np.ndarray, network: bool,
                 external: float | None = None, fall: np.ndarray | None = None,
                 rise: np.ndarray | None = None, empty: np.ndarray | None = None) -> None:
        self.values = np.asarray(values, dtype=float)
        #: How far each cell may fall (a_i, or the external bound's share of it) and rise (None: unbounded);
        #: ``fall`` and ``rise`` given per cell (a_i - lb_i, ub_i - a_i) override ``external``.
        self.fall = self.values if external is None else self.values * min(1.0, external)
        self.rise = None if external is None else self.values * external
        if fall is not None:
            self.fall = np.asarray(fall, dtype=float)
        if rise is not None:
            self.rise = np.asarray(rise, dtype=float)
        #: Cells known to be empty (no contributor): known zeros, published, never suppressed; they cannot move.
        self.empty = np.zeros(self.values.size, dtype=bool) if empty is None else np.asarray(empty, dtype=bool)
        if self.empty.any():
            self.fall = np.where(self.empty, 0.0, self.fall)
            self.rise = np.where(self.empty, 0.0, np.inf if self.rise is None else self.rise)
        self.equations = sparse.csr_matrix(equations)
        self.equations_csc = self.equations.tocsc()
        self.weights = np.asarray(weights, dtype=float)
        self.network = network
        self.big = float(self.values.sum()) + 1.0
        self._memo: dict[tuple[int, int, float, bytes], tuple[float, np.ndarray | None]] = {}
        self._components: tuple[bytes, np.ndarray, np.ndarray] | None = None
        self._sub_cache: tuple[bytes, sparse.csr_matrix, np.ndarray] | None = None

    @property
    def n(self) -> int:
        return self.values.size

    def cap(self, level: float) -> np.ndarray:
        """Upper bound u_i on each cell's upward deviation."""
        cap = np.full(self.n, level if self.network else self.big + level)
        return cap if self.rise is None else np.minimum(cap, self.rise)

    def attack(self, req: Requirement, suppressed: np.ndarray) -> tuple[float, np.ndarray | None]:
        """The attacker's largest move of ``req.cell`` in ``req.sign``'s direction, and a cut when short of it.

        Returns the move (capped) and, when it is below the level, the cut's
        coefficients c (c @ x >= level is valid for every protecting x and
        c @ suppressed equals the move).
        """
        cols = self._component(req.cell, suppressed)
        key = (req.cell, req.sign, req.level, cols.tobytes())
        if key not in self._memo:
            self._memo[key] = self._attack_cells(req, cols)
        return self._memo[key]

    def _component(self, cell: int, suppressed: np.ndarray) -> np.ndarray:
        """The suppressed cells linked to ``cell`` through equations holding suppressed cells.

        The attacker's LP separates into these components: the others cannot move ``cell``.
        """
        pattern = suppressed.tobytes()
        if self._components is None or self._components[0] != pattern:
            cols = np.flatnonzero(suppressed)
            incidence = self.equations_csc[:, cols].T.tocsr()
            incidence.data = np.ones_like(incidence.data)
            size = cols.size + incidence.shape[1]
            graph = (sparse.bmat([[None, incidence], [incidence.T, None]], format="csr") if cols.size
                     else sparse.csr_matrix((size, size)))
            _, labels = connected_components(graph, directed=False)
            self._components = (pattern, cols, labels[:cols.size])
        _, cols, labels = self._components
        where = np.searchsorted(cols, cell)
        return cols[labels == labels[where]]

    def attack_many(self, reqs: list[Requirement], suppressed: np.ndarray,
                    scale: np.ndarray | None = None) -> list[tuple[float, np.ndarray | None]]:
        """:meth:`attack` for each requirement, the LPs not yet solved stacked into block-diagonal LPs.

        The attacker's LPs are independent, so one LP whose blocks are theirs
        has their optima and duals block by block; one HiGHS call per batch.
        ``scale``: a fractional pattern x (``suppressed`` its support), each
        cell's deviation bounds multiplied by x_i; the cuts are valid for every
        pattern all the same (the dual's feasible set does not depend on x).
        """
        out: list[tuple[float, np.ndarray | None] | None] = [None] * len(reqs)
        pending = []
        for j, req in enumerate(reqs):
            cols = self._component(req.cell, suppressed)
            key = (req.cell, req.sign, req.level, cols.tobytes())
            if scale is None and key in self._memo:
                out[j] = self._memo[key]
            else:
                pending.append((j, req, cols, key))
        start = 0
        while start < len(pending):
            end, used = start, 0
            while end < len(pending) and (end == start or used + pending[end][2].size <= BATCH_VARIABLES):
                used += pending[end][2].size
                end += 1
            batch = pending[start:end]
            for (j, _, _, key), result in zip(batch, self._attack_batch([(r, c) for _, r, c, _ in batch], scale),
                                              strict=True):
                if scale is None:
                    self._memo[key] = result
                out[j] = result
            start = end
        return [r for r in out if r is not None]

    def certified(self, reqs: list[Requirement], suppressed: np.ndarray,
                  scale: np.ndarray | None = None) -> np.ndarray:
        """Which requirements a few joint deviations meet: those need no LP of their own.

        A deviation d (A d = 0 within every cell's bounds, scaled by ``scale``
        as in :meth:`attack_many`) with s d_k above the level of (k, s) proves
        that the attacker can move k that far, so its own LP would find no cut.
        Each round solves, for each direction s, the LP max sum_j s d_kj /
        level_j over the requirements of that direction not yet met (the caps
        those of the smallest level: a subset of every requirement's
        deviations), and keeps those its deviation meets with a margin. Rounds
        stop when one meets less than :data:`CERTIFY_SHARE` of the rest, or
        after :data:`CERTIFY_ROUNDS`. The others, and every requirement on the
        margin, are left to their own LPs, which decide exactly as before: the
        same cuts, far fewer LPs.
        """
        met = np.zeros(len(reqs), dtype=bool)
        cols = np.flatnonzero(suppressed)
        if not reqs or cols.size == 0:
            return met
        sub = self.equations_csc[:, cols].tocsr()
        sub = sub[np.diff(sub.indptr) > 0]
        levels = np.array([r.level for r in reqs])
        bounds = np.column_stack([-self.fall[cols], self.cap(float(levels.min()))[cols]])
        if scale is not None:
            bounds = bounds * scale[cols, None]
        where = np.searchsorted(cols, [r.cell for r in reqs])
        signs = np.array([r.sign for r in reqs], dtype=float)
        equations = {"A_eq": sub, "b_eq": np.zeros(sub.shape[0])} if sub.shape[0] else {}
        for _ in range(CERTIFY_ROUNDS):
            before = int(met.sum())
            for sign in (1.0, -1.0):
                pick = ~met & (signs == sign)
                if not pick.any():
                    continue
                objective = np.zeros(cols.size)
                np.add.at(objective, where[pick], -sign / levels[pick])
                res = linprog(objective, bounds=bounds, method="highs", **equations)
                if res.status == 0:
                    met |= signs * res.x[where] >= levels * (1 + CERTIFY_MARGIN)
            if met.sum() - before < max(1.0, CERTIFY_SHARE * (len(reqs) - before)):
                break
        return met

    def _subproblem(self, req: Requirement, cols: np.ndarray, scale: np.ndarray | None = None,
                    ) -> tuple[sparse.csr_matrix, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """The attacker's LP of ``req`` over the cells ``cols``: its equations, their rows, objective, bounds, caps."""
        key = cols.tobytes()
        if self._sub_cache is None or self._sub_cache[0] != key:
            sub = self.equations_csc[:, cols].tocsr()
            rows = np.flatnonzero(np.diff(sub.indptr) > 0)
            self._sub_cache = (key, sub[rows], rows)
        _, sub, rows = self._sub_cache
        cap = self.cap(req.level)
        objective = np.zeros(cols.size)
        objective[np.searchsorted(cols, req.cell)] = -req.sign  # minimise -s^T d
        bounds = np.column_stack([-self.fall[cols], cap[cols]])
        return sub, rows, objective, bounds if scale is None else bounds * scale[cols, None], cap

    def _cut(self, req: Requirement, move: float, rows: np.ndarray, eq_duals: np.ndarray,
             cap: np.ndarray) -> tuple[float, np.ndarray | None]:
        """The capacity cut of an unmet requirement from its LP's equation duals (None when met)."""
        if move >= req.level * (1 - LEVEL_TOL):
            return move, None
        objective_full = np.zeros(self.n)
        objective_full[req.cell] = -req.sign
        y = np.zeros(self.equations.shape[0])
        y[rows] = eq_duals
        reduced = objective_full - self.equations.T @ y
        lam_low, lam_up = np.maximum(reduced, 0.0), np.minimum(reduced, 0.0)
        coefficients = lam_low * self.fall - lam_up * cap
        return move, np.minimum(coefficients, req.level)

    def _attack_batch(self, items: list[tuple[Requirement, np.ndarray]],
                      scale: np.ndarray | None = None) -> list[tuple[float, np.ndarray | None]]:
        parts = [self._subproblem(req, cols, scale) for req, cols in items]
        matrix = sparse.block_diag([p[0] for p in parts], format="csr")
        objective = np.concatenate([p[2] for p in parts])
        bounds = np.vstack([p[3] for p in parts])
        if matrix.shape[0]:
            res = linprog(objective, A_eq=matrix, b_eq=np.zeros(matrix.shape[0]), bounds=bounds, method="highs")
        else:
            res = linprog(objective, bounds=bounds, method="highs")
        if res.status != 0:
            raise InputError(f"the attacker's linear program failed: {res.message}")
        duals = np.asarray(res.eqlin.marginals) if matrix.shape[0] else np.zeros(0)
        out = []
        var, row = 0, 0
        for (req, _), (sub, rows, c, _, cap) in zip(items, parts, strict=True):
            move = -float(c @ res.x[var:var + c.size])
            out.append(self._cut(req, move, rows, duals[row:row + sub.shape[0]], cap))
            var += c.size
            row += sub.shape[0]
        return out

    def _attack_cells(self, req: Requirement, cols: np.ndarray) -> tuple[float, np.ndarray | None]:
        return self._attack_batch([(req, cols)])[0]

    def deviation_path(self, req: Requirement, suppressed: np.ndarray) -> np.ndarray:
        """Cells to add so that ``req`` is met: the support of the cheapest deviation (an LP, cycles in 2-D).

        Minimises sum_i w'_i (d+_i + d-_i) / level with w'_i = 0 for cells
        already suppressed, d = d+ - d-, A d = 0, d_k = sign * level,
        d-_i <= a_i, d+_i <= u_i.
        """
        n = self.n
        cap = self.cap(req.level)
        scale = float(np.max(self.weights, initial=0.0)) or 1.0
        weight = np.where(suppressed, 0.0, self.weights + 1e-6 * scale)
        objective = np.concatenate([weight, weight])
        a_eq = sparse.hstack([self.equations, -self.equations]).tocsr()
        bounds = [(0.0, float(c)) for c in cap] + [(0.0, float(v)) for v in self.fall]
        lo, hi = (req.level, req.level) if req.sign > 0 else (0.0, 0.0)
        bounds[req.cell] = (lo, hi) if req.sign > 0 else (0.0, 0.0)
        bounds[n + req.cell] = (req.level, req.level) if req.sign < 0 else (0.0, 0.0)
        res = linprog(objective, A_eq=a_eq, b_eq=np.zeros(a_eq.shape[0]), bounds=bounds, method="highs")
        if res.status != 0:
            raise InputError("no suppression pattern protects a primary cell at the required level: lower the "
                             "protection")
        deviation = res.x[:n] - res.x[n:]
        return np.abs(deviation) > 1e-9 * max(1.0, req.level)


def _requirements(model: AttackerModel, primaries: np.ndarray, upper: np.ndarray,
                  lower: np.ndarray) -> list[Requirement]:
    reqs = []
    for k, up, low in zip(primaries, upper, lower, strict=True):
        if up > 0:
            reqs.append(Requirement(int(k), 1, float(up)))
        if low > 0:
            reqs.append(Requirement(int(k), -1, float(low)))
    return reqs


def _unmet(model: AttackerModel, reqs: list[Requirement], suppressed: np.ndarray,
           batched: bool = False, scale: np.ndarray | None = None) -> list[tuple[Requirement, np.ndarray]]:
    """The unmet requirements and their cuts; ``batched``: those a joint deviation meets first set aside, the
    others' LPs solved in batches (with ``scale``, at a fractional pattern)."""
    if batched:
        reqs = [req for req, met in zip(reqs, model.certified(reqs, suppressed, scale), strict=True) if not met]
    results = model.attack_many(reqs, suppressed, scale) if batched else [model.attack(req, suppressed) for req in reqs]
    return [(req, cut) for req, (_, cut) in zip(reqs, results, strict=True) if cut is not None]


@assumes_valid
def sequential_pattern(model: AttackerModel, primaries: np.ndarray, upper: np.ndarray,
                       lower: np.ndarray, prunes: int | None = None,
                       start: np.ndarray | None = None,
                       extra_cuts: list[tuple[Any, float]] | None = None, batched: bool = False) -> np.ndarray:
    """A protecting pattern by the sequential cheapest-deviation heuristic, then redundant cells dropped.

    Primaries are taken by decreasing value; each unmet direction adds the
    support of its cheapest deviation given the cells already suppressed
    (``start``, e.g. the last master solution, repaired this way, or the primaries).
    Secondaries are then tried for removal by decreasing cost, at most ``prunes`` of them (None: every one).
    ``extra_cuts`` (c, r), each c @ x >= r over the binary pattern x, are met
    by adding their cheapest cells, and kept met by the removals.
    ``batched``: the attacker's LPs of a pattern solved in batches.
    """
    reqs = _requirements(model, primaries, upper, lower)
    suppressed = np.zeros(model.n, dtype=bool) if start is None else start.copy()
    suppressed[primaries] = True
    order = sorted(reqs, key=lambda r: -model.values[r.cell])
    for req in order:
        _, cut = model.attack(req, suppressed)
        if cut is not None:
            suppressed |= model.deviation_path(req, suppressed)
    extra_cuts = [(_as_row(c, model.n), r) for c, r in extra_cuts or []]
    for coefficients, rhs in extra_cuts:
        support = coefficients.indices[coefficients.data > 0]
        for i in sorted(support[~suppressed[support]], key=lambda i: model.weights[i]):
            if _dot(coefficients, suppressed) >= rhs - 1e-9:
                break
            suppressed[i] = True
    fixed = np.zeros(model.n, dtype=bool)
    fixed[primaries] = True
    candidates = [i for i in sorted(np.flatnonzero(suppressed & ~fixed), key=lambda i: -model.weights[i])
                  if model.weights[i] > 0]
    for i in candidates[:prunes]:
        trial = suppressed.copy()
        trial[i] = False
        if all(_dot(c, trial) >= r - 1e-9 for c, r in extra_cuts) and not _unmet(model, reqs, trial, batched):
            suppressed = trial
    return suppressed


def _as_row(coefficients: np.ndarray | sparse.spmatrix, n: int) -> sparse.csr_matrix:
    """A cut's coefficients as one sparse row (cuts are kept sparse: a table's lines are short)."""
    row = sparse.csr_matrix(coefficients).reshape(1, n).tocsr()
    row.eliminate_zeros()
    return row


def _dot(row: sparse.csr_matrix, x: np.ndarray) -> float:
    return float(row.data @ np.asarray(x, dtype=float)[row.indices])


def _initial_cuts(model: AttackerModel, primaries: np.ndarray) -> list[tuple[sparse.csr_matrix, float]]:
    """Every equation holding a primary needs a second suppressed cell (else the primary is determined)."""
    cuts = []
    csc = model.equations_csc
    csr = model.equations
    for k in primaries:
        for row in csc.indices[csc.indptr[k]:csc.indptr[k + 1]]:
            members = csr.indices[csr.indptr[row]:csr.indptr[row + 1]]
            members = members[members != k]
            cuts.append((sparse.csr_matrix((np.ones(members.size), members, [0, members.size]), shape=(1, model.n)),
                         1.0))
    return cuts


def _relaxation_bound(weights: np.ndarray, lb_vars: np.ndarray, ub_vars: np.ndarray,
                      cuts: list[tuple[np.ndarray, float]]) -> float:
    """A lower bound on the least cost: the LP relaxation of the master over the line cuts."""
    if not cuts:
        return 0.0
    matrix = sparse.vstack([c for c, _ in cuts], format="csr")
    res = linprog(weights, A_ub=-matrix, b_ub=-np.array([r for _, r in cuts]),
                  bounds=np.column_stack([lb_vars, ub_vars]), method="highs")
    return float(res.fun) if res.status == 0 else 0.0


@assumes_valid
def protect(model: AttackerModel, primaries: np.ndarray, upper: np.ndarray, lower: np.ndarray, *,
            method: str, time_limit: float, extra_cuts: list[tuple[Any, float]] | None = None,
            accelerate: bool = False) -> Pattern:
    """The cheapest suppression pattern protecting every primary (cutting planes), or the heuristic's.

    ``method``: ``"milp"`` runs the cutting-plane MILP until proven optimal or
    out of work, then falls back on the heuristic's pattern (or the master's
    protecting incumbent) with the master's bound; ``"auto"`` does the same
    with four fifths of the master rounds, then repairs the last master
    solution by the heuristic (cheapest deviations for the unmet primaries) and
    prunes it; ``"heuristic"`` runs the sequential heuristic only,
    bounded below by the LP relaxation over the line cuts. ``time_limit``
    gives the solve limit (:meth:`SolveLimit.of_seconds`), which bounds the MILP
    and the pruning, so the pattern does not depend on the machine's speed;
    the heuristic always completes a protecting pattern. ``extra_cuts`` are
    further constraints (c, r), c @ x >= r, every pattern must meet (e.g. the
    singleton rules of a line).
    ``accelerate``: the attacker's LPs of a pattern solved in batches, cuts
    first separated at the master's LP relaxation, and masters solved to
    within :data:`EARLY_GAP` until their pattern protects, then exactly.
    """
    limit = SolveLimit.of_seconds(time_limit)
    reqs = _requirements(model, primaries, upper, lower)
    fixed = np.zeros(model.n, dtype=bool)
    fixed[primaries] = True
    weights = np.where(fixed, 0.0, model.weights)
    extra_cuts = [(_as_row(c, model.n), r) for c, r in extra_cuts or []]
    cuts = extra_cuts + _initial_cuts(model, primaries)
    lower_bound, iterations = 0.0, 0
    incumbent: np.ndarray | None = None
    source = "heuristic"
    rounds = 0 if method == "heuristic" else limit.rounds if method == "milp" else math.floor(0.8 * limit.rounds)
    lb_vars = fixed.astype(float)
    ub_vars = (~model.empty).astype(float)
    last_master: np.ndarray | None = None
    stopped_on: str | None = "solve_limit"
    gap = EARLY_GAP if accelerate else EXACT_GAP  # within EARLY_GAP while cuts are being found; exactly at the end
    if accelerate and method != "heuristic":
        lower_bound = _fractional_rounds(model, reqs, weights, lb_vars, ub_vars, cuts, limit.fractional)
    while iterations < rounds:
        iterations += 1
        matrix = sparse.vstack([c for c, _ in cuts], format="csr") if cuts else None
        constraints = [LinearConstraint(matrix, np.array([r for _, r in cuts]), np.inf)] if cuts else []
        res = milp(weights, integrality=np.ones(model.n), bounds=Bounds(lb_vars, ub_vars),
                   constraints=constraints, options={"node_limit": limit.nodes, "mip_rel_gap": gap,
                                                     "time_limit": limit.safety_seconds})
        bound = getattr(res, "mip_dual_bound", None)
        if res.status == 0 and gap <= EXACT_GAP:
            lower_bound = max(lower_bound, float(res.fun))
        elif bound is not None and np.isfinite(bound):
            lower_bound = max(lower_bound, float(bound))
        if res.status == 2:
            raise InputError("no suppression pattern protects the primary cells at the required level: lower the "
                             "protection")
        if res.status == 1 and "time limit" in str(res.message).lower():
            stopped_on = "time_limit"
        if res.x is None:
            break
        candidate = res.x > 0.5
        last_master = candidate
        unmet = _unmet(model, reqs, candidate, accelerate)
        if not unmet:
            if res.status == 0 and gap > EXACT_GAP:  # protecting, but perhaps not the cheapest: solve exactly
                gap = EXACT_GAP
                incumbent, source = candidate, "milp"
                continue
            if res.status == 0:
                return Pattern(candidate, float(weights @ candidate), float(res.fun), True, "milp",
                               iterations, len(cuts))
            incumbent, source = candidate, "milp"
            break
        if res.status != 0:
            break
        if accelerate and gap <= EXACT_GAP:  # cuts found again after the exact solve: back to loose masters
            gap = EARLY_GAP
        cuts.extend((_as_row(cut, model.n), req.level) for req, cut in unmet)
    lower_bound = max(lower_bound, _relaxation_bound(weights, lb_vars, ub_vars, cuts[:len(extra_cuts) + _initial_count(
        primaries, model)]))
    heuristic = sequential_pattern(model, primaries, upper, lower, prunes=limit.prunes,
                                   start=last_master if incumbent is None else None, extra_cuts=extra_cuts,
                                   batched=accelerate)
    if incumbent is None or weights @ heuristic < weights @ incumbent:
        incumbent, source = heuristic, "heuristic"
    cost = float(weights @ incumbent)
    optimal = cost <= lower_bound * (1 + 1e-9) + 1e-9
    method_used = ("milp+heuristic" if source == "heuristic" and method != "heuristic" else "milp") if optimal \
        else source
    return Pattern(incumbent, cost, min(lower_bound, cost), optimal, method_used, iterations, len(cuts),
                   None if optimal or method == "heuristic" else stopped_on)


def _fractional_rounds(model: AttackerModel, reqs: list[Requirement], weights: np.ndarray, lb_vars: np.ndarray,
                       ub_vars: np.ndarray, cuts: list[tuple[sparse.csr_matrix, float]], rounds: int) -> float:
    """Cuts at the master's LP relaxation (Fischetti & Salazar separate at fractional points), added to ``cuts``.

    Rounds of: solve the relaxation, run the attacker's LPs with bounds
    scaled by the fractional x, add the violated cuts; until none is violated
    or after ``rounds`` rounds. Returns the last relaxation's value, a lower
    bound on the least cost.
    """
    bound = 0.0
    for _ in range(rounds):
        if not cuts:
            break
        matrix = sparse.vstack([c for c, _ in cuts], format="csr")
        res = linprog(weights, A_ub=-matrix, b_ub=-np.array([r for _, r in cuts]),
                      bounds=np.column_stack([lb_vars, ub_vars]), method="highs")
        if res.status != 0:
            break
        bound = max(bound, float(res.fun))
        x = np.clip(res.x, lb_vars, ub_vars)
        support = x > 1e-9
        found = [(_as_row(cut, model.n), req.level) for req, cut in _unmet(model, reqs, support, True, x)
                 if cut @ x < req.level * (1 - 1e-6)]
        if not found:
            break
        cuts.extend(found)
    return bound


def _initial_count(primaries: np.ndarray, model: AttackerModel) -> int:
    """How many line cuts :func:`_initial_cuts` makes (the relaxation bound uses those only, a cheap LP)."""
    csc = model.equations_csc
    return int(sum(csc.indptr[k + 1] - csc.indptr[k] for k in primaries))
