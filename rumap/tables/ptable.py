"""Perturbation tables of the cell key method, built by maximum entropy as R's ptable builds them.

For each original count i (a row), the perturbation v takes the values
j - i for the target counts j in max(i - D, 0) .. i + D, less the small counts
1 .. js that are never published. Its distribution maximises the entropy
-sum p log2 p under sum p = 1, mean sum p v = 0 and variance sum p v^2 <= V
(``optim=1``; ``optim=4`` makes the variance an equality), each p in
[1e-8, 1] (a preset ``pstay`` as the lower bound of p(v = 0)), and with
``mono`` the probabilities not decreasing from v = -D up to v = 0. Row i = 0
keeps 0. Counts from the last row on (i >= D for js = 0, else i >= D + js + 1)
share the last row's distribution. The cumulative bounds ``p_int_lb`` and
``p_int_ub`` of each row are rounded to 8 digits and ``p`` is their
difference, so the intervals tile [0, 1): the cell key method picks the row's
first v whose ``p_int_ub`` exceeds the cell key.

A magnitude table's ptable (``table="nums"``) has rows for the classes
``icat`` (1 .. D) and steps of 1/``step`` between perturbations, as ptable's
``create_num_ptable``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from rumap._validation import Boolean, InstanceOf, StrOptions, validate_params
from rumap.errors import InputError
from rumap.result import json_safe

__all__ = ["PTable", "create_ptable", "read_ptable", "PTABLE_COLUMNS"]

#: The columns of a perturbation table, as ptable's ``@pTable`` has them.
PTABLE_COLUMNS = ("i", "j", "p", "v", "p_int_lb", "p_int_ub")

#: Digits of the cumulative probabilities (ptable rounds them so).
DIGITS = 8
#: Lower bound of every probability (ptable's epsilon).
EPSILON = 1e-8
#: ptable's cap on the re-solves of a row whose variance misses V.
MAX_ROUNDS = 20


@dataclass(frozen=True)
class PTable:
    """A perturbation table: for each original count class i, the distribution of the perturbation v.

    Parameters
    ----------
    rows : pandas.DataFrame
        Columns :data:`PTABLE_COLUMNS`, ordered by i then v; within a row the
        intervals ``[p_int_lb, p_int_ub)`` tile [0, 1).
    params : mapping
        The parameters that made it (``D``, ``V``, ``js``, ...), or the file it
        was read from.
    """

    rows: pd.DataFrame
    params: dict[str, Any] = field(default_factory=dict)

    @property
    def classes(self) -> np.ndarray:
        """The original counts of the rows, ascending; the last one stands for every count from it on."""
        return np.unique(self.rows["i"].to_numpy(dtype=float))

    def row(self, i: float) -> pd.DataFrame:
        """The rows of class ``i`` (the last class for any count above it)."""
        cls = self.classes
        key = cls[-1] if i >= cls[-1] else i
        return self.rows[self.rows["i"] == key]

    def moments(self) -> pd.DataFrame:
        """Mean, variance and total probability of v per class i (each mean 0, each variance V or less)."""
        r = self.rows
        pv = r["p"] * r["v"]
        out = pd.DataFrame({"i": r["i"], "mean": pv, "variance": pv * r["v"], "sum": r["p"]})
        return out.groupby("i", sort=True).sum().reset_index()

    def to_frame(self) -> pd.DataFrame:
        """The table's rows (a copy)."""
        return self.rows.copy()

    def to_dict(self) -> dict[str, Any]:
        """``{"params": ..., "rows": [{"i", "j", "p", "v", "p_int_lb", "p_int_ub"}, ...]}``."""
        return json_safe({"params": dict(self.params), "rows": self.rows.to_dict(orient="records")})


def _pooled(s: np.ndarray) -> np.ndarray:
    """The labels of the blocks of the non-decreasing (isotonic) fit of ``s`` by pooling adjacent violators."""
    sums: list[float] = []
    sizes: list[int] = []
    for x in s:
        sums.append(float(x))
        sizes.append(1)
        while len(sums) > 1 and sums[-2] / sizes[-2] > sums[-1] / sizes[-1]:
            top, size = sums.pop(), sizes.pop()
            sums[-1] += top
            sizes[-1] += size
    return np.repeat(np.arange(len(sizes)), sizes)


