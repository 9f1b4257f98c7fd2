"""SUDA2 special uniques: minimal sample uniques, SUDA and DIS scores (Elliot et al.; sdcMicro's suda2)."""

from __future__ import annotations

import json
from itertools import combinations

import numpy as np
import pandas as pd
import pytest
from cli_helpers import ROOT, assert_bad_input, run_cli
from hypothesis import given, settings
from hypothesis import strategies as st

from rumap.budget import WorkBudget
from rumap.errors import InputError
from rumap.risk.suda import suda2, suda_weights

SURVEY = ROOT / "data" / "survey.csv"


def _brute_force_msus(rows: list[tuple], max_size: int) -> np.ndarray:
    """Each record's MSUs by size, from the definition: every subset of its known values, checked against every
    other record, minimal when no proper subset (of any size) is unique too."""
    p = len(rows[0])

    def unique(i: int, subset: tuple[int, ...]) -> bool:
        if any(rows[i][j] is None for j in subset):
            return False
        return not any(all(rows[o][j] is not None and rows[o][j] == rows[i][j] for j in subset)
                       for o in range(len(rows)) if o != i)

    counts = np.zeros((len(rows), max_size), dtype=int)
    for i in range(len(rows)):
        for size in range(1, max_size + 1):
            for subset in combinations(range(p), size):
                proper = (s for d in range(1, size) for s in combinations(subset, d))
                if unique(i, subset) and not any(unique(i, s) for s in proper):
                    counts[i, size - 1] += 1
    return counts


def test_hand_computed_msus_scores_and_dis_scores():
    # r0..r3 need both a and b; r4 is singled out by a = 3; r5 and r6 are a pair
    frame = pd.DataFrame({"a": [1, 1, 2, 2, 3, 4, 4], "b": [1, 2, 1, 2, 1, 3, 3], "c": [1] * 7})
    result = suda2(frame, ["a", "b", "c"], dis_fraction=0.01)
    assert result.msu_counts.tolist() == [[0, 1, 0]] * 4 + [[1, 0, 0], [0, 0, 0], [0, 0, 0]]
    assert result.score.tolist() == [1.0, 1.0, 1.0, 1.0, 2.0, 0.0, 0.0]  # (3 - 2)! and (3 - 1)!
    assert (result.sample_uniques, result.special_uniques) == (5, 5)
    # DIS = U F / (U F + P (1 - F)) with U = 5, P = 2, F = 0.01; Q = 1 + (8 - 3) / 20 = 1.25
    assert result.dis == pytest.approx(0.05 / 2.03, rel=1e-14)
    adjust = 4.0 + 2.0 ** -1.25
    shrink = 5 / (0.05 / 2.03) - 5  # = 198
    expected = [1 / (1 + shrink / adjust)] * 4 + [1 / (1 + shrink / (2.0 ** 1.25 * adjust)), 0.0, 0.0]
    np.testing.assert_allclose(result.dis_score, expected, rtol=1e-12)
    assert result.variable_msus.set_index("variable")["msus"].to_dict() == {"a": 5, "b": 4, "c": 0}


def test_weights_are_elliots_products():
    assert suda_weights(5, 5).tolist() == [24.0, 6.0, 2.0, 1.0, 1.0]  # (p - k)!
    assert suda_weights(6, 3).tolist() == [5 * 4 * 3, 4 * 3, 3]  # prod_{i=k}^{M} (p - i)
    with pytest.raises(InputError, match="max_size"):
        suda_weights(3, 4)


def test_sdcmicro_suda2_record_by_record():
    """sdcMicro 5.8.1's suda2 (scripts/sdcmicro_suda2_reference.R) on the bundled survey, with 1% missing
    occupations: every record's SUDA score exactly, its DIS score to sdcMicro's single precision."""
    reference = json.loads((ROOT / "tests" / "data" / "sdcmicro_survey_suda2.json").read_text())
    survey = pd.read_csv(SURVEY)
    for case in ("default", "tenth", "four"):
        theirs = reference[case]
        ours = suda2(survey, theirs.get("keys", reference["keys"]), dis_fraction=theirs["dis_fraction"])
        np.testing.assert_array_equal(ours.score, theirs["score"])
        np.testing.assert_allclose(ours.dis_score, theirs["dis_score"], rtol=1e-6, atol=1e-12)
    assert ours.special_uniques > 50


