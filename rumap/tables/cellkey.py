"""The cell key method on frequency tables, as R's cellKey perturbs counts.

Each record has a record key, uniform on [0, 1) (drawn from a seed, rounded
to 8 digits as cellKey and tau-Argus draw them, or read from a column). A
cell's key is the fractional part of the sum of its records' keys, and its
published count is the original n plus the perturbation v of the
perturbation table's row for n (the last row for every n from it on) whose
interval ``[p_int_lb, p_int_ub)`` holds the cell key: the first v whose
``p_int_ub`` exceeds it. Empty cells stay 0. A cell is the same set of records
in any table, hierarchical or n-dimensional, so it is perturbed the same way
wherever it appears; the published table is not additive, and
:meth:`CellKeyTable.additivity` says by how much totals differ from the sums
of their children.

Keys with at most 8 decimal digits are summed as integers (exactly, in any
order); other keys as floats. A weighted table publishes, as cellKey does,
the perturbed count times the cell's mean weight.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from rumap._validation import SEED, InstanceOf, assumes_valid, validate_params
from rumap.errors import InputError
from rumap.result import json_safe
from rumap.tables.ndtable import NDTable, build_table
from rumap.tables.ptable import PTable, create_ptable

__all__ = ["record_keys", "cell_keys", "lookup_perturbation", "CellKeyTable", "cellkey_table", "perturbed_table",
           "cell_key_method"]

#: Digits of drawn record keys (cellKey's and tau-Argus' default).
KEY_DIGITS = 8
_SCALE = 10.0**KEY_DIGITS
#: Sums of integer keys stay exact in float64 below this.
_EXACT = 2.0**53


@validate_params({"n": "records", "seed": SEED}, example=lambda: {"n": 5, "seed": 1})
def record_keys(n: int, seed: int | np.random.Generator | None = None) -> np.ndarray:
    """``n`` record keys, uniform on [0, 1) and rounded to 8 digits.

    Parameters
    ----------
    n : int
    seed : int or numpy.random.Generator, optional

    Returns
    -------
    ndarray of float, shape (n,)

    Examples
    --------
    >>> keys = record_keys(3, seed=1)
    >>> bool(((keys >= 0) & (keys < 1)).all()), bool((np.round(keys * 1e8) == keys * 1e8).all())
    (True, True)
    """
    rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
    return np.round(rng.random(n), KEY_DIGITS) % 1.0


def _check_keys(keys: Any, source: str) -> np.ndarray:
    arr = pd.to_numeric(pd.Series(keys), errors="coerce").to_numpy(dtype=float)
    bad = np.flatnonzero(~np.isfinite(arr) | (arr < 0) | (arr > 1))
    if bad.size:
        raise InputError(f"{source}, row {int(bad[0]) + 1}: a record key must be a number in [0, 1], "
                         f"got {pd.Series(keys).iloc[bad[0]]!r}")
    return arr


def _integer_keys(keys: np.ndarray) -> np.ndarray | None:
    """The keys times 10^8 when each has at most 8 digits and their sum stays exact, else None."""
    scaled = np.rint(keys * _SCALE)
    if np.array_equal(scaled / _SCALE, keys) and scaled.sum() < _EXACT:
        return scaled
    return None


@assumes_valid
def cell_keys(key_sums: np.ndarray, integer: bool) -> np.ndarray:
    """Cell keys from the sums of their records' keys (times 10^8 when ``integer``): the fractional parts.

    Parameters
    ----------
    key_sums : ndarray
        Each cell's sum of its records' keys.
    integer : bool
        Whether the keys were summed as integers (keys times 10^8, as cellKey's 8 digits).

    Returns
    -------
    ndarray
    """
    if integer:
        return np.mod(key_sums, _SCALE) / _SCALE
    return np.mod(key_sums, 1.0)


@validate_params({"ptable": InstanceOf(PTable, "a PTable (see rumap.tables.ptable.create_ptable)")},
                 example=lambda: {"counts": [0, 1, 5], "keys": [0.2, 0.7, 0.1], "ptable": create_ptable(3, 1.08, 1)})
def lookup_perturbation(counts: Sequence[float], keys: Sequence[float], ptable: PTable) -> np.ndarray:
    """The perturbation of each cell of count ``counts`` and cell key ``keys`` (cellKey's ``lookup_freq``).

    Parameters
    ----------
    counts : sequence of int
        The cells' original (unweighted) counts.
    keys : sequence of float
        Their cell keys in [0, 1).
    ptable : PTable

    Returns
    -------
    ndarray of float
        v per cell (0 for an empty cell).

    Examples
    --------
    >>> pt = create_ptable(3, 1.08, 1)
    >>> lookup_perturbation([0, 1, 1], [0.3, 0.3, 0.7], pt).tolist()
    [0.0, -1.0, 1.0]
    """
    n = np.asarray(counts, dtype=float)
    ck = np.asarray(keys, dtype=float)
    if n.shape != ck.shape:
        raise InputError(f"counts and keys differ in length ({n.size} and {ck.size})")
    rows = ptable.rows
    last = int(rows["i"].max())
    out = np.zeros(n.size)
    for d in range(1, last + 1):
        cells = n >= d if d == last else n == d
        if not cells.any():
            continue
        row = rows[rows["i"] == d]
        if row.empty:
            continue
        ub = row["p_int_ub"].to_numpy(dtype=float)
        idx = np.searchsorted(ub, ck[cells], side="right")
        idx[idx == ub.size] = 0  # no interval above the key: cellKey's which.max takes the first
        out[cells] = row["v"].to_numpy(dtype=float)[idx]
    return out


@dataclass(frozen=True)
class CellKeyTable:
    """A frequency table perturbed by the cell key method.

    Parameters
    ----------
    table : NDTable
        The original table (counts), with every subtotal and total.
    cell_key : ndarray
        Each cell's key.
    perturbation : ndarray
        Each cell's v.
    ptable : PTable
        The perturbation table used.
    weighted : ndarray or None
        The cells' original weighted counts, for a weighted table.
    config : mapping
        The inputs.
    values : ndarray or None
        A magnitude table's original cell values (sums); None for a frequency table
        (:mod:`rumap.tables.cellkey_nums`).
    """

    table: NDTable
    cell_key: np.ndarray
    perturbation: np.ndarray
    ptable: PTable
    weighted: np.ndarray | None = None
    config: Mapping[str, Any] = field(default_factory=dict)
    values: np.ndarray | None = None

    @property
    def counts(self) -> np.ndarray:
        """The original counts."""
        return self.table.frequencies

    @property
    def published(self) -> np.ndarray:
        """The published values: n + v, or (n + v) times the mean weight for a weighted table; a magnitude
        table's original values plus their perturbations."""
        if self.values is not None:
            return self.values + self.perturbation
        counts = self.counts + self.perturbation
        if self.weighted is None:
            return counts
        with np.errstate(divide="ignore", invalid="ignore"):
            mean_weight = np.where(self.counts > 0, self.weighted / np.where(self.counts > 0, self.counts, 1), 0.0)
        return counts * mean_weight

    def additivity(self) -> dict[str, Any]:
        """How far the published totals are from the sums of their published children.

        Returns
        -------
        dict
            ``equations`` (totals and subtotals checked), ``non_additive``
            (how many differ), ``max_abs`` and ``mean_abs`` of total minus
            sum of children, ``max_relative`` (that difference over the
            published total, among non-zero totals).
        """
        a = self.table.equations()
        diff = -(a @ self.published)
        totals = -(a.multiply(a < 0)) @ self.published
        nonzero = np.abs(totals) > 0
        rel = np.abs(diff[nonzero]) / np.abs(totals[nonzero])
        return json_safe({"equations": int(diff.size), "non_additive": int(np.sum(np.abs(diff) > 1e-9)),
                          "max_abs": float(np.abs(diff).max()) if diff.size else 0.0,
                          "mean_abs": float(np.abs(diff).mean()) if diff.size else 0.0,
                          "max_relative": float(rel.max()) if rel.size else 0.0})

    def to_frame(self, original: bool = False) -> pd.DataFrame:
        """One row per cell: the codes, the published value, and with ``original`` the count (a magnitude table's
        ``sum`` too), key and v."""
        frame = self.table.cells[list(self.table.dims)].copy()
        frame["value"] = self.published
        if original:
            frame["count"] = self.counts.astype(np.int64)
            if self.weighted is not None:
                frame["weighted"] = self.weighted
            if self.values is not None:
                frame["sum"] = self.values
            frame["cell_key"] = self.cell_key
            frame["perturbation"] = self.perturbation
        return frame

    def to_dict(self, original: bool = False) -> dict[str, Any]:
        """``{"cells": [{"codes", "value"[, "count", "cell_key", "perturbation"]}], "additivity", "ptable",
        "config"}``; the original counts, the keys and the perturbations only with ``original``."""
        dims = self.table.dims
        frame = self.to_frame(original)
        extra = [c for c in frame.columns if c not in dims]
        cells = [{"codes": dict(zip(dims, row[:len(dims)], strict=True)),
                  **dict(zip(extra, row[len(dims):], strict=True))} for row in frame.itertuples(index=False)]
        return json_safe({"cells": cells, "additivity": self.additivity(), "ptable": self.ptable.to_dict(),
                          "config": dict(self.config)})


@validate_params({"frame": InstanceOf(pd.DataFrame, "a pandas DataFrame"),
                  "ptable": InstanceOf(PTable, "a PTable (see rumap.tables.ptable.create_ptable)"), "seed": SEED},
                 example=lambda: {"frame": pd.DataFrame({"a": ["x", "y", "x"], "rk": [0.1, 0.5, 0.25]}),
                                  "dims": ["a"], "ptable": create_ptable(3, 1.08, 1), "record_key": "rk"})
def cellkey_table(frame: pd.DataFrame, dims: Sequence[str] | str, ptable: PTable,
                  hierarchies: Mapping[str, Any] | None = None, *, record_key: str | None = None,
                  seed: int | np.random.Generator | None = None, weight: str | None = None) -> CellKeyTable:
    """A frequency table of ``frame`` over ``dims`` (every subtotal and total), perturbed by the cell key method.

    Parameters
    ----------
    frame : pandas.DataFrame
        One record per row.
    dims : sequence of str
        The spanning variables, as :func:`rumap.tables.ndtable.build_table` takes them.
    ptable : PTable
        The perturbation table.
    hierarchies : mapping, optional
        ``{dimension: Hierarchy}``.
    record_key : str, optional
        The column of record keys in [0, 1]; without it keys are drawn from ``seed``.
    seed : int or numpy.random.Generator, optional
        Seed of the drawn record keys.
    weight : str, optional
        A column of sampling weights: the table publishes weighted counts.

    Returns
    -------
    CellKeyTable

    Raises
    ------
    InputError
        A missing column, a record key outside [0, 1], a negative weight, or
        what :func:`~rumap.tables.ndtable.build_table` refuses.

    Examples
    --------
    >>> frame = pd.DataFrame({"a": ["x", "y", "x"], "rk": [0.1, 0.5, 0.25]})
    >>> t = cellkey_table(frame, ["a"], create_ptable(3, 1.08, 1), record_key="rk")
    >>> [round(float(k), 2) for k in t.cell_key]
    [0.85, 0.35, 0.5]
    """
    for name, column in (("record_key", record_key), ("weight", weight)):
        if column is not None and column not in frame.columns:
            raise InputError(f"{name}: no column {column!r} in the data")
    if record_key is not None:
        keys = _check_keys(frame[record_key], f"record_key {record_key!r}")
    else:
        keys = record_keys(max(frame.shape[0], 1), seed)[:frame.shape[0]]
    scaled = _integer_keys(keys)
    work = frame.drop(columns=[c for c in (record_key,) if c is not None])
    work = work.assign(__key=scaled if scaled is not None else keys)
    table = build_table(work, dims, hierarchies, "__key", top=2)
    weighted = None if weight is None else build_table(frame, dims, hierarchies, weight, top=2).values
    config = {"record_key": record_key, "seed": seed if record_key is None and isinstance(seed, int) else None,
              "weight": weight}
    return perturbed_table(table, table.frequencies, table.values, scaled is not None, ptable, weighted, config)


@assumes_valid
def perturbed_table(table: NDTable, counts: np.ndarray, key_sums: np.ndarray, integer: bool, ptable: PTable,
                    weighted: np.ndarray | None, config: Mapping[str, Any]) -> CellKeyTable:
    """The :class:`CellKeyTable` of cells with these record counts and sums of record keys.

    Parameters
    ----------
    table : NDTable
        The table's cells (its codes and hierarchies).
    counts : ndarray
        Records per cell.
    key_sums : ndarray
        Sums of the cells' record keys (times 10^8 when ``integer``).
    integer : bool
    ptable : PTable
    weighted : ndarray or None
        Weighted counts per cell.
    config : mapping
        What made it.

    Returns
    -------
    CellKeyTable
    """
    ck = cell_keys(np.asarray(key_sums, dtype=float), integer)
    names = list(table.dims)
    counts = np.rint(np.asarray(counts, dtype=float))
    counted = table.cells[names].assign(value=counts, frequency=counts.astype(np.int64))
    counts_table = NDTable(table.dims, table.hierarchies, counted, None, table.config)
    v = lookup_perturbation(counts, ck, ptable)
    config = {"dims": names, **dict(config), "hierarchies": table.config.get("hierarchies", {}),
              "ptable": dict(ptable.params)}
    return CellKeyTable(counts_table, ck, v, ptable, weighted, config)


@validate_params({"frame": InstanceOf(pd.DataFrame, "a pandas DataFrame"), "max_perturbation": "ckm_max_perturbation",
                  "variance": "lambda2", "js": "ckm_js", "seed": SEED},
                 example=lambda: {"frame": pd.DataFrame({"a": ["x", "y", "x"]}), "dims": ["a"], "max_perturbation": 3,
                                  "variance": 1.08, "js": 1, "seed": 1})
def cell_key_method(frame: pd.DataFrame, dims: Sequence[str], max_perturbation: int, variance: float, js: int = 0,
                    *, record_key: str | None = None, seed: int | None = None,
                    weight: str | None = None) -> CellKeyTable:
    """:func:`cellkey_table` with the perturbation table of D, V and js (:func:`rumap.tables.ptable.create_ptable`).

    Parameters
    ----------
    frame : pandas.DataFrame
    dims : sequence of str
    max_perturbation : int
        D.
    variance : float
        V.
    js : int, default 0
    record_key : str, optional
    seed : int, optional
    weight : str, optional

    Returns
    -------
    CellKeyTable
    """
    ptable = create_ptable(max_perturbation, variance, js)
    return cellkey_table(frame, dims, ptable, record_key=record_key, seed=seed, weight=weight)
