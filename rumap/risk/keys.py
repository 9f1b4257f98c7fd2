"""Key-variable analysis, the mu-Argus way: which combinations of key variables have unsafe cells.

An intruder who knows some of a person's key variables (age band, sex,
region, ...) can single out records whose combination of values is rare.
mu-Argus therefore tabulates every combination of the key variables up to a
dimension d (3 by default) and calls a cell *unsafe* when fewer than a
threshold of records fall in it (seed 004, Mas: "combinations of key
variables", "unsafe cells"). The analysis lists, per combination, the
observed and unsafe cells and the records in unsafe cells; the unsafest
combinations; and the variables most often part of them, the candidates for
global recoding or local suppression.

A record with a missing value in a combination's variables is left out of
that combination's table (a missing value matches any category, so it is in
no cell of its own).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from itertools import combinations
from math import comb
from typing import Any

import numpy as np
import pandas as pd

from rumap._validation import InstanceOf, validate_params
from rumap.budget import DEFAULT_BUDGET, WorkBudget
from rumap.errors import InputError
from rumap.risk.cells import cell_frequencies, key_codes
from rumap.risk.paired import as_frame, select_columns

__all__ = ["KeyAnalysis", "key_analysis", "unsafe_cells"]


def _example() -> dict[str, Any]:
    return {"data": pd.DataFrame({"sex": ["f", "f", "m", "m", "m", "f"], "region": ["a", "a", "a", "b", "b", "b"],
                                  "age": ["young", "old", "old", "old", "young", "young"]}),
            "keys": ["sex", "region", "age"]}


@dataclass(frozen=True)
class KeyAnalysis:
    """The unsafe cells of every combination of key variables up to a dimension.

    Attributes
    ----------
    keys : tuple of str
        The key variables.
    dimension : int
        Largest number of variables combined.
    threshold : int
        A cell is unsafe when it holds fewer than ``threshold`` records.
    combinations : DataFrame
        One row per combination, unsafest first: ``variables`` (joined by
        " x "), ``dimension``, ``cells`` (observed), ``unsafe_cells``,
        ``records_in_unsafe_cells``.
    variables : DataFrame
        One row per key variable: ``unsafe_combinations`` (combinations with an
        unsafe cell that include it) and ``unsafe_cells`` (summed over them).
    records_at_risk : ndarray of bool, shape (n,)
        Records in at least one unsafe cell.
    """

    keys: tuple[str, ...]
    dimension: int
    threshold: int
    combinations: pd.DataFrame = field(repr=False)
    variables: pd.DataFrame = field(repr=False)
    records_at_risk: np.ndarray = field(repr=False)

    def to_frame(self) -> pd.DataFrame:
        """The table of combinations."""
        return self.combinations.copy()

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: the settings, every combination and every variable."""
        return {"keys": list(self.keys), "dimension": self.dimension, "threshold": self.threshold,
                "records_at_risk": int(self.records_at_risk.sum()),
                "combinations": self.combinations.to_dict(orient="records"),
                "variables": self.variables.to_dict(orient="records")}


@validate_params({"dimension": "key_dimension",
                  "threshold": "threshold",
                  "source": InstanceOf(str, "a name for messages"), "budget": InstanceOf(WorkBudget)},
                 example=_example)
