"""n-dimensional tables (up to five spanning variables, each flat or hierarchical) built from microdata.

Every cell of the product of the dimensions' codes is kept, each dimension's
total (``"Total"``) and every subtotal included: ``N = prod_d (codes_d + 1)``
cells in C order, each dimension's labels being ``("Total", *codes)`` in
the hierarchy's depth-first order. A cell's value is the sum of the
contributions of its records (a magnitude table) or their number (a
frequency table), and its largest contributions are kept for the
sensitivity rules of :mod:`rumap.tables.rules`, which apply to every cell,
subtotals included (tau-Argus computes a table from microdata for that
reason; seed 004).

The table's additivity equations ``A @ values = 0`` are, for each dimension,
each of its subtotals and the total, and each combination of the other
dimensions' labels: the children's cells minus the parent's cell.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
from scipy import sparse

from rumap._validation import InstanceOf, Labels, Table, assumes_valid, validate_params
from rumap.budget import DEFAULT_BUDGET, WorkBudget
from rumap.errors import InputError
from rumap.result import json_safe
from rumap.tables.hierarchy import TOTAL, Hierarchy, flat, from_parents
from rumap.tables.microdata import _codes, _numbers
from rumap.tables.rules import RULES, check_rule_parameters

__all__ = ["MAX_DIMS", "NDTable", "build_table", "example_table"]

#: The most spanning variables a table may have.
MAX_DIMS = 5


class _CellStatistics:
    """What the rules' kernels read of each cell: contributors, total, largest contributions (``_Grouped``'s names)."""

    def __init__(self, frequency: np.ndarray, total: np.ndarray, tops: np.ndarray) -> None:
        self.count = frequency.astype(np.int64)
        self.total = total
        self.tops = tops
        self.largest = tops[:, 0]
        self.second = tops[:, 1]

    def top_sum(self, n: int) -> np.ndarray:
        if n > self.tops.shape[1]:
            raise InputError(f"the table keeps the {self.tops.shape[1]} largest contributions of each cell; the "
                             f"dominance rule with n = {n} needs the table built with top = {n}")
        return self.tops[:, :n].sum(axis=1)


@dataclass(frozen=True)
class NDTable:
    """A table of up to five dimensions with every subtotal and total, and each cell's contribution statistics.

    Parameters
    ----------
    dims : tuple of str
        The spanning variables.
    hierarchies : tuple of Hierarchy
        One per dimension (a flat one when the dimension has no hierarchy).
    cells : pandas.DataFrame
        One row per cell in C order over ``shape``: one column per dimension
        with the cell's code (``"Total"`` for the dimension's total), then
        ``value`` (sum of the contributions, or the number of records),
        ``frequency`` (number of records) and ``top1``, ``top2``, ... (its
        largest contributions, 0 where there are fewer).
    response : str or None
        The value column, None for a frequency table.

    Examples
    --------
    >>> table = example_table()
    >>> table.dims, table.shape
    (('region', 'size'), (7, 4))
    >>> int(table.equations().shape[0])  # 3 region equations (Total, North, South) x 4 size labels + 7 x 1
    19
    >>> bool(abs(table.equations() @ table.values).max() == 0)
    True
    """

    dims: tuple[str, ...]
    hierarchies: tuple[Hierarchy, ...]
    cells: pd.DataFrame
    response: str | None = None
    config: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        object.__setattr__(self, "dims", tuple(self.dims))
        object.__setattr__(self, "hierarchies", tuple(self.hierarchies))
        if len(self.dims) != len(self.hierarchies):
            raise InputError("an NDTable needs one hierarchy per dimension")
        if self.cells.shape[0] != int(np.prod(self.shape)):
            raise InputError(f"the table has {self.cells.shape[0]} cells, its dimensions make {int(np.prod(self.shape))}")

    @property
    def shape(self) -> tuple[int, ...]:
        """The number of labels (codes and the total) of each dimension."""
        return tuple(len(h.codes) + 1 for h in self.hierarchies)

    @property
    def size(self) -> int:
        """The number of cells."""
        return int(self.cells.shape[0])

    @property
    def values(self) -> np.ndarray:
        """The cells' values, in C order."""
        return self.cells["value"].to_numpy(dtype=float)

    @property
    def frequencies(self) -> np.ndarray:
        """The number of records of each cell."""
        return self.cells["frequency"].to_numpy(dtype=np.int64)

    @property
    def top(self) -> int:
        """How many of each cell's largest contributions the table keeps."""
        return sum(1 for c in self.cells.columns if str(c).startswith("top"))

    def labels(self, dim: str | int) -> tuple[str, ...]:
        """The labels of one dimension: ``"Total"`` then its codes, the order of the cells.

        Parameters
        ----------
        dim : str or int
            A dimension's name or position.

        Returns
        -------
        tuple of str
        """
        return (TOTAL, *self.hierarchies[self._axis(dim)].codes)

    def hierarchy(self, dim: str | int) -> Hierarchy:
        """The hierarchy of one dimension.

        Parameters
        ----------
        dim : str or int

        Returns
        -------
        Hierarchy
        """
        return self.hierarchies[self._axis(dim)]

    def _axis(self, dim: str | int) -> int:
        if isinstance(dim, (int, np.integer)):
            return int(dim)
        if dim not in self.dims:
            raise InputError(f"{dim!r} is not a dimension of the table ({', '.join(self.dims)})")
        return self.dims.index(dim)

    def cell_index(self, codes: Mapping[str, Any]) -> int:
        """The position of the cell with the given codes (a dimension left out is at its total).

        Parameters
        ----------
        codes : mapping
            ``{dimension: code}``.

        Returns
        -------
        int
        """
        unknown = sorted(set(codes) - set(self.dims))
        if unknown:
            raise InputError(f"{unknown[0]!r} is not a dimension of the table ({', '.join(self.dims)})")
        position = []
        for d, dim in enumerate(self.dims):
            code = str(codes.get(dim, TOTAL))
            position.append(0 if code == TOTAL else self.hierarchies[d].position(code) + 1)
        return int(np.ravel_multi_index(position, self.shape))

    def codes(self, index: int) -> dict[str, str]:
        """The codes of the cell at ``index``.

        Parameters
        ----------
        index : int

        Returns
        -------
        dict
        """
        position = np.unravel_index(int(index), self.shape)
        return {dim: self.labels(d)[int(p)] for d, (dim, p) in enumerate(zip(self.dims, position, strict=True))}

    def equations(self) -> sparse.csr_matrix:
        """The additivity equations: A with A @ values = 0, one row per (dimension, subtotal or total, other labels).

        Each row has +1 on the children's cells and -1 on the parent's.

        Returns
        -------
        scipy.sparse.csr_matrix, shape (equations, cells)
        """
        index = np.arange(self.size).reshape(self.shape)
        rows, cols, data = [], [], []
        count = 0
        for d, h in enumerate(self.hierarchies):
            moved = np.moveaxis(index, d, 0)
            for parent in (TOTAL, *h.subtotals):
                p = 0 if parent == TOTAL else h.position(parent) + 1
                totals = moved[p].ravel()
                eq = count + np.arange(totals.size)
                rows.append(eq)
                cols.append(totals)
                data.append(np.full(totals.size, -1.0))
                for child in h.children(parent):
                    rows.append(eq)
                    cols.append(moved[h.position(child) + 1].ravel())
                    data.append(np.ones(totals.size))
                count += totals.size
        return sparse.csr_matrix((np.concatenate(data), (np.concatenate(rows), np.concatenate(cols))),
                                 shape=(count, self.size))

    def statistics(self) -> _CellStatistics:
        """The cells' contributors, totals and largest contributions, as the rules' kernels read them."""
        tops = self.cells[[f"top{k}" for k in range(1, self.top + 1)]].to_numpy(dtype=float)
        return _CellStatistics(self.frequencies, self.values, tops)

    def primary_mask(self, rule: str, **parameters: float) -> np.ndarray:
        """The cells a sensitivity rule marks (empty cells never are).

        Parameters
        ----------
        rule : {"threshold", "dominance", "p-percent", "pq"}
            A rule of :data:`rumap.tables.rules.RULES`.
        **parameters
            The rule's parameters (``threshold``; ``n``, ``k``; ``p``; ``p``, ``q``).

        Returns
        -------
        ndarray of bool, one per cell

        Examples
        --------
        >>> table = example_table()
        >>> [table.codes(i) for i in map(int, table.primary_mask("p-percent", p=10).nonzero()[0])][:2]
        [{'region': 'Total', 'size': 'large'}, {'region': 'North', 'size': 'large'}]
        """
        if rule not in RULES:
            raise InputError(f"rule must be one of {', '.join(RULES)}, got {rule!r}")
        outcome = RULES[rule].kernel(self.statistics(), **check_rule_parameters(rule, parameters))
        return np.asarray(outcome.sensitive, dtype=bool) & (self.frequencies > 0)

    def to_frame(self) -> pd.DataFrame:
        """The cells: a code column per dimension, value, frequency and the largest contributions."""
        return self.cells.copy()

    def to_dict(self) -> dict[str, Any]:
        """``{"dims", "hierarchies", "response", "cells"}`` (cells as records)."""
        return json_safe({"dims": list(self.dims), "hierarchies": {d: h.to_dict() for d, h in
                                                                   zip(self.dims, self.hierarchies, strict=True)},
                          "response": self.response, "cells": self.cells.to_dict(orient="records")})


