"""The three types of granularity of the seed, on every hyper-row of a table or of a file's tables of key variables.

Seed 004 (Mas, "Types of Granularity") names three patterns of unit cells
(cells of frequency 1) along a hyper-row (the cells left when the categories
of some of a table's variables are fixed):

- **proportional**: the hyper-row's index of granularity, unit cells / cells
  with a value x 100, is at or above the critical level (``1 3 4 1 1``: 60%);
- **odd** (an unusual pattern): a unit cell where the population's
  distribution expects many records (``0 1 1 21 1``, where the ages 20-34
  and 35-50 are common). Here a unit cell is odd when its expected frequency
  is at least ``odd_expected``: the hyper-row's total times the product, over
  the hyper-row's free variables, of the share of the cell's category, by the
  table's own margins (its independence model) or by a population
  distribution the user gives for a variable;
- **dispersed**: an isolated unit cell between high-frequency cells
  (``1 30 1 9 1``). A unit cell is dispersed along a free variable when its
  neighbours along it all hold at least ``dispersed_frequency`` records: the
  two adjacent categories for an ordered variable (a cell at either end of
  the order is not between two cells), every other category otherwise (at
  least two). A hyper-row is flagged when it holds a unit cell dispersed
  along one of its free variables.

The seed's normal hyper-row, ``1 30 18 9 2``, is none of these with the
defaults (level 50, ``odd_expected`` 5, ``dispersed_frequency`` 5): its one
unit cell is at the end of the ages and expected about once.

On a microdata file, the tables are those of every 2 and 3 key variables (as
:func:`rumap.tables.granularity.granularity_analysis`); a record with a
missing value of one of a table's variables is in none of that table's cells.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from itertools import combinations
from typing import Any

import numpy as np
import pandas as pd

from rumap._validation import InstanceOf, Table, assumes_valid, validate_params
from rumap.budget import DEFAULT_BUDGET, WorkBudget
from rumap.errors import InputError
from rumap.result import json_safe
from rumap.risk.paired import select_columns
from rumap.tables.category_order import category_order, starts_with_number, text_values
from rumap.tables.granularity import long_table, seed_hyper_rows

__all__ = ["TYPES", "GranularityRules", "GranularityTypes", "KindFlags", "granularity_types", "key_granularity_types",
           "table_flags", "hyper_row_frame", "dense_counts", "population_shares", "axis_shares", "category_order",
           "starts_with_number", "key_tables", "text_values"]

#: The types of granularity, in the seed's order.
TYPES = ("proportional", "odd", "dispersed")

#: Most cells of one dense table of 2 or 3 key variables.
MAX_TABLE_CELLS = 5_000_000

@dataclass(frozen=True)
class GranularityRules:
    """The rules of the three types and their parameters.

    Parameters
    ----------
    level : float
        The critical index of granularity (percent).
    types : tuple of str
        The types looked for (:data:`TYPES`).
    dispersed_frequency : int
        The least frequency of a dispersed unit cell's neighbours.
    odd_expected : float
        The least expected frequency of an odd unit cell.
    ordered : tuple of str
        The variables whose categories are ordered (adjacent categories are neighbours).
    population : tuple of str
        The variables whose odd cells are judged by a population distribution the user gave.
    """

    level: float = 50.0
    types: tuple[str, ...] = TYPES
    dispersed_frequency: int = 5
    odd_expected: float = 5.0
    ordered: tuple[str, ...] = ()
    population: tuple[str, ...] = ()

    def statements(self) -> dict[str, str]:
        """Each type's rule, with its parameters, in words (the types looked for only).

        Returns
        -------
        dict

        Examples
        --------
        >>> GranularityRules(types=("proportional",)).statements()
        {'proportional': 'a hyper-row whose index of granularity (unit cells / cells with a value x 100) is >= 50'}
        """
        ordered = ", ".join(self.ordered) or "none"
        population = (f"by the population distribution given for {', '.join(self.population)}, by the table's "
                      "margins for the others") if self.population else "by the table's margins (independence)"
        rules = {
            "proportional": f"a hyper-row whose index of granularity (unit cells / cells with a value x 100) is "
                            f">= {self.level:g}",
            "odd": f"a unit cell whose expected frequency (the hyper-row's total x the share of each free "
                   f"variable's category, {population}) is >= {self.odd_expected:g}",
            "dispersed": f"a unit cell whose neighbours along a free variable all hold >= {self.dispersed_frequency} "
                         f"records: the two adjacent categories of an ordered variable (ordered: {ordered}), "
                         "every other category (at least two) of the others",
        }
        return {name: rules[name] for name in self.types}

    def to_dict(self) -> dict[str, Any]:
        """The parameters and the rules' statements."""
        return {"level": self.level, "types": list(self.types), "dispersed_frequency": self.dispersed_frequency,
                "odd_expected": self.odd_expected, "ordered": list(self.ordered),
                "population": list(self.population), "rules": self.statements()}


