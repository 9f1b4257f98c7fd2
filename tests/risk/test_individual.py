"""Individual, household and k-anonymity risk on categorical keys (mu-Argus, sdcMicro's measure_risk)."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from cli_helpers import ROOT, assert_bad_input, run_cli
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import nbinom

from rumap.budget import WorkBudget
from rumap.errors import InputError
from rumap.risk.individual import individual_risk, key_frequencies_with_missing, negative_binomial_risk

SURVEY = ROOT / "data" / "survey.csv"
KEYS = ["age_band", "sex", "region", "marital", "occupation"]


def _exact_posterior(f: int, p: float) -> float:
    """E(1 / F | f) with F - f negative binomial (f, p), summed term by term."""
    h = np.arange(0, 400_000)
    return float((nbinom.pmf(h, f, p) / (h + f)).sum())


@pytest.mark.parametrize("p", [0.01, 0.1, 0.5, 0.9])
def test_the_approximation_is_the_exact_posterior_for_one_and_two(p):
    for f in (1, 2):
        assert negative_binomial_risk(f, p) == pytest.approx(_exact_posterior(f, p), rel=1e-10)
    for f in (3, 5, 10):  # mu-Argus's approximation above 2: within 4% of the exact posterior
        assert negative_binomial_risk(f, p) == pytest.approx(_exact_posterior(f, p), rel=0.04)


def test_hand_computed_census_and_weighted_cases():
    frame = pd.DataFrame({"sex": ["f", "f", "m", "m", "m"], "region": ["a", "a", "a", "b", "b"],
                          "w": [10.0, 30.0, 5.0, 8.0, 12.0], "hh": [1, 1, 2, 3, 4]})
    census = individual_risk(frame, ["sex", "region"], household="hh", k=2)
    assert census.fk.tolist() == [2, 2, 1, 2, 2] and census.risk.tolist() == [0.5, 0.5, 1.0, 0.5, 0.5]
    assert census.household_risk.tolist() == [0.75, 0.75, 1.0, 0.5, 0.5]
    assert census.k_anonymity_violations == 1 and census.expected_reidentifications == 3.0
    weighted = individual_risk(frame, ["sex", "region"], weight="w")
    p = 2 / 40
    assert weighted.Fk.tolist() == [40.0, 40.0, 5.0, 20.0, 20.0]
    assert weighted.risk[0] == pytest.approx(p / (1 - p) - (p / (1 - p)) ** 2 * np.log(1 / p))
    assert weighted.risk[2] == pytest.approx(0.2 / 0.8 * np.log(5))
    assert weighted.global_risk == pytest.approx(weighted.risk.mean())


def _brute_force(codes: list[tuple], weights: np.ndarray) -> tuple[list[int], list[float]]:
    fk, Fk = [], []
    for a in codes:
        match = [all(x is None or y is None or x == y for x, y in zip(a, b, strict=True)) for b in codes]
        fk.append(sum(match))
        Fk.append(float(weights[np.array(match)].sum()))
    return fk, Fk


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["a", "b", None]), st.sampled_from([1, 2, 3, None]),
                          st.sampled_from(["x", "y"])), min_size=1, max_size=25),
       st.integers(0, 2**31))
def test_frequencies_with_missing_values_equal_brute_force(rows, seed):
    frame = pd.DataFrame(rows, columns=["a", "b", "c"]).astype(object)
    weights = np.random.default_rng(seed).uniform(1, 50, len(rows))
    fk, Fk = key_frequencies_with_missing(frame, ["a", "b", "c"], weights)
    expected_fk, expected_Fk = _brute_force(rows, weights)
    assert fk.tolist() == expected_fk
    np.testing.assert_allclose(Fk, expected_Fk, rtol=1e-12)


def test_household_risk_is_one_minus_the_product_over_members():
    frame = pd.read_csv(SURVEY)
    result = individual_risk(frame, KEYS, weight="weight", household="hh")
    for hh in (1, 2, 50, 400):
        members = (frame["hh"] == hh).to_numpy()
        expected = 1 - np.prod(1 - result.risk[members])
        np.testing.assert_allclose(result.household_risk[members], expected, rtol=1e-12)
    assert result.household_expected_reidentifications == pytest.approx(result.household_risk.sum())


def test_bad_input_is_named():
    frame = pd.DataFrame({"k": ["a", "b"], "w": [0.5, 3.0], "h": [1, None]})
    with pytest.raises(InputError, match="weight 'w' must be a number >= 1 in every record, got 0.5 in row 1"):
        individual_risk(frame, ["k"], weight="w")
    with pytest.raises(InputError, match="household 'h' is missing in row 2"):
        individual_risk(frame, ["k"], household="h")
    with pytest.raises(InputError, match="no column 'zz'"):
        individual_risk(frame, ["zz"])
    with pytest.raises(InputError, match="also a key"):
        individual_risk(frame, ["k", "w"], weight="w")
    many_missing = pd.DataFrame({"k": [None] * 50 + ["a"] * 50})
    with pytest.raises(InputError, match="records with missing key values"):
        individual_risk(many_missing, ["k"], budget=WorkBudget(work=100))


def test_cli_contract():
    proc, out = run_cli("risk", "individual", "--data", SURVEY, "--keys", ",".join(KEYS), "--weight", "weight",
                        "--household", "hh", "--k", "3", "--json", check_json=True)
    frame = pd.read_csv(SURVEY)
    expected = individual_risk(frame, KEYS, weight="weight", household="hh", k=3)
    assert set(out) >= {"n", "keys", "risk", "fk", "Fk", "expected_reidentifications", "global_risk",
                        "household_risk", "household_expected_reidentifications", "k_anonymity_violations"}
    assert out["n"] == len(frame) == len(out["risk"]) == len(out["fk"]) == len(out["Fk"]) == len(out["household_risk"])
    assert out["keys"] == KEYS
    np.testing.assert_allclose(out["risk"], expected.risk, rtol=1e-12)
    assert out["k_anonymity_violations"] == int((expected.fk < 3).sum())
    plain = json.loads(run_cli("risk", "individual", "--data", SURVEY, "--keys", "sex,region", "--json").stdout)
    assert "household_risk" not in plain and "k_anonymity_violations" not in plain
    assert plain["risk"] == [1 / f for f in plain["fk"]]  # no weight: the census case
    assert_bad_input(run_cli("risk", "individual", "--data", SURVEY, "--keys", "sex,nope"), "no column 'nope'")
    assert_bad_input(run_cli("risk", "individual", "--data", SURVEY, "--keys", "sex", "--k", "0"), "--k must be")


def test_equal_to_sdcmicro_measure_risk_on_the_survey():
    """sdcMicro 5.8.1's measure_risk and freqCalc (scripts/sdcmicro_reference.R) on the bundled survey, with
    1% missing occupations: every record's f_k, F_k, risk and household risk, and the totals."""
    reference = json.loads((ROOT / "tests" / "data" / "sdcmicro_survey_risk.json").read_text())
    frame = pd.read_csv(SURVEY)
    weighted = individual_risk(frame, reference["keys"], weight="weight", household="hh")
    theirs = reference["weighted"]
    np.testing.assert_array_equal(weighted.fk, theirs["fk"])
    np.testing.assert_allclose(weighted.Fk, theirs["Fk"], rtol=1e-12)
    np.testing.assert_allclose(weighted.risk, theirs["risk"], rtol=1e-10, atol=1e-15)
    np.testing.assert_allclose(weighted.household_risk, theirs["household_risk"], rtol=1e-10, atol=1e-15)
    assert weighted.expected_reidentifications == pytest.approx(theirs["expected_reidentifications"], rel=1e-12)
    assert weighted.household_expected_reidentifications == pytest.approx(
        theirs["household_expected_reidentifications"], rel=1e-12)
    census = individual_risk(frame, reference["keys"])
    np.testing.assert_allclose(census.risk, reference["census"]["risk"], rtol=1e-12)
    np.testing.assert_array_equal(census.fk, reference["census"]["fk"])


