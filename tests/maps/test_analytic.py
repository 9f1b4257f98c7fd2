"""Analytic R-U maps against the figures of Duncan, Keller-McNulty & Stokes (2001) (FORMULAS.md part A)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from rumap.errors import InputError
from rumap.maps.analytic import (
    STATES,
    analytic_map,
    check_state,
    efficiency,
    extreme_constants,
    risk_maximum,
    risk_mean_target,
    risk_minimum,
    risk_percentile,
    risk_population,
    risk_record,
    risk_sample,
    state_risk,
    utility_mean,
)
from rumap.maps.families import risk_percentile_quadrature
from rumap.maps.setting import AnalyticSetting

PAPER = AnalyticSetting(n=200, sigma2=1.0)


def test_utility_and_efficiency_at_paper_grid_point():
    # "lambda^2 = 0.21 gives U = 165" (the paper rounds 165.29).
    assert utility_mean([0.21], 200, 1.0)[0] == pytest.approx(165.29, abs=0.01)
    assert utility_mean([0.2], 200, 1.0)[0] == pytest.approx(166.7, abs=0.05)
    assert efficiency([0.0, 0.12], 1.0) == pytest.approx([1.0, 1 / 1.12])


def test_eq2_population_without_noise_is_0995():
    assert risk_population([0.0], 200, 1.0)[0] == pytest.approx(0.995, abs=5e-4)
    assert risk_population([0.0], 200, 1.0)[0] == pytest.approx(200 / 201)


def test_eq4_record_is_reciprocal_and_infinite_at_zero():
    r = risk_record([0.0, 0.2, 0.5])
    assert math.isinf(r[0])
    assert r[1:] == pytest.approx([5.0, 2.0])


def test_eq1_reduces_to_eq2_on_average():
    # Averaging the MSE of Eq 1 over tau ~ (mu, sigma2) gives Eq 2.
    lam = np.array([0.0, 0.3, 2.0])
    n, sigma2, mu = 50, 2.0, 1.0
    taus = mu + np.sqrt(sigma2) * stats.norm.ppf((np.arange(20000) + 0.5) / 20000)
    mse = np.mean([1 / risk_mean_target(lam, n, sigma2, mu, t) for t in taus], axis=0)
    assert 1 / mse == pytest.approx(risk_population(lam, n, sigma2), rel=1e-3)


def test_eq3_sample_against_direct_average():
    rng = np.random.default_rng(1)
    x = rng.normal(3, 2, size=40)
    lam = np.array([0.0, 1.0])
    mu, s2 = x.mean(), x.var(ddof=1)
    mse = (s2 + lam) / x.size + np.mean((mu - x) ** 2)
    assert risk_sample(lam, x) == pytest.approx(1 / mse)


def test_eq8_normal_closed_form_equals_eq5_by_quadrature():
    lam = np.array([0.0, 0.05, 0.5, 3.0])
    closed = risk_percentile(lam, 200, 1.0, 0.99)
    quad = risk_percentile_quadrature(lam, 200, 1.0, 0.99, "normal", None)
    assert quad == pytest.approx(closed, rel=1e-6)


def test_eq5_other_family_against_simulation():
    # Lognormal data, normal noise: the MSE of Y_(np) for the population percentile.
    n, p, lam2 = 400, 0.9, 0.5
    dist = stats.lognorm(0.5)
    m0, v0 = dist.stats("mv")
    sigma2 = 1.0
    rng = np.random.default_rng(7)
    reps = 4000
    z = (dist.rvs(size=(reps, n), random_state=rng) - m0) / np.sqrt(v0)
    y = z + rng.normal(0, math.sqrt(lam2), size=z.shape)
    est = np.sort(y, axis=1)[:, int(n * p) - 1]
    tau = (dist.ppf(p) - m0) / np.sqrt(v0)
    sq = (est - tau) ** 2
    mse, se = sq.mean(), sq.std(ddof=1) / math.sqrt(reps)
    analytic = 1 / risk_percentile([lam2], n, sigma2, p, family="lognormal", shape=0.5)[0]
    assert abs(analytic - mse) < 4 * se + 0.02 * mse


def test_extreme_constants_match_simulated_normal_maximum():
    k1, k2 = extreme_constants(200)
    rng = np.random.default_rng(3)
    maxima = rng.standard_normal((20000, 200)).max(axis=1)
    # The asymptotic mean is about 0.04 high at n = 200 (2.788 vs 2.746): the paper uses it as an approximation.
    assert k1 == pytest.approx(maxima.mean(), abs=0.06)
    assert k2 == pytest.approx(maxima.var(), rel=0.25)  # the asymptotic variance is rough at n = 200


def test_eq10_is_eq9_at_the_expected_maximum():
    lam = np.linspace(0, 2, 7)
    k1, _ = extreme_constants(200)
    assert risk_maximum(lam, 200, 1.0, 0.0, observed=k1) == pytest.approx(risk_maximum(lam, 200, 1.0))


def test_minimum_mirrors_maximum():
    lam = np.linspace(0, 2, 7)
    assert risk_minimum(lam, 150, 4.0, 10.0, observed=3.0) == pytest.approx(
        risk_maximum(lam, 150, 4.0, -10.0, observed=-3.0))


def test_figures_2_to_4_curves_cross():
    lam = np.linspace(0.0, 3.0, 301)
    r_pop = risk_population(lam, 200, 1.0)
    r_rec = risk_record(lam)
    r_pct = risk_percentile(lam, 200, 1.0, 0.99)
    r_max = risk_maximum(lam, 200, 1.0)
    # Figure 2: record knowledge is riskier for small noise, population for large.
    assert r_rec[1] > r_pop[1] and r_rec[-1] < r_pop[-1]
    # Figure 3: the 99th percentile is riskier than the population for small noise, less for large.
    assert r_pct[0] > r_pop[0] and r_pct[-1] < r_pop[-1]
    # Figure 4: the maximum is below the percentile and record knowledge (paper's remark).
    assert np.all(r_max[1:] < r_pct[1:]) and np.all(r_max[1:] < r_rec[1:])


def test_eq10_vanishes_and_eq8_stays_positive_as_n_grows():
    lam = [0.5]
    ns = [10**3, 10**5, 10**7, 10**9]
    r_max = [risk_maximum(lam, n, 1.0)[0] for n in ns]
    r_pct = [risk_percentile(lam, n, 1.0, 0.99)[0] for n in ns]
    assert np.all(np.diff(r_max) < 0) and r_max[-1] < 0.6 * r_max[0]
    limit = 1 / (stats.norm.ppf(0.99) ** 2 * (math.sqrt(1.5) - 1) ** 2)
    assert r_pct[-1] == pytest.approx(limit, rel=1e-3)


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: utility_mean([0.1], 1, 1.0), "n must be an integer >= 2"),
        (lambda: utility_mean([0.1], 10, 0.0), "sigma2 must be a number > 0"),
        (lambda: utility_mean([-0.1], 10, 1.0), "lambda2 must be a number >= 0"),
        (lambda: risk_percentile([0.1], 10, 1.0, 1.0), "p must be a number in (0, 1)"),
        (lambda: risk_percentile([0.1], 10, 1.0, 0.5, family="cauchy"), "family must be one of"),
        (lambda: risk_maximum([0.1], 2, 1.0), "n must be an integer >= 3"),
        (lambda: AnalyticSetting(n=10, sigma2=1.0).with_(p=0.0), "p must be"),
    ],
)
def test_bad_inputs_name_the_parameter(call, message):
    with pytest.raises(InputError, match=message.replace("(", r"\(").replace(")", r"\)")):
        call()


def test_analytic_map_returns_one_result_per_state_with_config():
    maps = analytic_map(["record", "population"], [0.0, 0.5], PAPER)
    assert [m.knowledge for m in maps] == ["record", "population"]
    assert maps[0].config["equation"] == "Eq 4"
    assert maps[0].utility == pytest.approx([200, 200 / 1.5])
    assert maps[1].to_frame().shape == (2, 7)


def test_sample_state_needs_data_and_from_data_fills_moments():
    with pytest.raises(InputError, match="sample"):
        analytic_map(["sample"], [0.1], PAPER)
    x = np.arange(1.0, 11.0)
    s = AnalyticSetting.from_data(x)
    assert (s.n, s.sigma2, s.mu) == (10, pytest.approx(x.var(ddof=1)), pytest.approx(5.5))
    m = analytic_map(["sample", "maximum"], [0.0], s)
    assert m[0].risk[0] == pytest.approx(risk_sample([0.0], x)[0])


@settings(max_examples=60, deadline=None)
@given(
    n=st.integers(3, 10**6),
    sigma2=st.floats(1e-3, 1e3),
    p=st.floats(0.01, 0.99),
    lam=st.lists(st.floats(0, 1e3), min_size=2, max_size=20),
)
def test_risk_and_utility_fall_as_noise_grows(n, sigma2, p, lam):
    lam = np.sort(np.array(lam))
    setting = AnalyticSetting(n=n, sigma2=sigma2, p=p, tau=0.3)
    u = utility_mean(lam, n, sigma2)
    assert np.all(np.diff(u) <= 1e-12 * u[:-1])
    e = efficiency(lam, sigma2)
    assert np.all((e > 0) & (e <= 1))
    for state in ("mean-target", "population", "record", "percentile", "maximum", "minimum"):
        r = analytic_map([state], lam, setting)[0].risk
        assert np.all(r[1:] <= r[:-1] * (1 + 1e-9) + 1e-300), state


# The paper's equation of each state (Duncan, Keller-McNulty & Stokes 2001) and the empirical estimator playing its
# part (section 4: record knowledge links by index; percentile and extremes by position; the others use the mean).
PAPER_STATES = {
    "mean-target": ("Eq 1", "mean"), "population": ("Eq 2", "mean"), "sample": ("Eq 3", "mean"),
    "record": ("Eq 4", "index"), "percentile": ("Eq 5 / Eq 8", "position"), "maximum": ("Eq 9 / Eq 10", "position"),
    "minimum": ("Eq 9 / Eq 10 (mirrored)", "position"),
}


def test_each_state_record_names_its_equation_and_empirical_counterpart():
    from rumap.maps.attacks import KNOWLEDGE

    assert list(STATES) == list(PAPER_STATES)
    for name, state in STATES.items():
        assert (state.equation, state.empirical) == PAPER_STATES[name]
        assert state.empirical in KNOWLEDGE
        assert state.latex.startswith("R ") and state.who.startswith("who ") and "knowledge" in state.noun


@pytest.mark.parametrize("name", [n for n, s in STATES.items() if s.inverse is not None])
def test_closed_form_inverse_gives_back_the_risk(name):
    setting = AnalyticSetting.from_data(np.linspace(-2.0, 3.0, 40), tau=0.7)
    state = STATES[name]
    for lam in (0.05, 0.5, 4.0):
        r = float(state.kernel(np.array([lam]), setting)[0])
        assert state.inverse(r, setting) == pytest.approx(lam, rel=1e-10)


def test_a_state_names_what_it_needs():
    with pytest.raises(InputError, match="unknown state 'psychic'"):
        check_state("psychic")
    with pytest.raises(InputError, match="state 'sample' needs a data column"):
        check_state("sample", AnalyticSetting(n=10, sigma2=1.0))
    with pytest.raises(InputError, match="state 'mean-target' needs the target value tau"):
        state_risk("mean-target", [0.1], AnalyticSetting(n=10, sigma2=1.0))
