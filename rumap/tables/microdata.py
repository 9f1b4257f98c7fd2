"""Tables built from microdata: one to three spanning variables, a response or counts, contributions per cell.

tau-Argus builds its tables from a microdata file (Mas, seed 004): spanning
variables give the rows, columns and layers, a response variable gives the
cell sums of a magnitude table (or counts give a frequency table), and the
contributions of the records to each cell feed the sensitivity rules of
:mod:`rumap.tables.rules`. A shadow variable, when given, is what the rules
look at while the table shows the response. A hierarchy (code -> parent) of a
spanning variable adds subtotal rows or columns. A third spanning variable
gives one 2-D table per layer plus the layer total: linked tables sharing
their margins.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import date
from numbers import Number
from typing import Any

import numpy as np
import pandas as pd
from scipy import sparse

from rumap._validation import MAX_MAGNITUDE, InstanceOf, Table, assumes_valid, validate_params
from rumap._validation.constraints import shown
from rumap.budget import DEFAULT_BUDGET, WorkBudget
from rumap.errors import InputError
from rumap.result import json_safe
from rumap.tables.published import TOTAL_LABEL, PublishedTable, code_order
from rumap.tables.rules import Contributions, SensitivityResult, apply_rule, freeze_array_fields

__all__ = ["CELL_SEPARATOR", "MicrodataTable", "SpanningAxis", "table_from_microdata", "example_microdata"]


#: Between the row and the column label in a cell label, ``"ROW:COL"``.
CELL_SEPARATOR = ":"

#: The label of the count column of a one-way frequency table.
COUNT_LABEL = "count"


@dataclass(frozen=True)
class SpanningAxis:
    """The codes of one spanning variable with their subtotals.

    Parameters
    ----------
    variable : str
        The column of the microdata.
    labels : tuple of str
        Every label in display order: each subtotal before its members, the
        codes sorted within each level, numbers in numeric order
        (:func:`rumap.tables.published.code_order`); the grand total is not listed.
    leaves : tuple of bool
        Whether each label is a code of the data (else a subtotal).
    members : tuple of tuple of int
        For each label, the positions (among the leaves, in :attr:`leaf_labels`
        order) of the codes it adds up.
    """

    variable: str
    labels: tuple[str, ...]
    leaves: tuple[bool, ...]
    members: tuple[tuple[int, ...], ...]

    @property
    def leaf_labels(self) -> tuple[str, ...]:
        """The codes of the data, in display order."""
        return tuple(label for label, leaf in zip(self.labels, self.leaves, strict=True) if leaf)

    def membership(self) -> sparse.csc_matrix:
        """Sparse 0/1 matrix (labels + total, leaves): which codes each label, then the total, adds up."""
        n_leaves = len(self.leaf_labels)
        rows = [i for i, members in enumerate(self.members) for _ in members] + [len(self.labels)] * n_leaves
        columns = [m for members in self.members for m in members] + list(range(n_leaves))
        return sparse.csc_matrix((np.ones(len(rows)), (rows, columns)), shape=(len(self.labels) + 1, n_leaves))


@dataclass(frozen=True)
class MicrodataTable:
    """A table of sums or counts built from microdata, with the contributions to each cell.

    Parameters
    ----------
    rows, columns, layers : SpanningAxis or None
        The spanning variables (``columns`` and ``layers`` may be absent).
    response, shadow : str or None
        The response variable (None: a frequency table) and the shadow
        variable (None: the rules look at the response, or at counts).
    values : ndarray, shape (L, R + 1, C + 1)
        Cell values for every layer (the layer total last; L = 1 without
        layers), every row and column label (subtotals included) and the
        totals row and column last.
    contributors : ndarray of int, shape (L, R + 1, C + 1)
        Number of records in each cell.
    record_cells : ndarray of int, shape (n, 3)
        Each record's leaf layer, row and column position.
    rule_values : ndarray, shape (n,)
        What each record contributes for the rules: the shadow, else the
        response, else 1.
    """

    rows: SpanningAxis
    columns: SpanningAxis | None
    layers: SpanningAxis | None
    response: str | None
    shadow: str | None
    values: np.ndarray
    contributors: np.ndarray
    record_cells: np.ndarray
    rule_values: np.ndarray
    config: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        freeze_array_fields(self)

    @property
    def kind(self) -> str:
        """``"magnitude"`` (sums of the response) or ``"frequency"`` (counts)."""
        return "frequency" if self.response is None else "magnitude"

    @property
    def row_labels(self) -> tuple[str, ...]:
        """Row labels, subtotals included (the totals row is not listed)."""
        return self.rows.labels

    @property
    def column_labels(self) -> tuple[str, ...]:
        """Column labels, subtotals included; ``("count",)`` or the response's name for a one-way table."""
        if self.columns is None:
            return (COUNT_LABEL if self.response is None else self.response,)
        return self.columns.labels

    @property
    def layer_labels(self) -> tuple[str, ...]:
        """Layer labels with the layer total last (``("Total",)`` without layers)."""
        return (*self.layers.labels, TOTAL_LABEL) if self.layers is not None else (TOTAL_LABEL,)

    def _layer_index(self, layer: str | None) -> int:
        if layer is None:
            return len(self.layer_labels) - 1
        labels = self.layer_labels
        if str(layer) not in labels:
            raise InputError(f"no layer {layer!r}; layers are {', '.join(labels)}")
        return labels.index(str(layer))

    def _leaf_positions(self) -> tuple[np.ndarray, np.ndarray]:
        rows = np.array([*np.flatnonzero(self.rows.leaves), len(self.rows.labels)])
        if self.columns is None:
            return rows, np.array([0, 1])
        columns = np.array([*np.flatnonzero(self.columns.leaves), len(self.columns.labels)])
        return rows, columns

    def published(self, layer: str | None = None) -> PublishedTable:
        """The table of one layer (default: the layer total) over the codes of the data, with its totals.

        Subtotals are left out, so that every row and column adds up to its
        total, as the suppression and the audit (:mod:`rumap.tables.bounds`)
        require.

        Parameters
        ----------
        layer : str, optional
            A layer label; default the layer total.

        Returns
        -------
        PublishedTable
        """
        k = self._layer_index(layer)
        rows, columns = self._leaf_positions()
        values = self.values[k][np.ix_(rows, columns)]
        column_labels = self.column_labels if self.columns is None else self.columns.leaf_labels
        return PublishedTable(self.rows.leaf_labels, column_labels, values)

    def contributions(self, layer: str | None = None) -> Contributions:
        """Each record's contribution to each cell of one layer, totals and subtotals included.

        Cell labels are ``"ROW:COL"`` (``"Total"`` for the totals), naming the
        cells of :meth:`published` and :meth:`to_frame`. A record falls in its
        own cell, in the subtotals above its codes and in the totals.

        Parameters
        ----------
        layer : str, optional
            A layer label; default the layer total.

        Returns
        -------
        Contributions
        """
        k = self._layer_index(layer)
        selected = np.ones(self.record_cells.shape[0], dtype=bool)
        if self.layers is not None and k < len(self.layers.labels):
            selected = np.isin(self.record_cells[:, 0], self.layers.members[k])
        leaf_rows, leaf_columns = self.record_cells[selected, 1], self.record_cells[selected, 2]
        if leaf_rows.size == 0:
            raise InputError(f"layer {self.layer_labels[k]!r} has no records")
        row_flat, row_count, row_offset = _labels_of_leaves(self.rows.membership())
        column_membership = self.columns.membership() if self.columns is not None else _ONE_WAY
        column_flat, column_count, column_offset = _labels_of_leaves(column_membership)
        a, b = row_count[leaf_rows], column_count[leaf_columns]
        per_record = a * b  # every label above the record's row code x every label above its column code
        record = np.repeat(np.arange(leaf_rows.size), per_record)
        within = np.arange(record.size) - np.repeat(np.cumsum(per_record) - per_record, per_record)
        row = row_flat[row_offset[leaf_rows[record]] + within // b[record]]
        column = column_flat[column_offset[leaf_columns[record]] + within % b[record]]
        names = np.array([f"{r}{CELL_SEPARATOR}{c}" for r in [*self.row_labels, TOTAL_LABEL]
                          for c in [*self.column_labels, TOTAL_LABEL]], dtype=object)
        return Contributions(names[row * column_membership.shape[0] + column], self.rule_values[selected][record])

    def frequencies(self, layer: str | None = None) -> dict[tuple[str, str], float]:
        """The number of records in each cell of :meth:`published` (0 for an empty cell), by (row, column) labels.

        Parameters
        ----------
        layer : str, optional
            Default the layer total.

        Returns
        -------
        dict of (str, str) to float
            What :func:`rumap.tables.secondary.suppress_secondary` takes as ``frequencies``: its empty cells
            are known zeros, never suppressed.

        Examples
        --------
        >>> table = table_from_microdata(example_microdata(), "region", "size", response="turnover")
        >>> counts = table.frequencies()
        >>> counts[("Total", "Total")] == len(example_microdata())
        True
        """
        counts = pd.Series(self.contributions(layer).cells).value_counts()
        table = self.published(layer)
        return {(r, c): float(counts.get(f"{r}{CELL_SEPARATOR}{c}", 0))
                for r in [*table.row_labels, TOTAL_LABEL] for c in [*table.column_labels, TOTAL_LABEL]}

    def sensitivity(self, rule: str, layer: str | None = None, **parameters: float) -> SensitivityResult:
        """A sensitivity rule (:func:`rumap.tables.rules.apply_rule`) applied to every cell of one layer.

        Parameters
        ----------
        rule : str
            A key of :data:`rumap.tables.rules.RULES`.
        layer : str, optional
            Default the layer total.
        **parameters
            The rule's parameters.

        Returns
        -------
        SensitivityResult
            Cells labelled ``"ROW:COL"``; empty cells (no record) are not listed.
        """
        return apply_rule(self.contributions(layer), rule=rule, **parameters)

    def primary(self, rule: str, layer: str | None = None, **parameters: float) -> list[tuple[str, str]]:
        """The (row, column) labels of the sensitive inner cells of :meth:`published` (codes of the data only).

        Parameters
        ----------
        rule : str
        layer : str, optional
        **parameters
            As in :meth:`sensitivity`.

        Returns
        -------
        list of (str, str)
            In row-major order of the published table.
        """
        sensitive = set(self.sensitivity(rule, layer, **parameters).sensitive_cells)
        table = self.published(layer)
        return [(r, c) for r in table.row_labels for c in table.column_labels
                if f"{r}{CELL_SEPARATOR}{c}" in sensitive]

    def to_frame(self, layer: str | None = None) -> pd.DataFrame:
        """The table of one layer with its subtotals and totals, rows and columns labelled.

        Parameters
        ----------
        layer : str, optional
            Default the layer total.

        Returns
        -------
        pandas.DataFrame
        """
        k = self._layer_index(layer)
        return pd.DataFrame(self.values[k], index=[*self.row_labels, TOTAL_LABEL],
                            columns=[*self.column_labels, TOTAL_LABEL])

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dictionary: variables, labels and the values of every layer."""
        return json_safe({
            "rows": self.rows.variable, "columns": None if self.columns is None else self.columns.variable,
            "layers": None if self.layers is None else self.layers.variable, "response": self.response,
            "shadow": self.shadow, "kind": self.kind, "row_labels": list(self.row_labels),
            "column_labels": list(self.column_labels), "layer_labels": list(self.layer_labels),
            "values": self.values, "contributors": self.contributors})


#: The membership of a one-way table's single column: its one code adds up to it and to the total.
_ONE_WAY = sparse.csc_matrix(np.ones((2, 1)))


def _labels_of_leaves(membership: sparse.csc_matrix) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """For each code (a column of ``membership``), the labels that add it up: flat positions, counts, offsets."""
    membership = sparse.csc_matrix(membership)
    membership.sort_indices()
    return membership.indices.astype(np.int64), np.diff(membership.indptr), membership.indptr[:-1].astype(np.int64)


def _codes(frame: pd.DataFrame, variable: str, role: str) -> pd.Series:
    if variable not in frame.columns:
        raise InputError(f"{role}: no column {variable!r}; columns are {', '.join(frame.columns)}")
    column = frame[variable]
    missing = column.isna()
    if missing.any():
        raise InputError(f"{role} {variable!r} is missing in record {int(np.argmax(missing.to_numpy())) + 1}: "
                         "spanning variables need a code in every record")
    if pd.api.types.is_float_dtype(column) and (column == np.round(column)).all():
        column = column.astype(np.int64)
    if column.dtype == object and pd.api.types.infer_dtype(column, skipna=True) not in _SCALAR_KINDS:
        row = next((i for i, v in enumerate(column) if not isinstance(v, (str, Number, np.generic, date))), None)
        if row is not None:  # a list, a dict, bytes: its text would be a code no record means
            raise InputError(f"{role} {variable!r} has {shown(column.iloc[row])} in record {row + 1}, which is no "
                             "code: codes are text or numbers")
    codes = column.astype(str).str.strip()
    for code in codes.unique():
        _check_code(code, variable)
    return codes


#: What pandas infers of a column of codes that need no scan for lists, dicts or bytes.
_SCALAR_KINDS = frozenset({"string", "integer", "floating", "mixed-integer-float", "boolean",
                           "empty", "decimal", "datetime", "date"})


def _check_code(code: str, variable: str) -> None:
    if code == TOTAL_LABEL:
        raise InputError(f"{variable!r} has the code {TOTAL_LABEL!r}, the label of the totals: recode it")
    if CELL_SEPARATOR in code:
        raise InputError(f"{variable!r} has the code {code!r} with {CELL_SEPARATOR!r}, which separates the row "
                         "and column of a cell label: recode it")
    if not code:
        raise InputError(f"{variable!r} has an empty code")


def _axis(codes: pd.Series, variable: str, hierarchy: Mapping[Any, Any] | None, budget: WorkBudget) -> SpanningAxis:
    data_codes = sorted(codes.unique(), key=code_order)
    parent = {str(k): str(v) for k, v in (hierarchy or {}).items()}
    for code, up in parent.items():
        _check_code(up, variable)
        if code == up:
            raise InputError(f"the hierarchy of {variable!r} makes {code!r} its own parent")
    parents = set(parent.values())
    subtotal_data = sorted(set(data_codes) & parents)
    if subtotal_data:
        raise InputError(f"{variable!r} has the code {subtotal_data[0]!r} in the data, but the hierarchy makes it a "
                         "subtotal of other codes: records must carry the most detailed codes")

    def ancestors(code: str) -> list[str]:
        chain, seen = [], {code}
        while code in parent:
            code = parent[code]
            if code in seen:
                raise InputError(f"the hierarchy of {variable!r} has a cycle through {code!r}")
            seen.add(code)
            chain.append(code)
        return chain

    used = {code: ancestors(code) for code in data_codes}
    nodes = set(data_codes) | {a for chain in used.values() for a in chain}
    budget.check_grid(len(nodes), f"{variable!r} codes")
    children: dict[str | None, list[str]] = {}
    for node in sorted(nodes, key=code_order):
        children.setdefault(parent.get(node) if parent.get(node) in nodes else None, []).append(node)
    order: list[str] = []
    stack = list(reversed(children.get(None, [])))
    while stack:  # depth first, each subtotal before its members
        node = stack.pop()
        order.append(node)
        stack.extend(reversed(children.get(node, [])))
    leaves = tuple(node in used for node in order)
    leaf_order = [node for node in order if node in used]
    leaf_index = {code: i for i, code in enumerate(leaf_order)}
    below: dict[str, list[int]] = {node: [] for node in order}
    for code, chain in used.items():
        for node in (code, *chain):
            below[node].append(leaf_index[code])
    members = tuple(tuple(sorted(below[node])) for node in order)
    return SpanningAxis(variable, tuple(order), leaves, members)


def _numbers(frame: pd.DataFrame, variable: str, role: str) -> np.ndarray:
    if variable not in frame.columns:
        raise InputError(f"{role}: no column {variable!r}; columns are {', '.join(frame.columns)}")
    column = frame[variable]
    if not (pd.api.types.is_numeric_dtype(column) and not pd.api.types.is_bool_dtype(column)):
        converted = pd.to_numeric(column, errors="coerce")
        bad = converted.isna() & column.notna()
        if bad.any():
            raise InputError(f"{role} {variable!r} must be numeric; record {int(np.argmax(bad.to_numpy())) + 1} has "
                             f"{column[bad].iloc[0]!r}")
        column = converted
    values = column.to_numpy(dtype=float)
    if np.isnan(values).any():
        raise InputError(f"{role} {variable!r} is missing in record {int(np.argmax(np.isnan(values))) + 1}")
    if not np.isfinite(values).all() or (np.abs(values) > MAX_MAGNITUDE).any():
        raise InputError(f"{role} {variable!r} has a value beyond {MAX_MAGNITUDE:.0e}: rescale it")
    if (values < 0).any():
        raise InputError(f"{role} {variable!r} is negative in record {int(np.argmax(values < 0)) + 1} "
                         f"({values[values < 0][0]:g}); magnitude tables and their rules need non-negative values")
    return values


def _example() -> dict[str, Any]:
    return {"frame": example_microdata(), "rows": "region", "columns": "size", "response": "turnover"}


_OPTIONAL_NAME = [None, InstanceOf(str, "a column name")]


@validate_params({"frame": Table(), "rows": InstanceOf(str, "a column name"), "columns": _OPTIONAL_NAME,
                  "layers": _OPTIONAL_NAME, "response": _OPTIONAL_NAME, "shadow": _OPTIONAL_NAME,
                  "hierarchies": [None, InstanceOf(Mapping, "a mapping of variable -> {code: parent}")],
                  "budget": InstanceOf(WorkBudget)},
                 example=_example)
def table_from_microdata(frame: pd.DataFrame, rows: str, columns: str | None = None, layers: str | None = None,
                         response: str | None = None, shadow: str | None = None,
                         hierarchies: Mapping[str, Mapping[Any, Any]] | None = None,
                         budget: WorkBudget = DEFAULT_BUDGET) -> MicrodataTable:
    """Build a magnitude or frequency table, with its contributions per cell, from microdata.

    Parameters
    ----------
    frame : pandas.DataFrame
        One record per row.
    rows : str
        The spanning variable of the rows (categorical; its codes are read
        as text).
    columns : str, optional
        The spanning variable of the columns. Without it, a one-way table of
        one column.
    layers : str, optional
        A third spanning variable: one 2-D table per layer, plus the layer
        total (needs ``columns``).
    response : str, optional
        The numeric, non-negative response: cells are its sums (a magnitude
        table). Without it, cells are counts of records (a frequency table).
    shadow : str, optional
        A numeric, non-negative variable the sensitivity rules look at
        instead of the response (the table still shows the response).
    hierarchies : mapping, optional
        ``{variable: {code: parent}}``: a subtotal row or column for each
        parent, adding up the codes below it. Codes of the data must be the
        most detailed ones; a code without a parent is at the top level.
    budget : WorkBudget, default DEFAULT_BUDGET
        Limits the number of codes of each variable, the cells and the
        contributions built.

    Returns
    -------
    MicrodataTable

    Raises
    ------
    InputError
        A missing or repeated variable, a missing code, a code named
        ``"Total"`` or containing ``":"``, a non-numeric, missing or negative
        response or shadow, a cyclic hierarchy, or a table over the budget.

    Notes
    -----
    tau-Argus's way (Mas, seed 004): the table is computed from the
    microdata so that the contributions of each cell are at hand for the
    sensitivity rules (threshold, (n,k)-dominance, p%), and a shadow
    variable can drive those rules while another variable is published.

    Examples
    --------
    >>> from rumap.tables.microdata import example_microdata, table_from_microdata
    >>> table = table_from_microdata(example_microdata(), "region", "size", response="turnover")
    >>> float(table.published().to_frame().loc["North", "small"])
    60.0
    >>> table.primary("p-percent", p=10)
    [('North', 'large'), ('South', 'large')]
    """
    names = [name for name in (rows, columns, layers) if name is not None]
    if len(set(names)) < len(names):
        raise InputError("rows, columns and layers must be different variables")
    if layers is not None and columns is None:
        raise InputError("layers need columns: give rows, columns and then layers")
    for name, role in ((response, "response"), (shadow, "shadow")):
        if name is not None and name in names:
            raise InputError(f"the {role} {name!r} is also a spanning variable")
    hierarchies = dict(hierarchies or {})
    for variable, hierarchy in hierarchies.items():
        if variable not in names:
            raise InputError(f"a hierarchy is given for {variable!r}, which is not a spanning variable")
        if not isinstance(hierarchy, Mapping):
            raise InputError(f"the hierarchy of {variable!r} must be a mapping of code -> parent")
    n = frame.shape[0]
    axes: dict[str, SpanningAxis] = {}
    positions: list[np.ndarray] = []
    for variable, role in ((rows, "rows"), (columns, "columns"), (layers, "layers")):
        if variable is None:
            positions.append(np.zeros(n, dtype=np.int64))
            continue
        codes = _codes(frame, variable, role)
        axis = _axis(codes, variable, hierarchies.get(variable), budget)
        axes[role] = axis
        index = {code: i for i, code in enumerate(axis.leaf_labels)}
        positions.append(codes.map(index).to_numpy(dtype=np.int64))
    row_axis, column_axis, layer_axis = axes["rows"], axes.get("columns"), axes.get("layers")
    shown = _numbers(frame, response, "response") if response is not None else np.ones(n)
    for_rules = _numbers(frame, shadow, "shadow") if shadow is not None else shown
    n_rows, n_columns = len(row_axis.labels) + 1, (len(column_axis.labels) if column_axis else 1) + 1
    n_layers = len(layer_axis.labels) + 1 if layer_axis else 1
    depth = _depth(row_axis) * (_depth(column_axis) if column_axis else 2)
    budget.check_cells(float(n_layers) * n_rows * n_columns, f"{n_layers} layers x {n_rows} rows x {n_columns} columns")
    budget.check_work(float(n) * depth * 2, f"{n} records x {depth} cells each")
    leaf_shape = (len(layer_axis.leaf_labels) if layer_axis else 1, len(row_axis.leaf_labels),
                  len(column_axis.leaf_labels) if column_axis else 1)
    sums, counts = np.zeros(leaf_shape), np.zeros(leaf_shape)
    layer_pos, row_pos, column_pos = positions[2], positions[0], positions[1]
    np.add.at(sums, (layer_pos, row_pos, column_pos), shown)
    np.add.at(counts, (layer_pos, row_pos, column_pos), 1.0)
    row_m = row_axis.membership()
    column_m = column_axis.membership() if column_axis else _ONE_WAY
    layer_m = layer_axis.membership() if layer_axis else sparse.csc_matrix(np.ones((1, 1)))
    values = _aggregate(sums, layer_m, row_m, column_m)
    contributors = np.rint(_aggregate(counts, layer_m, row_m, column_m)).astype(np.int64)
    return MicrodataTable(
        rows=row_axis, columns=column_axis, layers=layer_axis, response=response, shadow=shadow,
        values=values, contributors=contributors,
        record_cells=np.column_stack([layer_pos, row_pos, column_pos]), rule_values=for_rules,
        config={"rows": rows, "columns": columns, "layers": layers, "response": response, "shadow": shadow,
                "hierarchies": {k: {str(c): str(p) for c, p in v.items()} for k, v in hierarchies.items()}})


def _aggregate(cells: np.ndarray, layer_m: sparse.csc_matrix, row_m: sparse.csc_matrix,
               column_m: sparse.csc_matrix) -> np.ndarray:
    """Sums of the codes' cells over every layer, row and column label with the totals: one product per axis."""
    n_layers, n_rows, n_columns = cells.shape
    by_layer = np.asarray(layer_m @ cells.reshape(n_layers, -1)).reshape(-1, n_rows, n_columns)
    out = np.empty((by_layer.shape[0], row_m.shape[0], column_m.shape[0]))
    for k, part in enumerate(by_layer):  # sparse products: work in proportion to the codes, not labels x codes
        out[k] = np.asarray(column_m @ np.asarray(row_m @ part).T).T
    return out


def _depth(axis: SpanningAxis) -> int:
    """The most labels one code falls in, the total included."""
    counts = np.zeros(len(axis.leaf_labels), dtype=np.int64)
    for members in axis.members:
        counts[list(members)] += 1
    return int(counts.max(initial=0)) + 1


@assumes_valid
def example_microdata() -> pd.DataFrame:
    """Fifteen businesses by region, size class and sector, with turnover and employees (for demonstrations).

    The cells North/large (one firm) and South/large (90 of 100 from one
    firm) are sensitive under the p% rule with p = 10; the others are not.
    """
    return pd.DataFrame({
        "region": ["North"] * 7 + ["South"] * 8,
        "size": ["small"] * 3 + ["medium"] * 3 + ["large"] + ["small"] * 3 + ["medium"] * 3 + ["large"] * 2,
        "sector": ["A", "B", "A", "B", "A", "B", "B", "A", "A", "B", "A", "B", "A", "B", "A"],
        "turnover": [20.0, 20.0, 20.0, 40.0, 35.0, 30.0, 300.0, 15.0, 10.0, 25.0, 45.0, 50.0, 40.0, 90.0, 10.0],
        "employees": [2, 3, 2, 20, 15, 12, 150, 1, 2, 3, 25, 30, 22, 80, 6],
    })
