"""The Poisson-gamma model (rumap/risk/poisson_gamma.py): uniques (Eq 10), the fit of beta, Eq 15-17."""

from __future__ import annotations

import math

import numpy as np
import pytest

from rumap.risk.poisson_gamma import fit_poisson_gamma, minimal_subpopulation_size, poisson_gamma_uniques


def test_minimal_subpopulation_size_solves_equation_16():
    g, a, f, beta, k = 0.001, 300, 0.01, 2e-4, 1108
    n_min = minimal_subpopulation_size(g, a, f, beta, k)
    assert n_min > 0
    f_u = poisson_gamma_uniques(n_min, beta, k) / n_min
    assert a * f * f_u == pytest.approx(-math.log(1 - g), rel=1e-9)
    # larger a f -> larger N_min; a tiny a f -> every size is safe (N_min <= 0)
    assert minimal_subpopulation_size(g, 1000, f, beta, k) > n_min
    assert minimal_subpopulation_size(g, 0.01, 0.001, beta, k) <= 0


def test_poisson_gamma_uniques_formula_and_limit():
    N, beta, k = 63624, 3e-4, 1108
    alpha = 1 / (k * beta)
    assert poisson_gamma_uniques(N, beta, k) == pytest.approx(N * (1 + N * beta) ** -(1 + alpha))
    # k P(Y = 1) for the negative binomial with mean N/k
    p1 = alpha * N * beta * (1 + N * beta) ** -(1 + alpha)
    assert poisson_gamma_uniques(N, beta, k) == pytest.approx(k * p1)
    assert poisson_gamma_uniques(1000, 0.0, 2000) == pytest.approx(1000 * math.exp(-0.5))
    assert poisson_gamma_uniques(1000, 1e-14, 2000) == pytest.approx(1000 * math.exp(-0.5), rel=1e-6)


@pytest.mark.parametrize("method", ["ml", "moments"])
@pytest.mark.parametrize("beta, f", [(5e-4, 0.05), (2e-5, 0.1)])
def test_poisson_gamma_estimate_against_simulation(method, beta, f):
    rng = np.random.default_rng(12)
    k, N = 20_000, 400_000
    alpha = 1 / (k * beta)
    population = rng.poisson(rng.gamma(alpha, N * beta, size=k))
    sample = rng.binomial(population, f)
    fit = fit_poisson_gamma(sample[sample > 0], k, method)
    actual = int((population == 1).sum())
    assert fit.beta == pytest.approx(beta, rel=0.15)
    estimated = fit.population_uniques(population.sum())
    assert abs(estimated - actual) < 5 * math.sqrt(actual) + 0.1 * actual


def test_poisson_data_give_the_poisson_limit():
    rng = np.random.default_rng(3)
    k = 5000
    sample = rng.poisson(2.0, size=k)
    fit = fit_poisson_gamma(sample[sample > 0], k, "ml")
    assert fit.beta * sample.sum() < 0.05
    assert fit_poisson_gamma(np.ones(10), 10, "moments").beta == 0.0  # under-dispersed
