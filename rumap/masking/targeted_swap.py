"""Targeted record swapping of households across a geographic hierarchy, as sdcMicro's ``recordSwap``.

Households are the units swapped. A record is at risk at a level of the
hierarchy (``region > district > municipality``: level 1 is the region,
level 2 region and district, ...) when fewer than ``k`` records share its
area at that level and its key variables. Every household holding a record
at risk is swapped, and households drawn at random from the others join them
until the swapped households (both of each pair) reach ``swaprate`` of all
households. Each is paired, in random order, with a household not yet
swapped that agrees with it on a set of similarity variables (the sets tried
in order) and lies in another area: first another area of the lowest level
within the same area one level up (another municipality of the district),
then at the levels above, up to another region. The pair exchange their
geographic variables and their carry-along variables; every other variable
stays. The hierarchy, similarity and carry-along variables are household
variables: one value per household.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from rumap._validation import SEED, InstanceOf, assumes_valid, validate_params
from rumap.errors import InputError
from rumap.result import json_safe

__all__ = ["SwapResult", "targeted_swap"]

#: Random probes of a bucket before its households are scanned in order.
_PROBES = 8


@dataclass(frozen=True)
class SwapResult:
    """Households swapped by :func:`targeted_swap`.

    Parameters
    ----------
    data : pandas.DataFrame
        The swapped file (same rows and columns as the input).
    pairs : pandas.DataFrame
        One row per swapped pair: ``household``, ``partner`` (identifiers),
        ``level`` (the level whose areas differ: 1 = the top) and
        ``similar`` (which similarity set matched, 1-based).
    households : int
        Households in the file.
    records_swapped : dict
        Records whose geography changed, per level of their pair (1 = the top).
    at_risk : dict
        Households at risk per level (one of their records is at risk there).
    unswapped_at_risk : int
        Households at risk left unswapped: no household agreeing on any
        similarity set remained in another area at any level.
    config : mapping
    """

    data: pd.DataFrame
    pairs: pd.DataFrame
    households: int
    records_swapped: dict[int, int]
    at_risk: dict[int, int]
    unswapped_at_risk: int
    config: dict[str, Any] = field(default_factory=dict)

    @property
    def swapped_households(self) -> int:
        """Households swapped (two per pair)."""
        return 2 * int(self.pairs.shape[0])

    def to_dict(self) -> dict[str, Any]:
        """Counts per level, the swapped share, and the households at risk left unswapped and why."""
        levels = self.config.get("hierarchy", [])
        per_level = {name: {"households": 2 * int((self.pairs["level"] == i + 1).sum()),
                            "records": int(self.records_swapped.get(i + 1, 0)),
                            "households_at_risk": int(self.at_risk.get(i + 1, 0))}
                     for i, name in enumerate(levels)}
        return json_safe({
            "households": self.households, "swapped_households": self.swapped_households,
            "swapped_share": self.swapped_households / self.households if self.households else 0.0,
            "records_swapped": int(sum(self.records_swapped.values())), "levels": per_level,
            "unswapped_at_risk": self.unswapped_at_risk,
            "unswapped_reason": ("no household agreeing on the similarity variables was left in another area at any "
                                 "level" if self.unswapped_at_risk else None),
            "config": dict(self.config)})


def _household_values(frame: pd.DataFrame, hh: np.ndarray, columns: Sequence[str], what: str) -> pd.DataFrame:
    """One row per household (in the order of ``hh``'s codes) of ``columns``, refused where a household varies."""
    sub = frame[list(columns)]
    first = sub.iloc[np.unique(hh, return_index=True)[1]].reset_index(drop=True)
    for c in columns:
        codes = pd.factorize(sub[c], use_na_sentinel=False)[0]
        lo = pd.Series(codes).groupby(hh).transform("min").to_numpy()
        hi = pd.Series(codes).groupby(hh).transform("max").to_numpy()
        bad = np.flatnonzero(lo != hi)
        if bad.size:
            raise InputError(f"{what} {c!r}: the household of row {int(bad[0]) + 1} has more than one value; "
                             "it must be one per household")
    return first


def _bucket_codes(table: pd.DataFrame) -> np.ndarray:
    """One integer code per distinct row of ``table``."""
    if table.shape[1] == 0:
        return np.zeros(table.shape[0], dtype=np.int64)
    return table.groupby(list(table.columns), sort=False, dropna=False).ngroup().to_numpy()


@assumes_valid
def swap_example() -> dict[str, Any]:
    """A small file of households and the arguments of :func:`targeted_swap` on it (the examples' data).

    Returns
    -------
    dict
    """
    return {"data": pd.DataFrame({"hid": [1, 1, 2, 3, 3, 4], "region": ["a", "a", "a", "b", "b", "b"],
                                  "district": ["a1", "a1", "a2", "b1", "b1", "b2"],
                                  "sex": ["f", "m", "f", "m", "f", "m"], "size": [2, 2, 1, 2, 2, 1]}),
            "hierarchy": ["region", "district"], "keys": ["sex"], "household": "hid", "similar": [["size"]],
            "k": 2, "swaprate": 0.5, "seed": 1}


@validate_params({"data": InstanceOf(pd.DataFrame, "a pandas DataFrame"), "k": "k", "swaprate": "swaprate",
                  "seed": SEED}, example=swap_example)
def targeted_swap(data: pd.DataFrame, hierarchy: Sequence[str], keys: Sequence[str], household: str,
                  similar: Sequence[Sequence[str]], *, carry_along: Sequence[str] = (), k: int = 3,
                  swaprate: float = 0.05, seed: int | np.random.Generator | None = None) -> SwapResult:
    """Targeted record swapping of households (sdcMicro's ``recordSwap``).

    Parameters
    ----------
    data : pandas.DataFrame
        One record (person) per row.
    hierarchy : sequence of str
        The geographic variables, top level first.
    keys : sequence of str
        The key variables of the risk.
    household : str
        The household identifier.
    similar : sequence of sequences of str
        Sets of similarity variables, tried in order (an empty set matches any household).
    carry_along : sequence of str
        Household variables swapped with the geography.
    k : int, default 3
        A record is at risk at a level where fewer than k records share its area and keys.
    swaprate : float, default 0.05
        Least share of households swapped.
    seed : int or numpy.random.Generator, optional

    Returns
    -------
    SwapResult

    Raises
    ------
    InputError
        A missing column, a hierarchy, similarity or carry-along variable
        that varies within a household.

    Examples
    --------
    >>> r = targeted_swap(**swap_example())
    >>> r.swapped_households, sorted(r.data["region"]) == sorted(swap_example()["data"]["region"])
    (4, True)
    """
    hierarchy, keys = list(hierarchy), list(keys)
    sets = [list(s) for s in similar] or [[]]
    carry = list(carry_along)
    if not hierarchy:
        raise InputError("hierarchy: give at least one geographic variable")
    for name, cols in (("hierarchy", hierarchy), ("keys", keys), ("household", [household]),
                       ("similar", [c for s in sets for c in s]), ("carry_along", carry)):
        for c in cols:
            if c not in data.columns:
                raise InputError(f"{name}: no column {c!r} in the data")
    overlap = set(carry) & set(hierarchy)
    if overlap:
        raise InputError(f"carry_along: {sorted(overlap)[0]!r} is already a hierarchy variable")
    rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
    hh, labels = pd.factorize(data[household], sort=True, use_na_sentinel=False)
    n_hh = len(labels)
    moved = hierarchy + carry
    house = _household_values(data, hh, list(dict.fromkeys(moved + [c for s in sets for c in s])), "household variable")
    # risk: records sharing area and keys at each level
    levels = len(hierarchy)
    risky_level = np.zeros((n_hh, levels), dtype=bool)
    for lev in range(levels):
        group = data[hierarchy[:lev + 1] + keys]
        counts = group.groupby(list(group.columns), sort=False, dropna=False).transform("size") if keys else \
            group.groupby(list(group.columns), sort=False, dropna=False)[hierarchy[0]].transform("size")
        at_risk = np.asarray(counts).reshape(-1) < k
        risky_level[:, lev] = np.bincount(hh, weights=at_risk, minlength=n_hh) > 0
    risky = risky_level.any(axis=1)
    target = math.ceil(swaprate * n_hh)
    n_risky = int(risky.sum())
    # every household at risk, then others at random until the swapped households reach the target
    chosen = np.concatenate([rng.permutation(np.flatnonzero(risky)), rng.permutation(np.flatnonzero(~risky))])
    area = [_bucket_codes(house[hierarchy[:lev + 1]]) for lev in range(levels)]
    swapped = np.zeros(n_hh, dtype=bool)
    partner = np.full(n_hh, -1)
    pair_level = np.zeros(n_hh, dtype=np.int64)
    pair_set = np.zeros(n_hh, dtype=np.int64)
    buckets: dict[tuple[int, int], tuple[np.ndarray, np.ndarray, np.ndarray]] = {}

    def bucket_of(s: int, lev: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        if (s, lev) not in buckets:
            sim = _bucket_codes(house[sets[s]])
            parent = area[lev - 1] if lev > 0 else np.zeros(n_hh, dtype=np.int64)
            code = _bucket_codes(pd.DataFrame({"s": sim, "p": parent}))
            order = rng.permutation(n_hh)
            order = order[np.argsort(code[order], kind="stable")]
            starts = np.searchsorted(code[order], np.arange(code.max() + 2))
            buckets[(s, lev)] = (code, order, starts)
        return buckets[(s, lev)]

    cursors: dict[tuple[int, int, int], int] = {}
    done = 0
    for rank, h in enumerate(chosen):
        if rank >= n_risky and done >= target:
            break
        if swapped[h]:
            continue
        found = -1
        for s in range(len(sets)):
            for lev in range(levels - 1, -1, -1):
                code, order, starts = bucket_of(s, lev)
                b = code[h]
                lo, hi = starts[b], starts[b + 1]
                mine = area[lev][h]
                for j in order[rng.integers(lo, hi, size=_PROBES)] if hi > lo else ():
                    if not swapped[j] and area[lev][j] != mine:
                        found = j
                        break
                if found < 0:
                    pos = cursors.get((s, lev, b), lo)
                    while pos < hi and swapped[order[pos]]:
                        pos += 1
                    cursors[(s, lev, b)] = pos
                    for j in order[pos:hi]:
                        if not swapped[j] and area[lev][j] != mine:
                            found = j
                            break
                if found >= 0:
                    pair_level[h] = lev + 1
                    pair_set[h] = s + 1
                    break
            if found >= 0:
                break
        if found >= 0:
            swapped[h] = swapped[found] = True
            done += 2
            partner[h], partner[found] = found, h
            pair_level[found] = pair_level[h]
    # exchange the household variables moved with the geography
    out = data.copy()
    rows_partner = partner[hh]
    moving = rows_partner >= 0
    for c in moved:
        new = data[c].to_numpy().copy()
        new[moving] = house[c].to_numpy()[rows_partner[moving]]
        out[c] = new
    firsts = np.flatnonzero(partner >= 0)
    firsts = firsts[firsts < partner[firsts]]
    labels = np.asarray(labels)
    pairs = pd.DataFrame({"household": labels[firsts], "partner": labels[partner[firsts]],
                          "level": pair_level[firsts], "similar": pair_set[firsts]})
    record_level = pair_level[hh]
    records = {lev + 1: int(((record_level == lev + 1) & moving).sum()) for lev in range(levels)}
    at_risk = {lev + 1: int(risky_level[:, lev].sum()) for lev in range(levels)}
    config = {"hierarchy": hierarchy, "keys": keys, "household": household, "similar": sets, "carry_along": carry,
              "k": k, "swaprate": swaprate, "seed": seed if isinstance(seed, int) else None}
    return SwapResult(out, pairs, n_hh, records, at_risk, int((risky & ~swapped).sum()), config)
