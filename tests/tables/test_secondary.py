"""Secondary cell suppression: hand-checked tables, brute force over patterns, the audit, invariants."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rumap.errors import InputError
from rumap.tables.bounds import suppression_bounds
from rumap.tables.published import PublishedTable
from rumap.tables.secondary import suppress_secondary, worked_example_table


def _protected_by_audit(cells: np.ndarray, mask: np.ndarray, primaries: list[tuple[int, int]],
                        protection: float) -> bool:
    """Second computation: the existing LP bounds of the pattern clear every primary's levels."""
    table = PublishedTable.from_cells(cells, suppressed=mask)
    bounds = suppression_bounds(table)
    for r, c in primaries:
        value = np.asarray(PublishedTable.from_cells(cells).values)[r, c]
        interval = bounds.cell(*table.label(r, c))
        level = value * protection / 100
        if interval["min"] > value - level + 1e-7 or interval["max"] < value + level - 1e-7:
            return False
    return True


def _brute_force_cost(cells: np.ndarray, primaries: list[tuple[int, int]], protection: float,
                      weights: np.ndarray) -> float:
    """Least cost over every suppression pattern holding the primaries that the LP audit finds safe."""
    full = PublishedTable.from_cells(cells).values
    others = [(r, c) for r in range(full.shape[0]) for c in range(full.shape[1]) if (r, c) not in primaries]
    patterns = []
    for choice in itertools.product([0, 1], repeat=len(others)):
        chosen = [cell for cell, bit in zip(others, choice, strict=True) if bit]
        patterns.append((sum(weights[cell] for cell in chosen), chosen))
    patterns.sort(key=lambda p: p[0])
    for cost, chosen in patterns:  # cheapest first: the first safe pattern is the optimum
        mask = np.zeros(full.shape, dtype=bool)
        for cell in [*primaries, *chosen]:
            mask[cell] = True
        if _protected_by_audit(cells, mask, primaries, protection):
            return cost
    raise AssertionError("no safe pattern")


def test_seed_worked_example_interval():
    """Seed 004 (Willenborg & de Waal): the pattern (II,A), (II,C), (III,A), (III,C) gives y_23 in [5, 30]."""
    result = suppress_secondary(worked_example_table(), [("Activity II", "C")], protection=20)
    assert set(result.secondary) == {("Activity II", "A"), ("Activity III", "A"), ("Activity III", "C")}
    frame = result.to_frame().set_index(["row", "column"])
    assert (frame.loc[("Activity II", "C"), "min"], frame.loc[("Activity II", "C"), "max"]) == (5, 30)
    assert result.cost == 8 + 17 + 12 and result.optimal and result.method == "milp" and result.all_protected


def test_seed_worked_example_with_external_bounds():
    """Every cell known within 50% of its value (11 <= y_23 <= 33): the same pattern gives y_23 in [18, 26]."""
    result = suppress_secondary(worked_example_table(), [("Activity II", "C")], protection=10, external=50)
    assert set(result.secondary) == {("Activity II", "A"), ("Activity III", "A"), ("Activity III", "C")}
    frame = result.to_frame().set_index(["row", "column"])
    assert (frame.loc[("Activity II", "C"), "min"], frame.loc[("Activity II", "C"), "max"]) == (18, 26)
    assert frame.loc[("Activity II", "A"), "min"] >= 4 and frame.loc[("Activity III", "C"), "max"] <= 18
    assert result.all_protected and result.optimal
    # 20% needs [17.6, 26.4]: the rectangle no longer suffices, a dearer pattern is chosen and audited safe
    wider = suppress_secondary(worked_example_table(), [("Activity II", "C")], protection=20, external=50)
    assert wider.all_protected and wider.cost > result.cost
    with pytest.raises(InputError, match="lower the protection"):
        suppress_secondary(worked_example_table(), [("Activity II", "C")], protection=10, external=5)


