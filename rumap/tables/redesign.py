"""Table redesign: the cells of merged rows or columns, given the merged table (Section 4.3, Eq 4, Table 2)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from rumap._validation import InstanceOf, StrOptions, validate_params
from rumap.errors import InputError
from rumap.tables.bounds import TableBounds, lp_bounds
from rumap.tables.entropy import cell_risks, check_distribution
from rumap.tables.published import TOTAL_LABEL, PublishedTable, paper_table1_completed

__all__ = ["merge_categories", "redesign_bounds"]

#: The axes along which categories can be merged.
_AXES = ("rows", "columns")


def _example() -> dict[str, Any]:
    return {"table": paper_table1_completed(), "labels": ["5", "6"]}


def _redesign_example() -> dict[str, Any]:
    merged = merge_categories(paper_table1_completed(), ["5", "6"], merged_label="5+6")
    return {"table": merged, "merged_label": "5+6", "parts": ["5", "6"]}


@validate_params({"table": InstanceOf(PublishedTable), "axis": StrOptions(_AXES)}, example=_example)
def merge_categories(table: PublishedTable, labels: Sequence[str], *, axis: str = "rows",
                     merged_label: str | None = None) -> PublishedTable:
    """Table redesign: combine rows (or columns) of a table into one.

    Parameters
    ----------
    table : PublishedTable
        The original table; the merged rows must not be suppressed.
    labels : sequence of str
        At least two row (or column) labels to combine.
    axis : {"rows", "columns"}
    merged_label : str, optional
        Default: the labels joined by commas (``"5,6"``).

    Returns
    -------
    PublishedTable
        The redesigned table, the merged row in place of the first merged one.

    References
    ----------
    Domingo-Ferrer, Oganian & Torra, Section 4.3 and Table 2.
    """
    if axis == "columns":
        return merge_categories(table.transpose(), labels, axis="rows", merged_label=merged_label).transpose()
    parts = _part_indices(table, labels)
    block = table.values[parts]
    if np.isnan(block).any():
        raise InputError("merged rows must not contain suppressed cells")
    merged = block.sum(axis=0)
    keep = [i for i in range(len(table.row_labels)) if i not in parts[1:]]
    values = table.values.copy()
    values[parts[0]] = merged
    values = values[[*keep, len(table.row_labels)]]
    row_labels = [table.row_labels[i] for i in keep]
    row_labels[keep.index(parts[0])] = merged_label or ",".join(table.row_labels[i] for i in parts)
    return PublishedTable(tuple(row_labels), table.column_labels, values)


def _part_indices(table: PublishedTable, labels: Sequence[str]) -> list[int]:
    names = [str(label) for label in labels]
    if len(names) < 2 or len(set(names)) != len(names):
        raise InputError(f"give at least two different labels to merge, got {names}")
    missing = [n for n in names if n not in table.row_labels]
    if missing:
        raise InputError(f"no row {missing[0]!r}; rows are {', '.join(table.row_labels)}")
    return sorted(table.row_labels.index(n) for n in names)


@validate_params({"table": InstanceOf(PublishedTable), "axis": StrOptions(_AXES), "resolution": "resolution"},
                 example=_redesign_example)
def redesign_bounds(table: PublishedTable, merged_label: str, parts: Sequence[str], *, axis: str = "rows",
                    resolution: float = 1.0,
                    distribution: Callable[[np.ndarray], Any] | None = None) -> TableBounds:
    """Risk of the original cells behind a merged row (or column) of a redesigned table.

    Parameters
    ----------
    table : PublishedTable
        The released (redesigned) table.
    merged_label : str
        The merged row's label, e.g. ``"5,6"``.
    parts : sequence of str
        Labels of the original rows combined in it (at least two).
    axis : {"rows", "columns"}
    resolution : float, default 1
    distribution : callable, optional
        As in :func:`suppression_bounds`.

    Returns
    -------
    TableBounds
        One entry per original cell (part, column), the parts' totals included
        (column ``"Total"``).

    Notes
    -----
    Unknowns: the parts' cells x[p, c] and totals t[p]. Constraints (Eq 4 of the
    paper): sum_c x[p, c] - t[p] = 0 for each part; sum_p x[p, c] = published
    merged value for each column and for the total; all >= 0. Two LPs per
    unknown give its range, then m and DR as for suppression.

    References
    ----------
    Domingo-Ferrer, Oganian & Torra, Section 4.3, Eq (4) and Table 2.
    """
    if axis == "columns":
        result = redesign_bounds(table.transpose(), merged_label, parts, axis="rows", resolution=resolution,
                                 distribution=distribution)
        labels = tuple((c, r) for r, c in result.labels)
        return TableBounds(("row", "column"), labels, result.min, result.max, result.values, result.risk,
                           "redesign", result.config)
    check_distribution(distribution)
    merged_label = str(merged_label)
    if merged_label not in table.row_labels:
        raise InputError(f"no row {merged_label!r}; rows are {', '.join(table.row_labels)}")
    names = [str(p) for p in parts]
    if len(names) < 2 or len(set(names)) != len(names):
        raise InputError(f"give at least two different original rows behind {merged_label!r}, got {names}")
    merged = table.values[table.row_labels.index(merged_label)]
    if np.isnan(merged).any():
        raise InputError(f"row {merged_label!r} has suppressed entries")
    n_parts, n_cols = len(names), merged.size
    index = np.arange(n_parts * n_cols).reshape(n_parts, n_cols)
    equations = np.zeros((n_parts + n_cols, n_parts * n_cols))
    for p in range(n_parts):  # each original row adds up to its (unknown) total
        equations[p, index[p, :-1]] = 1.0
        equations[p, index[p, -1]] = -1.0
    for c in range(n_cols):  # each column of the parts adds up to the published merged value
        equations[n_parts + c, index[:, c]] = 1.0
    rhs = np.concatenate([np.zeros(n_parts), merged])
    low, high = lp_bounds(equations, rhs, np.zeros(n_parts * n_cols))
    low, high, m, risk = cell_risks(low, high, resolution, distribution)
    columns = [*table.column_labels, TOTAL_LABEL]
    labels = tuple((p, c) for p in names for c in columns)
    return TableBounds(("row", "column"), labels, low, high, m, risk, "redesign",
                       {"merged": merged_label, "parts": names, "resolution": resolution})
