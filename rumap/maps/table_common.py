"""Measures of risk and utility shared by every protection of a count table, so that their maps overlay.

Cell suppression, controlled rounding, the cell key method and noise with
differential privacy each have R and U measures of their own (the audit
interval's 1/log2 m, the share of counts 1 and 2 recovered, the relative
error of the finest cells, ...). Each map of a count table also measures
every protected table, cells and totals alike, on one footing:

- **risk**: the share of the small cells (1 to :data:`SMALL` records) whose
  true count an intruder recovers exactly, from the published value (the
  value itself, or the value rounded to a whole number) or from the other
  published cells (the table's equations narrowing a suppressed cell to one
  count; differencing two tables of the cell key method);
- **utility**: ``U = 1 -`` the mean, over the non-empty cells and totals, of
  the relative error ``min(1, |published - true| / true)``; a suppressed cell
  loses all of its value (error 1), and no cell's error counts more than that.

A map function of a protection stores these per value of its parameter in
its map's ``config`` (:data:`COMMON_KEYS`); :func:`table_common_curve` reads
them back as a curve of their own, which the dashboard's Compare and Pareto
overlay with the other maps that have one.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from rumap._validation import InstanceOf, assumes_valid, validate_params
from rumap.result import RUMap

__all__ = ["SMALL", "TABLE_COMMON_RISK_LABEL", "TABLE_COMMON_UTILITY_LABEL", "TABLE_COMMON_KNOWLEDGE",
           "TABLE_COMMON_WORDS", "COMMON_KEYS", "table_common_stats", "common_columns", "table_common_curve"]

#: A small cell has 1 to SMALL records.
SMALL = 3
TABLE_COMMON_RISK_LABEL = f"R = share of small counts (1 to {SMALL}) an intruder recovers exactly"
TABLE_COMMON_UTILITY_LABEL = "U = 1 − mean relative error of the cells and totals"
#: The ``knowledge`` of a common curve of a table.
TABLE_COMMON_KNOWLEDGE = "common table measures"
#: The measures in a committee's words.
TABLE_COMMON_WORDS = (f"R is the share of the table's small counts (cells and totals of 1 to {SMALL} records) whose "
                      "true value an intruder finds exactly: published as they are, read by rounding a noisy value, "
                      "or worked out from the other published cells (the table's equations around a suppressed "
                      "cell, two tables of the cell key method that differ by one category). U is one minus the "
                      "mean relative error of the non-empty cells and totals: a suppressed cell loses all of its "
                      "value, a perturbed or noisy one |published - true| / true, at most 1.")
#: The keys of a map's ``config`` that hold its common measures per value (and their standard errors).
COMMON_KEYS = ("common_risk", "common_utility", "common_risk_se", "common_utility_se")


@assumes_valid
def table_common_stats(counts: np.ndarray, recovered: np.ndarray, error: np.ndarray) -> tuple[float, float]:
    """The common risk and utility of one protected count table (module notes).

    Parameters
    ----------
    counts : ndarray
        Each cell's (and total's) true count of records.
    recovered : ndarray of bool
        Whether the intruder recovers each one's count exactly.
    error : ndarray
        Each one's absolute error ``|published - true|``; NaN (or inf) where it is not published.

    Returns
    -------
    risk, utility : float
        The risk 0 when the table has no small cell; the utility 1 when it has no non-empty cell.

    Examples
    --------
    >>> import numpy as np
    >>> counts = np.array([1.0, 2.0, 10.0, 13.0])
    >>> table_common_stats(counts, np.array([True, False, True, True]), np.array([0.0, np.nan, 1.0, 1.0]))
    (0.5, 0.7057692307692307)
    """
    counts = np.asarray(counts, dtype=float).reshape(-1)
    small = (counts >= 1) & (counts <= SMALL)
    risk = float(np.asarray(recovered, dtype=bool).reshape(-1)[small].mean()) if small.any() else 0.0
    filled = counts > 0
    if not filled.any():
        return risk, 1.0
    relative = np.asarray(error, dtype=float).reshape(-1)[filled] / counts[filled]
    relative = np.where(np.isfinite(relative), np.minimum(relative, 1.0), 1.0)
    return risk, float(1.0 - relative.mean())


@assumes_valid
def common_columns(stats: Sequence[np.ndarray]) -> dict[str, list[float]]:
    """The config entries of :data:`COMMON_KEYS` from each value's replicates of :func:`table_common_stats`.

    Parameters
    ----------
    stats : sequence of ndarray, each of shape (r, 2)
        Per value of the map's parameter, each replicate's risk and utility.

    Returns
    -------
    dict
        The means and their standard errors (0 for one replicate).

    Examples
    --------
    >>> import numpy as np
    >>> common_columns([np.array([[0.5, 0.9], [0.3, 0.7]])])["common_risk"]
    [0.4]
    """
    out: dict[str, list[float]] = {key: [] for key in COMMON_KEYS}
    for s in stats:
        s = np.asarray(s, dtype=float).reshape(-1, 2)
        se = s.std(axis=0, ddof=1) / np.sqrt(s.shape[0]) if s.shape[0] > 1 else np.zeros(2)
        for key, value in zip(COMMON_KEYS, (*s.mean(axis=0), *se), strict=True):
            out[key].append(float(value))
    return out


@validate_params({"m": InstanceOf(RUMap, "an RUMap")},
                 example=lambda: {"m": RUMap(parameter="P", values=[1.0], risk=[0.1], utility=[0.9])})
def table_common_curve(m: RUMap) -> RUMap | None:
    """A table map's curve on the common measures, or None when its map has none (a table of sums).

    Parameters
    ----------
    m : RUMap
        A map whose ``config`` holds :data:`COMMON_KEYS`.

    Returns
    -------
    RUMap or None
        Same parameter, values and method, no target; knowledge :data:`TABLE_COMMON_KNOWLEDGE`; the efficiency
        is the utility (a table published as it is keeps all of it).

    Examples
    --------
    >>> m = RUMap(parameter="V", values=[1.0, 2.0], risk=[0.5, 0.4], utility=[0.9, 0.8], method="ckm",
    ...           config={"common_risk": [0.3, 0.2], "common_utility": [0.95, 0.9]})
    >>> c = table_common_curve(m)
    >>> c.risk.tolist(), c.knowledge
    ([0.3, 0.2], 'common table measures')
    """
    if "common_risk" not in m.config or "common_utility" not in m.config:
        return None
    utility = m.config["common_utility"]
    return RUMap(parameter=m.parameter, values=m.values, risk=m.config["common_risk"], utility=utility,
                 risk_se=m.config.get("common_risk_se"), utility_se=m.config.get("common_utility_se"),
                 efficiency=utility, risk_label=TABLE_COMMON_RISK_LABEL, utility_label=TABLE_COMMON_UTILITY_LABEL,
                 method=m.method, knowledge=TABLE_COMMON_KNOWLEDGE,
                 config={key: value for key, value in m.config.items() if key not in COMMON_KEYS})