@dataclass(frozen=True)
class KindFlags:
    """One kind of hyper-row of a dense table (its fixed axes): each hyper-row's counts and flags.

    Parameters
    ----------
    fixed : tuple of int
        The fixed axes (empty: the whole table is one hyper-row).
    cells, units, odd, dispersed : ndarray of int
        Per hyper-row (indexed by the fixed axes' categories): cells with a
        value, unit cells, odd and dispersed unit cells.
    index : ndarray of float
        The index of granularity (percent; 0 where no cell has a value).
    unsafe : ndarray of bool
        Flagged by a type looked for.
    proportional : ndarray of bool
    """

    fixed: tuple[int, ...]
    cells: np.ndarray = field(repr=False)
    units: np.ndarray = field(repr=False)
    index: np.ndarray = field(repr=False)
    proportional: np.ndarray = field(repr=False)
    odd: np.ndarray = field(repr=False)
    dispersed: np.ndarray = field(repr=False)
    unsafe: np.ndarray = field(repr=False)


def _dispersed_along(counts: np.ndarray, axis: int, ordered: bool, frequency: int) -> np.ndarray:
    """Unit cells whose neighbours along ``axis`` all hold at least ``frequency`` records."""
    unit = counts == 1
    size = counts.shape[axis]
    if ordered:
        if size < 3:
            return np.zeros_like(unit)
        high = counts >= frequency
        before = np.zeros_like(unit)
        after = np.zeros_like(unit)
        inner = [slice(None)] * counts.ndim
        left = list(inner)
        right = list(inner)
        inner[axis], left[axis], right[axis] = slice(1, -1), slice(0, -2), slice(2, None)
        before[tuple(inner)] = high[tuple(left)]
        after[tuple(inner)] = high[tuple(right)]
        return unit & before & after
    if size < 3:
        return np.zeros_like(unit)
    low = (counts < frequency).sum(axis=axis, keepdims=True) - (counts < frequency)
    return unit & (low == 0)


