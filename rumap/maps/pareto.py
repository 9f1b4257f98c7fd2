"""Choosing among the points of several R-U maps: the Pareto frontier and the best point under a risk bound.

A point (U, R) of a map *beats* another if it has at least the utility and at
most the risk, and is strictly better in one of them. The frontier is the set of
points no other point beats: the only parameter choices an agency should
consider, whatever its risk bound. Under a maximum tolerable risk ``R_max`` the
best choice is the frontier point of highest utility with ``R <= R_max``.

Comparing points only makes sense when the maps measure R and U the same way;
the functions here refuse maps whose risk or utility labels differ. "More
utility" follows the measure's direction (:attr:`rumap.maps.utility.UtilityMeasure.higher_is_better`).

References
----------
Duncan, Keller-McNulty & Stokes (2001), Section 2: "the agency chooses the
parameter that gives the most utility among those with tolerable risk".
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from rumap._validation import ListOf, check_scalar, validate_params
from rumap.errors import InputError
from rumap.maps.recommend import recommend
from rumap.maps.utility import higher_is_better
from rumap.result import RUMap, json_safe

__all__ = ["MapPoints", "map_points", "pareto_frontier", "best_under_risk", "GridChoice"]


def _example() -> dict[str, Any]:
    lam = np.array([0.1, 0.5, 1.0])
    return {"maps": [RUMap(parameter="lambda2", values=lam, risk=1 / lam, utility=200 / (1 + lam), knowledge="record")]}


@dataclass(frozen=True)
class MapPoints:
    """Every (U, R) point of several maps, flattened; arrays of shape (N,).

    Attributes
    ----------
    utility, risk, value : ndarray
        The point's utility, risk and masking parameter value.
    map_index : ndarray of int
        Which of the input maps the point comes from.
    labels, parameters, methods : tuple of str
        Per input map: its label, parameter name and method.
    higher_is_better : bool
        The direction of the maps' common utility measure (its registry record).
    """

    utility: np.ndarray
    risk: np.ndarray
    value: np.ndarray
    map_index: np.ndarray
    labels: tuple[str, ...]
    parameters: tuple[str, ...]
    methods: tuple[str, ...]
    higher_is_better: bool = True

    @property
    def score(self) -> np.ndarray:
        """The utility in its direction: larger is always better."""
        return self.utility if self.higher_is_better else -self.utility

    def to_frame(self, rows: np.ndarray | None = None) -> pd.DataFrame:
        """The points as a table (``rows`` selects some of them)."""
        idx = np.arange(self.utility.size) if rows is None else np.asarray(rows, dtype=int)
        maps = self.map_index[idx]
        return pd.DataFrame({
            "map": [self.labels[i] for i in maps],
            "method": [self.methods[i] for i in maps],
            "parameter": [self.parameters[i] for i in maps],
            "value": self.value[idx],
            "utility": self.utility[idx],
            "risk": self.risk[idx],
        })


@validate_params({"maps": ListOf(RUMap, "a list or tuple of RUMap"), "labels": [None, ListOf(str, "a list or tuple of names", 0)]}, example=_example)
def map_points(maps: Sequence[RUMap], labels: Sequence[str] | None = None) -> MapPoints:
    """Flatten maps into one set of points, after checking they share R and U measures.

    Parameters
    ----------
    maps : sequence of RUMap
    labels : sequence of str, optional
        A name per map (default ``map.label``).

    Raises
    ------
    InputError
        No maps, or maps with different risk or utility labels.
    """
    if not maps:
        raise InputError("no maps to compare")
    labels = [m.label for m in maps] if labels is None else list(labels)
    if len(labels) != len(maps):
        raise InputError(f"got {len(labels)} labels for {len(maps)} maps")
    for m in maps[1:]:
        if (m.risk_label, m.utility_label) != (maps[0].risk_label, maps[0].utility_label):
            raise InputError(f"maps measure R or U differently ({maps[0].risk_label!r} / {maps[0].utility_label!r} "
                             f"vs {m.risk_label!r} / {m.utility_label!r}); compare maps on common measures")
    return MapPoints(
        utility=np.concatenate([m.utility for m in maps]),
        risk=np.concatenate([m.risk for m in maps]),
        value=np.concatenate([m.values for m in maps]),
        map_index=np.concatenate([np.full(m.values.size, i) for i, m in enumerate(maps)]),
        labels=tuple(labels),
        parameters=tuple(m.parameter for m in maps),
        methods=tuple(m.method for m in maps),
        higher_is_better=higher_is_better(maps[0]),
    )


@validate_params({"maps": ListOf(RUMap, "a list or tuple of RUMap"), "labels": [None, ListOf(str, "a list or tuple of names", 0)]}, example=_example)
def pareto_frontier(maps: Sequence[RUMap], labels: Sequence[str] | None = None) -> pd.DataFrame:
    """The points of all maps that no other point beats, by decreasing utility.

    Parameters
    ----------
    maps : sequence of RUMap
        Maps on common R and U measures.
    labels : sequence of str, optional

    Returns
    -------
    DataFrame
        Columns ``map, method, parameter, value, utility, risk``; one row per
        frontier point (ties in both U and R keep the first point), sorted by
        decreasing utility and so increasing risk.

    Notes
    -----
    Sort the points by decreasing U (ties: increasing R); a point is on the
    frontier exactly when its R is below the smallest R of every point before
    it. Points with a NaN coordinate are left out; an infinite risk is
    dominated by any finite one at the same or higher utility.
    """
    pts = map_points(maps, labels)
    ok = ~(np.isnan(pts.utility) | np.isnan(pts.risk))
    idx = np.flatnonzero(ok)
    order = idx[np.lexsort((pts.risk[idx], -pts.score[idx]))]
    risk_sorted = pts.risk[order]
    best_before = np.concatenate([[np.inf], np.minimum.accumulate(risk_sorted)[:-1]])
    on_front = risk_sorted < best_before
    if order.size and not on_front.any():  # every risk infinite: the highest-utility point stands alone
        on_front[0] = True
    return pts.to_frame(order[on_front]).reset_index(drop=True)


@dataclass(frozen=True)
class GridChoice:
    """The best point of a set of maps under a risk bound.

    Attributes
    ----------
    max_risk : float
    reachable : bool
        False when no point has ``R <= max_risk``.
    map, method, parameter : str
    value, utility, risk : float
        The chosen point (NaN when not reachable).
    map_index : int
        Index of the chosen map (-1 when not reachable).
    """

    max_risk: float
    reachable: bool
    map: str = ""
    method: str = ""
    parameter: str = ""
    value: float = float("nan")
    utility: float = float("nan")
    risk: float = float("nan")
    map_index: int = -1

    def to_dict(self) -> dict:
        return json_safe({"max_risk": self.max_risk, "reachable": self.reachable, "map": self.map,
                          "method": self.method, "parameter": self.parameter, "value": self.value,
                          "utility": self.utility, "risk": self.risk})


@validate_params({"maps": ListOf(RUMap, "a list or tuple of RUMap"), "labels": [None, ListOf(str, "a list or tuple of names", 0)], "max_risk": "max_risk"}, example=lambda: {**_example(), "max_risk": 5.0})
def best_under_risk(maps: Sequence[RUMap], max_risk: float, labels: Sequence[str] | None = None) -> GridChoice:
    """The point of highest utility with ``R <= max_risk`` over all given maps.

    Each map's point is the core's rule (:func:`rumap.maps.recommend.recommend`,
    judged by the mean risk: these maps carry no replicates); across maps the
    most utility in the measure's direction wins, ties going to the lower risk,
    then to the earlier map. The choice is among the computed grid points; a
    finer grid gets closer to the exact boundary (for analytic maps
    :func:`rumap.maps.recommend.recommend_exact` solves it exactly).

    Parameters
    ----------
    maps : sequence of RUMap
    max_risk : float
        The maximum tolerable risk.
    labels : sequence of str, optional
        Names of the maps (default their labels).

    Returns
    -------
    GridChoice
        ``reachable = False`` when no point has ``R <= max_risk``.
    """
    max_risk = check_scalar("max_risk", max_risk)
    pts = map_points(maps, labels)
    best: tuple | None = None
    for i, m in enumerate(maps):
        chosen = recommend([m], max_risk, "mean")
        if not chosen.feasible:
            continue
        score = chosen.utility if pts.higher_is_better else -chosen.utility
        key = (score, -chosen.risk, -i)
        if best is None or key > best[0]:
            best = (key, i, chosen)
    if best is None:
        return GridChoice(max_risk=max_risk, reachable=False)
    _, i, chosen = best
    return GridChoice(max_risk=max_risk, reachable=True, map=pts.labels[i], method=pts.methods[i],
                      parameter=pts.parameters[i], value=float(chosen.value), utility=float(chosen.utility),
                      risk=float(chosen.risk), map_index=i)
