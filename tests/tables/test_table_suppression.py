"""Secondary suppression of n-D hierarchical and linked tables: every primary's interval by an independent LP at
every level, least cost against brute force, linked tables sharing one pattern, the singleton rules."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from suppression_helpers import interval, least_cost

from rumap.errors import InputError
from rumap.tables.hierarchy import from_prefixes, read_hrc
from rumap.tables.ndtable import build_table
from rumap.tables.table_suppression import audit_pattern, suppress_linked_tables, suppress_table


def _equations(table) -> list[tuple[int, list[int]]]:
    """(parent cell, children cells) of every subtotal and total of every dimension, from the codes alone."""
    out = []
    for i in range(table.size):
        codes = table.codes(i)
        for dim, code in codes.items():
            children = table.hierarchy(dim).children(code)
            if children:
                out.append((i, [table.cell_index({**codes, dim: c}) for c in children]))
    return out


_MATRICES: dict[int, np.ndarray] = {}


def _matrix(table) -> np.ndarray:
    if id(table) not in _MATRICES:
        rows = []
        for parent, children in _equations(table):
            row = np.zeros(table.size)
            row[children] = 1.0
            row[parent] = -1.0
            rows.append(row)
        _MATRICES[id(table)] = np.array(rows)
    return _MATRICES[id(table)]


def _interval(table, suppressed: np.ndarray, k: int) -> tuple[float, float]:
    """The attacker's min and max of cell k: scipy linprog on every equation, published cells fixed, y >= 0."""
    a = _matrix(table)
    bounds = [(0, None) if s else (v, v) for v, s in zip(table.values, suppressed, strict=True)]
    return interval(a, np.zeros(a.shape[0]), bounds, k)


def _protects(table, suppressed, primaries, protection) -> bool:
    for k in primaries:
        lo, hi = _interval(table, suppressed, k)
        level = table.values[k] * protection / 100
        if lo > table.values[k] - level + 1e-6 or hi < table.values[k] + level - 1e-6:
            return False
    return True


def _brute_force(table, mask, protection, weights) -> float:
    """Least cost over every pattern of non-empty cells that the independent LPs find protecting."""
    primaries = np.flatnonzero(mask)
    return least_cost(_matrix(table), np.flatnonzero(~mask & (table.frequencies > 0)), primaries, weights,
                      lambda pattern: _protects(table, pattern, primaries, protection))


def _check_audit(result, protection):
    table = result.table
    suppressed = result.suppressed
    primaries = np.flatnonzero(np.array(result.cell_status) == "primary")
    assert np.array_equal(result.audit_cells, primaries)
    for k, lo, hi in zip(primaries, result.audit_min, result.audit_max, strict=True):
        ref_lo, ref_hi = _interval(table, suppressed, k)
        assert lo == pytest.approx(ref_lo, abs=1e-6) and (hi == ref_hi or hi == pytest.approx(ref_hi, abs=1e-6))
        level = table.values[k] * protection / 100
        assert ref_lo <= table.values[k] - level + 1e-6 and ref_hi >= table.values[k] + level - 1e-6
    assert result.all_protected


@pytest.fixture(scope="module")
def small_hierarchical():
    """Regions R1 > {r11, r12}, R2 > {r21, r22} by sizes s, m: 21 cells; r22 x s is empty, r12 x s and r21 x m
    have one record each."""
    records = [("r11", "s", 12), ("r11", "s", 7), ("r11", "m", 20), ("r11", "m", 5), ("r12", "s", 9),
               ("r12", "m", 14), ("r12", "m", 3), ("r21", "s", 6), ("r21", "s", 16), ("r21", "m", 30),
               ("r22", "m", 8), ("r22", "m", 11)]
    frame = pd.DataFrame(records, columns=["region", "size", "v"]).astype({"v": float})
    return build_table(frame, ["region", "size"], {"region": from_prefixes(["r11", "r12", "r21", "r22"],
                                                                           lengths=[2, 3])}, "v")


@pytest.mark.parametrize("cost", ["value", pytest.param("unity", marks=pytest.mark.slow)])
def test_least_cost_of_a_hierarchical_table_is_the_brute_force_optimum(small_hierarchical, cost):
    table = small_hierarchical
    mask = table.primary_mask("threshold", threshold=2)
    assert mask.sum() == 2 and (table.frequencies == 0).sum() == 1
    result = suppress_table(table, mask, protection=30, cost=cost, singletons=False)
    weights = table.values if cost == "value" else np.ones(table.size)
    assert result.status == "optimal" and result.gap == 0
    assert result.cost == pytest.approx(_brute_force(table, mask, 30, weights))
    assert not result.suppressed[table.frequencies == 0].any()
    _check_audit(result, 30)