@assumes_valid
def table_flags(counts: np.ndarray, rules: GranularityRules, ordered: Sequence[bool],
                shares: Sequence[np.ndarray | None], only: Sequence[tuple[int, ...]] | None = None,
                cells_out: dict | None = None) -> list[KindFlags]:
    """Every kind of hyper-row of a dense frequency table, with each hyper-row's counts and the types it shows.

    Parameters
    ----------
    counts : ndarray of int
        The table, one axis per variable.
    rules : GranularityRules
    ordered : sequence of bool
        Whether each axis's categories are ordered (in the axis's order).
    shares : sequence of ndarray or None
        A population share of each axis's categories (None: the table's margin).
    only : sequence of tuple of int, optional
        The kinds (fixed axes) computed (default every kind).
    cells_out : dict, optional
        Filled with each kind's odd and dispersed unit cells: ``{fixed: (odd, dispersed)}``, boolean arrays of
        the table's shape.

    Returns
    -------
    list of KindFlags
        One per non-empty proper subset of the axes (the whole table for one axis).

    Examples
    --------
    >>> rules = GranularityRules()
    >>> [k.index.tolist() for k in table_flags(np.array([1, 3, 4, 1, 1]), rules, [True], [None])]
    [60.0]
    """
    d = counts.ndim
    total = float(counts.sum())
    margins = []
    for a in range(d):
        if shares[a] is not None:
            margins.append(np.asarray(shares[a], dtype=float))
        else:
            other = tuple(b for b in range(d) if b != a)
            margin = counts.sum(axis=other) if other else counts
            margins.append(margin / total if total > 0 else np.zeros(counts.shape[a]))
    along = {a: _dispersed_along(counts, a, ordered[a], rules.dispersed_frequency)
             for a in range(d)} if "dispersed" in rules.types else {}
    unit = counts == 1
    kinds = [fixed for size in range(1, d) for fixed in combinations(range(d), size)] or [()]
    out = []
    for fixed in kinds if only is None else only:
        free = tuple(a for a in range(d) if a not in fixed)
        cells = (counts > 0).sum(axis=free)
        units = unit.sum(axis=free)
        index = np.where(cells > 0, 100.0 * units / np.maximum(cells, 1), 0.0)
        proportional = (cells > 0) & (index >= rules.level)
        odd_cells = np.zeros_like(unit)
        if "odd" in rules.types:
            expected = counts.sum(axis=free, keepdims=True).astype(float)
            for a in free:
                shape = [1] * d
                shape[a] = counts.shape[a]
                expected = expected * margins[a].reshape(shape)
            odd_cells = unit & (expected >= rules.odd_expected)
        dispersed_cells = np.logical_or.reduce([along[a] for a in free]) if along else np.zeros_like(unit)
        if cells_out is not None:
            cells_out[fixed] = (odd_cells, dispersed_cells)
        odd, dispersed = odd_cells.sum(axis=free), dispersed_cells.sum(axis=free)
        unsafe = np.zeros(units.shape, dtype=bool)
        if "proportional" in rules.types:
            unsafe |= proportional
        unsafe |= (odd > 0) | (dispersed > 0)
        out.append(KindFlags(fixed, np.asarray(cells), np.asarray(units), np.asarray(index),
                             np.asarray(proportional), np.asarray(odd), np.asarray(dispersed),
                             np.asarray(unsafe & (cells > 0))))
    return out


def _describe(names: Sequence[str], values: Sequence[Any]) -> str:
    return ", ".join(f"{n}={v}" for n, v in zip(names, values, strict=True))


@assumes_valid
def hyper_row_frame(kinds: Sequence[KindFlags], variables: Sequence[str],
                    categories: Sequence[Sequence[str]]) -> pd.DataFrame:
    """The hyper-rows with a value of one table, one row each: ``fixed``, ``along``, ``cells``, ``unit_cells``,
    ``index``, ``proportional``, ``odd``, ``dispersed`` (unit cells of those types) and ``unsafe``.

    Parameters
    ----------
    kinds : sequence of KindFlags
        From :func:`table_flags`.
    variables : sequence of str
        The table's variables (its axes).
    categories : sequence of sequence of str
        Each axis's categories.

    Returns
    -------
    DataFrame
        Sorted by index, largest first.
    """
    parts = []
    for kind in kinds:
        along = " x ".join(v for a, v in enumerate(variables) if a not in kind.fixed)
        where = np.nonzero(kind.cells > 0) if kind.fixed else ()
        if kind.fixed:
            labels = [[f"{variables[a]}={categories[a][i]}" for i in codes] for a, codes in zip(kind.fixed, where,
                                                                                               strict=True)]
            fixed = [", ".join(parts_) for parts_ in zip(*labels, strict=True)]
        else:
            fixed = ["(whole table)"] if int(kind.cells) > 0 else []
        values = {name: np.asarray(getattr(kind, attribute)) for name, attribute in
                  (("cells", "cells"), ("unit_cells", "units"), ("index", "index"), ("proportional", "proportional"),
                   ("odd", "odd"), ("dispersed", "dispersed"), ("unsafe", "unsafe"))}
        values = {name: (v[where] if kind.fixed else v.reshape(-1)[:len(fixed)]) for name, v in values.items()}
        parts.append({"fixed": np.array(fixed, dtype=object), "along": np.full(len(fixed), along, dtype=object),
                      **values})
    columns = ["fixed", "along", "cells", "unit_cells", "index", "proportional", "odd", "dispersed", "unsafe"]
    frame = pd.DataFrame({c: np.concatenate([part[c] for part in parts]) for c in columns}) if parts else \
        pd.DataFrame(columns=columns)
    return frame.sort_values("index", ascending=False, kind="stable").reset_index(drop=True)


