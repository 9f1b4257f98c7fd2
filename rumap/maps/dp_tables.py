"""R-U maps of a table released with differential privacy, over the privacy loss epsilon.

For each epsilon the table's finest cells get the mechanism's noise at the
scale OpenDP's measurement needs (:func:`rumap.privacy.accounting.calibrate`)
and the table is published as :func:`rumap.tables.dp.dp_release` publishes it,
``replicates`` times from seeds drawn from ``seed``. R and U are averaged
over the replicates, with their standard errors:

- R (:data:`DP_TABLE_RISKS`): the share of the small cells (1 to ``small``
  records), or of the unit cells (one record), whose true count an intruder
  recovers exactly by rounding the published value (counts only);
- U (:data:`DP_TABLE_UTILITIES`): one minus the mean relative error of the
  non-empty finest cells, or one minus the relative error of the grand total.

Every map's ``config`` also holds, per epsilon, the other measures' means
(``unit_recovered``, ``small_recovered``, ``cell_relative_error``,
``total_relative_error``), the half-width of the attacker's interval of a
small finest cell (``interval_half_width``, 95%) and the share of the small
cells whose interval holds their true value (``interval_coverage``).

:func:`suppression_threshold_map` measures the same table protected by cell
suppression instead (the threshold rule's primaries, secondary suppression
over every equation) on the same R and U, so that the two maps share one
plane: a small cell is recovered when it is published or when the attacker's
LP interval of it is narrower than 1; a suppressed cell's relative error is 1
(all of it lost), a published one's 0.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from rumap._validation import SEED, Grid, InstanceOf, StrOptions, assumes_valid, validate_params
from rumap.errors import InputError
from rumap.maps.table_common import SMALL, common_columns, table_common_stats
from rumap.privacy.accounting import MECHANISMS, calibrate
from rumap.result import RUMap
from rumap.tables.dp import SMALL_CELL, DPTable, dp_release, finest_mask
from rumap.tables.ndtable import NDTable

__all__ = ["DP_TABLE_RISKS", "DP_TABLE_UTILITIES", "DP_TABLE_MEASURES", "dp_table_map", "release_measures",
           "suppression_threshold_map"]


@dataclass(frozen=True)
class _Measure:
    label: str
    key: str
    complement: bool = False  # U = 1 - the error


#: R of a DP table's map: a key of :func:`release_measures`, read as it is.
DP_TABLE_RISKS: dict[str, _Measure] = {
    "small_recovered": _Measure("R = share of small cells whose true count an intruder recovers", "small_recovered"),
    "unit_recovered": _Measure("R = share of one-record cells whose true count an intruder recovers",
                               "unit_recovered"),
}

#: U of a DP table's map: one minus an error of :func:`release_measures`.
DP_TABLE_UTILITIES: dict[str, _Measure] = {
    "cells": _Measure("U = 1 - mean relative error of the non-empty finest cells", "cell_relative_error", True),
    "total": _Measure("U = 1 - relative error of the grand total", "total_relative_error", True),
}

#: The measures of one release, the keys of :func:`release_measures`.
DP_TABLE_MEASURES = ("unit_recovered", "small_recovered", "interval_coverage", "cell_relative_error",
                     "total_relative_error")


@assumes_valid
def release_measures(release: DPTable) -> dict[str, float]:
    """R and U measures of one release: no small (unit) cell recovers none; NaN where an error has no cell.

    Parameters
    ----------
    release : DPTable

    Returns
    -------
    dict
        The keys of :data:`DP_TABLE_MEASURES`.
    """
    records = release.table.frequencies
    small = (records >= 1) & (records <= release.small)
    unit = records == 1
    exact = np.rint(release.published) == release.original
    low, high = release.intervals()
    covers = (low <= release.original) & (release.original <= high)
    utility = release.utility()

    def mean(values: np.ndarray, mask: np.ndarray, empty: float) -> float:
        return float(values[mask].mean()) if mask.any() else empty

    return {"unit_recovered": mean(exact, unit, 0.0), "small_recovered": mean(exact, small, 0.0),
            "interval_coverage": mean(covers, small, float("nan")),
            "cell_relative_error": float("nan") if utility["cell_relative_error"] is None
            else utility["cell_relative_error"],
            "total_relative_error": float("nan") if utility["total_relative_error"] is None
            else utility["total_relative_error"]}


def _standard_error(values: np.ndarray) -> float:
    """The standard error of the mean of the finite values (NaN with fewer than two)."""
    finite = values[np.isfinite(values)]
    return float(finite.std(ddof=1) / np.sqrt(finite.size)) if finite.size > 1 else float("nan")


def _map_example() -> dict[str, Any]:
    from rumap.tables.microdata import example_microdata
    from rumap.tables.ndtable import build_table

    table = build_table(example_microdata(), ["region", "size"])
    return {"table": table, "epsilons": [0.5, 2.0], "replicates": 3}


@validate_params({"table": InstanceOf(NDTable, "an NDTable of counts (see rumap.tables.ndtable.build_table)"),
                  "epsilons": Grid("privacy_loss"), "mechanism": StrOptions(MECHANISMS), "delta": [None, "risk_bound"],
                  "risk": StrOptions(DP_TABLE_RISKS), "utility": StrOptions(DP_TABLE_UTILITIES),
                  "replicates": "replicates", "seed": SEED, "small": "threshold"},
                 example=_map_example)
def dp_table_map(table: NDTable, epsilons: Sequence[float] | np.ndarray, mechanism: str = "laplace",
                 delta: float | None = None, risk: str = "small_recovered", utility: str = "cells",
                 replicates: int = 50, seed: int | None = 0, small: int = SMALL_CELL) -> RUMap:
    """The R-U map of a count table released with differential privacy, over epsilon (module notes).

    Parameters
    ----------
    table : NDTable
        A count table (``table.response`` None).
    epsilons : sequence of float
        The privacy losses of the map (epsilon; for a Gaussian mechanism the
        epsilon of (epsilon, delta)).
    mechanism : {"laplace", "discrete-laplace", "gaussian", "discrete-gaussian"}, default "laplace"
    delta : float, optional
        Gaussian only (default :data:`rumap.privacy.accounting.DEFAULT_DELTA`).
    risk : {"small_recovered", "unit_recovered"}, default "small_recovered"
    utility : {"cells", "total"}, default "cells"
    replicates : int, default 50
        Releases per epsilon.
    seed : int, optional
        Seeds every release (the map is reproducible); default 0.
    small : int, default 3
        Cells of 1 to ``small`` records are small.

    Returns
    -------
    RUMap
        ``parameter`` ``"epsilon"``, method ``"dp-table"``, knowledge
        ``"outsider"``, target the mechanism; ``config`` with every measure per epsilon, those every
        protection of a count table shares among them (:mod:`rumap.maps.table_common`).

    Examples
    --------
    >>> from rumap.tables.ndtable import build_table
    >>> from rumap.tables.microdata import example_microdata
    >>> table = build_table(example_microdata(), ["region", "size"])
    >>> m = dp_table_map(table, [0.1, 10.0], replicates=20)
    >>> bool(m.risk[0] < m.risk[1]), bool(m.utility[0] < m.utility[1])
    (True, True)
    """
    if table.response is not None:
        raise InputError("table: the map over epsilon is of a count table (its risk is a recovered count)")
    if seed is None:
        seed = 0
    seeds = np.random.SeedSequence(int(seed)).spawn(len(epsilons))
    r, u = DP_TABLE_RISKS[risk], DP_TABLE_UTILITIES[utility]
    columns: dict[str, list[float]] = {key: [] for key in DP_TABLE_MEASURES}
    columns["interval_half_width"] = []
    risks, utilities, risk_se, utility_se = [], [], [], []
    common_stats: list[np.ndarray] = []
    for epsilon, sequence in zip(np.asarray(epsilons, dtype=float), seeds, strict=True):
        loss = calibrate(mechanism, 1.0, epsilon=float(epsilon),
                         delta=delta if MECHANISMS[mechanism][0] == "make_gaussian" else None)
        rng = np.random.default_rng(sequence)
        rows, common = [], []
        release = None
        for _ in range(replicates):
            release = dp_release(table, loss, rng, small=small)
            rows.append(release_measures(release))
            common.append(table_common_stats(release.original, np.rint(release.published) == release.original,
                                             np.abs(release.published - release.original)))
        common_stats.append(np.array(common))
        frame = {key: np.array([row[key] for row in rows]) for key in DP_TABLE_MEASURES}
        for key in DP_TABLE_MEASURES:
            columns[key].append(float(np.nanmean(frame[key])) if np.isfinite(frame[key]).any() else float("nan"))
        small_finest = release.finest & (table.frequencies >= 1) & (table.frequencies <= small)  # type: ignore[union-attr]
        columns["interval_half_width"].append(float(release.half_widths()[small_finest].mean())  # type: ignore[union-attr]
                                              if small_finest.any() else float("nan"))
        risks.append(columns[r.key][-1])
        risk_se.append(_standard_error(frame[r.key]))
        values = 1.0 - frame[u.key] if u.complement else frame[u.key]
        utilities.append(float(np.nanmean(values)) if np.isfinite(values).any() else float("nan"))
        utility_se.append(_standard_error(values))
    config = {"mechanism": mechanism, "delta": delta, "replicates": replicates, "seed": seed, "small": small,
              "risk": risk, "utility": utility, "dims": list(table.dims), **columns, **common_columns(common_stats)}
    return RUMap(parameter="epsilon", values=np.asarray(epsilons, dtype=float), risk=risks, utility=utilities,
                 risk_se=risk_se, utility_se=utility_se, risk_label=r.label, utility_label=u.label,
                 method="dp-table", knowledge="outsider", target=mechanism, config=config)


def _suppression_example() -> dict[str, Any]:
    return {"table": _map_example()["table"], "thresholds": [2, 4]}


@validate_params({"table": InstanceOf(NDTable, "an NDTable of counts (see rumap.tables.ndtable.build_table)"),
                  "thresholds": Grid("threshold"), "protection": "protection", "risk": StrOptions(DP_TABLE_RISKS),
                  "utility": StrOptions(DP_TABLE_UTILITIES), "small": "threshold"},
                 example=_suppression_example)
def suppression_threshold_map(table: NDTable, thresholds: Sequence[int] | np.ndarray, protection: float = 10.0,
                              risk: str = "small_recovered", utility: str = "cells", small: int = SMALL_CELL) -> RUMap:
    """The R-U map of the table protected by cell suppression over the threshold rule's n, on a DP map's R and U.

    Parameters
    ----------
    table : NDTable
        A count table.
    thresholds : sequence of int
        The threshold rule's n: cells of fewer records are primaries.
    protection : float, default 10
        The protection level P (%) of secondary suppression.
    risk, utility : str
        As for :func:`dp_table_map`.
    small : int, default 3

    Returns
    -------
    RUMap
        ``parameter`` ``"threshold"``, method ``"suppression"``, knowledge ``"outsider"``; ``config`` also
        holds the measures every protection of a count table shares (:mod:`rumap.maps.table_common`).

    Examples
    --------
    >>> from rumap.tables.ndtable import build_table
    >>> from rumap.tables.microdata import example_microdata
    >>> m = suppression_threshold_map(build_table(example_microdata(), ["region", "size"]), [1, 4])
    >>> m.risk.tolist(), bool(m.utility[0] > m.utility[1])
    ([1.0, 0.0], True)
    """
    from rumap.tables.pattern_audit import audit_pattern
    from rumap.tables.table_suppression import suppress_table

    if table.response is not None:
        raise InputError("table: the map is of a count table (its risk is a recovered count)")
    records = table.frequencies
    small_cells = (records >= 1) & (records <= small)
    audited_cells = small_cells | ((records >= 1) & (records <= SMALL))  # and the shared measures' small cells
    unit = records == 1
    finest = finest_mask(table.hierarchies) & (table.values != 0)
    equations = table.equations()
    r, u = DP_TABLE_RISKS[risk], DP_TABLE_UTILITIES[utility]
    columns: dict[str, list[float]] = {key: [] for key in (*DP_TABLE_MEASURES, "suppressed")}
    common = []
    for threshold in np.asarray(thresholds, dtype=int):
        result = suppress_table(table, table.primary_mask("threshold", threshold=int(threshold)),
                                protection=protection)
        suppressed = result.suppressed
        audited = np.nonzero(audited_cells & suppressed)[0]
        recovered = audited_cells & ~suppressed
        if audited.size:
            low, high = audit_pattern(table.values, equations, suppressed, audited)
            recovered[audited] = (high - low) < 1.0
        measures = {"unit_recovered": float(recovered[unit].mean()) if unit.any() else 0.0,
                    "small_recovered": float(recovered[small_cells].mean()) if small_cells.any() else 0.0,
                    "interval_coverage": 1.0,
                    "cell_relative_error": float(suppressed[finest].mean()) if finest.any() else float("nan"),
                    "total_relative_error": float(suppressed[0]), "suppressed": float(suppressed.sum())}
        for key, value in measures.items():
            columns[key].append(value)
        common.append(np.array([table_common_stats(records, recovered, np.where(suppressed, np.nan, 0.0))]))
    risks = columns[r.key]
    utilities = [1.0 - v if u.complement else v for v in columns[u.key]]
    config = {"protection": protection, "small": small, "risk": risk, "utility": utility, "dims": list(table.dims),
              **columns, **common_columns(common)}
    return RUMap(parameter="threshold", values=np.asarray(thresholds, dtype=float), risk=risks, utility=utilities,
                 risk_label=r.label, utility_label=u.label, method="suppression", knowledge="outsider",
                 target="threshold rule", config=config)