def test_l_diversity_by_hand_and_against_sdcmicro():
    from rumap.risk.individual import l_diversity

    frame = pd.DataFrame({"sex": ["f", "f", "m", "m", None], "health": ["good", "poor", "poor", "poor", "good"]})
    assert l_diversity(frame, ["sex"], "health").tolist() == [2, 2, 2, 2, 2]  # the missing sex matches everyone
    reference = json.loads((ROOT / "tests" / "data" / "sdcmicro_survey_risk.json").read_text())
    survey = pd.read_csv(SURVEY)
    ours = l_diversity(survey, reference["keys"], "health")
    theirs = np.array(reference["ldiversity_health"])
    # sdcMicro groups complete keys exactly and, for a record with a missing key value, counts only that record's
    # own value; rumap lets missing values match any category both ways, as freqCalc does for f_k. Away from
    # missing values the two agree record by record.
    fk_exact = survey.groupby(reference["keys"], dropna=False)["sex"].transform("size").to_numpy()
    fk_wild = individual_risk(survey, reference["keys"]).fk
    untouched = (fk_exact == fk_wild) & survey[reference["keys"]].notna().all(axis=1).to_numpy()
    assert untouched.sum() > 0.9 * len(survey)
    np.testing.assert_array_equal(ours[untouched], theirs[untouched])
    assert (ours >= theirs).all()