@dataclass(frozen=True)
class GranularityTypes:
    """The hyper-rows of one or more tables with the types of granularity each shows.

    Parameters
    ----------
    rules : GranularityRules
    hyper_rows : DataFrame
        One row per hyper-row with a value (:func:`hyper_row_frame`), with a
        ``table`` column (its variables, ``"A x B"``) first.
    """

    rules: GranularityRules
    hyper_rows: pd.DataFrame = field(repr=False)

    @property
    def safe(self) -> bool:
        """Whether no hyper-row is flagged."""
        return not bool(self.hyper_rows["unsafe"].any()) if len(self.hyper_rows) else True

    def counts(self) -> dict[str, int]:
        """Hyper-rows flagged by each type looked for, and by any (``unsafe``)."""
        rows = self.hyper_rows
        found = {"proportional": int(rows["proportional"].sum()), "odd": int((rows["odd"] > 0).sum()),
                 "dispersed": int((rows["dispersed"] > 0).sum())}
        return {**{t: found[t] for t in self.rules.types}, "unsafe": int(rows["unsafe"].sum())}

    def max_index(self) -> dict[str, float]:
        """The largest index of granularity of each table (0 for a table without a value)."""
        return {str(t): float(v) for t, v in self.hyper_rows.groupby("table", sort=False)["index"].max().items()}

    def to_frame(self) -> pd.DataFrame:
        """The hyper-rows."""
        return self.hyper_rows.copy()

    def to_dict(self) -> dict[str, Any]:
        """``{"rules", "safe", "flagged", "max_index", "hyper_rows"}`` (the flagged hyper-rows only)."""
        flagged = self.hyper_rows[self.hyper_rows["unsafe"]]
        return json_safe({"rules": self.rules.to_dict(), "safe": self.safe, "flagged": self.counts(),
                          "max_index": self.max_index(), "hyper_rows": flagged.to_dict(orient="records")})


def _types(types: Sequence[str] | None) -> tuple[str, ...]:
    chosen = TYPES if types is None else tuple(types)
    unknown = [t for t in chosen if t not in TYPES]
    if unknown or not chosen or isinstance(types, str):
        raise InputError(f"types must be a list of {', '.join(TYPES)} (at least one), got {types!r}")
    return tuple(t for t in TYPES if t in chosen)


