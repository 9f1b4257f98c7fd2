"""The R-U map of the cell key method: its differencing attack against the tables an intruder would difference."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from rumap.maps.cellkey_map import _differenced, ckm_map, ckm_risk, ckm_utility
from rumap.tables.cellkey import cellkey_table
from rumap.tables.ptable import create_ptable
from tests.cli_helpers import assert_bad_input, run_cli

DATA = Path(__file__).resolve().parent.parent / "data" / "ckm"
MICRO = pd.read_csv(DATA / "micro.csv")


@pytest.mark.parametrize("variance", [0.5, 2.0])
def test_differencing_uses_the_table_without_the_category(variance):
    pt = create_ptable(3, variance, 0)
    skip = int(variance * 10)  # small cells: one, two and six records of the three age groups
    few = pd.concat([MICRO[MICRO["age"] == age].iloc[skip:skip + n] for age, n in (("a1", 6), ("a2", 2), ("a3", 1))])
    result = cellkey_table(few, ["age"], pt, record_key="rk")
    frame = result.to_frame(True)
    small = np.flatnonzero(frame["count"].isin([1, 2]).to_numpy())
    recovered = _differenced(result, small)
    assert small.size >= 2
    total = frame.loc[frame["age"] == "Total"].iloc[0]
    for cell, hit in zip(small, recovered, strict=True):
        age = frame["age"].iloc[cell]
        without = cellkey_table(few[few["age"] != age], ["age"], pt, record_key="rk").to_frame(True)
        other_total = without.loc[without["age"] == "Total"].iloc[0]
        difference = total["value"] - other_total["value"]
        assert hit == (difference == frame["count"].iloc[cell])


def test_map_points_are_the_measures_of_each_table():
    m = ckm_map(MICRO, ["region", "sex", "age"], [0.5, 3.0], max_perturbation=4, record_key="rk", risk="direct",
                utility="relative")
    for v, r, u in zip(m.values, m.risk, m.utility, strict=True):
        t = cellkey_table(MICRO, ["region", "sex", "age"], create_ptable(4, v, 0), record_key="rk")
        assert r == ckm_risk(t, "direct") and u == ckm_utility(t, "relative")
    assert m.parameter == "variance" and m.method == "ckm" and m.risk_se.tolist() == [0.0, 0.0]
    drawn = ckm_map(MICRO, ["region", "sex", "age"], [0.5, 3.0], max_perturbation=4, replicates=4, seed=2)
    assert (drawn.risk_se > 0).any() and drawn.utility[0] > drawn.utility[1]


def test_cli_simulate_ckm():
    base = ("simulate", "--data", str(DATA / "micro.csv"), "--method", "ckm")
    _, doc = run_cli(*base, "--dims", "region,sex,age", "--hierarchy", f"region={DATA / 'region.hrc'}",
                     "--variance", "0.5,3", "--max-perturbation", "4", "--record-key", "rk", "--max-risk", "1",
                     "--json", check_json=True)
    assert doc["curves"][0]["values"] == [0.5, 3.0] and doc["recommendation"]["value"] == 0.5
    assert_bad_input(run_cli(*base, "--dims", "region", "--variance", "1", "--max-perturbation", "2", "--js", "1"),
                     "--variance", "i = 1")
    assert_bad_input(run_cli(*base, "--dims", "region", "--variance", "x", "--max-perturbation", "2"), "--variance")
    assert_bad_input(run_cli(*base, "--variance", "1", "--max-perturbation", "2"), "--dims")
    assert_bad_input(run_cli(*base, "--dims", "region", "--variance", "1", "--max-perturbation", "2", "--keys", "a"),
                     "--keys")