def _dual_solution(v: np.ndarray, variance: float, lower: np.ndarray, equality: bool, m: int) -> np.ndarray | None:
    """The maximum-entropy p, by Newton's method on the convex dual.

    With multipliers (mu, a, lam) of sum p = 1, mean 0 and the variance, the
    optimum is p = max(lower, exp(s)) with s = mu - 1 + a v - lam v^2, s made
    non-decreasing over its first ``m + 1`` entries (the monotony condition up
    to v = 0) by pooling adjacent violators, which gives each pooled block the
    mean of its s. The dual sum_k f_k(s_k) - mu + lam V is minimised over
    lam >= 0 (any lam when the variance is an equality). None when Newton's
    method does not converge (an infeasible row).
    """
    phi = np.vstack([np.ones(v.size), v, -v * v])
    log_lower = np.log(lower)
    target = np.array([1.0, 0.0, -variance])

    def dual(theta: np.ndarray) -> tuple[float, np.ndarray, np.ndarray, np.ndarray]:
        s = theta @ phi - 1.0
        phi_eff = phi
        if m:
            labels = _pooled(s[:m + 1])
            if labels[-1] < m:
                sizes = np.bincount(labels)
                s = s.copy()
                s[:m + 1] = (np.bincount(labels, s[:m + 1]) / sizes)[labels]
                phi_eff = phi.copy()
                for r in range(3):
                    phi_eff[r, :m + 1] = (np.bincount(labels, phi[r, :m + 1]) / sizes)[labels]
        free = s > log_lower
        e = np.exp(np.minimum(s, 700.0))
        p = np.where(free, e, lower)
        value = float(np.where(free, e, lower * (s - log_lower + 1.0)).sum() - theta @ target)
        grad = phi @ p - target
        hess = (phi_eff * np.where(free, e, 0.0)) @ phi_eff.T
        return value, grad, hess, p

    # lam = 0 first: when that optimum's variance is within V the variance constraint is slack
    for active in ((0, 1), (0, 1, 2)) if not equality else ((0, 1, 2),):
        theta = np.array([1.0 - np.log(v.size), 0.0, 0.0])
        idx = list(active)
        for _ in range(200):
            value, grad, hess, p = dual(theta)
            g = grad[idx]
            if np.abs(g).max() < 1e-13:
                break
            step = np.linalg.lstsq(hess[np.ix_(idx, idx)], g, rcond=None)[0]
            t = 1.0
            while t > 1e-12:
                trial = theta.copy()
                trial[idx] -= t * step
                if dual(trial)[0] <= value - 1e-4 * t * float(g @ step):
                    break
                t *= 0.5
            if t <= 1e-12:
                break
            theta = trial
        value, grad, hess, p = dual(theta)
        if np.abs(grad[idx]).max() > 1e-11:
            continue
        if len(idx) == 2 and phi[2] @ p >= -variance - 1e-12:
            return p
        if len(idx) == 3 and (equality or theta[2] >= 0):
            return p
    return None


def _solve_row(v: np.ndarray, variance: float, lower: np.ndarray, mono: bool, optim: int, i: float) -> np.ndarray:
    """The maximum-entropy probabilities of perturbations ``v`` (ptable's ``pt_optim_entropy``).

    An infeasible row (found by a linear programme) is refused; the dual's
    solution is the optimum; SLSQP on the primal is the fallback should
    Newton's method on the dual not converge.
    """
    n = v.size
    v2 = v * v
    zero = np.flatnonzero(v == 0)
    m = int(zero[0]) if mono and zero.size else 0
    x = np.zeros(n)
    if _feasible(v, variance, lower, m, optim == 4):
        x = _dual_solution(v, variance, lower, optim == 4, m)
        if x is None or (m and np.any(np.diff(x[:m + 1]) < -1e-13)):
            x = _primal_solution(v, variance, lower, m, optim == 4, x)
        x = np.clip(x, lower, 1.0)
    if abs(x.sum() - 1.0) > 1e-10 or abs(v @ x) > 1e-9 or (optim != 4 and v2 @ x > variance + 1e-9) or (
            optim == 4 and abs(v2 @ x - variance) > 1e-9) or n < 2:
        raise InputError(f"V={variance:g}: no distribution of the perturbation of a count i = {i:g} has mean 0 "
                         f"and variance {'' if optim == 4 else 'at most '}V with every probability at least "
                         f"{EPSILON:g} (as ptable refuses it): try another variance, D or js")
    return x


def _feasible(v: np.ndarray, variance: float, lower: np.ndarray, m: int, equality: bool) -> bool:
    """Whether some p >= lower with sum 1, mean 0 (monotone over the first m + 1) has variance V or less
    (exactly V when ``equality``): the least (and largest) variance by a linear programme."""
    from scipy.optimize import linprog

    n = v.size
    a_ub = np.zeros((m, n))
    a_ub[np.arange(m), np.arange(m)] = 1.0
    a_ub[np.arange(m), np.arange(1, m + 1)] = -1.0
    bounds = list(zip(lower, np.ones(n), strict=True))
    eq = np.vstack([np.ones(n), v])
    ok = []
    for sign in (1.0, -1.0) if equality else (1.0,):
        res = linprog(sign * v * v, A_ub=a_ub if m else None, b_ub=np.zeros(m) if m else None, A_eq=eq,
                      b_eq=[1.0, 0.0], bounds=bounds, method="highs")
        ok.append(res.status == 0 and (sign * res.fun <= variance + 1e-12 if sign > 0 else
                                       -res.fun >= variance - 1e-12))
    return all(ok)