@assumes_valid
def population_shares(population: Mapping[str, Mapping[Any, float]] | None, variables: Sequence[str]
                      ) -> dict[str, dict[str, float]]:
    """The population distributions given, checked: each a share per category (text), summing to 1.

    Parameters
    ----------
    population : mapping or None
        ``{variable: {category: frequency or share}}``.
    variables : sequence of str
        The variables it may name.

    Returns
    -------
    dict

    Raises
    ------
    InputError
        A variable not among them, a negative or non-numeric frequency, or a total of 0.

    Examples
    --------
    >>> population_shares({"age": {"young": 1, "old": 3}}, ["age"])
    {'age': {'young': 0.25, 'old': 0.75}}
    """
    out: dict[str, dict[str, float]] = {}
    for variable, distribution in (population or {}).items():
        if variable not in variables:
            raise InputError(f"population: {variable!r} is not a key variable ({', '.join(variables)})")
        if not isinstance(distribution, Mapping) or not distribution:
            raise InputError(f"population: {variable!r} needs a frequency per category")
        values = {}
        for category, value in distribution.items():
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not np.isfinite(value) or value < 0:
                raise InputError(f"population: the frequency of {variable}={category} must be a number >= 0, "
                                 f"got {value!r}")
            values[str(category)] = float(value)
        total = sum(values.values())
        if total <= 0:
            raise InputError(f"population: the frequencies of {variable!r} sum to 0")
        out[str(variable)] = {c: v / total for c, v in values.items()}
    return out


@assumes_valid
def axis_shares(variable: str, groups: Sequence[Sequence[str]], population: Mapping[str, Mapping[str, float]]
                ) -> np.ndarray | None:
    """The population share of each category (a group of original categories) of a variable, or None.

    Parameters
    ----------
    variable : str
    groups : sequence of sequence of str
        Each category's original categories.
    population : mapping
        From :func:`population_shares`.

    Returns
    -------
    ndarray or None
        None when no distribution was given for the variable.

    Examples
    --------
    >>> axis_shares("age", [["young"], ["old"]], {"age": {"young": 0.25, "old": 0.75}}).tolist()
    [0.25, 0.75]
    """
    if variable not in population:
        return None
    given = population[variable]
    missing = [c for group in groups for c in group if c not in given]
    if missing:
        raise InputError(f"population: no frequency for {variable}={missing[0]}")
    return np.array([sum(given[c] for c in group) for group in groups])


@assumes_valid
def variable_orders(variables: Sequence[str], categories: Sequence[Sequence[str]], ordered: Sequence[str] | None
                    ) -> list[bool]:
    """Which variables are ordered: those named, or by default those whose every category begins with a number.

    Parameters
    ----------
    variables : sequence of str
    categories : sequence of sequences of str
        Each variable's categories.
    ordered : sequence of str or None
        The ordered variables, or None for the default.

    Returns
    -------
    list of bool
    """
    if ordered is None:
        return [all(starts_with_number(c) for c in cats) and len(cats) > 0 for cats in categories]
    unknown = [v for v in ordered if v not in variables]
    if unknown:
        raise InputError(f"ordered: {unknown[0]!r} is not a variable ({', '.join(variables)})")
    return [v in ordered for v in variables]


@assumes_valid
def granularity_rules(level: float, types: Sequence[str] | None, dispersed_frequency: int, odd_expected: float,
                      variables: Sequence[str], ordered: Sequence[bool], population: Mapping) -> GranularityRules:
    """The rules of the three types of granularity with their parameters, as the output states them.

    Parameters
    ----------
    level : float
        The critical level of the index (%).
    types : sequence of str or None
        The types detected (None: all three).
    dispersed_frequency : int
    odd_expected : float
    variables : sequence of str
    ordered : sequence of bool
        Whether each variable is ordered.
    population : mapping
        The variables with a population distribution given.

    Returns
    -------
    GranularityRules
    """
    return GranularityRules(float(level), _types(types), int(dispersed_frequency), float(odd_expected),
                            tuple(v for v, o in zip(variables, ordered, strict=True) if o), tuple(population))


_TYPE_CONSTRAINTS = {"level": "granularity_threshold", "dispersed_frequency": "dispersed_frequency",
                     "odd_expected": "odd_expected", "budget": InstanceOf(WorkBudget)}


@validate_params({"table": Table(), **_TYPE_CONSTRAINTS, "count": InstanceOf(str, "the frequency column")},
                 example=lambda: {"table": seed_hyper_rows()[seed_hyper_rows()["pattern"] == "dispersed"]
                                  .drop(columns="pattern")})
