"""Probabilistic record linkage (Fellegi & Sunter 1969; Jaro 1989): m and u by EM, one-to-one pairing."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from rumap._validation import PARAMETERS, InstanceOf, StrOptions, validate_params
from rumap.budget import DEFAULT_BUDGET, WorkBudget
from rumap.errors import InputError
from rumap.risk.linkage.distance import STANDARDIZATIONS, TIE_RTOL, LinkageResult, _encode_keys, _Keys

__all__ = ["FellegiSunterFit", "fellegi_sunter_em", "probabilistic_linkage"]

#: Largest number of key variables for probabilistic linkage (2**K agreement patterns).
MAX_PROBABILISTIC_KEYS = int(PARAMETERS["probabilistic_keys"].high)
#: Largest memory (bytes) for keeping the agreement patterns of probabilistic linkage between its two passes.
CACHE_BYTES = 256 * 2**20


@dataclass(frozen=True)
class FellegiSunterFit:
    """m and u probabilities of the Fellegi-Sunter model estimated by EM, and how the EM ended.

    Attributes
    ----------
    m, u : ndarray, shape (K,)
        P(agree on key k | match) and P(agree on key k | non-match).
    match_proportion : float
        Proportion of matched pairs.
    iterations : int
        EM steps taken (each SQUAREM cycle counts its three EM steps).
    converged : bool
        Whether the log-likelihood's relative change fell below the tolerance
        before ``max_iter`` EM steps.
    log_likelihood : float
        Log-likelihood of the pattern counts at the estimate.
    """

    m: np.ndarray
    u: np.ndarray
    match_proportion: float
    iterations: int
    converged: bool
    log_likelihood: float

    def to_dict(self) -> dict[str, Any]:
        """Plain-Python dictionary (lists for the per-key probabilities)."""
        return {"m": self.m.tolist(), "u": self.u.tolist(), "match_proportion": self.match_proportion,
                "iterations": self.iterations, "converged": self.converged, "log_likelihood": self.log_likelihood}

    def to_frame(self) -> pd.DataFrame:
        """One row per key: m, u and the agreement weight ``log(m / u)``."""
        return pd.DataFrame({"key": np.arange(self.m.size), "m": self.m, "u": self.u,
                             "agreement_weight": np.log(self.m / self.u)})


@validate_params({"n_keys": "probabilistic_keys",
                  "match_share": "match_share",
                  "max_iter": "max_iter", "tol": "convergence_tolerance",
                  "accelerate": InstanceOf(bool)},
                 example=lambda: {"pattern_counts": [60.0, 5.0, 6.0, 30.0], "n_keys": 2})
def fellegi_sunter_em(pattern_counts: Any, n_keys: int, match_share: float = 0.01, max_iter: int = 1000,
                      tol: float = 1e-12, accelerate: bool = True) -> FellegiSunterFit:
    """m and u probabilities of the Fellegi-Sunter model by the EM algorithm (SQUAREM-accelerated).

    Parameters
    ----------
    pattern_counts : array_like, shape (2**K,)
        Number of record pairs with each agreement pattern; bit ``k`` of the
        pattern's index is 1 when the pair agrees on key ``k``.
    n_keys : int
        K, the number of keys.
    match_share : float
        Starting value of the proportion of matched pairs.
    max_iter : int
        Most EM steps.
    tol : float
        Converged when the log-likelihood changes by at most ``tol`` times
        its absolute value from one step (or SQUAREM cycle) to the next.
    accelerate : bool, default True
        SQUAREM steps (Varadhan & Roland 2008, scheme S3) between EM steps;
        False runs plain EM.

    Returns
    -------
    FellegiSunterFit
        m, u, the match proportion, the EM steps taken, whether the EM
        converged and the log-likelihood.

    Notes
    -----
    Latent-class model with conditional independence of the keys given the
    match status: ``P(gamma) = p prod m_k^g_k (1-m_k)^(1-g_k) + (1-p) prod u_k^g_k (1-u_k)^(1-g_k)``.
    E-step: posterior match probability of each pattern; M-step: weighted
    agreement rates. The class with the larger mean agreement is the match class.
    A SQUAREM cycle takes two EM steps from ``theta0``, extrapolates along
    ``r = theta1 - theta0`` and ``v = theta2 - 2 theta1 + theta0`` with step
    ``alpha = -|r| / |v|`` (at most -1) and stabilizes with one EM step; when
    that lowers the log-likelihood, the plain step ``theta2`` is kept instead,
    so the log-likelihood never decreases.

    References
    ----------
    Jaro (1989), Section 3; Fellegi & Sunter (1969); Varadhan, R. & Roland, C.
    (2008). Simple and globally convergent methods for accelerating the
    convergence of any EM algorithm. Scandinavian Journal of Statistics 35(2).

    Examples
    --------
    >>> from rumap.risk.linkage import fellegi_sunter_em
    >>> fit = fellegi_sunter_em([9000.0, 300.0, 300.0, 400.0], 2, match_share=0.05)
    >>> fit.converged, bool(fit.m.min() > fit.u.max())
    (True, True)
    """
    counts = np.asarray(pattern_counts, dtype=float)
    if counts.shape != (2 ** n_keys,):
        raise InputError(f"pattern_counts must have 2**{n_keys} entries, got shape {counts.shape}")
    gamma = ((np.arange(2 ** n_keys)[:, None] >> np.arange(n_keys)[None, :]) & 1).astype(float)
    total = counts.sum()
    if total <= 0:
        raise InputError("no record pairs to estimate the m and u probabilities from")
    eps = 1e-9
    # theta = (p, m_1..m_K, u_1..u_K)
    theta = np.concatenate(([float(np.clip(match_share, eps, 0.5))], np.full(n_keys, 0.95),
                            np.clip(counts @ gamma / total, eps, 1 - eps)))

    def log_joint(t: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        m, u = t[1:n_keys + 1], t[n_keys + 1:]
        log_m = np.log(t[0]) + gamma @ np.log(m) + (1 - gamma) @ np.log1p(-m)
        log_u = np.log1p(-t[0]) + gamma @ np.log(u) + (1 - gamma) @ np.log1p(-u)
        return log_m, log_u

    def log_likelihood(t: np.ndarray) -> float:
        return float(counts @ np.logaddexp(*log_joint(t)))

    def em_step(t: np.ndarray) -> np.ndarray:
        log_m, log_u = log_joint(t)
        posterior = 1.0 / (1.0 + np.exp(np.clip(log_u - log_m, -700, 700)))
        weight_m, weight_u = counts * posterior, counts * (1 - posterior)
        new_p = float(np.clip(weight_m.sum() / total, eps, 1 - eps))
        new_m = np.clip(weight_m @ gamma / max(weight_m.sum(), eps), eps, 1 - eps)
        new_u = np.clip(weight_u @ gamma / max(weight_u.sum(), eps), eps, 1 - eps)
        return np.concatenate(([new_p], new_m, new_u))

    ll = log_likelihood(theta)
    steps, converged = 0, False
    while steps < max_iter:
        if accelerate and steps + 3 <= max_iter:
            theta1 = em_step(theta)
            theta2 = em_step(theta1)
            r, v = theta1 - theta, theta2 - 2 * theta1 + theta
            norm_v = float(np.linalg.norm(v))
            alpha = min(-1.0, -float(np.linalg.norm(r)) / norm_v) if norm_v > 0 else -1.0
            jump = np.clip(theta - 2 * alpha * r + alpha * alpha * v, eps, 1 - eps)
            candidate = em_step(jump)
            steps += 3
            new_ll = log_likelihood(candidate)
            if not new_ll >= log_likelihood(theta2):  # the extrapolation did worse: keep the EM steps
                candidate, new_ll = theta2, log_likelihood(theta2)
        else:
            candidate = em_step(theta)
            steps += 1
            new_ll = log_likelihood(candidate)
        done = abs(new_ll - ll) <= tol * abs(new_ll)
        theta, ll = candidate, new_ll
        if done:
            converged = True
            break
    p, m, u = float(theta[0]), theta[1:n_keys + 1], theta[n_keys + 1:]
    if m.mean() < u.mean():  # label switching: the match class agrees more
        m, u, p = u, m, 1 - p
    return FellegiSunterFit(m, u, p, steps, converged, ll)


def _agreement_codes(keys: _Keys, rows_m: np.ndarray, rows_o: np.ndarray, tolerance: float) -> np.ndarray:
    """Agreement pattern of every (masked, original) pair of one block, shape (len(rows_m), len(rows_o))."""
    dtype = np.uint8 if len(keys.kinds) <= 8 else np.uint16
    codes = np.zeros((rows_m.size, rows_o.size), dtype=dtype)
    for j, kind in enumerate(keys.kinds):
        a, b = keys.masked[rows_m, j][:, None], keys.original[rows_o, j][None, :]
        agree = np.abs(a - b) <= tolerance if kind == "numeric" else a == b
        codes |= agree.view(np.uint8).astype(dtype) << dtype(j)
    return codes


def _blocks(keys: _Keys, block_size: int) -> list[tuple[np.ndarray, np.ndarray]]:
    """Sorted-neighbourhood blocks on the first key: equal rank ranges of both files."""
    n = keys.original.shape[0]
    n_blocks = max(1, math.ceil(n / block_size))
    order_o = np.argsort(keys.original[:, 0], kind="stable")
    order_m = np.argsort(keys.masked[:, 0], kind="stable")
    return list(zip(np.array_split(order_m, n_blocks), np.array_split(order_o, n_blocks), strict=True))


def _unambiguous_matches(score: np.ndarray, rows: np.ndarray, cols: np.ndarray) -> np.ndarray:
    """For an optimal assignment rows -> cols, whether no exchange of two pairs scores as well.

    ``score[r, cols[r']] + score[r', cols[r]] >= score[r, cols[r]] + score[r', cols[r']]``
    for some ``r' != r`` means pair ``r`` could be swapped at no loss: a tie.
    """
    assigned = score[np.ix_(rows, cols)]  # assigned[a, b] = score[rows[a], cols[b]]
    diag = np.diag(assigned)
    gain = assigned + assigned.T - diag[:, None] - diag[None, :]
    np.fill_diagonal(gain, -np.inf)
    scale = np.maximum(1.0, np.abs(diag))
    return (gain.max(axis=1) if gain.shape[0] > 1 else np.full(1, -np.inf)) < -TIE_RTOL * scale


def _example() -> dict[str, Any]:
    x = np.array([[1.0, 10.0], [2.0, 30.0], [3.0, 20.0], [4.0, 50.0]])
    return {"original": x, "masked": x + 0.01}


@validate_params({"tolerance": "tolerance", "block_size": "block_size", "standardize": StrOptions(STANDARDIZATIONS),
                  "max_iter": "max_iter", "budget": InstanceOf(WorkBudget)}, example=_example)
def probabilistic_linkage(original: Any, masked: Any, keys: Sequence[str | int] | None = None, *,
                          kinds: Mapping[str, str] | None = None, tolerance: float = 0.1,
                          block_size: int = 1000, standardize: str = "original", max_iter: int = 1000,
                          budget: WorkBudget = DEFAULT_BUDGET) -> LinkageResult:
    """Probabilistic record linkage (Fellegi-Sunter, as in Jaro 1989).

    Parameters
    ----------
    original, masked : ndarray of shape (n, p) or (n,), or DataFrame
        The two files; row ``i`` of ``masked`` is the masked record ``i``.
    keys : sequence of str or int, optional
        The intruder's key variables (default all columns; at most 16).
    kinds : mapping, optional
        ``"numeric"`` keys agree within ``tolerance``; other kinds agree when equal.
    tolerance : float
        Numeric keys agree when ``|x - y| <= tolerance`` on the standardized
        scale (default 0.1 standard deviations of the original).
    block_size : int
        Records per block (default 1000). Both files are sorted on the first
        key and cut into the same number of blocks of equal rank ranges; pairs
        are formed within blocks only, so memory is O(n * block_size).
    standardize : {"original", "each", "none"}
        Scale of the numeric keys (see :func:`distance_linkage`).
    max_iter : int
        Most EM steps; ``settings`` reports the steps taken (``em_iterations``)
        and whether the EM converged (``em_converged``).
    budget : WorkBudget, default DEFAULT_BUDGET
        Pairs x (keys + 1) (the comparisons and the assignment's weights)
        over it are refused before any work.

    Returns
    -------
    LinkageResult
        ``linked_correctly`` is the share of masked records paired with their own
        original; ``settings`` holds the m and u probabilities per key.

    Notes
    -----
    1. For every pair (masked r, original s) of a block, the agreement vector
       ``gamma_k = 1`` when the pair agrees on key k.
    2. m_k = P(gamma_k = 1 | match), u_k = P(gamma_k = 1 | non-match) and the
       match proportion are estimated by EM over the pattern counts
       (:func:`fellegi_sunter_em`).
    3. Each pair's weight is ``sum_k gamma_k log(m_k/u_k) + (1 - gamma_k) log((1 - m_k)/(1 - u_k))``.
    4. Records are paired one to one by the linear sum assignment that maximizes
       the total weight (``scipy.optimize.linear_sum_assignment``) within each block.

    A pairing with its own original counts as correct unless exchanging it with
    another pair gives the same total weight (a tie), so identical agreement
    patterns are not credited to the attacker. A record whose masked value falls
    in another block than its original cannot be paired correctly; use a larger
    ``block_size`` for strong masking.

    References
    ----------
    Domingo-Ferrer & Torra (2004), Section 2.2; Jaro (1989); Fellegi & Sunter (1969).
    """
    if kinds and any(kind == "ordinal" for kind in kinds.values()):
        kinds = {name: ("nominal" if kind == "ordinal" else kind) for name, kind in kinds.items()}
    encoded = _encode_keys(original, masked, keys, kinds, None, standardize)
    n_keys = len(encoded.names)
    if n_keys > MAX_PROBABILISTIC_KEYS:
        raise InputError(f"probabilistic linkage takes at most {MAX_PROBABILISTIC_KEYS} keys, got {n_keys}")
    blocks = _blocks(encoded, block_size)
    pairs = sum(float(rm.size) * ro.size for rm, ro in blocks)
    budget.check_work(pairs * (n_keys + 1), f"{pairs:.3g} pairs x ({n_keys} keys + their assignment) "
                                            f"in {len(blocks)} blocks")
    counts = np.zeros(2 ** n_keys)
    # keep the agreement patterns for the pairing pass when they fit in CACHE_BYTES, else recompute them
    cache = sum(rm.size * ro.size for rm, ro in blocks) * (1 if n_keys <= 8 else 2) <= CACHE_BYTES
    cached: list[np.ndarray] = []
    for rows_m, rows_o in blocks:
        codes = _agreement_codes(encoded, rows_m, rows_o, tolerance)
        counts += np.bincount(codes.ravel(), minlength=2 ** n_keys)
        if cache:
            cached.append(codes)
    n = encoded.original.shape[0]
    fit = fellegi_sunter_em(counts, n_keys, match_share=n / counts.sum(), max_iter=max_iter)
    m, u, p = fit.m, fit.u, fit.match_proportion
    gamma = ((np.arange(2 ** n_keys)[:, None] >> np.arange(n_keys)[None, :]) & 1).astype(float)
    pattern_weight = gamma @ np.log(m / u) + (1 - gamma) @ np.log((1 - m) / (1 - u))
    n_correct = n_tied = 0
    from scipy.optimize import linear_sum_assignment  # here: scipy takes a second to import

    for b, (rows_m, rows_o) in enumerate(blocks):
        codes = cached[b] if cache else _agreement_codes(encoded, rows_m, rows_o, tolerance)
        score = pattern_weight[codes]
        r, c = linear_sum_assignment(score, maximize=True)
        own = rows_m[r] == rows_o[c]
        clear = _unambiguous_matches(score, r, c)
        n_correct += int((own & clear).sum())
        n_tied += int((own & ~clear).sum())
    settings = {"tolerance": tolerance, "block_size": block_size, "standardize": standardize,
                "blocks": len(blocks), "m": m.tolist(), "u": u.tolist(), "match_proportion": p,
                "em_iterations": fit.iterations, "em_converged": fit.converged}
    return LinkageResult("probabilistic", n, n_correct, n_tied, encoded.names, encoded.kinds, settings)