def key_analysis(data: Any, keys: Sequence[str | int], dimension: int = 3, threshold: int = 3,
                 source: str = "the data", budget: WorkBudget = DEFAULT_BUDGET) -> KeyAnalysis:
    """Tabulate every combination of up to ``dimension`` key variables and find the unsafe cells.

    Parameters
    ----------
    data : DataFrame or array_like
        The microdata file.
    keys : sequence of str or int
        The key variables.
    dimension : int, default 3
        Largest number of variables in a combination (mu-Argus's default 3).
    threshold : int, default 3
        A cell with fewer records is unsafe.
    source : str
        The file's name, for messages.
    budget : WorkBudget
        Records x combinations, checked first.

    Returns
    -------
    KeyAnalysis

    References
    ----------
    Seed 004 (Mas, EUSTAT), mu-Argus: "combinations of key variables", "unsafe
    combinations"; Hundepool et al., mu-Argus user's manual.

    Examples
    --------
    >>> import pandas as pd
    >>> frame = pd.DataFrame({"sex": ["f", "f", "m", "m", "m", "f"], "region": ["a", "a", "a", "b", "b", "b"]})
    >>> result = key_analysis(frame, ["sex", "region"], dimension=2, threshold=2)
    >>> result.combinations[["variables", "cells", "unsafe_cells"]].to_dict(orient="records")
    [{'variables': 'sex x region', 'cells': 4, 'unsafe_cells': 2}, {'variables': 'sex', 'cells': 2, 'unsafe_cells': 0}, {'variables': 'region', 'cells': 2, 'unsafe_cells': 0}]
    """
    frame = as_frame(data, source)
    names = select_columns(frame, keys, source, what="key")
    if len(set(names)) != len(names):
        raise InputError(f"{source}: a key variable is named twice")
    depth = min(dimension, len(names))
    count = sum(comb(len(names), d) for d in range(1, depth + 1))
    budget.check_work(float(count) * frame.shape[0], f"{count} combinations x {frame.shape[0]} records")
    codes = key_codes(frame, names)
    rows = []
    at_risk = np.zeros(frame.shape[0], dtype=bool)
    for d in range(1, depth + 1):
        for columns in combinations(range(len(names)), d):
            group, frequency, known = cell_frequencies(codes, columns)
            counts = np.bincount(group[known]) if known.any() else np.zeros(0, dtype=np.int64)
            in_unsafe = known & (frequency < threshold)
            at_risk |= in_unsafe
            rows.append({"variables": " x ".join(names[c] for c in columns), "dimension": d, "cells": int(counts.size),
                         "unsafe_cells": int((counts < threshold).sum()),
                         "records_in_unsafe_cells": int(in_unsafe.sum()),
                         "_columns": columns})
    table = pd.DataFrame(rows).sort_values(["unsafe_cells", "records_in_unsafe_cells", "dimension"],
                                           ascending=[False, False, True], kind="stable")
    per_variable = []
    for j, name in enumerate(names):
        mine = table[np.array([j in c for c in table["_columns"]]) & (table["unsafe_cells"] > 0).to_numpy()]
        per_variable.append({"variable": name, "unsafe_combinations": int(len(mine)),
                             "unsafe_cells": int(mine["unsafe_cells"].sum())})
    variables = pd.DataFrame(per_variable).sort_values(["unsafe_combinations", "unsafe_cells"], ascending=False,
                                                       kind="stable").reset_index(drop=True)
    return KeyAnalysis(keys=tuple(names), dimension=depth, threshold=threshold,
                       combinations=table.drop(columns="_columns").reset_index(drop=True), variables=variables,
                       records_at_risk=at_risk)


@validate_params({"threshold": "threshold",
                  "source": InstanceOf(str, "a name for messages")},
                 example=lambda: {**_example(), "keys": ["sex", "region"]})
def unsafe_cells(data: Any, keys: Sequence[str | int], threshold: int = 3, source: str = "the data") -> pd.DataFrame:
    """The unsafe cells of one combination: its values and their number of records, rarest first.

    Parameters
    ----------
    data : DataFrame or array_like
    keys : sequence of str or int
        The combination's variables.
    threshold : int, default 3
    source : str

    Returns
    -------
    DataFrame
        One column per variable and ``records``.

    Examples
    --------
    >>> import pandas as pd
    >>> frame = pd.DataFrame({"sex": ["f", "f", "m"], "region": ["a", "a", "b"]})
    >>> unsafe_cells(frame, ["sex", "region"], threshold=2).to_dict(orient="records")
    [{'sex': 'm', 'region': 'b', 'records': 1}]
    """
    frame = as_frame(data, source)
    names = select_columns(frame, keys, source, what="key")
    counts = frame[names].dropna().value_counts(sort=False).rename("records").reset_index()
    return counts[counts["records"] < threshold].sort_values("records", kind="stable").reset_index(drop=True)