def _hierarchy_of(dim: str, given: Any, data_codes: Sequence[str]) -> Hierarchy:
    if given is None:
        return flat(data_codes)
    hierarchy = given if isinstance(given, Hierarchy) else from_parents(given) if isinstance(given, Mapping) else None
    if hierarchy is None:
        raise InputError(f"hierarchies: the hierarchy of {dim!r} must be a Hierarchy or a mapping of code -> parent")
    known = set(hierarchy.codes)
    unknown = [c for c in data_codes if c not in known]
    if unknown:
        raise InputError(f"hierarchies: {dim!r} has the code {unknown[0]!r} in the data, which its hierarchy does not have")
    subtotals = set(hierarchy.subtotals)
    inner = [c for c in data_codes if c in subtotals]
    if inner:
        raise InputError(f"hierarchies: {dim!r} has the code {inner[0]!r} in the data, but the hierarchy makes it a subtotal of "
                         "other codes: records must carry the most detailed codes")
    return hierarchy


def _top_contributions(leaf_cell: np.ndarray, values: np.ndarray, size: int, top: int) -> np.ndarray:
    """The ``top`` largest contributions of each cell, largest first (0 where fewer), shape (size, top)."""
    out = np.zeros((size, top))
    order = np.lexsort((-values, leaf_cell))
    cells, sorted_values = leaf_cell[order], values[order]
    starts = np.searchsorted(cells, cells, side="left")
    rank = np.arange(cells.size) - starts
    keep = rank < top
    out[cells[keep], rank[keep]] = sorted_values[keep]
    return out


