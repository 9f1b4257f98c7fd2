"""Additive noise masking: variance, correlation (Kim 1986), truncation (Eq 11), unequal variance (Figure 7)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from rumap.errors import InputError
from rumap.masking.noise import NoiseSpec, add_noise, noise_shape


def _data(n=20_000, seed=0):
    rng = np.random.default_rng(seed)
    cov = np.array([[4.0, 1.8, 0.0], [1.8, 9.0, -2.0], [0.0, -2.0, 1.0]])
    return rng.multivariate_normal([10.0, -3.0, 50.0], cov, size=n)


def test_shape_and_seed():
    x = np.arange(12.0)
    a = add_noise(x, 0.5, seed=3)
    assert a.shape == x.shape
    np.testing.assert_array_equal(a, add_noise(x, 0.5, seed=3))
    assert not np.array_equal(a, add_noise(x, 0.5, seed=4))
    np.testing.assert_array_equal(add_noise(x, 0.0, seed=3), x)


def test_uncorrelated_absolute_variance():
    x = _data()
    e = add_noise(x, 2.5, seed=1) - x
    n = x.shape[0]
    se = 2.5 * np.sqrt(2 / (n - 1))  # standard error of a normal sample variance
    np.testing.assert_allclose(e.var(axis=0, ddof=1), 2.5, atol=4 * se)
    corr = np.corrcoef(e, rowvar=False)[np.triu_indices(3, 1)]
    assert np.all(np.abs(corr) < 4 / np.sqrt(n))


def test_relative_variance_is_a_fraction_of_each_column():
    x = _data()
    e = add_noise(x, 0.3, NoiseSpec(relative=True), seed=2) - x
    target = 0.3 * x.var(axis=0, ddof=1)
    np.testing.assert_allclose(e.var(axis=0, ddof=1), target, rtol=4 * np.sqrt(2 / x.shape[0]))


def test_correlated_relative_noise_has_covariance_proportional_to_the_data():
    x = _data(50_000)
    e = add_noise(x, 0.5, NoiseSpec(relative=True, correlated=True), seed=3) - x
    expected = 0.5 * np.cov(x, rowvar=False)
    scale = np.sqrt(np.outer(np.diag(expected), np.diag(expected)))
    np.testing.assert_allclose(np.cov(e, rowvar=False) / scale, expected / scale, atol=0.03)


def test_correlated_absolute_noise_has_the_data_correlations_and_variance_lambda2():
    x = _data(50_000)
    e = add_noise(x, 2.0, NoiseSpec(correlated=True), seed=4) - x
    np.testing.assert_allclose(e.var(axis=0, ddof=1), 2.0, rtol=0.03)
    np.testing.assert_allclose(np.corrcoef(e, rowvar=False), np.corrcoef(x, rowvar=False), atol=0.02)


def test_noise_shape_of_a_singular_covariance_is_a_square_root():
    x = np.column_stack([np.arange(10.0), 2 * np.arange(10.0)])
    shape = noise_shape(x, NoiseSpec(relative=True, correlated=True))
    np.testing.assert_allclose(shape @ shape.T, np.cov(x, rowvar=False), atol=1e-9)


def test_truncation_is_eq_11():
    x = np.random.default_rng(5).uniform(0, 3, size=1000)
    plain = add_noise(x, 4.0, seed=9)
    truncated = add_noise(x, 4.0, NoiseSpec(truncate_below=0.0), seed=9)
    np.testing.assert_array_equal(truncated, np.maximum(0.0, plain))
    assert (plain < 0).any()
    both = add_noise(x, 4.0, NoiseSpec(truncate_below=0.0, truncate_above=2.5), seed=9)
    np.testing.assert_array_equal(both, np.clip(plain, 0.0, 2.5))


def test_unequal_variance_multiplies_the_sensitive_records_variance():
    rng = np.random.default_rng(6)
    x = rng.uniform(0, 100, size=100_000)
    spec = NoiseSpec(unequal_above=70.0, unequal_factor=3.0)
    e = add_noise(x, 2.0, spec, seed=1) - x
    sensitive = x > 70
    assert e[sensitive].var() == pytest.approx(6.0, rel=0.03)
    assert e[~sensitive].var() == pytest.approx(2.0, rel=0.03)
    # the same draws as equal-variance noise, scaled for the sensitive records
    plain = add_noise(x, 2.0, seed=1) - x
    np.testing.assert_allclose(e, np.where(sensitive, np.sqrt(3.0), 1.0) * plain)
    below = add_noise(x, 2.0, NoiseSpec(unequal_below=10.0, unequal_factor=2.0), seed=1) - x
    np.testing.assert_allclose(below, np.where(x < 10, np.sqrt(2.0), 1.0) * plain)


@pytest.mark.parametrize(
    ("kwargs", "fragment"),
    [
        ({"unequal_above": 1.0, "unequal_below": 0.0}, "not both"),
        ({"unequal_factor": 0.0}, "unequal_factor"),
        ({"truncate_below": 2.0, "truncate_above": 1.0}, "truncate_below"),
        ({"truncate_below": float("nan")}, "truncate_below"),
        ({"unequal_column": -1}, "unequal_column"),
    ],
)
def test_bad_spec(kwargs, fragment):
    with pytest.raises(InputError, match=fragment):
        NoiseSpec(**kwargs)


def test_bad_data_and_lambda2():
    with pytest.raises(InputError, match="missing or infinite"):
        add_noise([1.0, np.nan, 2.0], 1.0)
    with pytest.raises(InputError, match="lambda2"):
        add_noise([1.0, 2.0], -1.0)
    with pytest.raises(InputError, match="at least 2 records"):
        add_noise([1.0], 1.0)
    with pytest.raises(InputError, match="variance 0"):
        add_noise([[1.0, 2.0], [1.0, 3.0]], 0.5, NoiseSpec(relative=True))
    with pytest.raises(InputError, match="out of range"):
        add_noise([1.0, 2.0, 3.0], 0.5, NoiseSpec(unequal_above=1.0, unequal_column=2))


@settings(max_examples=40, deadline=None)
@given(
    x=arrays(float, st.integers(2, 40), elements=st.floats(-1e3, 1e3)),
    lambda2=st.floats(0, 1e4),
    low=st.floats(-500, 0),
    width=st.floats(1, 1000),
    seed=st.integers(0, 2**32 - 1),
)
def test_truncated_values_stay_within_bounds(x, lambda2, low, width, seed):
    y = add_noise(x, lambda2, NoiseSpec(truncate_below=low, truncate_above=low + width), seed=seed)
    assert np.all(y >= low) and np.all(y <= low + width)
    # truncation is the untruncated release clipped to the bounds (same seed, same noise)
    untruncated = add_noise(x, lambda2, seed=seed)
    np.testing.assert_array_equal(y, np.clip(untruncated, low, low + width))


def test_truncation_without_noise_keeps_the_values_inside():
    x = np.array([-3.0, 0.0, 2.5, 7.0, 12.0])
    y = add_noise(x, 0.0, NoiseSpec(truncate_below=0.0, truncate_above=10.0), seed=1)
    np.testing.assert_array_equal(y, [0.0, 0.0, 2.5, 7.0, 10.0])


@pytest.mark.parametrize("relative", [False, True])
def test_uncorrelated_noise_scales_each_column_equal_to_the_matrix_product(relative):
    from rumap.masking.noise import standard_noise

    x = np.random.default_rng(1).lognormal(size=(500, 4))
    spec = NoiseSpec(relative=relative, correlated=False)
    shape = noise_shape(x, spec)
    noise = standard_noise(np.random.default_rng(2), x, spec)
    z = np.random.default_rng(2).standard_normal(x.shape)
    np.testing.assert_array_equal(noise, z * np.diag(shape))
    np.testing.assert_allclose(noise, z @ shape.T, rtol=0, atol=0)


@pytest.mark.parametrize("spec", [NoiseSpec(), NoiseSpec(relative=True, correlated=True, truncate_below=0.5),
                                  NoiseSpec(relative=True, unequal_above=1.5, unequal_factor=3.0)])
def test_chunks_give_the_draws_of_the_whole_file(spec):
    # more records than one chunk: the masked file is the one-shot computation, with the same normal draws
    from rumap.masking.noise import _CHUNK_ROWS

    x = np.random.default_rng(8).lognormal(size=(_CHUNK_ROWS + 777, 3))
    z = np.random.default_rng(4).standard_normal(x.shape)
    shape = noise_shape(x, spec)
    expected = x + 0.7 * (z @ shape.T) * np.sqrt(spec.variance_factor(x) if spec.unequal_above else 1.0)[..., None]
    if spec.truncated:
        expected = np.maximum(expected, spec.truncate_below)
    np.testing.assert_allclose(add_noise(x, 0.49, spec, seed=4), expected, rtol=1e-13, atol=1e-13)
def test_the_size_parameter_is_the_one_every_layer_named():
    from rumap.maps.methods import METHODS
    from rumap.masking.noise import SIZE_PARAMETERS, size_parameter

    for relative in (False, True):
        previous = "lambda2_frac" if relative else "lambda2"  # as the engine, the release steps and reports chose
        assert size_parameter(relative) == SIZE_PARAMETERS[relative] == previous
        assert METHODS["noise"].parameter({"relative": relative}) == previous
    assert METHODS["noise"].parameter({}) == "lambda2"
    assert set(SIZE_PARAMETERS.values()) == set(METHODS["noise"].parameters)