def granularity_types(table: Any, level: float = 50.0, types: Sequence[str] | None = None,
                      dispersed_frequency: int = 5, odd_expected: float = 5.0, ordered: Sequence[str] | None = None,
                      population: Mapping[str, Mapping[Any, float]] | None = None, count: str = "count",
                      budget: WorkBudget = DEFAULT_BUDGET) -> GranularityTypes:
    """The types of granularity (proportional, odd, dispersed) of every hyper-row of a frequency table.

    Parameters
    ----------
    table : DataFrame
        A frequency table, long or 2-D (:func:`rumap.tables.granularity.long_table`).
    level : float, default 50
        The critical index of granularity (percent): proportional at or above it.
    types : sequence of str, optional
        The types looked for (default all of :data:`TYPES`).
    dispersed_frequency : int, default 5
        The least frequency of a dispersed unit cell's neighbours.
    odd_expected : float, default 5
        The least expected frequency of an odd unit cell.
    ordered : sequence of str, optional
        The ordered variables (default: those whose every category begins with a number).
    population : mapping, optional
        ``{variable: {category: frequency}}``: the population distribution an
        odd cell is judged by (default the table's margins).
    count : str, default "count"
    budget : WorkBudget
        Cells of the dense table, checked first.

    Returns
    -------
    GranularityTypes

    References
    ----------
    Seed 004 (Mas, EUSTAT), "Granularity": Types of Granularity.

    Examples
    --------
    >>> rows = seed_hyper_rows()
    >>> flags = {p: granularity_types(rows[rows["pattern"] == p].drop(columns="pattern")).counts()
    ...          for p in ("normal", "proportional", "dispersed")}
    >>> flags["normal"], flags["proportional"]["proportional"], flags["dispersed"]["dispersed"]
    ({'proportional': 0, 'odd': 0, 'dispersed': 0, 'unsafe': 0}, 1, 1)
    """
    frame = long_table(table, count)
    variables = [str(c) for c in frame.columns if c != "count"]
    categories = [category_order(frame[v]) for v in variables]
    cells = float(np.prod([len(c) for c in categories]))
    budget.check_work(cells * max(1, 2 ** len(variables)), f"a dense table of {cells:.0f} cells")
    if cells > MAX_TABLE_CELLS:
        raise InputError(f"table: {cells:.0f} cells, over the {MAX_TABLE_CELLS} a table's granularity takes")
    orders = variable_orders(variables, categories, ordered)
    shares = population_shares(population, variables)
    rules = granularity_rules(level, types, dispersed_frequency, odd_expected, variables, orders, shares)
    counts = np.zeros([len(c) for c in categories], dtype=np.int64)
    index = tuple(pd.Categorical(frame[v], categories=c).codes for v, c in zip(variables, categories, strict=True))
    np.add.at(counts, index, frame["count"].to_numpy(dtype=np.int64))
    axes = [axis_shares(v, [[c] for c in cats], shares) for v, cats in zip(variables, categories, strict=True)]
    kinds = table_flags(counts, rules, orders, axes)
    rows = hyper_row_frame(kinds, variables, categories)
    rows.insert(0, "table", " x ".join(variables))
    return GranularityTypes(rules, rows)


@assumes_valid
def key_tables(p: int) -> list[tuple[int, ...]]:
    """The tables of a file's key variables: every 2 and 3 of them (the one table of 2 keys).

    Parameters
    ----------
    p : int
        The number of key variables.

    Returns
    -------
    list of tuple of int

    Examples
    --------
    >>> key_tables(3)
    [(0, 1), (0, 2), (1, 2), (0, 1, 2)]
    """
    return [c for size in (2, 3) for c in combinations(range(p), size)]


@validate_params({"data": Table(), **_TYPE_CONSTRAINTS, "source": InstanceOf(str, "a name for messages")},
                 example=lambda: {"data": pd.DataFrame({"sex": list("ffmmmf"), "region": list("aaabbb")}),
                                  "keys": ["sex", "region"]})
