"""Identity disclosure (Mokken, Kooiman, Pannekoek & Willenborg 1992): the paper's figures and the model."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rumap.errors import InputError
from rumap.result import RUMap
from rumap.risk.identity import (
    expected_acquaintances,
    identification_risk,
    identity_risk_from_data,
    key_frequencies,
    max_sample_fraction,
    multiple_investigators_risk,
    nested_keys_total_risk,
    recoding_map,
    subpopulation_risk,
    subsampling_map,
    worst_case_subpopulation_risk,
)
from rumap.risk.poisson_gamma import fit_poisson_gamma

# --- Table 1: risk x 1000 with R = 1 - exp(-f a f_u) (Eq 6) ----------------

TABLE_1 = [  # f, a, risk x 1000 for f_u x 1000 = 2.17, 1.00, 0.46
    (0.001, 30, (0.07, 0.03, 0.01)),
    (0.001, 300, (0.65, 0.30, 0.14)),
    (0.001, 1000, (2.17, 1.00, 0.46)),
    (0.01, 30, (0.65, 0.30, 0.14)),
    (0.01, 300, (6.49, 3.00, 1.38)),
    (0.01, 1000, (21.48, 9.95, 4.59)),
]
F_U = (2.17e-3, 1.00e-3, 0.46e-3)


@pytest.mark.parametrize("f, a, published", TABLE_1)
def test_table_1(f, a, published):
    for fu, value in zip(F_U, published, strict=True):
        risk = 1000 * identification_risk(f, a, fu)
        if (f, a, fu) == (0.01, 1000, 2.17e-3):
            # Published 21.48; 1 - exp(-0.0217) = 21.466e-3 rounds to 21.47. The table's f_u column
            # is itself rounded: 21.48 needs f_u x 1000 in [2.1709, 2.1719], which rounds to 2.17.
            assert round(risk, 2) == 21.47
            lo, hi = (-math.log1p(-v / 1000) / (f * a) * 1000 for v in (21.475, 21.485))
            assert 2.165 <= lo < hi < 2.175
            assert round(1000 * identification_risk(f, a, 2.1714e-3), 2) == 21.48
        else:
            assert round(risk, 2) == pytest.approx(value, abs=1e-9), (f, a, fu)


# --- Section 4: N = 63624, f_u = 0.001, f = 0.001 ---------------------------

N4 = 63624


@pytest.mark.parametrize("a, published", [(30, 0.00003), (300, 0.0003), (1000, 0.001)])
def test_section_4_one_investigator(a, published):
    # Eq 5 with n = f N = 63.624 and f_a = a / N
    assert identification_risk(0.001, a, 0.001, N=N4) == pytest.approx(published, rel=1e-3)
    assert multiple_investigators_risk(0.001, a, 0.001, N4, 1) == pytest.approx(published, rel=1e-3)


@pytest.mark.parametrize("a, published", [(1000, 0.061672), (300, 0.061143)])
def test_section_4_thousand_investigators(a, published):
    assert round(multiple_investigators_risk(0.001, a, 0.001, N4, 1000), 6) == published


def test_thousand_investigators_with_a_1000_reach_the_maximum():
    # E(a_m) -> N: the maximum 1 - (1 - f_u)^n
    assert expected_acquaintances(1000, N4, 1000) == pytest.approx(N4, rel=1e-6)
    assert multiple_investigators_risk(0.001, 1000, 0.001, N4, 1000) == pytest.approx(
        1 - (1 - 0.001) ** (0.001 * N4), rel=1e-6)


def test_expected_acquaintances_limits():
    assert expected_acquaintances(30, 1000, 1) == pytest.approx(30)
    assert expected_acquaintances(1000, 1000, 7) == 1000
    assert expected_acquaintances(2, 1e6, 5) == pytest.approx(10, rel=1e-4)  # ~ m a for small a / N


def test_expected_acquaintances_against_simulation():
    rng = np.random.default_rng(0)
    N, a, m = 500, 40, 12
    union = [np.unique(np.concatenate([rng.choice(N, a, replace=False) for _ in range(m)])).size
             for _ in range(2000)]
    se = np.std(union) / math.sqrt(len(union))
    assert abs(np.mean(union) - expected_acquaintances(a, N, m)) < 4 * se


# --- f_max, subpopulations, nested keys ------------------------------------------

def test_max_sample_fraction_round_trip():
    g = 0.001
    f = max_sample_fraction(g, 300, 1e-3)
    assert f == pytest.approx(-math.log(1 - g) / 0.3)
    assert identification_risk(f, 300, 1e-3) == pytest.approx(g)
    f5 = max_sample_fraction(g, 300, 1e-3, N=N4)
    assert identification_risk(f5, 300, 1e-3, N=N4) == pytest.approx(g)
    assert max_sample_fraction(0.5, 0, 1e-3) == 1.0
    assert max_sample_fraction(0.9, 1e6, 0.5) < 1


def test_subpopulations():
    f_u = [2.17e-3, 1.0e-3, 0.46e-3]
    # proportional allocation of 300 acquaintances vs all of them in the subpopulation with most uniques
    proportional = subpopulation_risk(0.01, [75, 150, 75], f_u)
    worst = worst_case_subpopulation_risk(0.01, 300, f_u)
    assert proportional < worst
    assert worst == pytest.approx(identification_risk(0.01, 300, 2.17e-3))
    assert subpopulation_risk([0.01], [300], [1e-3]) == pytest.approx(identification_risk(0.01, 300, 1e-3))


def test_nested_keys_total_risk():
    n = 729
    # one key: TR equals the single-key risk (Eq 5)
    assert nested_keys_total_risk(n, [0.01], [0.002]) == pytest.approx(1 - (1 - 0.01 * 0.002) ** n)
    # constant f_a: TR equals the risk of the finest key (Section 5.1)
    assert nested_keys_total_risk(n, [1e-4] * 3, [1e-3, 5e-3, 2e-2], approximate=True) == pytest.approx(
        1 - math.exp(-n * 1e-4 * 2e-2))
    exact = nested_keys_total_risk(n, [1e-2, 2e-3, 1e-4], [1e-4, 1e-3, 1e-2])
    approx = nested_keys_total_risk(n, [1e-2, 2e-3, 1e-4], [1e-4, 1e-3, 1e-2], approximate=True)
    assert exact == pytest.approx(approx, rel=1e-3)
    with pytest.raises(InputError, match="decrease"):
        nested_keys_total_risk(n, [0.1, 0.1], [0.2, 0.1])


# --- from data --------------------------------------------------------------

def _persons(n: int, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    return pd.DataFrame({"age": rng.integers(16, 90, n), "sex": rng.choice(["m", "f"], n),
                         "marital": rng.choice(list("SMDW"), n, p=[0.4, 0.4, 0.1, 0.1]),
                         "region": rng.integers(1, 12, n)})


def test_key_frequencies_and_sample_uniques():
    frame = pd.DataFrame({"a": [1, 1, 2, 2, 3], "b": ["x", "x", "x", "y", "y"]})
    freq = key_frequencies(frame, ["a", "b"])
    assert sorted(freq.tolist()) == [1, 1, 1, 2]
    result = identity_risk_from_data(frame, ["a", "b"], N=100, a=10)
    assert result.sample_uniques == 3 and result.observed_cells == 4 and result.cells == 6 and result.n == 5


def test_identity_risk_from_data_consistent_with_the_formulas():
    frame = _persons(3000)
    result = identity_risk_from_data(frame, ["age", "sex", "marital", "region"], N=150_000, a=200, max_risk=0.01)
    assert result.f == pytest.approx(0.02)
    fit = fit_poisson_gamma(key_frequencies(frame, ["age", "sex", "marital", "region"]).to_numpy(), result.cells)
    assert result.population_uniques == pytest.approx(fit.population_uniques(150_000))
    assert result.risk == pytest.approx(identification_risk(result.f, 200, result.f_u, N=150_000))
    assert identification_risk(result.f_max, 200, result.f_u, N=150_000) == pytest.approx(0.01)
    d = result.to_dict()
    assert set(d) >= {"n", "sample_uniques", "population_uniques", "f_u", "risk", "f_max"}
    assert "risk" in set(result.to_frame()["quantity"])


def test_identity_bad_input_names_the_problem():
    frame = _persons(50)
    with pytest.raises(InputError, match="no column 'income'"):
        identity_risk_from_data(frame, ["age", "income"], N=1000, a=10)
    with pytest.raises(InputError, match="at least the sample size"):
        identity_risk_from_data(frame, ["age"], N=10, a=1)
    broken = frame.astype({"sex": object})
    broken.loc[7, "sex"] = None
    with pytest.raises(InputError, match="'sex' has a missing value in row 8"):
        identity_risk_from_data(broken, ["age", "sex"], N=1000, a=10)
    with pytest.raises(InputError, match="f must be"):
        identification_risk(1.5, 10, 0.001)
    with pytest.raises(InputError, match="risk_bound"):
        max_sample_fraction(1.0, 10, 0.001)


# --- R-U maps ---------------------------------------------------------------------

def test_subsampling_map():
    frame = _persons(4000)
    key = ["age", "sex", "marital"]
    fractions = np.linspace(0.005, 0.04, 8)
    ru = subsampling_map(frame, key, N=100_000, a=500, fractions=fractions)
    assert isinstance(ru, RUMap) and ru.parameter == "f" and ru.method == "subsampling"
    assert np.all(np.diff(ru.risk) > 0) and np.all(np.diff(ru.utility) > 0)
    assert ru.utility[-1] == pytest.approx(1.0)  # the whole file
    full = identity_risk_from_data(frame, key, N=100_000, a=500)
    assert ru.risk[-1] == pytest.approx(full.risk)
    with pytest.raises(InputError, match="at most the file's f"):
        subsampling_map(frame, key, N=100_000, a=500, fractions=[0.05])


def test_recoding_map_age_bands():
    frame = _persons(4000)
    ru = recoding_map(frame, ["age", "sex", "marital", "region"], "age", [1, 2, 5, 10, 20], N=200_000, a=300)
    assert ru.parameter == "width" and ru.method == "global recoding"
    assert ru.utility[0] == pytest.approx(1.0)  # integer ages in bands of 1: nothing lost
    assert np.all(np.diff(ru.utility) < 0)
    # coarser bands, fewer uniques; the estimate is the model's, so at the coarsest levels uneven
    # band sizes (16-19 and 80-89 are part-bands) can raise beta and the estimate a little
    assert np.all(np.diff(ru.risk[:4]) < 0), ru.risk
    assert ru.risk[-1] < ru.risk[0] / 10
    assert np.all(np.diff(ru.config["sample_uniques"]) <= 0)
    # wider circles of acquaintances for coarser keys (Section 5) raise the risk of coarse keys
    wider = recoding_map(frame, ["age", "sex", "marital", "region"], "age", [1, 20], N=200_000, a=[300, 3000])
    assert wider.risk[1] > ru.risk[-1]
    with pytest.raises(InputError, match="not one of the key"):
        recoding_map(frame, ["sex"], "age", [5], N=200_000, a=300)
    with pytest.raises(InputError, match="every widths must be a number > 0, got 0.0"):
        recoding_map(frame, ["age"], "age", [0], N=200_000, a=300)


# --- properties ---------------------------------------------------------------------

@settings(max_examples=60, deadline=None)
@given(f=st.floats(1e-4, 1), a=st.floats(0, 1e4), f_u=st.floats(0, 1), N=st.floats(1e4, 1e7),
       scale=st.floats(1.0, 3.0))
def test_property_risk_is_a_probability_increasing_in_f_a_and_f_u(f, a, f_u, N, scale):
    r = identification_risk(f, a, f_u, N=N)
    assert 0.0 <= r <= 1.0
    assert identification_risk(min(1.0, f * scale), a, f_u, N=N) >= r
    assert identification_risk(f, min(N, a * scale), f_u, N=N) >= r
    assert identification_risk(f, a, min(1.0, f_u * scale), N=N) >= r
    assert 0.0 <= identification_risk(f, a, f_u) <= 1.0


@settings(max_examples=40, deadline=None)
@given(a=st.floats(1, 1e4), N=st.floats(1e4, 1e6), m=st.integers(1, 5000))
def test_property_more_investigators_never_lower_the_risk(a, N, m):
    assert expected_acquaintances(a, N, m) <= expected_acquaintances(a, N, m + 1) <= N
    assert multiple_investigators_risk(0.01, a, 1e-3, N, m) <= multiple_investigators_risk(0.01, a, 1e-3, N, m + 1)


def test_recoding_total_risk_over_nested_levels():
    from rumap.risk.identity import recoding_total_risk

    frame = _persons(3000, seed=4)
    key = ["age", "sex", "marital", "region"]
    N = 150_000
    finest = identity_risk_from_data(frame, key, N, 50)
    # the same a at every level: TR is the risk of the finest key (Section 5.1, the special case)
    same = recoding_total_risk(frame, key, "age", [20, 5, 1], N, [50, 50, 50], approximate=True)
    assert same == pytest.approx(-math.expm1(-finest.n * 50 / N * finest.f_u), rel=1e-9)
    # more acquaintances on coarser keys add risk
    wider = recoding_total_risk(frame, key, "age", [20, 5, 1], N, [2000, 400, 50])
    assert wider > same
    # order of the levels does not matter: the widest band is the coarsest key
    assert recoding_total_risk(frame, key, "age", [1, 20, 5], N, [50, 2000, 400]) == pytest.approx(wider)
    with pytest.raises(InputError, match="one number of acquaintances per width"):
        recoding_total_risk(frame, key, "age", [1, 5], N, [50])


def test_a_one_record_sample_is_refused():
    with pytest.raises(InputError, match="needs at least 2 records, got 1"):
        identity_risk_from_data(_persons(50).iloc[:1], ["age", "sex"], N=1000, a=10)