def test_cli_sensitive_adds_l_diversity():
    _proc, out = run_cli("risk", "individual", "--data", SURVEY, "--keys", "age_band,sex,region", "--sensitive",
                         "health", "--json", check_json=True)
    assert len(out["l_diversity"]) == out["n"] and out["l_diversity_min"] == min(out["l_diversity"])
    assert_bad_input(run_cli("risk", "individual", "--data", SURVEY, "--keys", "sex", "--sensitive", "sex"),
                     "also a key")


@pytest.mark.parametrize("big", [1e308, 1.7e308, 1e14])
def test_weights_summing_past_any_population_are_refused_before_arithmetic(big):
    import warnings

    frame = pd.DataFrame({"sex": ["f", "f", "m"], "w": [big, big, 2.0]})
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(InputError, match="'w' sum to .* population units"):
            individual_risk(frame, ["sex"], weight="w")


def test_weights_of_the_wrong_length_or_below_one_are_refused_by_name():
    frame = pd.DataFrame({"sex": ["f", "m", "f"]})
    with pytest.raises(InputError, match="weights has 5 entries but the data has 3 records"):
        key_frequencies_with_missing(frame, ["sex"], np.ones(5))
    with pytest.raises(InputError, match="weights"):
        key_frequencies_with_missing(frame, ["sex"], np.array([1.0, 0.5, 2.0]))


@settings(max_examples=150, deadline=None)
@given(st.integers(1, 30), st.integers(1, 4), st.floats(0.0, 0.7), st.integers(0, 2**32 - 1))
def test_pattern_join_equals_comparing_every_record_with_every_other(n, p, missing, seed):
    from rumap.risk.cells import wildcard_frequencies, wildcard_matches

    rng = np.random.default_rng(seed)
    codes = rng.integers(0, 3, (n, p))
    codes[rng.random((n, p)) < missing] = -1
    weights = rng.uniform(1.0, 5.0, n)
    fk, Fk = wildcard_frequencies(codes, weights)
    for i in range(n):
        agree = wildcard_matches(codes, i)
        assert fk[i] == agree.sum()
        assert Fk[i] == pytest.approx(weights[agree].sum())


def test_frequencies_with_missing_values_at_census_structure_are_not_quadratic():
    rng = np.random.default_rng(3)
    n = 200_000
    frame = pd.DataFrame({f"k{j}": rng.integers(0, c, n).astype(float) for j, c in enumerate((2, 5, 9, 20, 4, 7))})
    for j in range(6):  # about 3% missing in each key, independently
        frame.loc[rng.random(n) < 0.03, f"k{j}"] = np.nan
    # the pairwise method would need 1e11 steps, over the default budget; the pattern join needs far less
    fk, _ = key_frequencies_with_missing(frame, list(frame.columns))
    sample = rng.choice(n, 20, replace=False)
    from rumap.risk.cells import key_codes, wildcard_matches

    codes = key_codes(frame, list(frame.columns))
    assert [int(fk[i]) for i in sample] == [int(wildcard_matches(codes, i).sum()) for i in sample]