def key_granularity_types(data: Any, keys: Sequence[str | int], level: float = 50.0,
                          types: Sequence[str] | None = None, dispersed_frequency: int = 5,
                          odd_expected: float = 5.0, ordered: Sequence[str] | None = None,
                          population: Mapping[str, Mapping[Any, float]] | None = None, source: str = "the data",
                          budget: WorkBudget = DEFAULT_BUDGET) -> GranularityTypes:
    """The types of granularity on every hyper-row of the tables of 2 and 3 key variables of a microdata file.

    A record with a missing value of one of a table's variables is in none of its cells.

    Parameters
    ----------
    data : DataFrame
    keys : sequence of str or int
        At least 2 key variables.
    level, types, dispersed_frequency, odd_expected, ordered, population
        As :func:`granularity_types`.
    source : str
    budget : WorkBudget
        Records x tables, checked first.

    Returns
    -------
    GranularityTypes
        Its ``table`` column names each table.

    Examples
    --------
    >>> frame = pd.DataFrame({"sex": list("ffmmmf"), "region": list("aaabbb")})
    >>> key_granularity_types(frame, ["sex", "region"]).counts()
    {'proportional': 4, 'odd': 0, 'dispersed': 0, 'unsafe': 4}
    """
    names = select_columns(data, keys, source, what="key")
    if len(names) < 2:
        raise InputError(f"{source}: granularity tables cross at least 2 key variables, got {len(names)}")
    tables = key_tables(len(names))
    budget.check_work(float(data.shape[0]) * len(tables), f"{data.shape[0]} records x {len(tables)} tables")
    texts = [text_values(data[n]) for n in names]
    categories = [category_order(t.dropna()) for t in texts]
    codes = np.column_stack([pd.Categorical(t, categories=c).codes for t, c in zip(texts, categories, strict=True)])
    orders = variable_orders(names, categories, ordered)
    shares = population_shares(population, names)
    rules = granularity_rules(level, types, dispersed_frequency, odd_expected, names, orders, shares)
    axes = [axis_shares(v, [[c] for c in cats], shares) for v, cats in zip(names, categories, strict=True)]
    frames = []
    for table in tables:
        counts = dense_counts(codes, table, [len(categories[a]) for a in table])
        kinds = table_flags(counts, rules, [orders[a] for a in table], [axes[a] for a in table])
        rows = hyper_row_frame(kinds, [names[a] for a in table], [categories[a] for a in table])
        rows.insert(0, "table", " x ".join(names[a] for a in table))
        frames.append(rows)
    return GranularityTypes(rules, pd.concat(frames, ignore_index=True))


@assumes_valid
def dense_counts(codes: np.ndarray, table: Sequence[int], sizes: Sequence[int]) -> np.ndarray:
    """The dense frequency table of some columns of codes (-1 missing: the record is in no cell).

    Parameters
    ----------
    codes : ndarray of int, shape (n, p)
    table : sequence of int
        The columns.
    sizes : sequence of int
        Categories of each.

    Returns
    -------
    ndarray of int, shape ``sizes``

    Examples
    --------
    >>> dense_counts(np.array([[0, 1], [0, 1], [1, -1]]), [0, 1], [2, 2]).tolist()
    [[0, 2], [0, 0]]
    """
    sub = codes[:, list(table)]
    known = (sub >= 0).all(axis=1)
    cells = int(np.prod(sizes))
    if cells > MAX_TABLE_CELLS:
        raise InputError(f"a table of {cells} cells, over the {MAX_TABLE_CELLS} a table's granularity takes")
    if cells == 0:
        return np.zeros(sizes, dtype=np.int64)
    flat = np.ravel_multi_index(tuple(sub[known].T), tuple(sizes))
    return np.bincount(flat, minlength=cells).reshape(sizes)
