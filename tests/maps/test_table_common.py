"""The measures every protection of a count table shares: the same R and U from suppression, rounding, the cell key
method and DP noise, each checked against a second computation of its own protection."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from rumap.maps.cellkey_map import ckm_map
from rumap.maps.dp_tables import dp_table_map
from rumap.maps.table_common import (
    TABLE_COMMON_RISK_LABEL,
    TABLE_COMMON_UTILITY_LABEL,
    table_common_curve,
    table_common_stats,
)
from rumap.maps.tables import protection_map, rounding_base_map, rule_map
from rumap.tables.cellkey import cellkey_table
from rumap.tables.microdata import example_microdata, table_from_microdata
from rumap.tables.ndtable import build_table
from rumap.tables.ptable import create_ptable

MICRO = pd.read_csv(Path(__file__).resolve().parent.parent / "data" / "ckm" / "micro.csv")


def test_stats_count_small_cells_and_cap_each_error_at_one():
    counts = np.array([0.0, 1.0, 3.0, 4.0, 2.0])
    risk, utility = table_common_stats(counts, np.array([True, True, False, True, True]),
                                       np.array([5.0, 0.0, np.nan, 8.0, 1.0]))
    assert risk == pytest.approx(2 / 3)  # cells of 1 to 3: the 1 and the 2 recovered, the 3 not; 0 and 4 not small
    assert utility == pytest.approx(1 - (0 + 1 + 1 + 0.5) / 4)  # the empty cell left out; a withheld 3 and 8/4 are 1
    assert table_common_stats(np.array([5.0]), np.array([True]), np.array([0.0])) == (0.0, 1.0)


def _same_plane(*maps):
    curves = [table_common_curve(m) for m in maps]
    for c in curves:
        assert (c.risk_label, c.utility_label) == (TABLE_COMMON_RISK_LABEL, TABLE_COMMON_UTILITY_LABEL)
        assert np.all((c.risk >= 0) & (c.risk <= 1)) and np.all((c.utility >= 0) & (c.utility <= 1))
    return curves


@pytest.mark.parametrize("variance", [1.0, 3.0])
def test_the_cell_key_method_recovers_a_small_count_as_published_or_by_differencing_two_tables(variance):
    few = pd.concat([MICRO[MICRO["age"] == age].iloc[:n] for age, n in (("a1", 3), ("a2", 2), ("a3", 1))])
    (c,) = _same_plane(ckm_map(few, ["age"], [variance], max_perturbation=3, record_key="rk"))
    pt = create_ptable(3, variance, 0)
    frame = cellkey_table(few, ["age"], pt, record_key="rk").to_frame(True)
    total = frame.loc[frame["age"] == "Total", "value"].iloc[0]
    recovered, errors = [], []
    for age, count, value in frame[["age", "count", "value"]].itertuples(index=False):
        errors.append(min(1.0, abs(value - count) / count))
        if age == "Total":
            continue
        without = cellkey_table(few[few["age"] != age], ["age"], pt, record_key="rk").to_frame(True)
        other = without.loc[without["age"] == "Total", "value"].iloc[0]
        recovered.append(value == count or total - other == count)
    assert c.risk[0] == pytest.approx(np.mean(recovered))  # the three ages are the small cells; the total, 6, is not
    assert c.utility[0] == pytest.approx(1 - np.mean(errors))


def test_dp_noise_and_suppression_meet_on_one_plane():
    table = build_table(example_microdata(), ["region", "size"])
    noisy = dp_table_map(table, [0.1, 10.0], replicates=4, seed=2)
    (c,) = _same_plane(noisy)
    assert c.risk.tolist() == pytest.approx(noisy.risk.tolist())  # DP's own R: small cells rounded to their count
    assert c.utility[0] < c.utility[1] and c.risk_se is not None
    counts = table_from_microdata(example_microdata(), "region", "size")
    suppressed = rule_map(counts, "threshold", [1.0, 4.0])
    published = counts.published()
    primaries = [tuple(cell) for cell in suppressed.config["reference"]]
    levels = protection_map(published, primaries, [10.0, 50.0], counts=True)
    rounded = rounding_base_map(published, [1.0, 5.0], counts=True)
    s, p, r = _same_plane(suppressed, levels, rounded)
    assert s.risk[0] == 1.0 and s.utility[0] == 1.0  # threshold 1: nothing suppressed, every count published
    assert s.risk[1] < 1.0 and s.utility[1] < 1.0
    assert r.risk.tolist() == [1.0, 0.0] and r.utility[0] == 1.0  # base 1 publishes the table as it is
    assert table_common_curve(rule_map(table_from_microdata(example_microdata(), "region", "size",
                                                            response="turnover"), "p-percent", [10.0])) is None
    assert table_common_curve(protection_map(published, primaries, [10.0])) is None  # not said to be counts