def _aggregate(value: np.ndarray, frequency: np.ndarray, tops: np.ndarray,
               hierarchies: Sequence[Hierarchy]) -> None:
    """Fill every subtotal and total in place, one dimension after another, deepest subtotals first."""
    for d, h in enumerate(hierarchies):
        levels = dict(zip(h.codes, h.levels, strict=True))
        parents = sorted(h.subtotals, key=lambda c: -levels[c]) + [TOTAL]
        for parent in parents:
            p = 0 if parent == TOTAL else h.position(parent) + 1
            children = [h.position(c) + 1 for c in h.children(parent)]
            target = (slice(None),) * d + (p,)
            picked = (slice(None),) * d + (children,)
            value[target] = value[picked].sum(axis=d)
            frequency[target] = frequency[picked].sum(axis=d)
            merged = np.moveaxis(tops[picked], d, -2)  # (..., children, top)
            merged = merged.reshape(*merged.shape[:-2], -1)
            k = tops.shape[-1]
            tops[target] = -np.sort(-merged, axis=-1)[..., :k]


def _example() -> dict[str, Any]:
    from rumap.tables.microdata import example_microdata

    return {"frame": example_microdata(), "dims": ["region", "size"], "value_column": "turnover"}


@validate_params({"frame": Table(),
                  "dims": [Labels("a list of column names"), InstanceOf(str, "a comma-separated text of column names")],
                  "hierarchies": [None, InstanceOf(Mapping, "a mapping of dimension -> Hierarchy")],
                  "value_column": [None, InstanceOf(str, "a column name")],
                  "top": "top_contributions",
                  "budget": InstanceOf(WorkBudget)},
                 example=_example)
