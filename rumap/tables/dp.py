"""Tables protected by differential privacy: noise on the finest cells, every subtotal the sum of its noisy children.

A record falls in exactly one finest cell (the product of the dimensions'
most detailed codes), so adding or removing it changes the vector of finest
cells by 1 in one place (a count) or by at most ``max(|L|, |U|)`` (a sum of
contributions clamped to the declared bounds ``[L, U]``): that is the
sensitivity, in the L1 and the L2 norm alike. The mechanism's noise, at the
scale OpenDP's measurement needs for the privacy loss asked for
(:func:`rumap.privacy.accounting.calibrate`), is added to the finest cells
only; every subtotal and the grand total ``Total`` is the sum of its noisy
children, so the published table is additive by construction and costs no
further privacy (post-processing).

Counts are then made non-negative integers that still add up: the least-squares
projection of the noisy finest cells onto the non-negative cells with the same
grand total (the projection onto a simplex, ``max(y - theta, 0)``), then
cumulative rounding in the table's order (each finest cell the difference of
the rounded running sums), which keeps the grand total at the nearest integer
and every run of consecutive finest cells, so every subtotal of the last
dimension, within 1 of its projected value.

The noise is drawn from ``numpy.random.default_rng(seed)``
(:mod:`rumap.privacy.samplers`), the same numbers for the same seed; without a
seed OpenDP's own sampler draws it. The release says which.

The dimensions' codes, and so the table's cells, are taken as public: a code
seen only in the data (not given by a hierarchy) could reveal a record, so
give every code by its hierarchy when the codes themselves are confidential.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from rumap._validation import SEED, InstanceOf, Labels, StrOptions, Table, assumes_valid, validate_params
from rumap.budget import DEFAULT_BUDGET, WorkBudget
from rumap.errors import InputError
from rumap.privacy.accounting import MECHANISMS, PrivacyLoss, calibrate, opendp_release
from rumap.privacy.samplers import NOISE_VARIANCES, draw_noise
from rumap.result import json_safe
from rumap.tables.hierarchy import TOTAL, Hierarchy
from rumap.tables.ndtable import NDTable, build_table

__all__ = ["DPTable", "dp_table", "dp_release", "SAMPLER_NAMES", "SMALL_CELL", "INTERVAL_LEVEL"]

#: Who drew the noise: numpy's generator from the seed, or OpenDP's sampler (no seed).
SAMPLER_NAMES = ("numpy", "opendp")

#: Cells of a count table with at most this many records are small (their true count at risk).
SMALL_CELL = 3

#: The attacker's interval of a cell holds its true value with this probability (over the noise).
INTERVAL_LEVEL = 0.95

#: The method of a DP table, in its JSON.
METHOD = "dp-noise"


@assumes_valid
def finest_mask(hierarchies: Sequence[Hierarchy]) -> np.ndarray:
    """The finest cells (every dimension at a leaf code), in C order.

    Parameters
    ----------
    hierarchies : sequence of Hierarchy
        The table's dimensions.

    Returns
    -------
    ndarray of bool
        One entry per cell of the table, True for a finest cell.
    """
    inner = [set(h.subtotals) for h in hierarchies]
    masks = [np.array([False] + [c not in parents for c in h.codes]) for h, parents in zip(hierarchies, inner,
                                                                                           strict=True)]
    out = masks[0]
    for mask in masks[1:]:
        out = np.logical_and.outer(out, mask)
    return np.asarray(out).ravel()


def _sum_up(finest: np.ndarray, hierarchies: Sequence[Hierarchy]) -> np.ndarray:
    """Every subtotal and total as the sum of its children, from values on the finest cells (0 elsewhere)."""
    value = finest.reshape([len(h.codes) + 1 for h in hierarchies]).astype(float)
    for d, h in enumerate(hierarchies):
        levels = dict(zip(h.codes, h.levels, strict=True))
        for parent in sorted(h.subtotals, key=lambda c: -levels[c]) + [TOTAL]:
            p = 0 if parent == TOTAL else h.position(parent) + 1
            children = [h.position(c) + 1 for c in h.children(parent)]
            value[(slice(None),) * d + (p,)] = value[(slice(None),) * d + (children,)].sum(axis=d)
    return value.ravel()


def _simplex_projection(y: np.ndarray, total: float) -> np.ndarray:
    """The least-squares projection of y onto {x >= 0, sum x = total} (total >= 0): max(y - theta, 0)."""
    if total <= 0 or y.size == 0:
        return np.zeros_like(y, dtype=float)
    u = np.sort(y)[::-1]
    cumulative = np.cumsum(u) - total
    j = np.arange(1, u.size + 1)
    last = int(np.nonzero(u - cumulative / j > 0)[0][-1])
    return np.maximum(y - cumulative[last] / (last + 1), 0.0)


def _nonnegative_integers(y: np.ndarray) -> np.ndarray:
    """Non-negative integers near y with the grand total round(max(sum y, 0)): projection, then cumulative rounding."""
    x = _simplex_projection(y.astype(float), max(float(y.sum()), 0.0))
    return np.diff(np.floor(np.cumsum(x) + 0.5), prepend=0.0)


@dataclass(frozen=True)
class DPTable:
    """A table released with differential privacy: every cell published, noisy, additive.

    Parameters
    ----------
    table : NDTable
        The table's cells (codes, the number of records) before noise.
    original : ndarray
        Each cell's true value (a sum: of the contributions clamped to the bounds).
    noisy : ndarray
        The finest cells with noise and every subtotal their sum, before post-processing.
    published : ndarray
        What is released: ``noisy``, or for a count the non-negative integers made from it.
    finest : ndarray of bool
        The cells noise was added to.
    privacy : PrivacyLoss
        The mechanism, its scale and OpenDP's statement of the loss.
    sampler : {"numpy", "opendp"}
        Who drew the noise.
    seed : int or None
    config : mapping
        What the table was built from (dims, value column, bounds, small-cell size).
    """

    table: NDTable
    original: np.ndarray
    noisy: np.ndarray
    published: np.ndarray
    finest: np.ndarray
    privacy: PrivacyLoss
    sampler: str
    seed: int | None = None
    config: Mapping[str, Any] = field(default_factory=dict)

    @property
    def counts(self) -> bool:
        """Whether the table counts records (else it sums a value column)."""
        return self.table.response is None

    @property
    def small(self) -> int:
        """Cells with 1 to ``small`` records are small."""
        return int(self.config.get("small", SMALL_CELL))

    def noise_variance(self) -> np.ndarray:
        """The variance of each published cell's noise before post-processing: finest cells under it x one's."""
        per_cell = NOISE_VARIANCES[self.privacy.mechanism](self.privacy.scale)
        return _sum_up(self.finest.astype(float), self.table.hierarchies) * per_cell

    def half_widths(self) -> np.ndarray:
        """Half the width of every cell's attacker's interval: the normal quantile of ``INTERVAL_LEVEL`` x sd.

        The noise of a cell is the sum of its finest cells' independent noises;
        its spread is stated by the normal quantile (exact for the Gaussian, an
        approximation for one Laplace cell, whose 95% quantile is 3.0 b, not 2.77 b).
        """
        from scipy.stats import norm

        return norm.ppf(0.5 + INTERVAL_LEVEL / 2) * np.sqrt(self.noise_variance())

    def intervals(self) -> tuple[np.ndarray, np.ndarray]:
        """The attacker's interval of every cell: the published value -+ :meth:`half_widths` (a count's from 0)."""
        half = self.half_widths()
        low = self.published - half
        return (np.maximum(low, 0.0) if self.counts else low), self.published + half

    def disclosure(self) -> dict[str, Any]:
        """What an intruder learns of the small cells (1 to ``small`` records).

        ``unit_recovered`` and ``small_recovered``: the share of the cells with
        one record, and with 1 to ``small``, whose true count the published
        value gives exactly once rounded (counts only; None for a sum); each
        small cell's attacker's interval and whether it holds the true value.
        """
        frequency = self.table.frequencies
        small = (frequency >= 1) & (frequency <= self.small)
        unit = frequency == 1
        exact = np.rint(self.published) == self.original if self.counts else None
        low, high = self.intervals()
        dims = self.table.dims
        codes = self.table.cells[list(dims)].to_numpy(dtype=object)
        audit = [{"codes": dict(zip(dims, codes[i], strict=True)), "value": float(self.published[i]),
                  "original": float(self.original[i]), "records": int(frequency[i]), "min": float(low[i]),
                  "max": float(high[i]), "covers": bool(low[i] <= self.original[i] <= high[i]),
                  "recovered": None if exact is None else bool(exact[i])}
                 for i in np.nonzero(small)[0]]

        def share(mask: np.ndarray) -> float | None:
            return None if exact is None or not mask.any() else float(exact[mask].mean())

        return {"small_cell": self.small, "unit_cells": int(unit.sum()), "small_cells": int(small.sum()),
                "unit_recovered": share(unit), "small_recovered": share(small), "interval_level": INTERVAL_LEVEL,
                "audit": audit}

    def utility(self) -> dict[str, float | None]:
        """Relative errors: of the grand total, and the mean over the non-empty finest cells; mean absolute errors."""
        error = np.abs(self.published - self.original)
        total = float(self.original[0])
        nonzero = self.finest & (self.original != 0)
        return {"total_relative_error": float(error[0] / abs(total)) if total else None,
                "cell_relative_error": float((error[nonzero] / np.abs(self.original[nonzero])).mean())
                if nonzero.any() else None,
                "cell_absolute_error": float(error[self.finest].mean()) if self.finest.any() else None,
                "absolute_error": float(error.mean())}

    def published_frame(self) -> pd.DataFrame:
        """The table as released: the codes and the published value."""
        values = self.published.astype(np.int64) if self.counts else self.published
        return self.table.cells[list(self.table.dims)].assign(value=values)

    def to_frame(self) -> pd.DataFrame:
        """Every cell: codes, published value, original value, records, finest, status."""
        return self.published_frame().assign(original=self.original, records=self.table.frequencies,
                                             finest=self.finest, status="published")

    def to_dict(self) -> dict[str, Any]:
        """``{"cells": [{"codes", "value", "status", "original", "finest"}], "privacy", "method", "sampler",
        "seed", "postprocessing", "disclosure", "utility", "config"}``."""
        dims = self.table.dims
        codes = self.table.cells[list(dims)].to_numpy(dtype=object)
        cells = [{"codes": dict(zip(dims, row, strict=True)), "value": float(v), "status": "published",
                  "original": float(o), "finest": bool(f)}
                 for row, v, o, f in zip(codes, self.published, self.original, self.finest, strict=True)]
        postprocessing = ("projection onto non-negative cells with the noisy grand total, then cumulative rounding"
                          if self.counts else None)
        additive = bool(np.abs(self.table.equations() @ self.published).max(initial=0)
                        <= 1e-6 * max(1.0, float(np.abs(self.published).max(initial=0))))
        rest = json_safe({"privacy": self.privacy.to_dict(), "method": METHOD, "sampler": self.sampler,
                          "seed": self.seed, "postprocessing": postprocessing, "additive": additive,
                          "disclosure": self.disclosure(), "utility": self.utility(), "config": dict(self.config)})
        return {"cells": cells, **rest}  # the cells are plain finite numbers: json_safe need not walk them


def _release_example() -> dict[str, Any]:
    from rumap.tables.ndtable import example_table

    return {"table": example_table(), "loss": calibrate("laplace", 1.0, epsilon=1.0), "seed": 1}


@validate_params({"table": InstanceOf(NDTable, "an NDTable (see rumap.tables.ndtable.build_table)"),
                  "loss": InstanceOf(PrivacyLoss, "a PrivacyLoss (see rumap.privacy.accounting.calibrate)"),
                  "seed": SEED, "original": [None, InstanceOf(np.ndarray, "an array of the cells' values")],
                  "small": "threshold"},
                 example=_release_example)
def dp_release(table: NDTable, loss: PrivacyLoss, seed: int | np.random.Generator | None = None,
               original: np.ndarray | None = None, small: int = SMALL_CELL) -> DPTable:
    """Add a mechanism's noise to a table's finest cells and sum it up to every subtotal and total.

    Parameters
    ----------
    table : NDTable
        The table (a count table when ``table.response`` is None).
    loss : PrivacyLoss
        The mechanism at its scale (:func:`rumap.privacy.accounting.calibrate`),
        its sensitivity that of one record on the finest cells.
    seed : int or numpy.random.Generator, optional
        Draw the noise from numpy (reproducible); None: OpenDP's sampler draws it.
    original : ndarray, optional
        The cells' true values when not ``table.values`` (the sums of clamped contributions).
    small : int, default 3
        Cells with 1 to ``small`` records are the small cells of the disclosure measures.

    Returns
    -------
    DPTable

    Examples
    --------
    >>> from rumap.tables.ndtable import build_table
    >>> from rumap.tables.microdata import example_microdata
    >>> table = build_table(example_microdata(), ["region", "size"])
    >>> release = dp_release(table, calibrate("laplace", 1.0, epsilon=1.0), seed=7)
    >>> bool((release.published >= 0).all()), bool((table.equations() @ release.published == 0).all())
    (True, True)
    """
    values = table.values if original is None else np.asarray(original, dtype=float)
    if values.shape != (table.size,):
        raise InputError(f"original: one value per cell of the table ({table.size}), got shape {values.shape}")
    counts = table.response is None
    if loss.discrete and not counts:
        raise InputError(f"loss: the {loss.mechanism} mechanism adds integer noise, for counts; a sum takes "
                         f"{' or '.join(m for m, (_, discrete) in MECHANISMS.items() if not discrete)}")
    finest = finest_mask(table.hierarchies)
    true_finest = values[finest]
    if seed is None:
        noisy_finest = np.asarray(opendp_release(loss, np.rint(true_finest) if loss.discrete else true_finest),
                                  dtype=float)
        sampler = SAMPLER_NAMES[1]
    else:
        rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
        noisy_finest = true_finest + draw_noise(loss.mechanism, loss.scale, int(finest.sum()), rng)
        sampler = SAMPLER_NAMES[0]
    full = np.zeros(table.size)
    full[finest] = noisy_finest
    noisy = _sum_up(full, table.hierarchies)
    if counts:
        full[finest] = _nonnegative_integers(noisy_finest)
        published = _sum_up(full, table.hierarchies)
    else:
        published = noisy
    config = {**dict(table.config), "small": int(small)}
    return DPTable(table, values, noisy, published, finest, loss, sampler,
                   seed if isinstance(seed, int) else None, config)


def _clamped(frame: pd.DataFrame, column: str, low: float, high: float) -> np.ndarray:
    if column not in frame.columns:
        raise InputError(f"value_column: no column {column!r}; columns are {', '.join(map(str, frame.columns))}")
    values = pd.to_numeric(frame[column], errors="coerce").to_numpy(dtype=float)
    bad = ~np.isfinite(values)
    if bad.any():
        row = int(np.argmax(bad))
        raise InputError(f"value_column {column!r} must be a finite number; record {row + 1} has "
                         f"{frame[column].iloc[row]!r}")
    return np.clip(values, low, high)


def _table_example() -> dict[str, Any]:
    from rumap.tables.microdata import example_microdata

    return {"frame": example_microdata(), "dims": ["region", "size"], "epsilon": 1.0, "seed": 1}


@validate_params({"frame": Table(),
                  "dims": [Labels("a list of column names"), InstanceOf(str, "a comma-separated text of column names")],
                  "hierarchies": [None, InstanceOf(Mapping, "a mapping of dimension -> Hierarchy")],
                  "value_column": [None, InstanceOf(str, "a column name")],
                  "bounds": [None, InstanceOf((tuple, list), "a pair (L, U) of numbers")],
                  "mechanism": StrOptions(MECHANISMS),
                  "epsilon": [None, "privacy_loss"], "rho": [None, "privacy_loss"], "delta": [None, "risk_bound"],
                  "seed": SEED,
                  "small": "threshold", "budget": InstanceOf(WorkBudget)},
                 example=_table_example)
def dp_table(frame: pd.DataFrame, dims: Sequence[str] | str, hierarchies: Mapping[str, Any] | None = None,
             value_column: str | None = None, bounds: tuple[float, float] | None = None, *,
             mechanism: str = "laplace", epsilon: float | None = None, rho: float | None = None,
             delta: float | None = None, seed: int | np.random.Generator | None = None, small: int = SMALL_CELL,
             budget: WorkBudget = DEFAULT_BUDGET) -> DPTable:
    """Build a count or sum table from microdata and release it with differential privacy (module notes).

    Parameters
    ----------
    frame : pandas.DataFrame
        One record per row.
    dims : sequence of str or str
        The spanning variables (1 to 5), as for :func:`rumap.tables.ndtable.build_table`.
    hierarchies : mapping, optional
        ``{dimension: Hierarchy}``.
    value_column : str, optional
        Sum this column (each record's value clamped to ``bounds``); else count records.
    bounds : (float, float), optional
        ``(L, U)``, the declared range of one record's contribution; needed with ``value_column``.
    mechanism : {"laplace", "discrete-laplace", "gaussian", "discrete-gaussian"}, default "laplace"
        The discrete ones for counts only.
    epsilon, rho, delta : float, optional
        The privacy loss of the release (:func:`rumap.privacy.accounting.calibrate`).
    seed : int or numpy.random.Generator, optional
        Reproducible noise from numpy; None: OpenDP's sampler.
    small : int, default 3
        Cells with 1 to ``small`` records are small (the disclosure measures).
    budget : WorkBudget

    Returns
    -------
    DPTable

    Examples
    --------
    >>> from rumap.tables.microdata import example_microdata
    >>> release = dp_table(example_microdata(), ["region", "size"], epsilon=1.0, seed=3)
    >>> release.privacy.epsilon, release.sampler, int(release.published[0]) >= 0
    (1.0, 'numpy', True)
    """
    if value_column is None:
        if bounds is not None:
            raise InputError("bounds: the declared bounds go with value_column (a sum); a count has sensitivity 1")
        table = build_table(frame, dims, hierarchies, None, top=2, budget=budget)
        loss = calibrate(mechanism, 1.0, epsilon=epsilon, rho=rho, delta=delta)
        return dp_release(table, loss, seed, small=small)
    if bounds is None or len(bounds) != 2:
        raise InputError("bounds: a sum's noise needs the declared bounds (L, U) of one record's contribution")
    low, high = (float(b) for b in bounds)
    if not (np.isfinite(low) and np.isfinite(high) and low < high):
        raise InputError(f"bounds: L < U, both finite, got ({low:g}, {high:g})")
    clamped = _clamped(frame, value_column, low, high)
    shifted = "__clamped_above_L__"
    # the table's builder takes non-negative contributions: sum (v - L) >= 0, then add L once per record
    table = build_table(frame.assign(**{shifted: clamped - low}), dims, hierarchies, shifted, top=2, budget=budget)
    original = table.values + low * table.frequencies
    table = NDTable(table.dims, table.hierarchies, table.cells.assign(value=original), value_column,
                    {**dict(table.config), "value_column": value_column, "bounds": [low, high]})
    loss = calibrate(mechanism, max(abs(low), abs(high)), epsilon=epsilon, rho=rho, delta=delta)
    return dp_release(table, loss, seed, small=small)
