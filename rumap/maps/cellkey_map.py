"""The R-U map of the cell key method over the perturbation's variance V.

For each V the frequency table (every subtotal and total) is perturbed with
the perturbation table of D, V and js (:func:`rumap.tables.ptable.create_ptable`).

R is the share of the cells of original count 1 or 2 that an intruder
recovers exactly:

- ``direct``: from the published value alone, read as the count (v = 0);
- ``differencing``: by differencing two published tables that differ by one
  category: the cell's parent along a dimension and the same parent without
  the cell's category (a cell of the table with that category left out, whose
  records are the parent's less the cell's, so its key is the parent's key
  less the cell's, modulo 1) give the cell's count when both got the same
  perturbation;
- ``either`` (the default): by one route or the other.

U is what the perturbation keeps of the counts: ``absolute`` is
1 / (1 + the mean absolute deviation of the non-empty cells and totals),
``relative`` 1 - their mean absolute relative deviation. Record keys drawn
from a seed make the map random: ``replicates`` draws give its standard
errors; keys read from a column make it exact.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from rumap._validation import SEED, InstanceOf, StrOptions, validate_params
from rumap.errors import InputError
from rumap.maps.table_common import SMALL, common_columns, table_common_stats
from rumap.result import RUMap
from rumap.tables.cellkey import CellKeyTable, cellkey_table, lookup_perturbation
from rumap.tables.ndtable import TOTAL
from rumap.tables.ptable import create_ptable

__all__ = ["CKM_RISKS", "CKM_UTILITIES", "ckm_risk", "ckm_utility", "ckm_map"]

#: The map's risks: label by name.
CKM_RISKS = {"either": "R = share of counts 1 and 2 recovered exactly (published value or differencing)",
             "direct": "R = share of counts 1 and 2 published unperturbed",
             "differencing": "R = share of counts 1 and 2 recovered by differencing two tables"}
#: The map's utilities: label by name.
CKM_UTILITIES = {"absolute": "U = 1 / (1 + mean absolute deviation of cells and totals)",
                 "relative": "U = 1 - mean absolute relative deviation of cells and totals"}


def _differenced(result: CellKeyTable, small: np.ndarray) -> np.ndarray:
    """Whether differencing along some dimension recovers each small cell."""
    table = result.table
    counts = result.counts
    shape = table.shape
    index = np.arange(table.size).reshape(shape)
    recovered = np.zeros(small.size, dtype=bool)
    coords = np.unravel_index(small, shape)
    for d, h in enumerate(table.hierarchies):
        parent_pos = np.array([0] + [(h.position(h.parent(code)) + 1) if h.parent(code) != TOTAL else 0
                                     for code in h.codes])
        own = coords[d]
        inner = own > 0  # a total has no parent along this dimension
        if not inner.any():
            continue
        parent_coords = list(coords)
        parent_coords[d] = parent_pos[own]
        parent = index[tuple(parent_coords)]
        rest_count = counts[parent] - counts[small]
        rest_key = np.mod(result.cell_key[parent] - result.cell_key[small], 1.0)
        rest_v = lookup_perturbation(rest_count, rest_key, result.ptable)
        recovered |= inner & (result.perturbation[parent] == rest_v)
    return recovered


@validate_params({"result": InstanceOf(CellKeyTable, "a CellKeyTable (see rumap.tables.cellkey.cellkey_table)"),
                  "risk": StrOptions(tuple(CKM_RISKS))},
                 example=lambda: {"result": cellkey_table(pd.DataFrame({"a": list("xxy"), "rk": [0.1, 0.2, 0.3]}),
                                                          ["a"], create_ptable(3, 1.08, 1), record_key="rk")})
def ckm_risk(result: CellKeyTable, risk: str = "either") -> float:
    """The share of the cells of count 1 or 2 an intruder recovers exactly (0 when there are none).

    Parameters
    ----------
    result : CellKeyTable
    risk : {"either", "direct", "differencing"}

    Returns
    -------
    float
    """
    small = np.flatnonzero((result.counts == 1) | (result.counts == 2))
    if small.size == 0:
        return 0.0
    direct = result.perturbation[small] == 0
    if risk == "direct":
        return float(direct.mean())
    differenced = _differenced(result, small)
    return float((differenced if risk == "differencing" else direct | differenced).mean())


@validate_params({"result": InstanceOf(CellKeyTable, "a CellKeyTable (see rumap.tables.cellkey.cellkey_table)"),
                  "utility": StrOptions(tuple(CKM_UTILITIES))},
                 example=lambda: {"result": cellkey_table(pd.DataFrame({"a": list("xxy"), "rk": [0.1, 0.2, 0.3]}),
                                                          ["a"], create_ptable(3, 1.08, 1), record_key="rk")})
def ckm_utility(result: CellKeyTable, utility: str = "absolute") -> float:
    """What the perturbation keeps of the non-empty cells' counts (1 when nothing changed).

    Parameters
    ----------
    result : CellKeyTable
    utility : {"absolute", "relative"}

    Returns
    -------
    float
    """
    filled = result.counts > 0
    deviation = np.abs(result.perturbation[filled])
    if not deviation.size:
        return 1.0
    if utility == "relative":
        return float(1.0 - (deviation / result.counts[filled]).mean())
    return float(1.0 / (1.0 + deviation.mean()))


def _common(result: CellKeyTable) -> tuple[float, float]:
    """The measures every protection of a count table shares (:mod:`rumap.maps.table_common`): a small count is
    recovered when published unperturbed or by differencing."""
    recovered = result.perturbation == 0
    small = np.flatnonzero((result.counts >= 1) & (result.counts <= SMALL))
    if small.size:
        recovered[small] |= _differenced(result, small)
    return table_common_stats(result.counts, recovered, np.abs(result.perturbation))


@validate_params({"frame": InstanceOf(pd.DataFrame, "a pandas DataFrame"), "max_perturbation": "ckm_max_perturbation",
                  "js": "ckm_js", "replicates": "replicates", "seed": SEED, "risk": StrOptions(tuple(CKM_RISKS)),
                  "utility": StrOptions(tuple(CKM_UTILITIES))},
                 example=lambda: {"frame": pd.DataFrame({"a": list("xxyzz"), "b": list("pqpqp")}), "dims": ["a", "b"],
                                  "variances": [0.5, 2.0], "max_perturbation": 3, "replicates": 2, "seed": 1})
def ckm_map(frame: pd.DataFrame, dims: Sequence[str], variances: Sequence[float], *, max_perturbation: int,
            js: int = 0, hierarchies: Mapping[str, Any] | None = None, record_key: str | None = None,
            replicates: int = 20, seed: int | None = 0, risk: str = "either", utility: str = "absolute") -> RUMap:
    """The R-U map of the cell key method over the variance V of the perturbation.

    Parameters
    ----------
    frame : pandas.DataFrame
    dims : sequence of str
        The table's dimensions.
    variances : sequence of float
        The grid of V.
    max_perturbation : int
        D.
    js : int, default 0
    hierarchies : mapping, optional
    record_key : str, optional
        A column of record keys (then the map is exact, one replicate).
    replicates : int, default 20
        Draws of the record keys per V (without ``record_key``).
    seed : int, optional
    risk : {"either", "direct", "differencing"}
    utility : {"absolute", "relative"}

    Returns
    -------
    RUMap
        Parameter ``variance``; method ``ckm``; ``config`` also holds the measures every protection of a
        count table shares (:mod:`rumap.maps.table_common`).

    Raises
    ------
    InputError
        A V for which ptable finds no perturbation table, and what
        :func:`~rumap.tables.cellkey.cellkey_table` refuses.

    Examples
    --------
    >>> frame = pd.DataFrame({"a": list("xxyzz"), "b": list("pqpqp")})
    >>> m = ckm_map(frame, ["a", "b"], [0.5, 2.0], max_perturbation=3, replicates=2, seed=1)
    >>> m.parameter, m.values.tolist()
    ('variance', [0.5, 2.0])
    """
    values = np.asarray(variances, dtype=float).reshape(-1)
    if values.size == 0 or not np.all(np.isfinite(values)) or (values <= 0).any():
        raise InputError("variances: give one or more variances V > 0")
    draws = 1 if record_key is not None else replicates
    rng = np.random.default_rng(seed)
    risk_values = np.zeros((values.size, draws))
    utility_values = np.zeros((values.size, draws))
    key_seeds = rng.integers(0, 2**63, size=draws)
    common = np.zeros((values.size, draws, 2))
    for i, v in enumerate(values):
        try:
            ptable = create_ptable(max_perturbation, float(v), js)
        except InputError as exc:
            raise InputError(f"variances: V = {v:g}: {str(exc).split(': ', 1)[-1]}") from None
        for m in range(draws):
            result = cellkey_table(frame, dims, ptable, hierarchies, record_key=record_key,
                                   seed=None if record_key is not None else int(key_seeds[m]))
            risk_values[i, m] = ckm_risk(result, risk)
            utility_values[i, m] = ckm_utility(result, utility)
            common[i, m] = _common(result)
    se = (lambda a: a.std(axis=1, ddof=1) / np.sqrt(draws)) if draws > 1 else (lambda a: np.zeros(values.size))
    return RUMap(parameter="variance", values=values, risk=risk_values.mean(axis=1),
                 utility=utility_values.mean(axis=1), risk_se=se(risk_values), utility_se=se(utility_values),
                 risk_label=CKM_RISKS[risk], utility_label=CKM_UTILITIES[utility], method="ckm", knowledge="table",
                 target=" x ".join(dims),
                 config={"dims": list(dims), "max_perturbation": max_perturbation, "js": js, "record_key": record_key,
                         "replicates": draws, "seed": seed, "risk": risk, "utility": utility,
                         **common_columns(list(common))})
