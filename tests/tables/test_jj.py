"""The JJ format: reading and writing (sdcTable's layout), and a suite of small instances whose optima are certified
by brute force (tests/data/jj)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from suppression_helpers import interval, least_cost

from rumap.errors import InputError
from rumap.tables.hierarchy import from_prefixes, read_hrc
from rumap.tables.jj import instance_from_table, read_jj, solve_jj, write_jj
from rumap.tables.ndtable import build_table
from rumap.tables.table_suppression import audit_pattern

SUITE = Path(__file__).resolve().parents[1] / "data" / "jj"

# sdcTable's own example (tests/testthat/_snaps/jjformat.md): microdata1, region A-D x gender, frequencies
SDCTABLE = """0
15
0 100 100 s 0 150 1 1 0
1 45 45 s 0 150 1 1 0
2 55 55 s 0 150 1 1 0
3 20 20 s 0 150 1 1 0
4 2 2 s 0 150 1 1 0
5 18 18 s 0 150 1 1 0
6 33 33 s 0 150 1 1 0
7 19 19 s 0 150 1 1 0
8 14 14 s 0 150 1 1 0
9 22 22 s 0 150 1 1 0
10 10 10 s 0 150 1 1 0
11 12 12 s 0 150 1 1 0
12 25 25 s 0 150 1 1 0
13 14 14 s 0 150 1 1 0
14 11 11 s 0 150 1 1 0
8
0.0 5 : 0 (-1) 3 (1) 6 (1) 9 (1) 12 (1)
0.0 5 : 1 (-1) 4 (1) 7 (1) 10 (1) 13 (1)
0.0 5 : 2 (-1) 5 (1) 8 (1) 11 (1) 14 (1)
0.0 3 : 0 (-1) 1 (1) 2 (1)
0.0 3 : 3 (-1) 4 (1) 5 (1)
0.0 3 : 6 (-1) 7 (1) 8 (1)
0.0 3 : 9 (-1) 10 (1) 11 (1)
0.0 3 : 12 (-1) 13 (1) 14 (1)
"""


def suite_instances() -> dict[str, str]:
    """The suite's instances, made from tables (tests/data/jj holds their text and optima.json their optima)."""
    out = {}
    one_d = pd.DataFrame({"nace": ["A1"] * 3 + ["A2"] * 4 + ["A3"] + ["B1"] * 5 + ["B2"] * 2})
    table = build_table(one_d, ["nace"], {"nace": from_prefixes(one_d["nace"], lengths=[1, 2])})
    out["hier1d_freq"] = write_jj(instance_from_table(table, table.primary_mask("threshold", threshold=3), 50, "unity"))
    records = [("r11", "s", 12), ("r11", "s", 7), ("r11", "m", 20), ("r11", "m", 5), ("r12", "s", 9),
               ("r12", "m", 14), ("r12", "m", 3), ("r21", "s", 6), ("r21", "s", 16), ("r21", "m", 30),
               ("r22", "m", 8), ("r22", "m", 11)]
    frame = pd.DataFrame(records, columns=["region", "size", "v"]).astype({"v": float})
    table = build_table(frame, ["region", "size"], {"region": read_hrc("r1\n@r11\n@r12\nr2\n@r21\n@r22\n")}, "v")
    mask = table.primary_mask("threshold", threshold=2)
    out["hier2d_value"] = write_jj(instance_from_table(table, mask, 30, "value"))
    out["hier2d_unity"] = write_jj(instance_from_table(table, mask, 30, "unity"))
    rng = np.random.default_rng(4)
    three = pd.DataFrame({"a": rng.choice(["a1", "a2"], 14), "b": rng.choice(["b1", "b2"], 14),
                          "c": rng.choice(["c1", "c2"], 14), "v": rng.integers(1, 40, 14).astype(float)})
    three = three[(three["c"] == "c1") | (three["a"] == "a1")]
    table = build_table(three, ["a", "b", "c"], value_column="v")
    out["flat3d_value"] = write_jj(instance_from_table(table, table.primary_mask("threshold", threshold=2), 20))
    return out


def _brute_force(inst) -> float:
    """Least cost over every pattern that scipy's linprog, on the instance's equations and bounds, finds protecting."""
    status = np.array(inst.status)
    a = inst.equations.toarray()

    def protects(pattern: np.ndarray) -> bool:
        bounds = [(lo, hi) if s else (v, v) for v, lo, hi, s in
                  zip(inst.values, inst.lower, inst.upper, pattern, strict=True)]
        for k in inst.primaries:
            low, high = interval(a, inst.rhs, bounds, k)
            if low > inst.values[k] - inst.lpl[k] + 1e-6 or high < inst.values[k] + inst.upl[k] - 1e-6:
                return False
        return True

    return least_cost(a, np.flatnonzero((status == "s") | (status == "x")), inst.primaries, inst.costs, protects)


