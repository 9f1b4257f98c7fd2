"""R-U maps of protected tables: monotone where they must be, points by hand, agreement with direct calls."""

from __future__ import annotations

import math

import numpy as np
import pytest

from rumap.errors import InputError
from rumap.maps.tables import (
    TABLE_RISKS,
    TABLE_UTILITIES,
    default_rounding_base,
    meeting_requirement,
    protection_map,
    rounding_base_map,
    rule_map,
    table_outcome,
)
from rumap.result import RUMap
from rumap.tables.controlled_rounding import controlled_round
from rumap.tables.microdata import example_microdata, table_from_microdata
from rumap.tables.published import PublishedTable
from rumap.tables.secondary import suppress_secondary


@pytest.fixture(scope="module")
def magnitude():
    return table_from_microdata(example_microdata(), "region", "size", response="turnover")


def _random_table(seed: int, shape=(4, 5)) -> PublishedTable:
    rng = np.random.default_rng(seed)
    return PublishedTable.from_cells(rng.integers(1, 60, shape).astype(float))


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_more_protection_never_means_fewer_suppressions_or_less_cost(seed):
    table = _random_table(seed)
    primary = [("1", "1"), ("3", "4")]
    levels = [1.0, 10.0, 30.0, 60.0, 100.0]
    fewest = protection_map(table, primary, levels, cost="unity", utility="cells_kept")
    cheapest = protection_map(table, primary, levels, cost="value")
    assert all(fewest.config["optimal"]) and all(cheapest.config["optimal"])
    assert np.all(np.diff(fewest.config["secondaries"]) >= 0)
    assert np.all(np.diff(cheapest.config["suppression_cost"]) >= -1e-9)
    assert np.all(np.diff(fewest.utility) <= 1e-12)  # U = share of cells kept falls with every extra suppression
    assert fewest.risk[-1] == 0.0  # every primary clears the largest level at that level


def test_stricter_rule_marks_more_primaries_and_costs_more(magnitude):
    grid = [1.0, 10.0, 50.0, 90.0]
    m = rule_map(magnitude, "p-percent", grid)
    assert np.all(np.diff(m.config["primaries"]) >= 0)
    # the least cost of a pattern holding every primary (primaries included) cannot fall as primaries are added;
    # the secondaries' cost alone can (a secondary may become a primary)
    table = magnitude.published().to_frame()
    primary_value = [sum(table.loc[r, c] for r, c in magnitude.primary("p-percent", p=p)) for p in grid]
    assert np.all(np.diff(np.add(m.config["suppression_cost"], primary_value)) >= -1e-9)
    t = rule_map(magnitude, "threshold", [1.0, 2.0, 3.0, 4.0])
    assert t.parameter == "threshold" and t.config["primaries"] == [0, 1, 2, 6]
    assert t.utility[0] == 1.0 and t.risk[-1] == 0.0


def test_a_point_agrees_with_suppress_secondary_called_directly(magnitude):
    m = rule_map(magnitude, "p-percent", [10.0, 90.0], protection=15.0, risk="max_cell_risk")
    primary = magnitude.primary("p-percent", p=10)
    direct = suppress_secondary(magnitude.published(), primary, protection=15.0, cost="value", time_limit=10.0)
    assert m.config["secondaries"][0] == len(direct.secondary)
    assert m.config["suppression_cost"][0] == direct.cost
    suppressed = np.array(direct.status) != "published"
    m_values = direct.max[suppressed] - direct.min[suppressed] + 1
    assert m.risk[0] == pytest.approx(max(1 / math.log2(v) for v in m_values))
    lost = sum(v for v, s, r, c in zip(direct.values, direct.status, direct.rows, direct.columns, strict=True)
               if s != "published" and "Total" not in (r, c))
    assert m.utility[0] == pytest.approx(1 - lost / 750.0)


def test_underprotected_share_by_hand():
    # a 2 x 2 table; suppress the four inner cells: each lies in [max(0, .), .] from the margins
    table = PublishedTable.from_cells([[10.0, 20.0], [30.0, 40.0]])
    values = table.values.ravel()
    low, high = values.copy(), values.copy()
    # cell (1,1) = 10 in [0, 30]; (1,2) = 20 in [0, 30]; (2,1) = 30 in [10, 40]; (2,2) = 40 in [30, 60]
    low[[0, 1, 3, 4]] = [0, 0, 10, 30]
    high[[0, 1, 3, 4]] = [30, 30, 40, 60]
    outcome = table_outcome(table, low, high, [("1", "1"), ("2", "2")], protection=50.0)
    # (1,1) needs [5, 15]: inside [0, 30]; (2,2) needs [20, 60]: 30 > 20, too narrow
    assert TABLE_RISKS["underprotected"].compute(outcome) == 0.5
    assert TABLE_RISKS["max_cell_risk"].compute(outcome) == pytest.approx(1 / math.log2(31))
    assert TABLE_UTILITIES["total_kept"].compute(outcome) == 0.0  # all of the total 100 is suppressed
    assert TABLE_UTILITIES["cells_kept"].compute(outcome) == pytest.approx(5 / 9)
    bits = 3 * math.log2(31) + math.log2(31)
    assert TABLE_UTILITIES["entropy_kept"].compute(outcome) == pytest.approx(1 - bits / (9 * math.log2(101)))


