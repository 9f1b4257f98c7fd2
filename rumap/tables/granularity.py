"""Granularity: the share of unit cells in each hyper-row of a table, and the seed's procedure with key variables.

A hyper-row is the set of cells obtained by fixing the categories of one or
more of a table's variables (Sex = female and Occupation = statistician in
Occupation x Age x Sex). Its index of granularity is

    (number of unit cells) / (number of cells with a value) x 100,

unit cells being those with frequency 1 (or one contributor in a magnitude
table). A hyper-row whose index reaches the threshold (50 in the seed) needs
action, and a table with such a hyper-row is unsafe (seed 004, Mas,
"Granularity", Definition and Quantification; Algorithm to eliminate
granularity, Step 2).

The combined procedure (Steps 1-2 of that algorithm) tabulates every
combination of 2 and 3 key variables of a microdata file, as mu-Argus does
(:func:`rumap.risk.keys.key_analysis`), flags each table's unit cells and
judges each table by its hyper-rows.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from itertools import combinations
from typing import Any

import numpy as np
import pandas as pd

from rumap._validation import InstanceOf, Table, assumes_valid, validate_params
from rumap.budget import DEFAULT_BUDGET, WorkBudget
from rumap.errors import InputError
from rumap.result import json_safe
from rumap.risk.cells import cell_frequencies, key_codes
from rumap.risk.keys import key_analysis
from rumap.risk.paired import select_columns

__all__ = ["Granularity", "GranularityAnalysis", "granularity", "granularity_analysis", "long_table", "seed_hyper_rows"]

MAX_VARIABLES = 8


@dataclass(frozen=True)
class Granularity:
    """The index of granularity of every hyper-row of a table, and the table's verdict.

    Parameters
    ----------
    variables : tuple of str
        The table's variables.
    threshold : float
        A hyper-row whose index reaches it is unsafe (percent).
    hyper_rows : DataFrame
        One row per hyper-row with a value: ``fixed`` (the fixed categories,
        ``"sex=female, occupation=statistician"``), ``along`` (the free
        variables), ``cells`` (cells with a value), ``unit_cells``, ``index``
        (percent) and ``unsafe``.
    unit_cells : DataFrame
        The table's cells of frequency 1: one column per variable.
    """

    variables: tuple[str, ...]
    threshold: float
    hyper_rows: pd.DataFrame = field(repr=False)
    unit_cells: pd.DataFrame = field(repr=False)

    @property
    def max_index(self) -> float:
        """The largest index of granularity (0 for an empty table)."""
        return float(self.hyper_rows["index"].max()) if len(self.hyper_rows) else 0.0

    @property
    def unsafe_rows(self) -> int:
        """The number of hyper-rows whose index reaches the threshold."""
        return int(self.hyper_rows["unsafe"].sum())

    @property
    def safe(self) -> bool:
        """Whether no hyper-row reaches the threshold."""
        return self.unsafe_rows == 0

    def to_frame(self) -> pd.DataFrame:
        """The table of hyper-rows."""
        return self.hyper_rows.copy()

    def to_dict(self) -> dict[str, Any]:
        """``{"variables", "threshold", "safe", "max_index", "unsafe_hyper_rows", "hyper_rows", "unit_cells"}``."""
        return json_safe({"variables": list(self.variables), "threshold": self.threshold, "safe": self.safe,
                          "max_index": self.max_index, "unsafe_hyper_rows": self.unsafe_rows,
                          "hyper_rows": self.hyper_rows.to_dict(orient="records"),
                          "unit_cells": self.unit_cells.to_dict(orient="records")})


@dataclass(frozen=True)
class GranularityAnalysis:
    """The seed's combined procedure: granularity of every table of 2 and 3 key variables of a microdata file.

    Parameters
    ----------
    keys : tuple of str
        The key variables.
    threshold : float
        The index (percent) at which a hyper-row is unsafe.
    tables : DataFrame
        One row per combination: ``variables``, ``dimension``, ``cells``,
        ``unit_cells``, ``records_in_unit_cells`` (from the key analysis),
        ``hyper_rows``, ``unsafe_hyper_rows``, ``max_index``, ``safe``.
    unit_cells : DataFrame
        Every unit cell: ``variables`` and ``cell`` (``"sex=f, region=b"``).
    records_in_unit_cells : ndarray of bool, shape (n,)
        Records alone in a cell of some table.
    """

    keys: tuple[str, ...]
    threshold: float
    tables: pd.DataFrame = field(repr=False)
    unit_cells: pd.DataFrame = field(repr=False)
    records_in_unit_cells: np.ndarray = field(repr=False)

    @property
    def safe(self) -> bool:
        """Whether every table is safe."""
        return bool(self.tables["safe"].all()) if len(self.tables) else True

    def to_frame(self) -> pd.DataFrame:
        """The table of combinations."""
        return self.tables.copy()

    def to_dict(self) -> dict[str, Any]:
        """``{"keys", "threshold", "safe", "tables", "unit_cells", "records_in_unit_cells"}``."""
        return json_safe({"keys": list(self.keys), "threshold": self.threshold, "safe": self.safe,
                          "tables": self.tables.to_dict(orient="records"),
                          "unit_cells": self.unit_cells.to_dict(orient="records"),
                          "records_in_unit_cells": int(self.records_in_unit_cells.sum())})


def _describe(names: Sequence[str], values: Sequence[Any]) -> str:
    return ", ".join(f"{n}={v}" for n, v in zip(names, values, strict=True))


def _example_table() -> pd.DataFrame:
    return seed_hyper_rows()[seed_hyper_rows()["pattern"] == "proportional"].drop(columns="pattern")


@validate_params({"table": Table(), "count": InstanceOf(str, "the name of the frequency column")},
                 example=lambda: {"table": _example_table()})
def long_table(table: Any, count: str = "count") -> pd.DataFrame:
    """A frequency table in long form: one column per variable and ``count``.

    Parameters
    ----------
    table : DataFrame
        Either long already (a column ``count``, the others the variables), or
        a 2-D table: the first column holds the row categories, the others
        the counts of each column category; a row or column labelled
        ``total`` (any case) is left out.
    count : str, default "count"
        The frequency column of a long table.

    Returns
    -------
    DataFrame
        The variables as text, ``count`` as numbers (empty cells 0).

    Raises
    ------
    InputError
        Missing (in a long table), negative, fractional or non-numeric counts;
        a cell given twice; no variable.

    Examples
    --------
    >>> import pandas as pd
    >>> wide = pd.DataFrame({"sex": ["f", "m", "total"], "young": [1, 4, 5], "old": [2, 0, 2], "Total": [3, 4, 7]})
    >>> long_table(wide).to_dict(orient="list")
    {'sex': ['f', 'm', 'f', 'm'], 'column': ['young', 'young', 'old', 'old'], 'count': [1.0, 4.0, 2.0, 0.0]}
    """
    long = count in table.columns
    if long:
        variables = [c for c in table.columns if c != count]
        frame = table[variables].astype(str).copy()
        counts = table[count]
    else:
        if table.shape[1] < 2:
            raise InputError(f"table: no column {count!r} and fewer than 2 columns; give a long table with a "
                             f"{count!r} column or a 2-D table (row labels, then one column per category)")
        first = table.columns[0]
        rows = table[table[first].astype(str).str.strip().str.lower() != "total"]
        columns = [c for c in table.columns[1:] if str(c).strip().lower() != "total"]
        if str(first) in ("count", "column"):
            raise InputError(f"table: the row labels' column may not be named {first!r} in a 2-D table")
        melted = rows.melt(id_vars=[first], value_vars=columns, var_name="column", value_name="__count__")
        variables = [str(first), "column"]
        frame = melted[variables].astype(str)
        counts = melted["__count__"]
    if not variables:
        raise InputError("table: has no variable besides its counts")
    values = pd.to_numeric(counts, errors="coerce").to_numpy(dtype=float)
    if np.isnan(values).any() and not counts[np.isnan(values)].isna().all():
        bad = counts[np.isnan(values)].iloc[0]
        raise InputError(f"table: the count {bad!r} is not a number")
    if long and np.isnan(values).any():
        raise InputError(f"table: the {count!r} of row {int(np.argmax(np.isnan(values))) + 1} is missing; "
                         "write 0 for an empty cell")
    values = np.nan_to_num(values, nan=0.0)  # an empty cell of a 2-D table
    if not np.isfinite(values).all() or (values < 0).any() or (values > 1e15).any():
        raise InputError("table: counts must be finite numbers from 0 to 1e15")
    fractional = values != np.round(values)
    if fractional.any():
        raise InputError(f"table: counts are whole numbers of units; row {int(np.argmax(fractional)) + 1} has "
                         f"{values[fractional][0]:g}")
    repeated = frame.duplicated(keep="first").to_numpy()
    if repeated.any():
        cell = ", ".join(f"{k}={v}" for k, v in frame.iloc[int(np.argmax(repeated))].items())
        raise InputError(f"table: the cell {cell} appears more than once; give each cell one count")
    frame["count"] = values
    return frame.reset_index(drop=True)


@validate_params({"table": Table(), "threshold": "granularity_threshold", "count": InstanceOf(str, "the frequency column"),
                  "budget": InstanceOf(WorkBudget)},
                 example=lambda: {"table": _example_table()})
def granularity(table: Any, threshold: float = 50.0, count: str = "count",
                budget: WorkBudget = DEFAULT_BUDGET) -> Granularity:
    """The index of granularity of every hyper-row of a frequency table, and the table's verdict.

    Parameters
    ----------
    table : DataFrame
        A frequency table, long or 2-D (see :func:`long_table`).
    threshold : float, default 50
        A hyper-row whose index is at least this (percent) is unsafe, and so
        is the table (the seed's 50%: "under 50%, no action").
    count : str, default "count"
        The frequency column of a long table.
    budget : WorkBudget
        Cells x hyper-row kinds, checked first.

    Returns
    -------
    Granularity

    Notes
    -----
    Hyper-rows fix the categories of every non-empty proper subset of the
    variables (rows and columns of a 2-D table; lines and slices of a 3-D
    one); a table of one variable is one hyper-row. Cells with a value have a
    positive count; hyper-rows with none are left out.

    References
    ----------
    Seed 004 (Mas, EUSTAT), "Granularity": Index of Granularity, Types of
    Granularity (the statistician x age x female hyper-rows).

    Examples
    --------
    >>> import pandas as pd
    >>> line = pd.DataFrame({"age": ["5-19", "20-34", "35-50", "50-65", "66+"], "count": [1, 3, 4, 1, 1]})
    >>> result = granularity(line)  # the seed's "proportional" hyper-row: 3 unit cells of 5
    >>> result.max_index, result.safe
    (60.0, False)
    """
    frame = long_table(table, count)
    variables = [c for c in frame.columns if c != "count"]
    if len(variables) > MAX_VARIABLES:
        raise InputError(f"table: has {len(variables)} variables; granularity takes at most {MAX_VARIABLES}")
    kinds = [fixed for d in range(1, len(variables)) for fixed in combinations(variables, d)] or [()]
    budget.check_work(float(len(kinds)) * len(frame), f"{len(kinds)} kinds of hyper-row x {len(frame)} cells")
    valued = frame[frame["count"] > 0]
    unit = valued["count"] == 1
    rows = []
    for fixed in kinds:
        along = " x ".join(v for v in variables if v not in fixed)
        groups = valued.assign(unit=unit).groupby(list(fixed), sort=False) if fixed else [((), valued.assign(unit=unit))]
        for key, members in groups:
            key = key if isinstance(key, tuple) else (key,)
            cells, units = len(members), int(members["unit"].sum())
            index = 100.0 * units / cells
            rows.append({"fixed": _describe(fixed, key) if fixed else "(whole table)", "along": along,
                         "cells": cells, "unit_cells": units, "index": index, "unsafe": index >= threshold})
    hyper_rows = pd.DataFrame(rows, columns=["fixed", "along", "cells", "unit_cells", "index", "unsafe"])
    hyper_rows = hyper_rows.sort_values("index", ascending=False, kind="stable").reset_index(drop=True)
    return Granularity(tuple(variables), float(threshold), hyper_rows,
                       valued.loc[unit, variables].reset_index(drop=True))


@validate_params({"data": Table(), "threshold": "granularity_threshold",
                  "source": InstanceOf(str, "a name for messages"), "budget": InstanceOf(WorkBudget)},
                 example=lambda: {"data": pd.DataFrame({"sex": ["f", "f", "m", "m", "m", "f"],
                                                        "region": ["a", "a", "a", "b", "b", "b"],
                                                        "age": ["young", "old", "old", "old", "young", "young"]}),
                                  "keys": ["sex", "region", "age"]})
def granularity_analysis(data: Any, keys: Sequence[str | int], threshold: float = 50.0, source: str = "the data",
                         budget: WorkBudget = DEFAULT_BUDGET) -> GranularityAnalysis:
    """Steps 1-2 of the seed's algorithm: tables of 2 and 3 key variables, unit cells flagged, each table judged.

    Parameters
    ----------
    data : DataFrame or array_like
        The microdata file.
    keys : sequence of str or int
        The key (identifying) variables, at least 2.
    threshold : float, default 50
        The index of granularity (percent) at which a hyper-row is unsafe.
    source : str
        The file's name, for messages.
    budget : WorkBudget
        Records x combinations, checked first (by the key analysis).

    Returns
    -------
    GranularityAnalysis

    References
    ----------
    Seed 004 (Mas, EUSTAT), "Application to Electronic Micro-Tables",
    Algorithm to eliminate granularity in microdata files, Steps 1-2.

    Examples
    --------
    >>> import pandas as pd
    >>> frame = pd.DataFrame({"sex": ["f", "f", "m", "m", "m", "f"], "region": ["a", "a", "a", "b", "b", "b"]})
    >>> result = granularity_analysis(frame, ["sex", "region"])
    >>> result.tables[["variables", "unit_cells", "max_index", "safe"]].to_dict(orient="records")
    [{'variables': 'sex x region', 'unit_cells': 2, 'max_index': 50.0, 'safe': False}]
    """
    names = select_columns(data, keys, source, what="key")
    if len(names) < 2:
        raise InputError(f"{source}: granularity tables cross at least 2 key variables, got {len(names)}")
    keyed = key_analysis(data, names, dimension=3, threshold=2, source=source, budget=budget)
    combos = keyed.combinations[keyed.combinations["dimension"] >= 2].reset_index(drop=True)
    codes = key_codes(data, names)
    flagged = np.zeros(len(data), dtype=bool)
    rows, units = [], []
    for variables in combos["variables"]:
        chosen = variables.split(" x ")
        columns = [names.index(c) for c in chosen]
        _, frequency, known = cell_frequencies(codes, columns)
        flagged |= known & (frequency == 1)
        cells = data.loc[known, chosen].astype(str).value_counts(sort=False).rename("count").reset_index()
        result = granularity(cells, threshold=threshold, budget=budget)
        rows.append({"hyper_rows": len(result.hyper_rows), "unsafe_hyper_rows": result.unsafe_rows,
                     "max_index": result.max_index, "safe": result.safe})
        units += [{"variables": variables, "cell": _describe(chosen, cell)}
                  for cell in result.unit_cells.itertuples(index=False)]
    tables = pd.concat([combos.rename(columns={"unsafe_cells": "unit_cells",
                                               "records_in_unsafe_cells": "records_in_unit_cells"}),
                        pd.DataFrame(rows, columns=["hyper_rows", "unsafe_hyper_rows", "max_index", "safe"])], axis=1)
    return GranularityAnalysis(tuple(names), float(threshold), tables,
                               pd.DataFrame(units, columns=["variables", "cell"]), flagged)


@assumes_valid
def seed_hyper_rows() -> pd.DataFrame:
    """The seed's four statistician x age x female hyper-rows (Types of Granularity), in long form.

    Returns
    -------
    DataFrame
        Columns ``pattern`` (normal, proportional, odd, dispersed), ``age``
        and ``count``.

    Examples
    --------
    >>> seed_hyper_rows().groupby("pattern", sort=False)["count"].sum().to_dict()
    {'normal': 60, 'proportional': 10, 'odd': 24, 'dispersed': 42}
    """
    ages = ["5-19", "20-34", "35-50", "50-65", "66+"]
    patterns = {"normal": [1, 30, 18, 9, 2], "proportional": [1, 3, 4, 1, 1], "odd": [0, 1, 1, 21, 1],
                "dispersed": [1, 30, 1, 9, 1]}
    return pd.DataFrame([{"pattern": p, "age": a, "count": c} for p, counts in patterns.items()
                         for a, c in zip(ages, counts, strict=True)])