def build_table(frame: pd.DataFrame, dims: Sequence[str] | str, hierarchies: Mapping[str, Any] | None = None,
                value_column: str | None = None, *, top: int = 3, budget: WorkBudget = DEFAULT_BUDGET) -> NDTable:
    """Build a magnitude or frequency table of up to five dimensions, every subtotal and total, from microdata.

    Parameters
    ----------
    frame : pandas.DataFrame
        One record per row.
    dims : sequence of str
        The spanning variables (1 to 5 columns; codes read as text), or one
        comma-separated string.
    hierarchies : mapping, optional
        ``{dimension: Hierarchy}`` (or ``{dimension: {code: parent}}``). The
        records' codes must be leaves of the hierarchy; leaves without
        records are empty cells. A dimension without one is flat.
    value_column : str, optional
        The numeric, non-negative response: cells are its sums. Without it,
        cells count records (a frequency table, each record contributing 1).
    top : int, default 3
        How many of each cell's largest contributions to keep (the dominance
        rule's n can be at most this).
    budget : WorkBudget, default DEFAULT_BUDGET
        Limits the cells and the work.

    Returns
    -------
    NDTable

    Raises
    ------
    InputError
        No or more than five dimensions, a repeated or missing column, a
        missing or ``Total`` code, a code that its hierarchy lacks or makes a
        subtotal, a non-numeric or negative value.

    Examples
    --------
    >>> import pandas as pd
    >>> from rumap.tables.hierarchy import read_hrc
    >>> frame = pd.DataFrame({"region": ["N1", "N2", "S1", "S1"], "size": ["a", "b", "a", "a"]})
    >>> table = build_table(frame, ["region", "size"], {"region": read_hrc("N\\n@N1\\n@N2\\nS\\n@S1\\n")})
    >>> table.labels("region")
    ('Total', 'N', 'N1', 'N2', 'S', 'S1')
    >>> int(table.values[table.cell_index({"region": "S", "size": "a"})])
    2
    """
    names = [d.strip() for d in dims.split(",")] if isinstance(dims, str) else [str(d) for d in dims]
    if not 1 <= len(names) <= MAX_DIMS:
        raise InputError(f"dims: a table has 1 to {MAX_DIMS} dimensions, got {len(names)}")
    if len(set(names)) < len(names):
        raise InputError(f"dims: the dimensions must be different columns, got {', '.join(names)}")
    if value_column is not None and value_column in names:
        raise InputError(f"value_column {value_column!r} is also one of dims")
    given = dict(hierarchies or {})
    for dim in given:
        if dim not in names:
            raise InputError(f"hierarchies: a hierarchy is given for {dim!r}, which is not a dimension (one of dims)")
    n = frame.shape[0]
    tree: list[Hierarchy] = []
    positions: list[np.ndarray] = []
    for dim in names:
        codes = _codes(frame, dim, "dims")
        data_codes = sorted(codes.unique())
        h = _hierarchy_of(dim, given.get(dim), data_codes)
        tree.append(h)
        index = {code: i + 1 for i, code in enumerate(h.codes)}
        positions.append(codes.map(index).to_numpy(dtype=np.int64))
    shape = tuple(len(h.codes) + 1 for h in tree)
    size = int(np.prod([float(s) for s in shape]))
    budget.check_cells(float(size) * (top + 3), " x ".join(f"{s} {d} labels" for s, d in zip(shape, names,
                                                                                                strict=True)))
    budget.check_work(float(n) * len(names) + float(size) * top * sum(h.depth for h in tree), f"{n} records")
    contributions = _numbers(frame, value_column, "value_column") if value_column is not None else np.ones(n)
    leaf = np.ravel_multi_index(positions, shape) if n else np.zeros(0, dtype=np.int64)
    value = np.bincount(leaf, weights=contributions, minlength=size).reshape(shape)
    frequency = np.bincount(leaf, minlength=size).astype(float).reshape(shape)
    tops = _top_contributions(leaf, contributions, size, top).reshape(*shape, top)
    _aggregate(value, frequency, tops, tree)
    grids = np.meshgrid(*[np.arange(s) for s in shape], indexing="ij")
    columns: dict[str, Any] = {}
    for d, dim in enumerate(names):
        labels = np.array((TOTAL, *tree[d].codes), dtype=object)
        columns[dim] = labels[grids[d].ravel()]
    columns["value"] = value.ravel()
    columns["frequency"] = np.rint(frequency.ravel()).astype(np.int64)
    for k in range(top):
        columns[f"top{k + 1}"] = tops.reshape(size, top)[:, k]
    return NDTable(tuple(names), tuple(tree), pd.DataFrame(columns), value_column,
                   {"dims": names, "value_column": value_column, "top": top,
                    "hierarchies": {d: h.to_dict() for d, h in zip(names, tree, strict=True) if d in given}})


@assumes_valid
def example_table() -> NDTable:
    """The region x size table of :func:`rumap.tables.microdata.example_microdata`, regions under North / South.

    Parameters
    ----------
    None

    Returns
    -------
    NDTable
    """
    from rumap.tables.microdata import example_microdata

    frame = example_microdata()
    frame["region"] = frame["region"].str[0] + frame["sector"]
    parents = {"NA": "North", "NB": "North", "SA": "South", "SB": "South"}
    return build_table(frame, ["region", "size"], {"region": parents}, "turnover")