def test_sdctable_example_round_trips_byte_for_byte():
    inst = read_jj(SDCTABLE)
    assert inst.values.size == 15 and inst.equations.shape == (8, 15)
    assert np.abs(inst.equations @ inst.values).max() == 0
    assert write_jj(inst) == SDCTABLE


def test_the_suite_is_the_one_the_tables_make():
    made = suite_instances()
    assert sorted(p.stem for p in SUITE.glob("*.jj")) == sorted(made)
    for name, text in made.items():
        assert (SUITE / f"{name}.jj").read_text() == text, name


@pytest.mark.parametrize("name", sorted(json.loads((SUITE / "optima.json").read_text())))
def test_the_solver_reaches_each_recorded_optimum(name):
    inst = read_jj((SUITE / f"{name}.jj").read_text())
    solution = solve_jj(inst)
    assert solution.optimal and solution.gap == 0 and solution.protected.all()
    assert solution.cost == pytest.approx(json.loads((SUITE / "optima.json").read_text())[name])
    assert not solution.suppressed[np.array(inst.status) == "z"].any()


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(json.loads((SUITE / "optima.json").read_text())))
def test_each_recorded_optimum_is_certified_by_brute_force(name):
    inst = read_jj((SUITE / f"{name}.jj").read_text())
    assert _brute_force(inst) == pytest.approx(json.loads((SUITE / "optima.json").read_text())[name])


def test_worked_example_with_external_bounds_as_a_jj_instance():
    # seed 004's worked example (activity x A, B, C), y_23 primary at 20%: the cheapest rectangle costs 37
    cells = np.array([[20, 50, 10], [8, 19, 22], [17, 32, 12]], dtype=float)
    full = np.zeros((4, 4))
    full[:3, :3] = cells
    full[:3, 3] = cells.sum(axis=1)
    full[3] = full[:3].sum(axis=0)
    index = np.arange(16).reshape(4, 4)
    rows = [f"0.0 4 : {index[r, 0]} (1) {index[r, 1]} (1) {index[r, 2]} (1) {index[r, 3]} (-1)" for r in range(4)]
    rows += [f"0.0 4 : {index[0, c]} (1) {index[1, c]} (1) {index[2, c]} (1) {index[3, c]} (-1)" for c in range(4)]
    lines = [f"{i} {v:g} {v:g} {'u' if i == index[1, 2] else 's'} 0 10000 {0.2 * v if i == index[1, 2] else 0:g} "
             f"{0.2 * v if i == index[1, 2] else 0:g} 0" for i, v in enumerate(full.ravel())]
    inst = read_jj("\n".join(["0", "16", *lines, "8", *rows]) + "\n")
    solution = solve_jj(inst)
    assert solution.cost == 37 and solution.optimal
    assert (solution.audit_min[0], solution.audit_max[0]) == pytest.approx((5, 30))  # the seed's [5, 30]
    # every cell known within 50% of its value: the rectangle leaves y_23 in the seed's [18, 26], short of 20%
    values = full.ravel()
    bounded = [f"{i} {v:g} {v:g} {'u' if i == index[1, 2] else 's'} {0.5 * v:g} {1.5 * v:g} "
               f"{0.2 * v if i == index[1, 2] else 0:g} {0.2 * v if i == index[1, 2] else 0:g} 0"
               for i, v in enumerate(values)]
    inst = read_jj("\n".join(["0", "16", *bounded, "8", *rows]) + "\n")
    rectangle = np.zeros(16, dtype=bool)
    rectangle[[index[1, 0], index[1, 2], index[2, 0], index[2, 2]]] = True
    low, high = audit_pattern(values, inst.equations, rectangle, np.array([index[1, 2]]), inst.rhs, inst.lower,
                              inst.upper)
    assert (low[0], high[0]) == pytest.approx((18, 26))
    solution = solve_jj(inst)
    assert solution.protected.all() and solution.cost > 37
    assert solution.audit_min[0] <= 22 - 4.4 + 1e-6 and solution.audit_max[0] >= 22 + 4.4 - 1e-6


@pytest.mark.parametrize("text, message", [
    ("0\n2\n0 1 1 s 0 9 0 0 0\n", "announces 2 cells"),
    ("0\n1\n0 1 1 q 0 9 0 0 0\n0\n", "status"),
    ("0\n1\n0 1 1 s 0 9 0 0\n0\n", "fields"),
    ("0\n1\n0 1 1 s 0 9 0 0 0\n1\n0.0 2 : 0 (1)\n", "terms"),
    ("0\n1\n0 1 1 s 0 9 0 0 0\n1\n0.0 1 : 3 (1)\n", "outside"),
])
def test_malformed_files_are_refused(text, message):
    with pytest.raises(InputError, match=message):
        read_jj(text)


def test_sliding_protection_is_refused():
    with pytest.raises(InputError, match="sliding"):
        solve_jj(read_jj(SDCTABLE.replace("4 2 2 s 0 150 1 1 0", "4 2 2 u 0 150 1 1 5")))
