"""Optimal local suppression (MILP, HiGHS) against a brute-force search per record."""

from __future__ import annotations

from itertools import combinations

import numpy as np
import pandas as pd
import pytest
from cli_helpers import ROOT, assert_bad_input, run_cli

from rumap.errors import InputError
from rumap.masking.categorical import local_suppression
from rumap.masking.optimal_suppression import optimal_suppression
from rumap.risk.individual import individual_risk, key_frequencies_with_missing

SURVEY = ROOT / "data" / "survey.csv"
KEYS = ["age_band", "sex", "region", "marital"]


def _brute_force_costs(frame: pd.DataFrame, keys: list[str], k: int, cost: np.ndarray) -> float:
    """Per record, the cheapest set of variables meeting every unsafe combination of it (all subsets tried)."""
    p = len(keys)
    combos = [c for d in range(1, p + 1) for c in combinations(range(p), d)]
    unsafe = {}
    for combo in combos:
        columns = [keys[j] for j in combo]
        sizes = frame.groupby(columns, dropna=True)[columns[0]].transform("size")
        known = frame[columns].notna().all(axis=1)
        unsafe[combo] = ((sizes < k) & known).to_numpy()
    total = 0.0
    subsets = [s for d in range(0, p + 1) for s in combinations(range(p), d)]
    for i in range(len(frame)):
        mine = [c for c in combos if unsafe[c][i]]
        total += min(cost[list(s)].sum() for s in subsets if all(set(s) & set(c) for c in mine))
    return total


def test_the_milp_equals_the_brute_force_optimum_and_protects():
    frame = pd.read_csv(SURVEY).head(600)
    result = optimal_suppression(frame, KEYS, k=3)
    brute = _brute_force_costs(frame, KEYS, 3, np.ones(len(KEYS)))
    assert result.model_objective == result.model_bound == brute and result.model_gap == 0.0
    assert result.objective == result.suppressed.sum() <= brute
    assert individual_risk(result.data, KEYS, k=3).k_anonymity_violations == 0
    costly = {"age_band": 5.0}
    weighted = optimal_suppression(frame, KEYS, k=3, importance=costly)
    cost = np.array([costly.get(key, 1.0) for key in KEYS])
    assert weighted.model_objective == pytest.approx(_brute_force_costs(frame, KEYS, 3, cost))
    assert weighted.objective == pytest.approx((weighted.suppressed * cost).sum())
    assert weighted.objective <= weighted.model_objective
    assert individual_risk(weighted.data, KEYS, k=3).k_anonymity_violations == 0


@pytest.mark.parametrize(("keys", "rows", "k"), [(KEYS, 300, 3), ([*KEYS, "occupation"], 600, 5),
                                                  ([*KEYS, "occupation"], None, 3)])
def test_the_optimum_never_loses_to_the_heuristic_under_the_count_it_reports(keys, rows, k):
    frame = pd.read_csv(SURVEY).head(rows)
    heuristic = local_suppression(frame, keys, k=k)
    result = optimal_suppression(frame, keys, k=k)
    assert result.heuristic_objective == heuristic.suppressed.sum()
    assert result.suppressed.sum() <= heuristic.suppressed.sum()
    assert result.suppressed.sum() <= result.model_objective
    assert individual_risk(result.data, keys, k=k).k_anonymity_violations == 0


def test_no_suppressed_value_of_the_result_can_be_put_back():
    frame = pd.read_csv(SURVEY).head(200)
    result = optimal_suppression(frame, KEYS, k=3)
    assert result.restored > 0
    for i, j in zip(*np.nonzero(result.suppressed), strict=True):
        trial = result.data.copy()
        trial.iloc[i, trial.columns.get_loc(KEYS[j])] = frame.iloc[i][KEYS[j]]
        fk, _ = key_frequencies_with_missing(trial, KEYS)
        assert fk.min() < 3, (i, KEYS[j])


def test_bad_input_and_the_command_line(tmp_path):
    frame = pd.read_csv(SURVEY)
    with pytest.raises(InputError, match="importance costs must be finite numbers > 0"):
        optimal_suppression(frame, KEYS, k=3, importance={"sex": 0.0})
    out = tmp_path / "optimal.csv"
    _proc, summary = run_cli("protect", "suppress", "--data", SURVEY, "--keys", ",".join(KEYS), "--k", "3",
                             "--optimal", "--out", out, "--json", check_json=True)
    assert summary["method"] == "suppress" and summary["optimal"] is True
    assert summary["suppressed"] == summary["objective"] <= summary["heuristic_objective"]
    assert summary["model_bound"] <= summary["model_objective"] and summary["model_gap"] == 0.0
    assert "missing value matching any category" in summary["matching_rule"] and "count" in summary["cost"]
    assert individual_risk(pd.read_csv(out), KEYS, k=3).k_anonymity_violations == 0
    assert_bad_input(run_cli("protect", "suppress", "--data", SURVEY, "--keys", "sex", "--max-risk", "0.1",
                             "--optimal"), "--optimal needs --k")


def test_k_larger_than_the_file_is_an_infeasible_status():
    frame = pd.DataFrame({"sex": ["f", "m", "f"], "region": ["a", "b", "a"]})
    result = optimal_suppression(frame, ["sex", "region"], k=4)
    assert not result.feasible and "k = 4 is more than the 3 records" in result.reason
    assert not result.suppressed.any()
    with pytest.raises(InputError, match="'age', which is not among the keys"):
        optimal_suppression(frame, ["sex", "region"], k=2, importance={"age": 2.0})
