"""Targeted record swapping: the properties sdcMicro's recordSwap shows on the same file (tests/data/swap)."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from rumap.errors import InputError
from rumap.masking.targeted_swap import targeted_swap
from tests.cli_helpers import assert_bad_input, run_cli

DATA = Path(__file__).resolve().parent.parent / "data" / "swap"
PERSONS = pd.read_csv(DATA / "persons.csv")
SDCMICRO = pd.read_csv(DATA / "recordswap.csv")


def _swap(seed, frame=PERSONS, **kw):
    args = {"k": 3, "swaprate": 0.1, "seed": seed, **kw}
    return targeted_swap(frame, ["region", "district"], ["sex", "age"], "hid", [["hsize"]], **args)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_properties_match_recordswap(seed):
    result = _swap(seed)
    expected = SDCMICRO.iloc[0]
    summary = result.to_dict()
    assert result.swapped_households == expected.swapped_households
    assert summary["swapped_share"] == pytest.approx(expected.share)
    assert sum(v["households_at_risk"] for v in summary["levels"].values()) == expected.at_risk
    assert result.unswapped_at_risk == expected.at_risk_unswapped == 0
    out = result.data
    # persons per district and household size kept (partners agree on hsize); every other variable kept
    key = ["district", "hsize"]
    pd.testing.assert_series_equal(PERSONS.groupby(key).size(), out.groupby(key).size())
    pd.testing.assert_frame_equal(out.drop(columns=["region", "district"]), PERSONS.drop(columns=["region", "district"]))
    # each pair exchanged its geography, and the households at risk are among the swapped
    geo = PERSONS.groupby("hid")[["region", "district"]].first()
    new = out.groupby("hid")[["region", "district"]].first()
    for a, b in zip(result.pairs["household"], result.pairs["partner"], strict=True):
        assert tuple(new.loc[a]) == tuple(geo.loc[b]) and tuple(new.loc[b]) == tuple(geo.loc[a])
        assert geo.loc[a, "district"] != geo.loc[b, "district"]
    changed = int((new["district"] != geo["district"]).sum())
    assert changed == result.swapped_households
    assert summary["records_swapped"] == int((out["district"] != PERSONS["district"]).sum())


def test_lowest_level_first_then_higher_and_unswapped_reported():
    # households 1 to 4 are at risk: 1 and 2 share a region; 3 is alone in its size; 4 (size 2) only has
    # partners in other regions; 5 and 6 are not at risk
    frame = pd.DataFrame({"hid": [1, 1, 2, 2, 3, 4, 4, 5, 5, 6, 6],
                          "region": ["a", "a", "a", "a", "a", "b", "b", "c", "c", "c", "c"],
                          "district": ["a1", "a1", "a2", "a2", "a1", "b1", "b1", "c1", "c1", "c1", "c1"],
                          "hsize": [2, 2, 2, 2, 1, 2, 2, 2, 2, 3, 3],
                          "sex": ["f", "m", "f", "m", "x", "f", "m", "f", "m", "f", "m"]})
    result = targeted_swap(frame, ["region", "district"], ["sex"], "hid", [["hsize"]], k=2, swaprate=0.0, seed=3)
    levels = dict(zip(zip(result.pairs["household"], result.pairs["partner"], strict=True), result.pairs["level"],
                      strict=True))
    for (a, b), level in levels.items():
        same_region = frame.loc[frame.hid == a, "region"].iloc[0] == frame.loc[frame.hid == b, "region"].iloc[0]
        assert (level == 2) == same_region
    assert result.to_dict()["levels"]["district"]["households_at_risk"] == 4
    assert result.unswapped_at_risk == 1  # household 3: no other household of size 1
    assert "no household agreeing" in result.to_dict()["unswapped_reason"]
    # a second similarity set (none: any household) pairs it
    again = targeted_swap(frame, ["region", "district"], ["sex"], "hid", [["hsize"], []], k=2, swaprate=0.0, seed=3)
    assert again.unswapped_at_risk == 0 and 2 in set(again.pairs["similar"])


def test_refuses_geography_varying_within_a_household():
    frame = PERSONS.copy()
    frame.loc[1, "district"] = 99
    with pytest.raises(InputError, match="household variable 'district'"):
        _swap(1, frame)
    with pytest.raises(InputError, match="no column 'nope'"):
        targeted_swap(PERSONS, ["region", "nope"], ["sex"], "hid", [["hsize"]])


def test_cli_protect_swap(tmp_path):
    out = tmp_path / "swapped.csv"
    base = ("protect", "swap", "--data", str(DATA / "persons.csv"), "--hierarchy", "region,district",
            "--keys", "sex,age", "--household", "hid", "--k", "3", "--swaprate", "0.1")
    _, doc = run_cli(*base, "--similar", "hsize", "--seed", "1", "--out", str(out), "--json", check_json=True)
    assert doc["swapped_households"] == 30 and doc["unswapped_at_risk"] == 0
    assert set(doc["levels"]) == {"region", "district"}
    written = pd.read_csv(out)
    assert int((written["district"] != PERSONS["district"]).sum()) == doc["records_swapped"]
    proc = run_cli(*base, "--similar", "hsize+region,hsize")
    assert proc.returncode == 0 and "households swapped" in proc.stdout
    assert_bad_input(run_cli(*base, "--similar", "hsize,sex"), "--similar", "'sex'")
    assert_bad_input(run_cli(*base, "--similar", "hsize,"), "--similar")
    assert_bad_input(run_cli(*base[:-1], "1.5", "--similar", "hsize"), "--swaprate")
    json.dumps(doc)


def test_carry_along_moves_with_the_geography():
    frame = PERSONS.assign(office=PERSONS["district"].astype(str) + "-office")
    result = _swap(4, frame, carry_along=["office"])
    out = result.data
    assert (out["office"] == out["district"].astype(str) + "-office").all()
    assert int((out["office"] != frame["office"]).sum()) == result.to_dict()["records_swapped"] > 0
    with pytest.raises(InputError, match="carry_along: 'district' is already a hierarchy variable"):
        _swap(4, frame, carry_along=["district"])