def _three_d(n: int, seed: int):
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame({"nace": rng.choice(["A01", "A02", "B01", "B02"], n), "size": rng.choice(["s", "l"], n),
                          "region": rng.choice(["N1", "N2", "S1"], n), "turnover": rng.gamma(2.0, 50.0, n).round()})
    return build_table(frame, ["nace", "size", "region"],
                       {"nace": from_prefixes(["A01", "A02", "B01", "B02"], lengths=[1, 3]),
                        "region": read_hrc("N\n@N1\n@N2\nS\n@S1\n")}, "turnover")


@pytest.fixture(scope="module")
def three_d():
    return _three_d(35, 5)


def _protected_at_every_level(table, threshold, proven=True):
    mask = table.primary_mask("threshold", threshold=threshold)
    nace = table.hierarchy("nace")
    levels = {nace.levels[nace.position(c)] if c != "Total" else 0 for c in table.cells.loc[mask, "nace"]}
    assert len(levels) >= 2  # primaries at more than one level
    result = suppress_table(table, mask, protection=15, cost="value", time_limit=60)
    if proven:
        assert result.status == "optimal" and result.method == "optimal" and result.gap == 0
    else:  # out of time: a protecting pattern, its proven gap
        assert result.status in ("optimal", "feasible") and 0 <= result.gap < 1
        assert result.lower_bound <= result.cost + 1e-9
    _check_audit(result, 15)
    return result


def test_three_dimensional_hierarchical_table_is_protected_at_every_level(three_d):
    result = _protected_at_every_level(three_d, 3)
    out = result.to_dict()
    assert set(out) >= {"cells", "cost", "gap", "method", "status"}
    assert len(out["cells"]) == three_d.size
    assert out["cells"][0] == {"codes": {"nace": "Total", "size": "Total", "region": "Total"},
                               "value": float(three_d.values[0]), "status": out["cells"][0]["status"]}
    assert sum(c["status"] != "published" for c in out["cells"]) == int(result.suppressed.sum())


@pytest.mark.slow
@pytest.mark.parametrize("seed", [1, 2])
def test_larger_three_dimensional_tables_are_protected_at_every_level(seed):
    _protected_at_every_level(_three_d(60, seed), 3, proven=False)


def test_linked_tables_share_one_pattern_and_are_protected_against_both():
    rng = np.random.default_rng(5)
    n = 40
    frame = pd.DataFrame({"region": rng.choice(["N", "S", "E"], n), "activity": rng.choice(["ind", "ser"], n),
                          "size": rng.choice(["s", "m", "l"], n), "v": rng.gamma(2.0, 10.0, n).round()})
    tables = [build_table(frame, ["region", "activity"], value_column="v"),
              build_table(frame, ["region", "size"], value_column="v")]
    masks = [t.primary_mask("threshold", threshold=4) for t in tables]
    result = suppress_linked_tables(tables, masks, protection=20)
    assert result.all_protected and result.status == "optimal"
    statuses = [dict(zip(map(str, t.table.cells[list(t.table.dims)].to_numpy().tolist()), t.cell_status,
                         strict=True)) for t in result.tables]
    for region in ("Total", "N", "S", "E"):  # the shared cells: each region's total, in both tables
        assert statuses[0][str([region, "Total"])] == statuses[1][str([region, "Total"])]
    # safe against an intruder reading both: the regions' totals tie the two tables' equations
    union = build_table(frame, ["region", "activity", "size"], value_column="v")
    suppressed = np.ones(union.size, dtype=bool)  # the cells of neither table are unknown to the intruder
    for t in result.tables:
        suppressed[[union.cell_index(t.table.codes(i)) for i in range(t.table.size)]] = False
    for t in result.tables:
        for i in np.flatnonzero(t.suppressed):
            suppressed[union.cell_index(t.table.codes(i))] = True
    for t in result.tables:
        for i in t.audit_cells:
            k = union.cell_index(t.table.codes(i))
            lo, hi = _interval(union, suppressed, k)
            level = union.values[k] * 0.2
            assert lo <= union.values[k] - level + 1e-6 and hi >= union.values[k] + level - 1e-6