@settings(max_examples=60, deadline=None)
@given(st.integers(2, 12), st.integers(1, 4), st.integers(1, 3), st.integers(0, 2**31 - 1), st.booleans())
def test_msus_equal_brute_force(n, p, levels, seed, with_missing):
    rng = np.random.default_rng(seed)
    values = rng.integers(0, levels, size=(n, p)).astype(object)
    if with_missing:
        values[rng.random((n, p)) < 0.15] = None
    frame = pd.DataFrame(values, columns=[f"v{j}" for j in range(p)])
    for max_size in range(1, p + 1):
        result = suda2(frame, list(frame.columns), max_size=max_size)
        brute = _brute_force_msus([tuple(r) for r in values.tolist()], max_size)
        np.testing.assert_array_equal(result.msu_counts, brute)
        np.testing.assert_allclose(result.score, brute @ suda_weights(p, max_size))


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 2**31 - 1))
def test_scores_follow_the_records_when_the_file_is_shuffled(seed):
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame(rng.integers(0, 3, size=(40, 4)), columns=list("abcd"))
    order = rng.permutation(40)
    first = suda2(frame, list("abcd"))
    second = suda2(frame.iloc[order].reset_index(drop=True), list("abcd"))
    np.testing.assert_array_equal(second.score, first.score[order])
    np.testing.assert_allclose(second.dis_score, first.dis_score[order], rtol=1e-12)
    smaller = suda2(frame, list("abcd"), max_size=2)  # a smaller search finds the same small MSUs
    np.testing.assert_array_equal(smaller.msu_counts, first.msu_counts[:, :2])
    assert ((first.dis_score >= 0) & (first.dis_score <= 1)).all()


def test_bad_input_and_budget():
    frame = pd.DataFrame({"a": [1, 2], "b": [1, 1]})
    with pytest.raises(InputError, match="max_size"):
        suda2(frame, ["a", "b"], max_size=3)
    with pytest.raises(InputError, match="dis_fraction"):
        suda2(frame, ["a", "b"], dis_fraction=1.0)
    with pytest.raises(InputError, match="no column"):
        suda2(frame, ["a", "zz"])
    with pytest.raises(InputError, match="twice"):
        suda2(frame, ["a", "a"])
    with pytest.raises(InputError, match="work limit|limit"):
        suda2(frame, ["a", "b"], budget=WorkBudget(work=2))


def test_cli_risk_suda_json_and_table(tmp_path):
    frame = pd.DataFrame({"a": [1, 1, 2, 2, 3, 4, 4], "b": [1, 2, 1, 2, 1, 3, 3], "c": [1] * 7})
    path = tmp_path / "f.csv"
    frame.to_csv(path, index=False)
    _proc, out = run_cli("risk", "suda", "--data", path, "--keys", "a,b,c", "--dis-fraction", "0.01", "--json",
                         check_json=True)
    direct = suda2(frame, ["a", "b", "c"])
    assert out["score"] == direct.score.tolist() and out["dis_score"] == direct.dis_score.tolist()
    assert (out["n"], out["keys"], out["max_size"], out["special_uniques"]) == (7, ["a", "b", "c"], 3, 5)
    assert out["msus_by_size"] == {"1": 1, "2": 4, "3": 0}
    _proc, small = run_cli("risk", "suda", "--data", path, "--keys", "a,b,c", "--max-size", "1", "--json",
                           check_json=True)
    assert small["score"] == [0, 0, 0, 0, 2.0, 0, 0]  # prod_{i=1}^{1} (3 - i); size-2 MSUs not searched
    text = run_cli("risk", "suda", "--data", path, "--keys", "a,b,c")
    assert text.returncode == 0 and "special uniques" in text.stdout
    assert_bad_input(run_cli("risk", "suda", "--data", path, "--keys", "a,b,c", "--max-size", "4"), "--max-size")
    assert_bad_input(run_cli("risk", "suda", "--data", path, "--keys", "a,b,c", "--dis-fraction", "0"),
                     "--dis-fraction")


def test_the_sizes_offered_are_the_default_then_every_size_a_search_accepts():
    from rumap.risk.suda import DEFAULT_MAX_SIZE, max_size_choices, searched_size

    choices = max_size_choices(4)
    assert choices[0] is DEFAULT_MAX_SIZE and choices == [None, 1, 2, 3, 4]
    assert [searched_size(m, 4) for m in choices] == [4, 1, 2, 3, 4]  # each one a search takes
    with pytest.raises(InputError, match="cannot exceed"):
        searched_size(5, 4)