def test_the_protection_map_checks_the_level_required_and_says_when_no_value_meets_it(magnitude):
    table = magnitude.published()
    primary = magnitude.primary("p-percent", p=10.0)
    grid = [5.0, 10.0, 20.0, 40.0]
    at_ten = protection_map(table, primary, grid, required=10.0)
    for p, risk, met in zip(grid, at_ten.risk, at_ten.config["meets_requirement"], strict=True):
        direct = suppress_secondary(table, primary, protection=p)
        required = suppress_secondary(table, primary, protection=10.0)
        audit, need = direct.audit_frame(), required.audit_frame()
        narrow = (audit["min"] > need["required_min"] + 1e-6) | (audit["max"] < need["required_max"] - 1e-6)
        assert risk == pytest.approx(narrow.mean()) and met == (not narrow.any())
    assert at_ten.risk[1] == 0.0  # protected at the level asked, R = 0 at P = 10
    met = meeting_requirement(at_ten)
    assert met.feasible and met.required == 10.0 and 10.0 in met.values.tolist()
    impossible = meeting_requirement(protection_map(table, primary, [5.0, 10.0], required=100.0))
    assert not impossible.feasible and impossible.first is None and impossible.values.size == 0
    default = protection_map(table, primary, grid)  # without a requirement: the grid's largest, as before
    assert default.config["reference_protection"] == 40.0


def test_the_default_rounding_base_follows_the_table_s_scale():
    for scale in (1.0, 100.0, 1e6):
        cells = np.array([[3.0, 7.0, 12.0], [41.0, 25.0, 18.0]]) * scale
        base = default_rounding_base(PublishedTable.from_cells(cells))
        median = float(np.median(cells))
        assert base == max(3.0, 10 ** (math.floor(math.log10(median)) - 1))
        assert base <= median / 10 or base == 3.0  # a typical cell keeps its first two digits


def test_rounding_map_points_by_hand():
    table = PublishedTable.from_cells([[3.0, 7.0, 11.0], [12.0, 1.0, 0.0], [4.0, 9.0, 2.0]])
    m = rounding_base_map(table, [1.0, 3.0, 5.0], utility="total_kept")
    assert m.parameter == "b" and math.isinf(m.risk[0]) and m.utility[0] == 1.0
    for k, base in enumerate([3.0, 5.0]):
        rounded = controlled_round(table, base).rounded
        assert m.config["total_absolute_deviation"][k + 1] == pytest.approx(np.abs(rounded - table.values.ravel()).sum())
        inner = np.abs(rounded - table.values.ravel()).reshape(4, 4)[:-1, :-1].sum()
        assert m.utility[k + 1] == pytest.approx(1 - inner / 49.0)
        # a cell rounded to 0 lies in 0 .. b - 1 (b values), the others in r - b + 1 .. r + b - 1 (2b - 1)
        m_values = np.where(rounded == 0, base, 2 * base - 1)
        assert m.risk[k + 1] == pytest.approx(1 / math.log2(m_values.min()))
    protected = rounding_base_map(table, [2.0, 10.0], primary=[("1", "3")], protection=50.0, risk="underprotected")
    # 11 needs [5.5, 16.5]; base 10 gives an interval of 19 values around 10 or 20, base 2 only 3
    assert protected.risk.tolist() == [1.0, 0.0]


def test_maps_are_ru_maps_that_round_trip(magnitude):
    m = rule_map(magnitude, "dominance", [0.5, 0.9], parameter="k", rule_parameters={"n": 1})
    assert isinstance(m, RUMap) and m.parameter == "k" and m.method == "suppression"
    again = RUMap.from_dict(m.to_dict())
    np.testing.assert_array_equal(again.risk, m.risk)
    assert list(m.to_frame().columns) == ["method", "knowledge", "target", "k", "risk", "utility"]


def test_bad_choices_are_refused(magnitude):
    with pytest.raises(InputError, match="parameter must be one of n, k"):
        rule_map(magnitude, "dominance", [1.0], parameter="p", rule_parameters={"k": 0.8})
    with pytest.raises(InputError, match="the swept parameter"):
        rule_map(magnitude, "p-percent", [1.0], rule_parameters={"p": 3.0})
    with pytest.raises(InputError, match="not in the table"):
        protection_map(magnitude.published(), [("Nowhere", "large")], [10.0])
    with pytest.raises(InputError, match="at least one primary"):
        protection_map(magnitude.published(), [], [10.0])


def test_a_suppressed_cell_the_margins_disclose_counts_as_disclosed():
    table = PublishedTable.from_cells([[0.0, 5.0], [3.0, 4.0]])
    values = table.values.ravel()
    hidden = np.zeros(values.size, dtype=bool)
    hidden[0] = True  # suppressed, but its interval is [0, 0]
    outcome = table_outcome(table, values, values, [], hidden=hidden)
    assert math.isinf(TABLE_RISKS["max_cell_risk"].compute(outcome))
    assert TABLE_RISKS["max_cell_risk"].compute(table_outcome(table, values, values, [])) == 0.0
    with pytest.raises(InputError, match="hidden needs one entry per cell"):
        table_outcome(table, values, values, [], hidden=[True])
