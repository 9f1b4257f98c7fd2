"""The flaw of the (n,k)-dominance rule (Domingo-Ferrer & Torra 2004, Section 3.2).

The dominance rule can declare a cell non-sensitive although it lets a
coalition of contributors bound the largest contribution more tightly than in
a cell it declares sensitive. This module holds the paper's counterexample
(Example 1, due to Robertson & Ethier 2002), the root r of Lemma 1, the two
cells of Constructions 1 and 2 for any n, k and number of contributions N, and
the comparison of Theorem 1.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
from scipy.optimize import brentq

from rumap._validation import PARAMETERS, NumberArray, validate_params
from rumap.errors import InputError
from rumap.result import json_safe
from rumap.tables.rules import apply_rule, freeze_array_fields

__all__ = [
    "CoalitionBound",
    "DominanceExample",
    "DominanceFlaw",
    "TheoremScan",
    "coalition_bound",
    "dominance_flaw",
    "example1",
    "lemma1_ratio",
    "lemma1_fraction",
    "relative_contributions",
    "theorem1_scan",
]



#: The dominance rule's n and k and the number N of contributions, as Lemma 1 and Constructions 1-2 take them.
_LEMMA = {"n": "dominance_n", "k": "dominance_k", "cells": "contributions_n"}

_CONTRIBUTIONS = NumberArray(PARAMETERS["contribution"])


def _geometric_fraction(r: float, n: int, big_n: int) -> float:
    """f(r) = (r^n - 1)/(r^N - 1) written as a ratio of geometric sums (finite at r = 1)."""
    powers_n = r ** np.arange(n)
    powers_big = r ** np.arange(big_n)
    return float(powers_n.sum() / powers_big.sum())


def _check_lemma_relations(n: int, k: float, cells: int) -> None:
    """n < N and n/N < k < 1, for Lemma 1 to have a root in (0, 1)."""
    if cells <= n:
        raise InputError(f"cells (N = {cells}) must exceed n = {n}")
    if not k > n / cells:
        raise InputError(f"k = {k:g} must exceed n/N = {n}/{cells} = {n / cells:.6g} for Lemma 1 to have a root; "
                         "take more cells or a larger k")
    if not k < 1:
        raise InputError(f"k must be below 1 for Constructions 1-2 (r > 0), got {k:g}")


@validate_params({"r": "dominance_ratio", "n": "dominance_n", "cells": "contributions_n"},
                 example=lambda: {"r": 0.9, "n": 1, "cells": 3})
def lemma1_fraction(r: float, n: int, cells: int) -> float:
    """Lemma 1's f(r) = (r^n - 1) / (r^N - 1), the share of the n largest of N geometric contributions.

    Parameters
    ----------
    r : float
        Ratio in [0, 1]; f(1) = n/N is the limit.
    n, cells : int
        n and N, n < N.

    Returns
    -------
    float
    """
    return _geometric_fraction(r, n, cells)


@validate_params(_LEMMA, example=lambda: {"n": 1, "k": 0.369, "cells": 3})
def lemma1_ratio(n: int, k: float, cells: int) -> float:
    """The root r in (0, 1) of Lemma 1: (r^n - 1) / (r^N - 1) = k.

    Parameters
    ----------
    n : int
        Number of largest contributions in the dominance rule, >= 1.
    k : float
        Fraction of the cell total, n/N < k < 1.
    cells : int
        Number N of contributions, N > n.

    Returns
    -------
    float
        r such that N contributions proportional to r, r^2, ..., r^N have their
        n largest summing to exactly the fraction k of the total.

    Raises
    ------
    InputError
        If k <= n/N (no root), k >= 1, or N <= n.

    Notes
    -----
    f(r) = (r^n - 1)/(r^N - 1) decreases from f(0) = 1 to f(1) = n/N, so the
    root is unique; it is found by Brent's method on f written as a ratio of
    geometric sums, which is finite at r = 1.

    References
    ----------
    Domingo-Ferrer & Torra (2004), Lemma 1, Eq (1) and its proof in Appendix A.

    Examples
    --------
    >>> round(lemma1_ratio(1, 0.369, 3), 4)
    0.9
    """
    _check_lemma_relations(n, k, cells)
    return _root(n, k, cells)


def _root(n: int, k: float, cells: int) -> float:
    return float(brentq(lambda r: _geometric_fraction(r, n, cells) - k, 0.0, 1.0, xtol=1e-15, rtol=1e-15))


@validate_params({"r": "dominance_ratio", "cells": "contributions_n"}, example=lambda: {"r": 0.9, "cells": 3})
def relative_contributions(r: float, cells: int) -> np.ndarray:
    """R_i = r^i (r - 1) / (r^(N+1) - r), i = 1..N (Eq 3): geometric shares summing to 1.

    Parameters
    ----------
    r : float
        Ratio in [0, 1] (Lemma 1's root in Constructions 1-2); r = 1 gives equal shares.
    cells : int
        Number N of contributions.

    Returns
    -------
    ndarray, shape (N,)
        Computed as r^(i-1) (1 - r) / (1 - r^N), equal to Eq 3 and finite at r = 0.

    References
    ----------
    Domingo-Ferrer & Torra (2004), Eq (3).

    Examples
    --------
    >>> relative_contributions(0.5, 3).round(4).tolist()
    [0.5714, 0.2857, 0.1429]
    """
    return _relative(r, cells)


def _relative(r: float, cells: int) -> np.ndarray:
    if r == 1.0:
        return np.full(cells, 1.0 / cells)
    return r ** np.arange(cells) * (1.0 - r) / (1.0 - r**cells)


def _construction1(r: float, n: int, cells: int) -> tuple[np.ndarray, float]:
    shares = _relative(r, cells)
    eps = (shares[n - 1] - shares[n]) / 3.0
    shares[n - 1] -= eps
    shares[n] += eps
    return shares, eps


def _construction2(r: float, n: int, k: float, cells: int) -> np.ndarray:
    shares = _relative(r, cells)
    shares[n:] = (1.0 - k) / (cells - n)
    return shares


@dataclass(frozen=True)
class DominanceFlaw:
    """Constructions 1 and 2 of Domingo-Ferrer & Torra (2004) and Theorem 1 on them.

    Parameters
    ----------
    n, k, cells : int, float, int
        The dominance rule's n and k and the number N of contributions per cell.
    r : float
        Lemma 1's root.
    epsilon : float
        Construction 1's epsilon = (R_n - R_(n+1)) / 3.
    nonsensitive, sensitive : ndarray, shape (N,)
        Relative contributions (sum 1) of the non-sensitive cell X_ns
        (Construction 1) and the sensitive cell X_s (Construction 2).
    nonsensitive_tail, sensitive_tail : float
        Sum of the N - n - 1 smallest relative contributions of each cell: how
        far above the largest contribution the coalition of the 2nd..(n+1)th
        largest contributors can bound it (Eq A.2 and A.3).
    nonsensitive_dominance, sensitive_dominance : bool
        What the (n,k)-dominance rule says about each cell (False and True).
    """

    n: int
    k: float
    cells: int
    r: float
    epsilon: float
    nonsensitive: np.ndarray
    sensitive: np.ndarray
    nonsensitive_tail: float
    sensitive_tail: float
    nonsensitive_dominance: bool
    sensitive_dominance: bool
    config: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        freeze_array_fields(self)

    @property
    def theorem_holds(self) -> bool:
        """Whether the non-sensitive cell gives the coalition the closer upper bound (smaller tail)."""
        return self.nonsensitive_tail < self.sensitive_tail

    @property
    def nonsensitive_bound(self) -> float:
        """The coalition's upper bound on the largest share of X_ns: 1 minus its own shares."""
        return float(1.0 - self.nonsensitive[1:self.n + 1].sum())

    @property
    def sensitive_bound(self) -> float:
        """The coalition's upper bound on the largest share of X_s."""
        return float(1.0 - self.sensitive[1:self.n + 1].sum())

    def to_frame(self) -> pd.DataFrame:
        """One row per contribution rank i: the shares of X_ns and X_s."""
        return pd.DataFrame({"i": np.arange(1, self.cells + 1), "nonsensitive": self.nonsensitive,
                             "sensitive": self.sensitive})

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dictionary with ``r``, ``nonsensitive_tail``, ``sensitive_tail`` and the rest."""
        return json_safe({
            "n": self.n, "k": self.k, "cells": self.cells, "r": self.r, "epsilon": self.epsilon,
            "nonsensitive_tail": self.nonsensitive_tail, "sensitive_tail": self.sensitive_tail,
            "theorem_holds": self.theorem_holds,
            "nonsensitive_bound": self.nonsensitive_bound, "sensitive_bound": self.sensitive_bound,
            "nonsensitive_dominance": self.nonsensitive_dominance, "sensitive_dominance": self.sensitive_dominance,
            "nonsensitive": self.nonsensitive, "sensitive": self.sensitive})


@validate_params(_LEMMA, example=lambda: {"n": 1, "k": 0.369, "cells": 3})
def dominance_flaw(n: int, k: float, cells: int) -> DominanceFlaw:
    """Lemma 1, Constructions 1 and 2 and Theorem 1 for given n, k and N.

    Parameters
    ----------
    n : int
        The dominance rule's n, >= 1.
    k : float
        The dominance rule's k, n/N < k < 1.
    cells : int
        Number N of contributions in each constructed cell, N > n.

    Returns
    -------
    DominanceFlaw

    Notes
    -----
    With r from Lemma 1 and R_i = r^i (r - 1)/(r^(N+1) - r) (Eq 3):

    - X_ns (Construction 1): shares R_i, except R_n - eps and R_(n+1) + eps,
      eps = (R_n - R_(n+1))/3; its n largest add to k - eps, so the rule says
      non-sensitive.
    - X_s (Construction 2): R_1..R_n, then (1 - k)/(N - n) for the others; its n
      largest add to k, so the rule says sensitive.

    The coalition of the 2nd..(n+1)th largest contributors bounds x_1 by the
    total minus their own contributions; the gap is the sum of the N - n - 1
    smallest contributions: (1 - k) - k r^n (r - 1)/(r^n - 1) for X_ns (Eq A.2)
    and (1 - k)(N - n - 1)/(N - n) for X_s (Eq A.3). Theorem 1: for N large
    enough the first is smaller, since it tends to r (1 - k) < 1 - k.

    Example 2 of the paper: n = 1, k = 0.369, N = 3 gives r = 0.9 and tails
    0.298893 (X_ns) and 0.315498 (X_s).

    References
    ----------
    Domingo-Ferrer & Torra (2004), *Disclosure risk assessment in statistical
    data protection*, J. Comput. Appl. Math. 164-165, Lemma 1, Constructions
    1-2, Theorem 1, Example 2, Appendix A.

    Examples
    --------
    Example 2 of the paper:

    >>> flaw = dominance_flaw(n=1, k=0.369, cells=3)
    >>> round(flaw.r, 4), round(flaw.nonsensitive_tail, 6), round(flaw.sensitive_tail, 6)
    (0.9, 0.298896, 0.3155)
    >>> flaw.nonsensitive_dominance, flaw.sensitive_dominance, flaw.theorem_holds
    (False, True, True)
    """
    _check_lemma_relations(n, k, cells)
    return _flaw(n, k, cells)


def _flaw(n: int, k: float, cells: int) -> DominanceFlaw:
    r = _root(n, k, cells)
    nonsensitive, eps = _construction1(r, n, cells)
    sensitive = _construction2(r, n, k, cells)
    tail = slice(n + 1, None)
    rule = {"n": n, "k": k}
    # shares scaled to a total of 1 are compared by the rule exactly as the paper does
    ns_rule = apply_rule(["ns"] * cells, nonsensitive, "dominance", **rule).sensitive[0]
    s_top = sensitive[:n].sum()
    s_rule = bool(s_top >= k * sensitive.sum() - 1e-12)  # k by construction; allow rounding
    return DominanceFlaw(
        n=n, k=k, cells=cells, r=r, epsilon=float(eps), nonsensitive=nonsensitive, sensitive=sensitive,
        nonsensitive_tail=float(nonsensitive[tail].sum()), sensitive_tail=float(sensitive[tail].sum()),
        nonsensitive_dominance=bool(ns_rule), sensitive_dominance=s_rule,
        config={"n": n, "k": k, "cells": cells})


@dataclass(frozen=True)
class TheoremScan:
    """Theorem 1 as N grows: the two tails for each N and their limits.

    Parameters
    ----------
    n, k : int, float
    cells : ndarray of int, shape (m,)
        The values of N (those with n/N < k).
    r : ndarray, shape (m,)
        Lemma 1's root for each N.
    nonsensitive_tail, sensitive_tail : ndarray, shape (m,)
    limit_nonsensitive, limit_sensitive : float
        The limits as N grows: r_inf (1 - k), with r_inf = (1 - k)^(1/n), and 1 - k.
    """

    n: int
    k: float
    cells: np.ndarray
    r: np.ndarray
    nonsensitive_tail: np.ndarray
    sensitive_tail: np.ndarray
    limit_nonsensitive: float
    limit_sensitive: float

    def __post_init__(self) -> None:
        freeze_array_fields(self)

    @property
    def holds(self) -> np.ndarray:
        """For each N, whether X_ns gives the closer bound."""
        return self.nonsensitive_tail < self.sensitive_tail

    @property
    def smallest_cells(self) -> int | None:
        """The smallest N in the scan from which on Theorem 1 holds (``None`` if it never does)."""
        holds = self.holds
        if not holds.size or not holds[-1]:
            return None
        failing = np.flatnonzero(~holds)
        return int(self.cells[failing[-1] + 1]) if failing.size else int(self.cells[0])

    def to_frame(self) -> pd.DataFrame:
        """One row per N: r, the two tails and whether the theorem holds."""
        return pd.DataFrame({"cells": self.cells, "r": self.r, "nonsensitive_tail": self.nonsensitive_tail,
                             "sensitive_tail": self.sensitive_tail, "theorem_holds": self.holds})

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dictionary."""
        return json_safe({"n": self.n, "k": self.k, **self.to_frame().to_dict(orient="list"),
                          "limit_nonsensitive": self.limit_nonsensitive, "limit_sensitive": self.limit_sensitive,
                          "smallest_cells": self.smallest_cells})


@validate_params({"n": "dominance_n", "k": "dominance_k",
                  "cells": NumberArray(PARAMETERS["contributions_n"], ndim=(1,))},
                 example=lambda: {"n": 1, "k": 0.6, "cells": [3, 4, 10]})
def theorem1_scan(n: int, k: float, cells: Sequence[int] | np.ndarray) -> TheoremScan:
    """The tails of Constructions 1 and 2 for several N (Theorem 1 of Domingo-Ferrer & Torra 2004).

    Parameters
    ----------
    n : int
    k : float
        In (0, 1).
    cells : array_like of int, shape (m,)
        Values of N; those with N <= n or n/N >= k (no Lemma 1 root) are dropped.

    Returns
    -------
    TheoremScan

    Raises
    ------
    InputError
        If no N in ``cells`` admits a Lemma 1 root.

    References
    ----------
    Domingo-Ferrer & Torra (2004), Theorem 1 and its proof (Eq A.2, A.3).

    Examples
    --------
    >>> scan = theorem1_scan(2, 0.7, range(3, 200))
    >>> scan.smallest_cells  # Theorem 1 holds from N = 4 on
    4
    """
    grid = cells
    if not np.all(grid == np.round(grid)):
        raise InputError("cells must be integers")
    grid = np.unique(grid.astype(int))
    grid = grid[(grid > n) & (k > n / grid)]
    if k >= 1 or grid.size == 0:
        raise InputError(f"no N in cells has n/N < k = {k:g} < 1 (n = {n})")
    flaws = [_flaw(n, k, int(c)) for c in grid]
    r_inf = (1.0 - k) ** (1.0 / n)
    return TheoremScan(
        n=n, k=k, cells=grid, r=np.array([f.r for f in flaws]),
        nonsensitive_tail=np.array([f.nonsensitive_tail for f in flaws]),
        sensitive_tail=np.array([f.sensitive_tail for f in flaws]),
        limit_nonsensitive=r_inf * (1.0 - k), limit_sensitive=1.0 - k)


@dataclass(frozen=True)
class CoalitionBound:
    """What a coalition of the 2nd..(n+1)th largest contributors learns about the largest.

    Parameters
    ----------
    contributions : ndarray, shape (N,)
        The cell's contributions, largest first.
    n : int
        Coalition size.
    largest : float
        The true largest contribution x_1.
    upper_bound : float
        Total minus the coalition's contributions.
    gap : float
        upper_bound - largest, the sum of the N - n - 1 smallest contributions.
    relative_gap : float
        gap / largest.
    sensitive : bool
        The (n,k)-dominance verdict on the cell.
    reason : str
    """

    contributions: np.ndarray
    n: int
    k: float
    largest: float
    upper_bound: float
    gap: float
    relative_gap: float
    sensitive: bool
    reason: str

    def __post_init__(self) -> None:
        freeze_array_fields(self)

    def to_frame(self) -> pd.DataFrame:
        """One row: the cell, its verdict and the coalition's bound."""
        return pd.DataFrame([{k: v for k, v in self.to_dict().items()}])

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dictionary."""
        return json_safe({"contributions": self.contributions, "n": self.n, "k": self.k, "largest": self.largest,
                          "upper_bound": self.upper_bound, "gap": self.gap, "relative_gap": self.relative_gap,
                          "sensitive": self.sensitive, "reason": self.reason})


@validate_params({"contributions": _CONTRIBUTIONS, "n": "dominance_n", "k": "dominance_k"},
                 example=lambda: {"contributions": [59.0, 40.0, 1.0]})
def coalition_bound(contributions: Sequence[float] | np.ndarray, n: int = 1, k: float = 0.6) -> CoalitionBound:
    """The (n,k)-dominance verdict on one cell and the upper bound its coalition gets on the largest contribution.

    Parameters
    ----------
    contributions : array_like, shape (N,)
        Non-negative contributions, any order, N >= n + 1.
    n : int, default 1
    k : float, default 0.6

    Returns
    -------
    CoalitionBound

    References
    ----------
    Domingo-Ferrer & Torra (2004), Example 1 (after Robertson & Ethier 2002) and Eq A.1.

    Examples
    --------
    >>> cell = coalition_bound([59, 40, 1], n=1, k=0.6)
    >>> cell.sensitive, cell.upper_bound, cell.gap
    (False, 60.0, 1.0)
    """
    values = contributions.reshape(-1)
    if values.size < n + 1:
        raise InputError(f"contributions: a coalition of the {n} second largest needs at least {n + 1} "
                         f"contributions, got {values.size}")
    return _coalition(values, n, k)


def _coalition(values: np.ndarray, n: int, k: float) -> CoalitionBound:
    verdict = apply_rule(["cell"] * values.size, values, "dominance", n=n, k=k)
    ordered = np.sort(values)[::-1]
    bound = float(ordered.sum() - ordered[1:n + 1].sum())
    largest = float(ordered[0])
    gap = bound - largest
    return CoalitionBound(contributions=ordered, n=n, k=k, largest=largest, upper_bound=bound, gap=gap,
                          relative_gap=gap / largest if largest > 0 else np.inf,
                          sensitive=bool(verdict.sensitive[0]), reason=verdict.reasons[0])


@dataclass(frozen=True)
class DominanceExample:
    """Example 1 of Domingo-Ferrer & Torra (2004): a non-sensitive and a sensitive cell side by side.

    Parameters
    ----------
    nonsensitive_cell, sensitive_cell : CoalitionBound
        The cells (59, 40, 1) and (61, 20, 19) with their verdicts and bounds.
    """

    nonsensitive_cell: CoalitionBound
    sensitive_cell: CoalitionBound

    @property
    def flawed(self) -> bool:
        """Whether the cell the rule lets through gives the closer bound on its largest contribution."""
        return (not self.nonsensitive_cell.sensitive and self.sensitive_cell.sensitive
                and self.nonsensitive_cell.relative_gap < self.sensitive_cell.relative_gap)

    def to_frame(self) -> pd.DataFrame:
        """Two rows, one per cell."""
        rows = [self.nonsensitive_cell.to_dict(), self.sensitive_cell.to_dict()]
        for row in rows:
            row["contributions"] = ", ".join(f"{v:g}" for v in row["contributions"])
        return pd.DataFrame(rows)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dictionary."""
        return {"nonsensitive_cell": self.nonsensitive_cell.to_dict(),
                "sensitive_cell": self.sensitive_cell.to_dict(), "flawed": self.flawed}


@validate_params({"k": "dominance_k", "nonsensitive": _CONTRIBUTIONS, "sensitive": _CONTRIBUTIONS},
                 example=lambda: {"k": 0.6})
def example1(k: float = 0.6, nonsensitive: Sequence[float] = (59, 40, 1),
             sensitive: Sequence[float] = (61, 20, 19)) -> DominanceExample:
    """Example 1 (Robertson & Ethier 2002): cells (59, 40, 1) and (61, 20, 19) under (1, k)-dominance.

    With k = 0.6 the first cell is not sensitive, yet its second largest
    contributor bounds the largest at 100 - 40 = 60; the second is sensitive
    and the bound is 100 - 20 = 80.

    Parameters
    ----------
    k : float, default 0.6
    nonsensitive, sensitive : sequence of float
        The two cells' contributions (the paper's by default).

    Returns
    -------
    DominanceExample

    References
    ----------
    Domingo-Ferrer & Torra (2004), Example 1; Domingo-Ferrer, Oganian & Torra, Example 1.

    Examples
    --------
    >>> example = example1()
    >>> example.nonsensitive_cell.upper_bound, example.sensitive_cell.upper_bound, example.flawed
    (60.0, 80.0, True)
    """
    cells = {"nonsensitive": nonsensitive.reshape(-1), "sensitive": sensitive.reshape(-1)}
    for name, values in cells.items():
        if values.size < 2:
            raise InputError(f"{name}: a cell of Example 1 needs at least 2 contributions, got {values.size}")
    return DominanceExample(_coalition(cells["nonsensitive"], 1, k), _coalition(cells["sensitive"], 1, k))
