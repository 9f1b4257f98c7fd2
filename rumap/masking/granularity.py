"""Eliminating granularity from a microdata file: Steps 3-5 of the seed's algorithm, move by move.

Seed 004 (Mas, "Algorithm to eliminate granularity in microdata files"):
tabulate the key variables 2 and 3 at a time, find the hyper-rows whose
granularity reaches the critical level, then "affected rows and columns are
redefined by aggregating categories or suppressing any unit cell", repeated
until no hyper-row reaches it, and the protected file is rebuilt. Here:

1. every hyper-row of every table of 2 and 3 keys is judged by the types looked
   for (:mod:`rumap.tables.granularity_types`: proportional, odd, dispersed);
   a record with a missing (suppressed) key value is in none of the cells of a
   table with that variable;
2. the worst flagged hyper-row (the largest index of granularity, then the
   most unit cells, then the first table and hyper-row) gets one move, the
   one that costs the least information among:

   - **merge** two categories of one of its table's variables: a category of
     its unit cells (of a free variable) or its fixed category with its
     neighbour in order (an ordered variable) or with the least frequent other
     category (a nominal one); with a hierarchy for the variable, only two
     categories under the same parent merge (a group that fills a parent is
     named by it). A merge must lower the hyper-row's unit cells or clear it;
   - **suppress** one key value of the records alone in its unit cells (local
     suppression; the value becomes missing): the flagged odd and dispersed
     unit cells and, for a proportional hyper-row, as many more unit cells as
     bring its index under the level, all in the variable that costs least;

   the cost is mu-Argus's entropy information loss
   (:func:`rumap.maps.categorical_measures.entropy_information_loss`, the
   measure the maps of recoding and suppression share): the bits by which the
   released key values say less about the original ones;
3. repeated until no hyper-row is flagged. Every move merges two categories or
   suppresses at least one value, so the moves end; a hyper-row no allowed move
   changes (a merge-only run under a hierarchy) is left, and the result says
   the level was not reached.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from rumap._validation import InstanceOf, StrOptions, Table, assumes_valid, validate_params
from rumap.budget import DEFAULT_BUDGET, WorkBudget
from rumap.errors import InputError
from rumap.result import json_safe
from rumap.risk.paired import select_columns
from rumap.tables.granularity_types import (
    GranularityRules,
    GranularityTypes,
    axis_shares,
    category_order,
    dense_counts,
    granularity_rules,
    hyper_row_frame,
    key_tables,
    population_shares,
    table_flags,
    text_values,
    variable_orders,
)

__all__ = ["GranularityElimination", "eliminate_granularity", "MOVES", "hierarchy_parents"]

#: Which moves the elimination may make: both, merges of categories only, or suppressions of key values only.
MOVES = ("both", "merge", "suppress")
_MERGE, _SUPPRESS = MOVES[1:]

_TOTAL = "Total"


@dataclass(frozen=True)
class GranularityElimination:
    """A microdata file whose tables of 2 and 3 key variables no longer reach the level, and the moves that did it.

    Parameters
    ----------
    data : DataFrame
        The protected file: merged categories relabelled (``a + b``, or the
        hierarchy's parent), suppressed key values missing, keys untouched
        and the other columns as they were.
    keys : tuple of str
    rules : GranularityRules
    moves : tuple of dict
        Each move in order: ``move`` (merge or suppress), ``variable``,
        the merged ``categories`` and the category they went ``into``, or the
        ``values`` suppressed; its ``cost`` (bits) and the hyper-row it was
        for (``table``, ``fixed``, ``along``, ``index``, ``types``).
    before, after : GranularityTypes
        The hyper-rows of the original and of the protected file.
    suppressed : dict
        Key values suppressed per variable.
    merged : dict
        ``{variable: {category: new category}}`` of every merged category.
    categories : dict
        ``{variable: {"before": n, "after": n}}``.
    information_loss : float
        The entropy information loss of the whole elimination, bits.
    largest_loss : float
        The loss if every key value were suppressed.
    reached : bool
        Whether no hyper-row is flagged in the protected file.
    left : tuple of str
        The hyper-rows no allowed move changed (when not reached).
    """

    data: pd.DataFrame = field(repr=False)
    keys: tuple[str, ...]
    rules: GranularityRules
    moves: tuple[dict, ...] = field(repr=False)
    before: GranularityTypes = field(repr=False)
    after: GranularityTypes = field(repr=False)
    suppressed: dict = field(default_factory=dict)
    merged: dict = field(default_factory=dict)
    categories: dict = field(default_factory=dict)
    information_loss: float = 0.0
    largest_loss: float = 0.0
    reached: bool = True
    left: tuple[str, ...] = ()

    @property
    def index_before(self) -> dict[str, float]:
        """The largest index of granularity of each table of the original file."""
        return self.before.max_index()

    @property
    def index_after(self) -> dict[str, float]:
        """The largest index of granularity of each table of the protected file."""
        return self.after.max_index()

    def to_frame(self) -> pd.DataFrame:
        """One row per move."""
        return pd.DataFrame(list(self.moves))

    def to_dict(self) -> dict[str, Any]:
        """``moves``, ``index_before``, ``index_after``, ``suppressed`` (total), ``suppressed_per_variable``,
        ``merged``, ``categories``, ``detected`` (the original's flagged hyper-rows with their types),
        ``flagged_before``, ``flagged_after``, ``rules``, ``information_loss``, ``largest_loss``, ``reached``,
        ``left`` (counts and categories, no record's values)."""
        detected = self.before.hyper_rows[self.before.hyper_rows["unsafe"]].to_dict(orient="records")
        return json_safe({"keys": list(self.keys), "rules": self.rules.to_dict(), "moves": list(self.moves),
                          "detected": detected,
                          "index_before": self.index_before, "index_after": self.index_after,
                          "flagged_before": self.before.counts(), "flagged_after": self.after.counts(),
                          "suppressed": int(sum(self.suppressed.values())),
                          "suppressed_per_variable": dict(self.suppressed), "merged": self.merged,
                          "categories": self.categories, "information_loss": self.information_loss,
                          "largest_loss": self.largest_loss, "reached": self.reached, "left": list(self.left)})


@assumes_valid
def hierarchy_parents(hierarchy: Any) -> dict[str, str]:
    """A hierarchy as ``{code: parent}`` (``"Total"`` for the top level).

    Parameters
    ----------
    hierarchy : Hierarchy or mapping
        A :class:`rumap.tables.hierarchy.Hierarchy` or ``{child: parent}``.

    Returns
    -------
    dict

    Examples
    --------
    >>> hierarchy_parents({"20-24": "20-29", "25-29": "20-29"})
    {'20-24': '20-29', '25-29': '20-29', '20-29': 'Total'}
    """
    if hasattr(hierarchy, "codes") and hasattr(hierarchy, "parents"):
        return dict(zip(hierarchy.codes, hierarchy.parents, strict=True))
    if not isinstance(hierarchy, Mapping):
        raise InputError(f"a hierarchy must map each category to its parent, got {type(hierarchy).__name__}")
    parents = {str(c): (str(p) if p not in (None, "") else _TOTAL) for c, p in hierarchy.items()}
    for parent in list(parents.values()):
        if parent != _TOTAL and parent not in parents:
            parents[parent] = _TOTAL
    return parents


class _Hierarchy:
    """Which groups of a variable's categories may merge, and their names."""

    def __init__(self, variable: str, parents: Mapping[str, str], categories: Sequence[str]) -> None:
        self.parents = dict(parents)
        for category in categories:
            if category not in self.parents:
                raise InputError(f"hierarchy of {variable!r}: the category {category!r} is not in it")
        self.chain = {c: self._ancestors(c, variable) for c in self.parents}
        leaves: dict[str, set[str]] = {}
        for category in categories:
            for node in self.chain[category]:
                leaves.setdefault(node, set()).add(category)
        self.node_of = {frozenset(members): node for node, members in leaves.items()}

    def _ancestors(self, code: str, variable: str) -> list[str]:
        chain, seen = [code], {code}
        while self.parents.get(chain[-1], _TOTAL) != _TOTAL:
            chain.append(self.parents[chain[-1]])
            if chain[-1] in seen:
                raise InputError(f"hierarchy of {variable!r}: {code!r} is its own ancestor")
            seen.add(chain[-1])
        return chain

    def node(self, members: Sequence[str]) -> str | None:
        return self.node_of.get(frozenset(members))

    def parent(self, members: Sequence[str]) -> str:
        exact = self.node(members)
        if exact is not None:
            return self.parents.get(exact, _TOTAL)
        common = [n for n in self.chain[members[0]] if all(n in self.chain[m] for m in members[1:])]
        return common[0] if common else _TOTAL


def _loss(x: np.ndarray, y: np.ndarray) -> float:
    """The entropy information loss of one variable (bits): original codes ``x``, released groups ``y``."""
    known = x >= 0
    if not known.any():
        return 0.0
    fx = np.bincount(x[known])
    marginal = np.log2(known.sum() / fx[x[known]])
    suppressed = (y < 0)[known]
    loss = float(marginal[suppressed].sum())
    shown = known & (y >= 0)
    if shown.any():
        joint = y[shown].astype(np.int64) * (int(x.max()) + 1) + x[shown]
        _u, inverse, counts = np.unique(joint, return_inverse=True, return_counts=True)
        ny = np.bincount(y[shown])
        loss += float(np.log2(ny[y[shown]] / counts[inverse.reshape(-1)]).sum())
    return loss


class _State:
    """The file's key codes, the groups of each variable's categories, and each table's flags."""

    def __init__(self, texts: list[pd.Series], names: list[str], rules: GranularityRules, ordered: list[bool],
                 shares: dict, hierarchies: dict[str, _Hierarchy]) -> None:
        self.names, self.rules, self.ordered, self.shares = names, rules, ordered, shares
        self.labels = [category_order(t.dropna()) for t in texts]
        self.x = np.column_stack([pd.Categorical(t, categories=c).codes.astype(np.int64)
                                  for t, c in zip(texts, self.labels, strict=True)])
        self.groups = [[[i] for i in range(len(c))] for c in self.labels]
        self.hierarchies = hierarchies
        self.y = self.x.copy()
        self.tables = key_tables(len(names))
        self.flags: dict[int, tuple[np.ndarray, list, dict]] = {}
        for t in range(len(self.tables)):
            self.refresh(t)

    def members(self, v: int, g: int) -> list[str]:
        return [self.labels[v][i] for i in self.groups[v][g]]

    def label(self, v: int, g: int) -> str:
        members = self.members(v, g)
        hierarchy = self.hierarchies.get(self.names[v])
        node = hierarchy.node(members) if hierarchy is not None and len(members) > 1 else None
        return node if node is not None else " + ".join(members)

    def axis_shares(self, v: int) -> np.ndarray | None:
        return axis_shares(self.names[v], [self.members(v, g) for g in range(len(self.groups[v]))], self.shares)

    def refresh(self, t: int) -> None:
        table = self.tables[t]
        counts = dense_counts(self.y, table, [len(self.groups[v]) for v in table])
        cells: dict = {}
        kinds = table_flags(counts, self.rules, [self.ordered[v] for v in table],
                            [self.axis_shares(v) for v in table], cells_out=cells)
        self.flags[t] = (counts, kinds, cells)

    def shown_counts(self, v: int) -> np.ndarray:
        y = self.y[:, v]
        return np.bincount(y[y >= 0], minlength=len(self.groups[v]))


def _worst(state: _State, skipped: set) -> tuple | None:
    """The worst flagged hyper-row not skipped: (table, kind, position)."""
    best, best_key = None, None
    for t in range(len(state.tables)):
        _counts, kinds, _cells = state.flags[t]
        for k, kind in enumerate(kinds):
            positions = np.argwhere(kind.unsafe) if kind.fixed else ([()] if kind.unsafe else [])
            for position in positions:
                position = tuple(int(i) for i in position)
                key = (float(kind.index[position]), int(kind.units[position]))
                if (best_key is None or key > best_key) and _identity(state, t, kind.fixed, position) not in skipped:
                    best, best_key = (t, k, position), key
    return best


def _identity(state: _State, t: int, fixed: tuple[int, ...], position: tuple[int, ...]) -> tuple:
    table = state.tables[t]
    return t, fixed, tuple(frozenset(state.groups[table[a]][g]) for a, g in zip(fixed, position, strict=True))


def _hyper_row(state: _State, t: int, k: int, position: tuple[int, ...]) -> dict[str, Any]:
    table = state.tables[t]
    _counts, kinds, _cells = state.flags[t]
    kind = kinds[k]
    types = [name for name, flagged in (("proportional", bool(kind.proportional[position])),
                                        ("odd", int(kind.odd[position]) > 0),
                                        ("dispersed", int(kind.dispersed[position]) > 0))
             if flagged and name in state.rules.types]
    fixed = ", ".join(f"{state.names[table[a]]}={state.label(table[a], g)}"
                      for a, g in zip(kind.fixed, position, strict=True))
    return {"table": " x ".join(state.names[v] for v in table), "fixed": fixed or "(whole table)",
            "along": " x ".join(state.names[v] for a, v in enumerate(table) if a not in kind.fixed),
            "index": float(kind.index[position]), "types": types}


def _target_cells(state: _State, t: int, k: int, position: tuple[int, ...]) -> tuple[list, list]:
    """The unit cells of the hyper-row: those flagged odd or dispersed, and the others (as table coordinates)."""
    counts, kinds, cells = state.flags[t]
    kind = kinds[k]
    odd, dispersed = cells[kind.fixed]
    select = [slice(None)] * counts.ndim
    for a, g in zip(kind.fixed, position, strict=True):
        select[a] = slice(g, g + 1)
    inside = np.zeros(counts.shape, dtype=bool)
    inside[tuple(select)] = True
    unit = inside & (counts == 1)
    flagged = unit & (odd | dispersed)
    return ([tuple(int(i) for i in c) for c in np.argwhere(flagged)],
            [tuple(int(i) for i in c) for c in np.argwhere(unit & ~flagged)])


def _suppressions(state: _State, t: int, k: int, position: tuple[int, ...]) -> list[tuple[float, dict, Any]]:
    """One candidate per variable of the table: suppress it in the records of the hyper-row's target unit cells."""
    counts, kinds, _cells = state.flags[t]
    kind = kinds[k]
    flagged, others = _target_cells(state, t, k, position)
    cells, units = int(kind.cells[position]), int(kind.units[position])
    needed = 0
    if "proportional" in state.rules.types and bool(kind.proportional[position]):
        removed = len(flagged)
        while (units - removed) * 100.0 >= state.rules.level * (cells - removed) and removed < units:
            removed += 1
        needed = max(0, removed - len(flagged))
    targets = flagged + others[:needed]
    if not targets:
        return []
    table = state.tables[t]
    sub = state.y[:, list(table)]
    known = (sub >= 0).all(axis=1)
    flat = np.full(sub.shape[0], -1, dtype=np.int64)
    flat[known] = np.ravel_multi_index(tuple(sub[known].T), counts.shape)
    wanted = np.ravel_multi_index(tuple(np.array(targets).T), counts.shape)
    records = np.flatnonzero(np.isin(flat, wanted))
    out = []
    for v in table:
        y = state.y[:, v].copy()
        before = _loss(state.x[:, v], y)
        y[records] = -1
        out.append((_loss(state.x[:, v], y) - before, {"move": "suppress", "variable": state.names[v],
                                                        "values": int(records.size)}, (_SUPPRESS, v, records)))
    return out


def _partners(state: _State, v: int, g: int) -> list[int]:
    count = len(state.groups[v])
    hierarchy = state.hierarchies.get(state.names[v])

    def allowed(other: int) -> bool:
        return hierarchy is None or hierarchy.parent(state.members(v, g)) == hierarchy.parent(state.members(v, other))

    if state.ordered[v]:
        return [o for o in (g - 1, g + 1) if 0 <= o < count and allowed(o)]
    shown = state.shown_counts(v)
    others = [o for o in range(count) if o != g and allowed(o)]
    return [min(others, key=lambda o: (shown[o], o))] if others else []


def _merged_table(counts: np.ndarray, axis: int, i: int, j: int) -> np.ndarray:
    merged = np.moveaxis(counts, axis, 0).copy()
    merged[i] += merged[j]
    return np.moveaxis(np.delete(merged, j, axis=0), 0, axis)


def _merges(state: _State, t: int, k: int, position: tuple[int, ...]) -> list[tuple[float, dict, Any, bool]]:
    """Merges of two categories of a variable of the table: each with its cost and whether it helps the hyper-row."""
    counts, kinds, _cells = state.flags[t]
    kind = kinds[k]
    table = state.tables[t]
    flagged, others = _target_cells(state, t, k, position)
    cells = flagged + (others if bool(kind.proportional[position]) else [])
    out, seen = [], set()
    for a, v in enumerate(table):
        involved = sorted({position[kind.fixed.index(a)]} if a in kind.fixed else {c[a] for c in cells})
        shown = state.shown_counts(v)
        for g in involved:
            for o in _partners(state, v, g):
                i, j = min(g, o), max(g, o)
                if (v, i, j) in seen:
                    continue
                seen.add((v, i, j))
                ni, nj = float(shown[i]), float(shown[j])
                cost = sum(n * np.log2((ni + nj) / n) for n in (ni, nj) if n > 0)
                merged = _merged_table(counts, a, i, j)
                shares = [state.axis_shares(w) for w in table]
                if shares[a] is not None:
                    shares[a] = np.delete(np.concatenate([shares[a][:i], [shares[a][i] + shares[a][j]],
                                                          shares[a][i + 1:]]), j)
                (after,) = table_flags(merged, state.rules, [state.ordered[w] for w in table], shares,
                                       only=[kind.fixed])
                moved = position
                if a in kind.fixed:  # the hyper-row's own category merged: it is the merged group's
                    moved = tuple(i if (b == a and p in (i, j)) else (p - 1 if b == a and p > j else p)
                                  for b, p in zip(kind.fixed, position, strict=True))
                helps = (not bool(after.unsafe[moved])) or int(after.units[moved]) < int(kind.units[position])
                move = {"move": "merge", "variable": state.names[v],
                        "categories": [state.label(v, i), state.label(v, j)]}
                out.append((float(cost), move, (_MERGE, v, i, j), helps))
    return out


def _apply(state: _State, action: tuple) -> str | None:
    """Make a move; the merged group's new name, for a merge."""
    if action[0] == _SUPPRESS:
        _kind, v, records = action
        state.y[records, v] = -1
    else:
        _kind, v, i, j = action
        groups = state.groups[v]
        groups[i] = sorted(groups[i] + groups[j])
        del groups[j]
        y = state.y[:, v]
        y[y == j] = i
        y[y > j] -= 1
    for t, table in enumerate(state.tables):
        if v in table:
            state.refresh(t)
    return state.label(v, i) if action[0] == _MERGE else None


def _released(data: pd.DataFrame, state: _State, texts: list[pd.Series]) -> pd.DataFrame:
    out = data.copy()
    for v, name in enumerate(state.names):
        if len(state.groups[v]) == len(state.labels[v]) and not ((state.x[:, v] >= 0) & (state.y[:, v] < 0)).any():
            continue
        labels = np.array([state.label(v, g) for g in range(len(state.groups[v]))] + [None], dtype=object)
        out[name] = pd.Series(labels[state.y[:, v]], index=data.index, dtype=object)
        out.loc[texts[v].isna().to_numpy() | (state.y[:, v] < 0), name] = None
    return out


def _types(state: _State) -> GranularityTypes:
    """The hyper-rows of every table of the file as it stands, with their types."""
    frames = []
    for t, table in enumerate(state.tables):
        rows = hyper_row_frame(state.flags[t][1], [state.names[v] for v in table],
                               [[state.label(v, g) for g in range(len(state.groups[v]))] for v in table])
        rows.insert(0, "table", " x ".join(state.names[v] for v in table))
        frames.append(rows)
    return GranularityTypes(state.rules, pd.concat(frames, ignore_index=True))


def _example() -> dict[str, Any]:
    return {"data": pd.DataFrame({"sex": list("ffmmmfmf"), "age": ["20", "30", "30", "40", "40", "20", "20", "30"]}),
            "keys": ["sex", "age"]}


@validate_params({"data": Table(), "level": "granularity_threshold", "moves": StrOptions(MOVES),
                  "dispersed_frequency": "dispersed_frequency", "odd_expected": "odd_expected",
                  "source": InstanceOf(str, "a name for messages"), "budget": InstanceOf(WorkBudget)},
                 example=_example)
def eliminate_granularity(data: Any, keys: Sequence[str | int], level: float = 50.0,
                          types: Sequence[str] | None = None, moves: str = "both",
                          hierarchy: Mapping[str, Any] | None = None, ordered: Sequence[str] | None = None,
                          population: Mapping[str, Mapping[Any, float]] | None = None, dispersed_frequency: int = 5,
                          odd_expected: float = 5.0, source: str = "the data",
                          budget: WorkBudget = DEFAULT_BUDGET) -> GranularityElimination:
    """Merge categories and suppress key values until no hyper-row of the tables of 2 and 3 keys is flagged.

    Parameters
    ----------
    data : DataFrame
        The microdata file.
    keys : sequence of str or int
        At least 2 key variables.
    level : float, default 50
        The critical index of granularity (percent).
    types : sequence of str, optional
        The types eliminated (default all: proportional, odd, dispersed).
    moves : {"both", "merge", "suppress"}
        Merges and suppressions, merges only, or suppressions only.
    hierarchy : mapping, optional
        ``{variable: Hierarchy or {category: parent}}``: the merges allowed
        (two categories under the same parent).
    ordered : sequence of str, optional
        The ordered variables (default: those whose every category begins with a number).
    population : mapping, optional
        ``{variable: {category: frequency}}`` for the odd type.
    dispersed_frequency : int, default 5
    odd_expected : float, default 5
    source : str
    budget : WorkBudget
        Records x tables x keys, checked first.

    Returns
    -------
    GranularityElimination

    References
    ----------
    Seed 004 (Mas, EUSTAT), Algorithm to eliminate granularity in microdata
    files, Steps 1-5; the entropy information loss of mu-Argus (De Waal &
    Willenborg 1998).

    Examples
    --------
    >>> result = eliminate_granularity(**_example())
    >>> [(m["move"], m["variable"], m["values"]) for m in result.moves], result.index_after, result.reached
    ([('suppress', 'sex', 2)], {'sex x age': 0.0}, True)
    """
    names = select_columns(data, keys, source, what="key")
    if len(names) < 2:
        raise InputError(f"{source}: granularity tables cross at least 2 key variables, got {len(names)}")
    budget.check_work(float(data.shape[0]) * len(key_tables(len(names))) * len(names),
                      f"{data.shape[0]} records x {len(key_tables(len(names)))} tables x {len(names)} keys")
    texts = [text_values(data[n]) for n in names]
    categories = [category_order(t.dropna()) for t in texts]
    orders = variable_orders(names, categories, ordered)
    shares = population_shares(population, names)
    rules = granularity_rules(level, types, dispersed_frequency, odd_expected, names, orders, shares)
    hierarchies = {}
    for variable, tree in (hierarchy or {}).items():
        if variable not in names:
            raise InputError(f"hierarchy: {variable!r} is not a key variable ({', '.join(names)})")
        hierarchies[variable] = _Hierarchy(variable, hierarchy_parents(tree), categories[names.index(variable)])
    state = _State(texts, names, rules, orders, shares, hierarchies)
    before = _types(state)
    log: list[dict] = []
    skipped: set = set()
    limit = sum(len(c) for c in categories) + int((state.x >= 0).sum()) + 1
    while len(log) < limit:
        budget.check_work(float(len(log) + 1) * data.shape[0] * len(state.tables),
                          f"{len(log) + 1} moves x {data.shape[0]} records x {len(state.tables)} tables")
        worst = _worst(state, skipped)
        if worst is None:
            break
        t, k, position = worst
        where = _hyper_row(state, t, k, position)
        merges = _merges(state, t, k, position) if moves != _SUPPRESS else []
        candidates = [(c, m, a) for c, m, a, helps in merges if helps]
        if moves != _MERGE:
            candidates += _suppressions(state, t, k, position)
        elif not candidates:
            candidates = [(c, m, a) for c, m, a, _helps in merges]
        if not candidates:
            skipped.add(_identity(state, t, state.flags[t][1][k].fixed, position))
            continue
        cost, move, action = min(candidates, key=lambda c: c[0])
        into = _apply(state, action)
        log.append({**move, **({"into": into} if into is not None else {}), "cost": float(cost),
                    "hyper_row": where})
    released = _released(data, state, texts)
    after = _types(state)
    merged = {}
    for v, name in enumerate(names):
        mapping = {state.labels[v][i]: state.label(v, g) for g, members in enumerate(state.groups[v])
                   if len(members) > 1 for i in members}
        if mapping:
            merged[name] = mapping
    suppressed = {name: int(((state.x[:, v] >= 0) & (state.y[:, v] < 0)).sum()) for v, name in enumerate(names)}
    loss = sum(_loss(state.x[:, v], state.y[:, v]) for v in range(len(names)))
    largest = sum(_loss(state.x[:, v], np.full(state.x.shape[0], -1)) for v in range(len(names)))
    left = tuple(f"{h['table']}: {h['fixed']}" for h in
                 after.hyper_rows[after.hyper_rows["unsafe"]].to_dict(orient="records"))
    return GranularityElimination(
        released, tuple(names), rules, tuple(log), before, after, suppressed, merged,
        {name: {"before": len(categories[v]), "after": len(state.groups[v])} for v, name in enumerate(names)},
        float(loss), float(largest), after.safe, left)
