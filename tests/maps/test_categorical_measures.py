"""R and U of categorical protection: entropy information loss, linkage, Cramer's V, regression R2; the registries."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from cli_helpers import ROOT, assert_bad_input, run_cli
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import contingency
from scipy.stats import entropy as shannon

from rumap.errors import InputError
from rumap.maps.categorical import (
    CATEGORICAL_RISKS,
    CATEGORICAL_UTILITIES,
    banding_map,
    pram_map,
    pram_reidentification,
    suppression_map,
)
from rumap.maps.categorical_measures import (
    cramers_v,
    entropy_information_loss,
    entropy_utility,
    linkage_reidentification,
    regression_r2,
)
from rumap.masking.categorical import local_suppression
from rumap.risk.individual import individual_risk

SURVEY = ROOT / "data" / "survey.csv"


@pytest.fixture(scope="module")
def survey() -> pd.DataFrame:
    return pd.read_csv(SURVEY)


def test_entropy_loss_hand_computed_recoding_and_suppression():
    original = pd.DataFrame({"k": ["a", "a", "b", "c"]})
    # recoding b, c into one class: each of b, c loses -log2(1/2) = 1 bit; a keeps its class alone (0 bits).
    # The largest loss, every value suppressed: 2 x -log2(2/4) + 2 x -log2(1/4) = 2 + 4 = 6 bits.
    assert entropy_information_loss(original, pd.DataFrame({"k": ["a", "a", "bc", "bc"]}), ["k"]) == (2.0, 6.0)
    assert entropy_utility(original, pd.DataFrame({"k": ["a", "a", "bc", "bc"]}), ["k"]) == pytest.approx(2 / 3)
    # suppressing the first a loses -log2(f_a / n) = -log2(2/4) = 1 bit
    assert entropy_information_loss(original, pd.DataFrame({"k": [None, "a", "b", "c"]}), ["k"]) == (1.0, 6.0)
    assert entropy_utility(original, original, ["k"]) == 1.0
    assert entropy_utility(original, pd.DataFrame({"k": [None] * 4}), ["k"]) == 0.0
    two = pd.DataFrame({"k": ["a", "a", "b", "c"], "j": ["x", "y", "x", "y"]})
    both = entropy_information_loss(two, two.assign(k=["a", "a", "bc", "bc"], j=[None, "y", "x", "y"]), ["k", "j"])
    assert both == (3.0, 10.0)  # the keys' losses add: (2 + 1) of (6 + 4) bits


@settings(max_examples=40, deadline=None)
@given(st.integers(2, 60), st.integers(1, 5), st.integers(1, 5), st.integers(0, 2**31 - 1))
def test_entropy_loss_is_n_times_the_conditional_entropy(n, levels_x, levels_y, seed):
    """Without suppression the loss is n H(X | Y) and the largest loss n H(X), in bits (the definition)."""
    rng = np.random.default_rng(seed)
    x, y = rng.integers(0, levels_x, n), rng.integers(0, levels_y, n)
    joint = pd.crosstab(x, y).to_numpy(dtype=float)
    conditional = sum(joint[:, j].sum() * shannon(joint[:, j], base=2) for j in range(joint.shape[1]))
    loss, largest = entropy_information_loss(pd.DataFrame({"k": x}), pd.DataFrame({"k": y}), ["k"])
    assert loss == pytest.approx(conditional, abs=1e-9)
    assert largest == pytest.approx(n * shannon(np.bincount(x), base=2), abs=1e-9)
    assert 0.0 <= entropy_utility(pd.DataFrame({"k": x}), pd.DataFrame({"k": y}), ["k"]) <= 1.0


def _brute_linkage(known: list[tuple], released: list[tuple]) -> float:
    def compatible(k, r):
        return all(rv is None or kv is None or rv == kv for kv, rv in zip(k, r, strict=True))
    total = 0.0
    for i, k in enumerate(known):
        matches = [j for j, r in enumerate(released) if compatible(k, r)]
        total += (1.0 / len(matches)) if i in matches else 0.0
    return total / len(known)


@settings(max_examples=50, deadline=None)
@given(st.integers(1, 25), st.integers(1, 3), st.integers(0, 2**31 - 1), st.floats(0.0, 0.5))
def test_linkage_equals_brute_force_and_pram_reidentification(n, p, seed, suppress):
    rng = np.random.default_rng(seed)
    known = rng.integers(0, 3, size=(n, p)).astype(object)
    released = np.where(rng.random((n, p)) < 0.3, rng.integers(0, 3, size=(n, p)), known).astype(object)
    names = [f"v{j}" for j in range(p)]
    exact = linkage_reidentification(pd.DataFrame(known, columns=names), pd.DataFrame(released, columns=names), names)
    assert exact == pytest.approx(pram_reidentification(pd.DataFrame(known, columns=names),
                                                        pd.DataFrame(released, columns=names), names), rel=1e-12)
    released[rng.random((n, p)) < suppress] = None
    ours = linkage_reidentification(pd.DataFrame(known, columns=names), pd.DataFrame(released, columns=names), names)
    assert ours == pytest.approx(_brute_linkage([tuple(r) for r in known], [tuple(r) for r in released]), rel=1e-12)


def test_cramers_v_and_regression_r2_against_second_computations(survey):
    for a, b in (("sex", "marital"), ("region", "occupation"), ("age_band", "health")):
        pair = survey[[a, b]].dropna()
        assert cramers_v(survey, a, b) == pytest.approx(
            contingency.association(pd.crosstab(pair[a], pair[b]).to_numpy(), method="cramer"), rel=1e-12)
    keys = ["sex", "region", "marital"]
    design = pd.get_dummies(survey[keys].fillna("missing"), drop_first=True).to_numpy(dtype=float)
    design = np.column_stack([np.ones(len(survey)), design])
    y = survey["weight"].to_numpy(dtype=float)
    fitted = design @ np.linalg.lstsq(design, y, rcond=None)[0]
    assert regression_r2(survey, "weight", keys) == pytest.approx(
        1 - ((y - fitted) ** 2).sum() / ((y - y.mean()) ** 2).sum(), rel=1e-10)
    one = survey.groupby("region")["weight"].transform("mean").to_numpy()  # one key: the between-group share
    assert regression_r2(survey, "weight", ["region"]) == pytest.approx(
        1 - ((y - one) ** 2).sum() / ((y - y.mean()) ** 2).sum(), rel=1e-10)
    with pytest.raises(InputError, match="also a key"):
        regression_r2(survey, "sex", ["sex"])


def test_maps_draw_every_registered_measure_from_the_protected_files(survey):
    keys = ["age_band", "sex", "region", "marital"]
    options = {"threshold": 0.2, "k": 3, "pair": ("sex", "marital"), "response": "weight"}
    protected = local_suppression(survey, keys, k=3).data
    part = survey.head(400)
    for risk in CATEGORICAL_RISKS:
        for utility in CATEGORICAL_UTILITIES:
            if utility == "variance":
                continue
            m = suppression_map(part, keys, [1, 3], weight="weight", risk=risk, utility=utility, options=options)
            assert m.risk_label == CATEGORICAL_RISKS[risk].label and m.utility_label == CATEGORICAL_UTILITIES[
                utility].label
            assert np.isfinite(m.risk).all() and np.isfinite(m.utility).all()
            assert m.utility[0] == pytest.approx(1.0)
    entropy_map = suppression_map(survey, keys, [1, 3], utility="entropy", risk="share_above", options=options)
    assert entropy_map.utility[1] == pytest.approx(entropy_utility(survey, protected, keys))
    assert entropy_map.risk[1] == pytest.approx((individual_risk(protected, keys).risk > 0.2).mean())
    linkage_map = suppression_map(survey, keys, [3], risk="linkage")
    assert linkage_map.risk[0] == pytest.approx(linkage_reidentification(survey, protected, keys))
    banded = banding_map(survey, ["age", "sex", "region"], "age", [1, 10], utility="entropy", risk="k_violations",
                         options={"k": 3})
    assert banded.risk[1] < banded.risk[0] and banded.utility[1] < 1.0
    pram = pram_map(survey, ["sex", "marital"], [0.5, 1.0], replicates=4, seed=2, utility="cramers_v",
                    options={"pair": ("sex", "marital")})
    assert pram.utility[1] == 1.0 and pram.utility[0] < 1.0
    linked = pram_map(survey, ["sex", "marital"], [0.5, 1.0], replicates=4, seed=2, risk="linkage")
    default = pram_map(survey, ["sex", "marital"], [0.5, 1.0], replicates=4, seed=2)
    np.testing.assert_allclose(linked.risk, default.risk, rtol=1e-12)  # no missing value: the two risks agree
    with pytest.raises(InputError, match="needs the option 'pair'"):
        suppression_map(survey, keys, [2], utility="cramers_v")
    with pytest.raises(InputError, match="utility must be one of"):
        suppression_map(survey, keys, [2], utility="nobody")


def test_simulate_takes_the_registered_measures(tmp_path):
    base = ["simulate", "--data", SURVEY, "--method", "suppress", "--keys", "age_band,sex,region", "--k", "1:3"]
    _proc, out = run_cli(*base, "--risk", "linkage", "--utility", "entropy", "--json", check_json=True)
    curve = out["curves"][0]
    assert curve["risk_label"] == CATEGORICAL_RISKS["linkage"].label
    assert (out["config"]["risk"], out["config"]["utility"]) == ("linkage", "entropy")
    direct = suppression_map(pd.read_csv(SURVEY), ["age_band", "sex", "region"], [1, 2, 3], risk="linkage",
                             utility="entropy")
    assert curve["risk"] == pytest.approx(direct.risk.tolist()) and curve["utility"] == pytest.approx(
        direct.utility.tolist())
    _proc, default = run_cli(*base, "--json", check_json=True)
    assert "risk" not in default["config"]  # the default map's JSON is unchanged
    assert default["curves"][0]["risk_label"] == "R = global risk (mean individual risk)"
    _proc, pair = run_cli(*base, "--utility", "cramers_v", "--pair", "sex,marital", "--json", check_json=True)
    assert pair["config"]["pair"] == ["sex", "marital"]
    assert_bad_input(run_cli(*base, "--risk", "share_above"), "--risk-threshold")
    assert_bad_input(run_cli(*base, "--risk-threshold", "0.1"), "--risk-threshold", "share_above")
    assert_bad_input(run_cli(*base, "--utility", "cramers_v", "--pair", "sex"), "--pair")
    assert_bad_input(run_cli(*base, "--utility", "regression", "--response", "nope"), "nope")
    assert_bad_input(run_cli(*base, "--utility", "mean"), "--utility")
    assert_bad_input(run_cli(*base, "--risk", "nobody"), "--risk")


def test_the_k_of_k_anonymity_is_the_group_size_k_and_the_threshold_a_probability():
    from rumap.budget import DEFAULT_BUDGET

    frame = pd.DataFrame({"a": ["x", "x", "y"]})

    def measure(name, **options):
        return CATEGORICAL_RISKS[name].compute(frame, frame, ["a"], weight=None, options=options, source="t",
                                               budget=DEFAULT_BUDGET)

    assert measure("k_violations", k=1) == 0.0  # every record is in a group of at least one
    assert measure("k_violations", k=2) == pytest.approx(1 / 3)  # only y is alone in its group
    with pytest.raises(InputError, match="^k must be an integer >= 1, got 0$"):
        measure("k_violations", k=0)
    with pytest.raises(InputError, match=r"^threshold must be a number in \(0, 1\), got 1.0$"):
        measure("share_above", threshold=1.0)