def _primal_solution(v: np.ndarray, variance: float, lower: np.ndarray, m: int, equality: bool,
                     start: np.ndarray | None) -> np.ndarray:
    """Maximum entropy by SLSQP, p not decreasing over the first ``m + 1`` perturbations (up to v = 0)."""
    from scipy.optimize import minimize

    n = v.size
    v2 = v * v
    constraints: list[dict[str, Any]] = [
        {"type": "eq", "fun": lambda x: np.array([x.sum() - 1.0, v @ x]),
         "jac": lambda x: np.vstack([np.ones(n), v])},
        {"type": "eq" if equality else "ineq", "fun": lambda x: np.array([variance - v2 @ x]),
         "jac": lambda x: -v2[None, :]},
    ]
    if m:
        jac = np.zeros((m, n))
        jac[np.arange(m), np.arange(m)] = -1.0
        jac[np.arange(m), np.arange(1, m + 1)] = 1.0
        constraints.append({"type": "ineq", "fun": lambda x: x[1:m + 1] - x[:m], "jac": lambda x: jac})
    ln2 = np.log(2.0)

    def entropy(x: np.ndarray) -> tuple[float, np.ndarray]:
        lx = np.log(x) / ln2
        return float(x @ lx), lx + 1.0 / ln2

    x0 = np.clip(np.full(n, 1.0 / n) if start is None else start, lower, 1.0)
    res = minimize(entropy, x0, jac=True, method="SLSQP", bounds=list(zip(lower, np.ones(n), strict=True)),
                   constraints=constraints, options={"ftol": 1e-16, "maxiter": 2000})
    return res.x


def _parameters_check(D: int, V: float, js: int, table: str, step: int, icat: Sequence[int] | None) -> list[int]:
    if table == "nums":
        classes = sorted({int(c) for c in (icat if icat is not None else (1, D))})
        if 1 not in classes or D not in classes or max(classes) > D:
            raise InputError(f"icat must hold 1 and D={D} and nothing above D, got {classes}")
        if D * step >= 50:
            raise InputError(f"D * step must stay under 50, got {D * step}")
        return classes
    ncat = D if js == 0 else D + js + 1
    return list(range(1, ncat + 1))


@validate_params({"D": "ckm_max_perturbation", "V": "lambda2", "js": "ckm_js",
                  "table": StrOptions(("cnts", "nums")), "step": "ckm_max_perturbation", "mono": Boolean()},
                 example=lambda: {"D": 3, "V": 1.08, "js": 1})