def test_singletons_never_disclose_each_other():
    # rows r1, r2 with one contributor each in column a: without the rule the optimum is the 4-cell rectangle
    frame = pd.DataFrame({"r": ["r1", "r2", "r1", "r2", "r3", "r1", "r2", "r3", "r3"],
                          "c": ["a", "a", "b", "b", "b", "c", "c", "c", "a"],
                          "v": [50.0, 40.0, 9.0, 8.0, 30.0, 20.0, 25.0, 30.0, 7.0]})
    frame = pd.concat([frame, frame.iloc[2:].assign(v=1.0), frame.iloc[8:].assign(v=1.0)])
    table = build_table(frame, ["r", "c"], value_column="v")
    mask = table.primary_mask("threshold", threshold=2)
    assert [table.codes(i) for i in np.flatnonzero(mask)] == [{"r": "r1", "c": "a"}, {"r": "r2", "c": "a"}]
    free = suppress_table(table, mask, protection=10, singletons=False)
    ruled = suppress_table(table, mask, protection=10)
    column_a = [table.cell_index({"c": "a", "r": r}) for r in ("Total", "r1", "r2", "r3")]
    assert free.suppressed[column_a].sum() == 2  # r1 and r2 alone in column a: each singleton learns the other
    assert ruled.suppressed[column_a].sum() >= 3
    for row in table.equations().toarray():
        members = np.flatnonzero(row)
        hidden = members[ruled.suppressed[members]]
        if mask[hidden].sum() == 2 and (table.frequencies[hidden[mask[hidden]]] == 1).any():
            assert hidden.size >= 3
    assert ruled.all_protected and ruled.cost >= free.cost


def test_audit_pattern_batches_agree_with_one_lp_each(three_d):
    rng = np.random.default_rng(2)
    suppressed = rng.random(three_d.size) < 0.3
    cells = np.flatnonzero(suppressed)[:12]
    low, high = audit_pattern(three_d.values, three_d.equations(), suppressed, cells)
    for k, lo, hi in zip(cells, low, high, strict=True):
        ref_lo, ref_hi = _interval(three_d, suppressed, k)
        assert lo == pytest.approx(ref_lo, abs=1e-6) and (hi == ref_hi or hi == pytest.approx(ref_hi, abs=1e-6))


def test_bad_masks_are_refused(three_d):
    with pytest.raises(InputError, match="entries"):
        suppress_table(three_d, np.zeros(3, dtype=bool))
    empty = np.flatnonzero(three_d.frequencies == 0)
    if empty.size:
        mask = np.zeros(three_d.size, dtype=bool)
        mask[empty[0]] = True
        with pytest.raises(InputError, match="empty"):
            suppress_table(three_d, mask)
    with pytest.raises(InputError, match="method"):
        suppress_table(three_d, np.zeros(three_d.size, dtype=bool), method="nonsense")


def _lines_keep_singletons_apart(table, pattern, mask) -> bool:
    """tau-Argus's singleton rule: no line whose suppressed cells are a one-record primary and one other primary
    (unless the line has no other non-empty cell: then the two are one cell under two labels)."""
    for parent, children in _equations(table):
        members = np.array([parent, *children])
        hidden = members[pattern[members]]
        if hidden.size == 2 and mask[hidden].all() and (table.frequencies[hidden] == 1).any() \
                and (table.frequencies[members] > 0).sum() > 2:
            return False
    return True


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("singletons", [False, True])
def test_random_hierarchical_tables_least_cost_is_the_brute_force_optimum(seed, singletons):
    rng = np.random.default_rng(100 + seed)
    codes = ["a1", "a2", "b1"] if seed % 2 else ["a1", "a2", "b1", "b2"]
    n = int(rng.integers(8, 12))
    frame = pd.DataFrame({"r": rng.choice(codes, n), "c": rng.choice(["x", "y"], n),
                          "v": rng.integers(1, 50, n).astype(float)})
    table = build_table(frame, ["r", "c"], {"r": from_prefixes(codes, lengths=[1, 2])}, "v")
    mask = table.primary_mask("threshold", threshold=2)
    primaries = np.flatnonzero(mask)
    result = suppress_table(table, mask, protection=25, singletons=singletons)
    assert result.status == "optimal"
    best = least_cost(_matrix(table), np.flatnonzero(~mask & (table.frequencies > 0)), primaries, table.values,
                      lambda p: (not singletons or _lines_keep_singletons_apart(table, p, mask))
                      and _protects(table, p, primaries, 25))
    assert result.cost == pytest.approx(best)
    _check_audit(result, 25)
    if singletons:
        assert _lines_keep_singletons_apart(table, result.suppressed, mask)


def test_out_of_time_a_protecting_pattern_and_its_proven_gap(small_hierarchical):
    mask = small_hierarchical.primary_mask("threshold", threshold=2)
    result = suppress_table(small_hierarchical, mask, protection=30, time_limit=0.01)
    assert result.all_protected and result.status in ("optimal", "feasible")
    assert result.method in ("optimal/heuristic", "optimal+heuristic")  # no time for the MILP: the repair's pattern
    assert 0 <= result.lower_bound <= result.cost + 1e-9
    assert result.gap == pytest.approx(0 if result.optimal else (result.cost - result.lower_bound) / result.cost)
    _check_audit(result, 30)


def test_the_optimal_method_refuses_work_over_the_budget(three_d):
    from rumap.budget import WorkBudget

    mask = three_d.primary_mask("threshold", threshold=3)
    with pytest.raises(InputError, match="attacker subproblems"):
        suppress_table(three_d, mask, budget=WorkBudget(work=1e3))
