"""Column moments of masked replicates, alone and while masking with noise (rumap/maps/moments.py)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rumap.maps.moments import mask_with_moments, moments
from rumap.masking.noise import NoiseSpec, mask_with


def _two_pass(masked: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """numpy's means and ddof-1 variances, computed in long double as the second computation."""
    data = masked.astype(np.longdouble)
    return data.mean(axis=1).astype(float), data.var(axis=1, ddof=1).astype(float)


@settings(max_examples=40, deadline=None)
@given(r=st.integers(1, 3), n=st.integers(2, 41), p=st.integers(1, 4), seed=st.integers(0, 2**32 - 1),
       offset=st.sampled_from([0.0, 1e6, -3e8]))
def test_moments_equal_a_long_double_computation(r, n, p, seed, offset):
    masked = offset + np.random.default_rng(seed).normal(size=(r, n, p))
    mean, var = moments(masked)
    expected_mean, expected_var = _two_pass(masked)
    np.testing.assert_allclose(mean, expected_mean, rtol=1e-13, atol=1e-12 * max(1.0, abs(offset)))
    np.testing.assert_allclose(var, expected_var, rtol=1e-9)


@pytest.mark.parametrize("spec", [NoiseSpec(), NoiseSpec(truncate_below=0.0), NoiseSpec(truncate_below=0.5,
                                                                                         truncate_above=3.0)])
@pytest.mark.parametrize("p", [1, 3])
def test_masking_with_moments_gives_mask_with_values_exactly_and_their_moments(spec, p):
    rng = np.random.default_rng(p)
    x = rng.lognormal(size=(1_001, p))
    noise = rng.standard_normal((4, 1_001, p))
    out = np.empty_like(noise)
    lower = -np.inf if spec.truncate_below is None else spec.truncate_below
    upper = np.inf if spec.truncate_above is None else spec.truncate_above
    mean, var = mask_with_moments(x, noise, 0.8, lower, upper, out)
    np.testing.assert_array_equal(out, mask_with(x, noise, 0.8, spec))
    expected_mean, expected_var = _two_pass(out)
    np.testing.assert_allclose(mean, expected_mean, rtol=1e-13)
    np.testing.assert_allclose(var, expected_var, rtol=1e-11)


def test_a_replicates_moments_do_not_depend_on_the_others_in_its_chunk():
    rng = np.random.default_rng(9)
    masked = rng.lognormal(size=(6, 777, 2))
    x = rng.normal(size=(777, 2))
    together = moments(masked)
    apart = [moments(masked[i:i + 1]) for i in range(6)]
    for k in (0, 1):
        np.testing.assert_array_equal(together[k], np.concatenate([a[k] for a in apart]))
    out_together, out_apart = np.empty_like(masked), np.empty_like(masked)
    masked_together = mask_with_moments(x, masked, 0.5, -np.inf, np.inf, out_together)
    for i in range(6):
        one = mask_with_moments(x, masked[i:i + 1], 0.5, -np.inf, np.inf, out_apart[i:i + 1])
        for k in (0, 1):
            np.testing.assert_array_equal(masked_together[k][i], one[k][0])