def create_ptable(D: int, V: float, js: int = 0, *, pstay: float | None = None, optim: int = 1, mono: bool = True,
                  table: str = "cnts", step: int = 1, icat: Sequence[int] | None = None) -> PTable:
    """The perturbation table of ptable's ``create_cnt_ptable`` (or ``create_num_ptable``) for D, V, js.

    Parameters
    ----------
    D : int
        Largest absolute perturbation.
    V : float
        Variance of the perturbation.
    js : int, default 0
        Counts 1 .. js are never published (frequency tables only).
    pstay : float, optional
        Least probability that a count stays unchanged, in (0, 1).
    optim : {1, 2, 3, 4}, default 1
        1 to 3: variance at most V (ptable's variants, the same problem); 4:
        variance exactly V.
    mono : bool, default True
        Probabilities not decreasing from v = -D up to v = 0.
    table : {"cnts", "nums"}, default "cnts"
        Frequency or magnitude table.
    step : int, default 1
        Steps per unit between perturbations (magnitude tables; 1 for counts).
    icat : sequence of int, optional
        The classes of a magnitude table's ptable (must hold 1 and D).

    Returns
    -------
    PTable

    Raises
    ------
    InputError
        Parameters no distribution satisfies.

    Examples
    --------
    >>> pt = create_ptable(D=3, V=1.08, js=1)
    >>> [float(i) for i in pt.classes]
    [0.0, 1.0, 2.0, 3.0, 4.0, 5.0]
    >>> bool((pt.moments()["variance"] <= 1.08 + 1e-6).all())
    True
    """
    if isinstance(optim, bool) or optim not in (1, 2, 3, 4):
        raise InputError(f"optim must be 1, 2, 3 or 4, got {optim!r}")
    if table == "cnts":
        step = 1
    elif js:
        raise InputError("js applies to frequency tables (table='cnts') only")
    if pstay is not None and not 0.0 < float(pstay) < 1.0:
        raise InputError(f"pstay must lie in (0, 1), got {pstay!r}")
    classes = _parameters_check(D, V, js, table, step, icat)
    blocked = set(range(1, js + 1))
    frames = [pd.DataFrame({"i": [0.0], "j": [0.0], "p": [1.0], "v": [0.0], "p_int_lb": [0.0], "p_int_ub": [1.0]})]
    for i in classes:
        j = np.arange(max(i - D, 0) * step, (i + D) * step + 1) / step
        if step != 1:
            j = np.round(j, 4)
        j = j[~np.isin(j, list(blocked))]
        v = j - i if step == 1 else np.round(j - i, 4)
        lower = np.full(v.size, EPSILON)
        if pstay is not None:
            lower[v == 0] = max(float(pstay), EPSILON)
        for _ in range(MAX_ROUNDS):
            p = _solve_row(v, float(V), lower, mono, optim, i)
            if round(float(p @ (v * v)), 3) == V or i in blocked or pstay is None:
                break
            lower[v == 0] = np.maximum(lower[v == 0] - 0.05, EPSILON)
        ub = np.cumsum(p)
        lb = np.round(ub - p, DIGITS)
        ub = np.round(ub, DIGITS)
        frames.append(pd.DataFrame({"i": float(i), "j": j, "p": ub - lb, "v": v, "p_int_lb": lb, "p_int_ub": ub}))
    rows = pd.concat(frames, ignore_index=True)
    params = {"D": D, "V": V, "js": js, "pstay": pstay, "optim": optim, "mono": mono, "table": table}
    if table == "nums":
        params.update(step=step, icat=classes)
    return PTable(rows, params)


@validate_params({"frame": InstanceOf(pd.DataFrame, "a pandas DataFrame")},
                 example=lambda: {"frame": create_ptable(3, 1.08, 1).to_frame()})
def read_ptable(frame: pd.DataFrame, source: str = "ptable") -> PTable:
    """A perturbation table from a frame with ptable's columns (as ``ptable::pt_export`` or ``@pTable`` writes them).

    Parameters
    ----------
    frame : pandas.DataFrame
        Columns i, v and p_int_ub at least (p_int_lb, p and j are derived when
        absent); other columns (ptable's ``type``) are ignored.
    source : str
        Where it came from, for messages.

    Returns
    -------
    PTable

    Raises
    ------
    InputError
        A missing column, a non-numeric value, a row whose intervals do not
        tile [0, 1).
    """
    cols = {str(c).strip().lower(): c for c in frame.columns}
    cols.update({"p_int_lb": cols.get("p_int_lb", cols.get("lb")), "p_int_ub": cols.get("p_int_ub", cols.get("ub"))})
    missing = [c for c in ("i", "v", "p_int_ub") if cols.get(c) is None]
    if missing:
        raise InputError(f"{source}: the perturbation table lacks the column(s) {', '.join(missing)}")
    out = {}
    for name in PTABLE_COLUMNS:
        if cols.get(name) is None:
            continue
        values = pd.to_numeric(frame[cols[name]], errors="coerce")
        bad = np.flatnonzero(values.isna().to_numpy())
        if bad.size:
            raise InputError(f"{source}: column {name}, row {int(bad[0]) + 2}: "
                             f"{frame[cols[name]].iloc[bad[0]]!r} is not a number")
        out[name] = values.to_numpy(dtype=float)
    rows = pd.DataFrame(out).sort_values(["i", "v"], kind="stable").reset_index(drop=True)
    if "p_int_lb" not in rows:
        rows["p_int_lb"] = rows.groupby("i")["p_int_ub"].shift(1).fillna(0.0)
    if "p" not in rows:
        rows["p"] = rows["p_int_ub"] - rows["p_int_lb"]
    if "j" not in rows:
        rows["j"] = rows["i"] + rows["v"]
    rows = rows[list(PTABLE_COLUMNS)]
    for i, group in rows.groupby("i", sort=True):
        ub = group["p_int_ub"].to_numpy()
        lb = group["p_int_lb"].to_numpy()
        if lb[0] != 0 or abs(ub[-1] - 1.0) > 1e-8 or np.any(np.diff(ub) < 0) or np.any(np.abs(lb[1:] - ub[:-1]) > 1e-8):
            raise InputError(f"{source}: the intervals of i = {i:g} do not tile [0, 1)")
    if rows["i"].min() != 0:
        raise InputError(f"{source}: the perturbation table has no row i = 0")
    return PTable(rows, {"source": source})
