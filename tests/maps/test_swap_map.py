"""The R-U map of targeted record swapping over the swap rate."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from rumap.maps.categorical_measures import CATEGORICAL_RISKS
from rumap.maps.swap_map import swap_map, swapped_shares_sentence
from tests.cli_helpers import assert_bad_input, run_cli

DATA = Path(__file__).resolve().parent.parent / "data" / "swap"
PERSONS = pd.read_csv(DATA / "persons.csv")
SWAP = {"hierarchy": ["region", "district"], "household": "hid", "similar": [["hsize"]]}


def test_no_swap_keeps_everything_and_more_swapping_keeps_less():
    m = swap_map(PERSONS, ["sex", "age"], [0.0, 0.3], k=1, replicates=3, seed=1, **SWAP)  # k = 1: nobody at risk
    names = ["region", "district", "sex", "age"]
    baseline = CATEGORICAL_RISKS["key_matching"].compute(PERSONS, PERSONS, names, weight=None, options={},
                                                         source="x", budget=None)
    assert m.utility[0] == 1.0 and m.risk[0] == pytest.approx(baseline, abs=1e-12) and m.utility_se[0] == 0.0
    assert m.utility[1] < 1.0 and m.risk[1] < m.risk[0]
    assert m.target == "region x district x sex x age" and m.config["household"] == "hid"


def test_cli_simulate_swap():
    base = ("simulate", "--data", str(DATA / "persons.csv"), "--keys", "sex,age", "--replicates", "2")
    swap = ("--method", "swap", "--hierarchy", "region,district", "--household", "hid", "--similar", "hsize")
    _, doc = run_cli(*base, *swap, "--swaprate", "0.01,0.05,0.1", "--max-risk", "0.5", "--json", check_json=True)
    assert doc["curves"][0]["values"] == [0.01, 0.05, 0.1] and doc["recommendation"]["value"] is not None
    assert_bad_input(run_cli(*base, "--method", "swap", "--swaprate", "0.05,0.1", "--household", "hid", "--similar",
                             "hsize"), "hierarchy")
    assert_bad_input(run_cli(*base, *swap, "--swaprate", "1.5"), "--swaprate")
    assert_bad_input(run_cli(*base, "--method", "pram", "--theta", "0.5", "--household", "hid"), "--household",
                     "not pram")


def test_the_map_says_what_share_of_households_each_rate_swaps():
    """The rate is a floor: with nobody at risk (k = 1) the share swapped is the rate; with keys at risk in their
    district (k = 3), the households at risk and their partners are swapped at any rate, more than 1% here."""
    free = swap_map(PERSONS, ["sex", "age"], [0.0, 0.1, 0.3], k=1, replicates=2, seed=1, **SWAP)
    assert free.config["swapped_share"] == pytest.approx([0.0, 0.1, 0.3], abs=2 / 300)  # whole pairs: 2 of 300
    assert swapped_shares_sentence(free) == ("Households swapped (mean over the replicates): 0.0% at swap rate 0, "
                                             "10.0% at 0.1, 30.0% at 0.3.")
    risky = swap_map(PERSONS, ["sex", "age"], [0.01, 0.1], k=3, replicates=2, seed=1, **SWAP)
    floor = risky.config["swapped_share"][0]
    assert floor > 0.02 and risky.config["swapped_share"][1] == pytest.approx(0.1, abs=2 / 300)
    assert swapped_shares_sentence(risky).endswith(
        f"whatever the rate ({floor:.1%} of the households here): a rate below that swaps no more.")
