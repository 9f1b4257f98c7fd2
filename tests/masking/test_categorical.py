"""Recoding, top/bottom coding, local suppression and PRAM of categorical keys."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest
from cli_helpers import ROOT
from hypothesis import given, settings
from hypothesis import strategies as st

from rumap.errors import InputError
from rumap.masking.categorical import (
    band,
    local_suppression,
    parse_merges,
    pram,
    pram_matrix,
    recode,
    top_bottom_code,
    unmatched_categories,
)
from rumap.risk.individual import individual_risk

SURVEY = ROOT / "data" / "survey.csv"
KEYS = ["age_band", "sex", "region", "marital", "occupation"]
#: sdcMicro 5.8.1 localSuppression(survey, keyVars = KEYS, k = 3): new suppressions (3.6 s on this machine).
SDCMICRO_SUPPRESSIONS_K3 = 1633


def test_recoding_banding_and_coding():
    frame = pd.DataFrame({"region": ["a", "b", "c", None], "age": [3, 37, 97, np.nan]})
    assert recode(frame, {"region": {"b": "bc", "c": "bc"}})["region"].tolist()[:3] == ["a", "bc", "bc"]
    assert band(frame, "age", 10)["age"].tolist()[:3] == ["0-9", "30-39", "90-99"]
    assert band(frame, "age", 2.5, origin=1.0)["age"].tolist()[1] == "36-38.5"
    assert top_bottom_code(frame, "age", above=90, below=5)["age"].tolist()[:3] == ["<5", "37", ">90"]
    with pytest.raises(InputError, match="not numeric"):
        band(frame, "region", 5)
    with pytest.raises(InputError, match="give above, below or both"):
        top_bottom_code(frame, "age")
    with pytest.raises(InputError, match="below \\(9\\) must not exceed above \\(5\\)"):
        top_bottom_code(frame, "age", above=5, below=9)


def test_recoding_names_integer_coded_categories_by_their_digits():
    frame = pd.DataFrame({"education": [1, 2, 3, 2], "level": [1.0, 2.0, np.nan, 3.0], "region": list("abca")})
    mapping = parse_merges(["education: 1, 2 = basic", "", "level: 1, 2 = low", "region: a = north"])
    out = recode(frame, mapping)
    assert out["education"].tolist() == ["basic", "basic", "3", "basic"]
    assert out["level"].tolist()[:2] == ["low", "low"] and pd.isna(out["level"][2]) and out["level"][3] == "3"
    assert out["region"].tolist() == ["north", "b", "c", "north"]
    assert recode(frame, {"education": {1: "one"}})["education"].tolist() == ["one", "2", "3", "2"]
    assert unmatched_categories(frame, mapping) == {}
    assert unmatched_categories(frame, {"education": {"1": "x", "9": "x"}, "region": {"z": "y"}}) == \
        {"education": ["9"], "region": ["z"]}
    with pytest.raises(InputError, match="line 2 must read VAR: A, B = NEW"):
        parse_merges(["education: 1 = a", "education 2"], "line {number}")


def test_a_recoding_range_stands_for_each_whole_number_in_it():
    ages = pd.DataFrame({"age": [17, 18, 24, 25, 64, 65, 90]})
    mapping = parse_merges(["age: 0..17 = child", "age: 18 .. 64 = adult", "age: 65..120 = old"])
    assert recode(ages, mapping)["age"].tolist() == ["child", "adult", "adult", "adult", "adult", "old", "old"]
    assert parse_merges(["x: -2..0, a = n"]) == {"x": {"-2": "n", "-1": "n", "0": "n", "a": "n"}}
    for text, message in [("age: 1.5..3 = a", "two whole numbers"), ("age: a..b = a", "two whole numbers"),
                          ("age: 9..3 = a", "ends before it starts"), ("age: 0..10000000 = a", "more than 100,000")]:
        with pytest.raises(InputError, match=f"line 1: .*{message}"):
            parse_merges([text], "line {number}")


def test_local_suppression_reaches_k_anonymity_touching_only_records_at_risk():
    frame = pd.read_csv(SURVEY)
    before = individual_risk(frame, KEYS, k=3)
    result = local_suppression(frame, KEYS, k=3)
    after = individual_risk(result.data, KEYS, k=3)
    assert after.k_anonymity_violations == 0
    touched = result.suppressed.any(axis=1)
    assert not touched[before.fk >= 3].any()  # a safe record stays as it was
    assert result.suppressed.sum() <= SDCMICRO_SUPPRESSIONS_K3  # no more than sdcMicro's heuristic needs
    assert result.to_dict()["suppressed"] == int(result.suppressed.sum())
    assert (result.data[KEYS].isna().to_numpy() == (result.suppressed | frame[KEYS].isna().to_numpy())).all()


def test_importance_and_risk_threshold():
    frame = pd.read_csv(SURVEY)
    plain = local_suppression(frame, KEYS, k=3)
    kept_age = local_suppression(frame, KEYS, k=3, importance={"age_band": 10.0})
    assert kept_age.suppressed[:, 0].sum() <= plain.suppressed[:, 0].sum()
    bounded = local_suppression(frame, KEYS, max_risk=0.004, weight="weight")
    assert individual_risk(bounded.data, KEYS, weight="weight").risk.max() <= 0.004
    with pytest.raises(InputError, match="give k"):
        local_suppression(frame, KEYS)


def test_pram_keeps_everything_at_theta_one_and_is_reproducible():
    frame = pd.read_csv(SURVEY)
    same = pram(frame, ["region"], theta=1.0, seed=1)
    assert same.data["region"].tolist() == frame["region"].tolist() and not same.changed.any()
    a, b = pram(frame, KEYS, theta=0.7, seed=5), pram(frame, KEYS, theta=0.7, seed=5)
    assert a.data.equals(b.data)
    assert a.data["occupation"].isna().sum() == frame["occupation"].isna().sum()  # missing stays missing


def test_pram_is_invariant_in_expectation():
    frame = pd.DataFrame({"c": ["a"] * 600 + ["b"] * 300 + ["c"] * 100})
    counts = np.array([pram(frame, ["c"], theta=0.5, seed=s).data["c"].value_counts().reindex(["a", "b", "c"]).to_numpy()
                       for s in range(200)], dtype=float)
    mean, se = counts.mean(axis=0), counts.std(axis=0, ddof=1) / np.sqrt(len(counts))
    assert np.all(np.abs(mean - [600, 300, 100]) < 4 * se)
    changed = np.mean([pram(frame, ["c"], theta=0.5, seed=s).changed.mean() for s in range(50)])
    assert changed == pytest.approx(0.5 * (1 - (0.36 + 0.09 + 0.01)), abs=0.02)  # (1 - theta)(1 - sum pi^2)


@given(st.lists(st.floats(0.0, 100.0), min_size=1, max_size=8).filter(lambda v: sum(v) > 0), st.floats(0.0, 1.0))
def test_pram_matrix_is_stochastic_and_invariant(frequencies, theta):
    matrix = pram_matrix(frequencies, theta)
    pi = np.asarray(frequencies) / sum(frequencies)
    np.testing.assert_allclose(matrix.sum(axis=1), 1.0, atol=1e-12)
    np.testing.assert_allclose(pi @ matrix, pi, atol=1e-12)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(0, 30), min_size=1, max_size=12).filter(lambda v: sum(v) > 0), st.floats(0.0, 1.0),
       st.integers(0, 2**32 - 1))
def test_pram_draw_equals_inverse_cdf_sampling_of_the_dense_matrix(counts, theta, seed):
    from rumap.masking.pram import pram_draw, pram_shares

    rng = np.random.default_rng(seed)
    codes = rng.integers(0, len(counts), 400)
    draws = rng.random(400)
    cumulative = np.cumsum(pram_matrix(counts, theta), axis=1)
    dense = np.minimum((draws[:, None] > cumulative[codes]).sum(axis=1), len(counts) - 1)
    fast = pram_draw(codes, pram_shares(counts), theta, draws)
    # the two cumulative sums can differ in the last bits: a draw within 1e-12 of a boundary may go either way
    near = np.abs(draws[:, None] - cumulative[codes]).min(axis=1) < 1e-12
    assert np.array_equal(dense[~near], fast[~near])


def test_pram_on_a_key_with_a_hundred_thousand_categories_needs_no_dense_matrix():
    import tracemalloc

    frame = pd.DataFrame({"id": np.arange(100_000).astype(str)})
    tracemalloc.start()
    result = pram(frame, ["id"], theta=0.8, seed=1)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak < 200e6  # the dense matrix alone would be 80 GB
    assert result.changed.mean() == pytest.approx(0.2, abs=0.01)
    summary = result.to_dict()["matrices"]["id"]
    assert summary["matrix"] is None and len(summary["counts"]) == 100_000
    with pytest.raises(InputError, match="100000 categories"):
        result.matrix("id")
    with pytest.raises(InputError, match="over the limit of 2000 categories"):
        pram_matrix(np.ones(100_000), 0.5)


def test_pram_result_lists_small_matrices_from_the_counts():
    frame = pd.DataFrame({"c": ["a"] * 6 + ["b"] * 4})
    summary = pram(frame, ["c"], theta=0.5, seed=1).to_dict()["matrices"]["c"]
    assert summary["counts"] == [6, 4]
    np.testing.assert_allclose(summary["matrix"], [[0.8, 0.2], [0.3, 0.7]])


def test_household_variables_are_suppressed_in_the_whole_household():
    from rumap.masking.categorical import local_suppression

    frame = pd.read_csv(SURVEY)
    result = local_suppression(frame, ["age_band", "sex", "region", "hh_size"], k=3, household="hh",
                               household_variables=["region", "hh_size"])
    for variable in ("region", "hh_size"):
        per_household = result.data[variable].isna().groupby(frame["hh"]).nunique()
        assert (per_household == 1).all()  # all members blank, or none
    assert individual_risk(result.data, ["age_band", "sex", "region", "hh_size"], k=3).k_anonymity_violations == 0
    with pytest.raises(InputError, match="need the household identifier"):
        local_suppression(frame, ["sex", "region"], k=2, household_variables=["region"])


def test_weight_noise_keeps_the_total_and_the_floor():
    from rumap.masking.categorical import perturb_weights

    weights = pd.read_csv(SURVEY)["weight"].to_numpy()
    noisy = perturb_weights(weights, 0.2, seed=3)
    assert noisy.sum() == pytest.approx(weights.sum(), rel=1e-9) and (noisy >= 1).all()
    assert np.corrcoef(weights, noisy)[0, 1] > 0.5 and not np.allclose(weights, noisy)
    np.testing.assert_allclose(perturb_weights(weights, 0.0, seed=1), weights)
    with pytest.raises(InputError, match="weights must be finite numbers >= 1"):
        perturb_weights([0.5, 2.0], 0.1)


@pytest.mark.parametrize("values", [[1.0, np.inf, 3.0], [1.0, -np.inf, 3.0]])
def test_band_and_top_coding_refuse_infinite_values_by_count(values):
    frame = pd.DataFrame({"income": values})
    with pytest.raises(InputError, match="'income' holds 1 infinite value"):
        band(frame, "income", 10)
    with pytest.raises(InputError, match="'income' holds 1 infinite value"):
        top_bottom_code(frame, "income", above=2)


def test_top_coding_refuses_a_text_column_instead_of_writing_nan():
    frame = pd.DataFrame({"region": ["north", "south", "east"]})
    with pytest.raises(InputError, match="'region' is not numeric: it holds 3 value\\(s\\) that are not numbers"):
        top_bottom_code(frame, "region", above=5)
    with pytest.raises(InputError, match="'region' is not numeric"):
        band(frame, "region", 5)


@pytest.mark.parametrize(("values", "width", "row"), [([5.0, 1e308], 10.0, 2), ([1e300, -1e300], 1e299, None),
                                                    ([-1.7e308, 1.0], 1e308, 1), ([3.0, 1e20], 1.0, 2)])
def test_band_refuses_bands_whose_ends_are_one_number_naming_the_value(values, width, row):
    frame = pd.DataFrame({"x": values})
    if row is None:  # wide enough: bands of that width hold the values
        assert band(frame, "x", width)["x"].notna().all()
        return
    with pytest.raises(InputError, match="^" + re.escape(f"f: column 'x' has the value {values[row - 1]:g} in row "
                                                         f"{row}, out of reach of bands of width {width:g} from 0")):
        band(frame, "x", width, source="f")


def test_band_refuses_a_non_finite_origin():
    frame = pd.DataFrame({"age": [23, 37]})
    with pytest.raises(InputError, match="origin"):
        band(frame, "age", 10, origin=float("nan"))


def test_k_larger_than_the_file_is_an_infeasible_status_not_a_file_of_blanks():
    frame = pd.DataFrame({"sex": ["f", "m", "f"], "region": ["a", "b", "a"]})
    result = local_suppression(frame, ["sex", "region"], k=4)
    assert not result.feasible and "k = 4 is more than the 3 records" in result.reason
    assert not result.suppressed.any() and result.data.astype(str).equals(frame.astype(str))
    assert result.to_dict()["feasible"] is False
    assert local_suppression(frame, ["sex", "region"], k=3).feasible


@pytest.mark.parametrize("importance, message", [({"age": 1.0}, "'age', which is not among the keys"),
                                                 ({"sex": "high"}, "importance of 'sex' must be a finite number"),
                                                 ({"sex": float("nan")}, "importance of 'sex' must be a finite")])
def test_importance_of_an_unknown_variable_or_not_a_number_is_refused(importance, message):
    frame = pd.DataFrame({"sex": ["f", "m", "f"], "region": ["a", "b", "a"]})
    with pytest.raises(InputError, match=message):
        local_suppression(frame, ["sex", "region"], k=2, importance=importance)
