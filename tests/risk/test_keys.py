"""Key-variable analysis: unsafe cells of every combination, against pandas group counts."""

from __future__ import annotations

from itertools import combinations

import numpy as np
import pandas as pd
import pytest
from cli_helpers import ROOT, assert_bad_input, run_cli

from rumap.errors import InputError
from rumap.risk.keys import key_analysis, unsafe_cells

SURVEY = ROOT / "data" / "survey.csv"
KEYS = ["age_band", "sex", "region", "marital", "occupation"]


def test_every_combination_matches_a_group_count():
    frame = pd.read_csv(SURVEY)
    result = key_analysis(frame, KEYS, dimension=3, threshold=3)
    assert len(result.combinations) == 5 + 10 + 10
    at_risk = np.zeros(len(frame), dtype=bool)
    for d in (1, 2, 3):
        for combo in combinations(KEYS, d):
            counts = frame[list(combo)].dropna().value_counts()
            row = result.combinations.set_index("variables").loc[" x ".join(combo)]
            assert row["cells"] == len(counts) and row["unsafe_cells"] == int((counts < 3).sum())
            sizes = frame.groupby(list(combo), dropna=True)[combo[0]].transform("size")
            unsafe = (sizes < 3) & frame[list(combo)].notna().all(axis=1)
            assert row["records_in_unsafe_cells"] == int(unsafe.sum())
            at_risk |= unsafe.to_numpy()
    np.testing.assert_array_equal(result.records_at_risk, at_risk)
    ordered = result.combinations["unsafe_cells"].to_numpy()
    assert (np.diff(ordered) <= 0).all()  # unsafest first


def test_variables_most_often_in_unsafe_combinations():
    frame = pd.DataFrame({"a": ["x", "x", "y", "y"], "b": ["p", "p", "p", "p"], "c": ["u", "v", "u", "u"]})
    result = key_analysis(frame, ["a", "b", "c"], dimension=2, threshold=2)
    variables = result.variables.set_index("variable")
    assert variables.loc["c", "unsafe_combinations"] == 3  # c, a x c, b x c each have a single record cell
    assert variables.loc["b", "unsafe_combinations"] == 1
    assert unsafe_cells(frame, ["a", "c"], threshold=2).to_dict(orient="records") == [
        {"a": "x", "c": "u", "records": 1}, {"a": "x", "c": "v", "records": 1}]


def test_bad_input():
    frame = pd.DataFrame({"a": [1, 2]})
    with pytest.raises(InputError, match="dimension must be"):
        key_analysis(frame, ["a"], dimension=0)
    with pytest.raises(InputError, match="threshold must be"):
        key_analysis(frame, ["a"], threshold=0)
    with pytest.raises(InputError, match="no column 'b'"):
        key_analysis(frame, ["b"])


def test_cli():
    _proc, out = run_cli("risk", "keys", "--data", SURVEY, "--keys", ",".join(KEYS), "--json", check_json=True)
    assert out["dimension"] == 3 and out["threshold"] == 3 and len(out["combinations"]) == 25
    assert {v["variable"] for v in out["variables"]} == set(KEYS)
    assert_bad_input(run_cli("risk", "keys", "--data", SURVEY, "--keys", "sex", "--dimension", "0"),
                     "--dimension must be")