def test_single_primary_takes_the_cheapest_rectangle():
    cells = np.array([[5, 40, 30], [20, 25, 35], [30, 10, 45]], dtype=float)
    table = PublishedTable.from_cells(cells, ["a", "b", "c"], ["x", "y", "z"])
    result = suppress_secondary(table, [("a", "x")], protection=50)
    # rectangles through (a, x) inside the table: cost of the 3 other corners; the cheapest is a-y, c-x, c-y
    costs = {(r, c): cells[0, c] + cells[r, 0] + cells[r, c] for r in (1, 2) for c in (1, 2)}
    best = min(costs, key=costs.get)
    assert costs[best] == 80 and best == (2, 1)
    assert set(result.secondary) == {("a", "y"), ("c", "x"), ("c", "y")}
    assert result.cost == 80 and len(result.secondary) == 3 and result.optimal


def test_unity_cost_counts_cells_and_totals_are_used_when_cheaper():
    table = worked_example_table()
    result = suppress_secondary(table, [("Activity II", "C")], protection=20, cost="unity")
    assert result.cost == 3 and len(result.secondary) == 3
    weights = {("Activity II", "Total"): 0.0, ("Total", "C"): 0.0, ("Total", "Total"): 0.0}
    cheap_totals = suppress_secondary(table, [("Activity II", "C")], protection=20, cost="unity", weights=weights)
    assert set(cheap_totals.secondary) == set(weights) and cheap_totals.cost == 0 and cheap_totals.all_protected


def test_totals_suppressed_when_needed():
    """One inner row: each column total equals its cell, so protecting a cell needs its column total."""
    table = PublishedTable.from_cells(np.array([[30.0, 50.0, 20.0]]), ["only"], ["a", "b", "c"])
    result = suppress_secondary(table, [("only", "a")], protection=10)
    assert ("Total", "a") in result.secondary and result.all_protected and result.optimal
    weights = np.ones(table.values.size)
    assert result.cost == _brute_force_cost(table.cells, [(0, 0)], 10, table.values)
    assert suppress_secondary(table, [("only", "a")], weights=weights).cost == \
        _brute_force_cost(table.cells, [(0, 0)], 10, weights.reshape(table.values.shape))


@pytest.mark.parametrize("seed", range(6))
def test_milp_equals_brute_force(seed):
    rng = np.random.default_rng(seed)
    shape = (2, 3) if seed % 2 else (3, 2)
    cells = rng.integers(1, 30, shape).astype(float)
    table = PublishedTable.from_cells(cells)
    n_primary = 1 + seed % 2
    flat = rng.choice(cells.size, n_primary, replace=False)
    primaries = [(int(i) // shape[1], int(i) % shape[1]) for i in flat]
    protection = float(rng.choice([10, 30, 60]))
    cost = ["value", "unity"][seed % 2]
    result = suppress_secondary(table, [table.label(*p) for p in primaries], protection=protection, cost=cost,
                                method="milp")
    weights = table.values if cost == "value" else np.ones(table.values.shape)
    assert result.optimal
    assert result.cost == pytest.approx(_brute_force_cost(cells, primaries, protection, weights))
    heuristic = suppress_secondary(table, [table.label(*p) for p in primaries], protection=protection, cost=cost,
                                   method="heuristic")
    assert heuristic.all_protected and heuristic.cost >= result.cost - 1e-9


def test_audit_intervals_clear_the_levels_and_to_dict():
    rng = np.random.default_rng(4)
    cells = rng.integers(1, 100, (6, 5)).astype(float)
    table = PublishedTable.from_cells(cells)
    primary = [table.label(0, 0), table.label(3, 2), table.label(5, 4)]
    result = suppress_secondary(table, primary, protection=25)
    audit = result.audit_frame()
    assert (audit["min"] <= audit["required_min"] + 1e-7).all()
    assert (audit["max"] >= audit["required_max"] - 1e-7).all()
    mask = (np.array(result.status) != "published").reshape(table.values.shape)
    bounds = suppression_bounds(PublishedTable(table.row_labels, table.column_labels,
                                               np.where(mask, np.nan, table.values)))
    suppressed = result.to_frame()[lambda f: f.status != "published"]
    assert suppressed["min"].tolist() == pytest.approx(bounds.min.tolist())
    assert suppressed["max"].tolist() == pytest.approx(bounds.max.tolist())
    out = result.to_dict()
    assert set(out) >= {"cells", "primary", "secondary", "cost", "optimal", "method", "gap"}
    assert len(out["cells"]) == table.values.size
    assert set(out["cells"][0]) == {"row", "column", "value", "status", "min", "max"}


def test_short_time_limit_reports_a_safe_pattern_and_its_gap():
    rng = np.random.default_rng(7)
    cells = np.round(np.exp(rng.normal(3, 1, (15, 15))))
    table = PublishedTable.from_cells(cells)
    primary = [table.label(int(r), int(c)) for r, c in zip(rng.integers(0, 15, 12), rng.integers(0, 15, 12),
                                                           strict=True)]
    result = suppress_secondary(table, primary, protection=30, time_limit=0.3)
    assert result.all_protected
    assert 0 <= result.gap <= 1 and result.lower_bound <= result.cost + 1e-9
    if result.optimal:
        assert result.gap == 0 and result.method in ("milp", "milp+heuristic")
    else:
        assert result.method == "heuristic" and result.gap == pytest.approx(1 - result.lower_bound / result.cost)


def test_no_primary_publishes_everything():
    result = suppress_secondary(worked_example_table(), [])
    assert result.secondary == () and result.cost == 0 and set(result.status) == {"published"}


@pytest.mark.parametrize("kwargs, fragment", [
    ({"primary": [("Activity IV", "A")]}, "not in the table"),
    ({"primary": ["Activity II"]}, "(row, column) pair"),
    ({"primary": [("Activity II", "C")], "weights": [1, 2]}, "16 costs"),
    ({"primary": [("Activity II", "C")], "weights": {("Activity II", "C"): -1}}, "non-negative"),
])
def test_bad_input(kwargs, fragment):
    with pytest.raises(InputError, match=fragment.replace("(", r"\(").replace(")", r"\)")):
        suppress_secondary(worked_example_table(), **kwargs)


def test_incomplete_or_non_additive_table_refused():
    table = worked_example_table()
    values = np.array(table.values)
    values[1, 1] = np.nan
    with pytest.raises(InputError, match="complete"):
        suppress_secondary(PublishedTable(table.row_labels, table.column_labels, values), [("Activity I", "A")])
    values[1, 1] = 18
    with pytest.raises(InputError, match="does not add up"):
        suppress_secondary(PublishedTable(table.row_labels, table.column_labels, values), [("Activity I", "A")])


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(2, 4), st.integers(2, 4), st.integers(0, 2**32 - 1), st.sampled_from([5.0, 20.0, 50.0]),
       st.sampled_from(["value", "unity"]))
def test_invariants(n_rows, n_cols, seed, protection, cost):
    rng = np.random.default_rng(seed)
    cells = rng.integers(0, 40, (n_rows, n_cols)).astype(float)
    table = PublishedTable.from_cells(cells)
    k = int(rng.integers(1, 3))
    primary = [table.label(int(rng.integers(0, n_rows + 1)), int(rng.integers(0, n_cols + 1))) for _ in range(k)]
    result = suppress_secondary(table, primary, protection=protection, cost=cost)
    frame = result.to_frame()
    assert frame["value"].tolist() == table.values.ravel().tolist()
    published = frame[frame.status == "published"]
    assert (published["min"] == published["value"]).all() and (published["max"] == published["value"]).all()
    suppressed = set(zip(frame.row[frame.status != "published"], frame.column[frame.status != "published"],
                         strict=True))
    assert set(result.primary) == set(primary) and set(result.primary) <= suppressed
    assert result.all_protected
    mask = (frame.status != "published").to_numpy().reshape(table.values.shape)
    index = {table.label(r, c): (r, c) for r in range(n_rows + 1) for c in range(n_cols + 1)}
    assert _protected_by_audit(cells, mask, [index[p] for p in set(primary)], protection)
