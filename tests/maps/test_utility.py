"""Utility measures: Eq 14 and the others, their standard errors and labels."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rumap.errors import InputError
from rumap.maps.utility import UTILITIES, make_reference, utility_efficiency, utility_estimate, utility_label


def _x(n=50, p=3, seed=0):
    rng = np.random.default_rng(seed)
    return rng.normal(size=(n, p)) @ np.array([[1.0, 0.5, 0.2], [0.0, 1.0, 0.3], [0.0, 0.0, 1.0]])[:p, :p] + 5


def _replicates(x, m=30, scale=0.5, seed=1):
    return x + scale * np.random.default_rng(seed).normal(size=(m, *x.shape))


def test_mean_is_eq_14():
    x = _x(p=1)
    masked = _replicates(x)
    ref = make_reference("mean", x)
    u, se = utility_estimate("mean", UTILITIES["mean"].stats(masked, ref), ref)
    n = x.shape[0]
    s2 = masked[:, :, 0].var(axis=1, ddof=1)
    ybar = masked[:, :, 0].mean(axis=1)
    mse = s2.mean() / n + (ybar.mean() - x.mean()) ** 2
    assert u == pytest.approx(1 / mse)
    # delta method: influence of each replicate on the estimate of the MSE
    influence = (s2 / n - s2.mean() / n) + 2 * (ybar.mean() - x.mean()) * (ybar - ybar.mean())
    assert se == pytest.approx(influence.std(ddof=1) / math.sqrt(masked.shape[0]) / mse**2)
    assert UTILITIES["mean"].unmasked(ref) == pytest.approx(n / x.var(ddof=1))


@pytest.mark.parametrize("name", ["mean-error", "variance", "quantiles", "correlation", "regression"])
def test_unmasked_data_have_infinite_utility(name):
    x = _x()
    ref = make_reference(name, x)
    masked = np.repeat(x[None], 3, axis=0)
    u, se = utility_estimate(name, UTILITIES[name].stats(masked, ref), ref)
    assert math.isinf(u) and se == 0.0


@pytest.mark.parametrize("name", ["mean-error", "variance", "quantiles", "correlation", "regression", "sse"])
def test_more_noise_means_less_utility(name):
    x = _x(n=400)
    ref = make_reference(name, x)
    small = utility_estimate(name, UTILITIES[name].stats(_replicates(x, scale=0.2), ref), ref)[0]
    large = utility_estimate(name, UTILITIES[name].stats(_replicates(x, scale=1.5), ref), ref)[0]
    assert small > large


def test_sse_is_one_minus_information_loss():
    x = _x()
    ref = make_reference("sse", x)
    assert utility_estimate("sse", UTILITIES["sse"].stats(x[None], ref), ref)[0] == 1.0
    masked = _replicates(x, m=5)
    loss = np.mean([((masked[m] - x) ** 2).sum(axis=0) / ((x - x.mean(axis=0)) ** 2).sum(axis=0)
                    for m in range(5)], axis=1)
    assert utility_estimate("sse", UTILITIES["sse"].stats(masked, ref), ref)[0] == pytest.approx(np.mean(1 - loss))


def test_regression_recovers_known_slopes():
    rng = np.random.default_rng(3)
    xs = rng.normal(size=(500, 2))
    y = 2 * xs[:, 0] - 3 * xs[:, 1] + 0.01 * rng.normal(size=500)
    ref = make_reference("regression", np.column_stack([y, xs]), {"response": 0})
    np.testing.assert_allclose(ref.extra["x_slopes"], [2, -3], atol=0.01)


def test_quantiles_option_and_errors():
    x = _x()
    ref = make_reference("quantiles", x, {"quantiles": (0.25, 0.75)})
    assert ref.extra["x_quantiles"].shape == (2, 3)
    for bad in ((0.5, 1.5), (0.0, 0.5), (0.5, 1.0), (float("nan"),)):  # the entry p: a fraction in (0, 1)
        with pytest.raises(InputError, match=r"^utility quantiles must be numbers in \(0, 1\)"):
            make_reference("quantiles", x, {"quantiles": bad})
    with pytest.raises(InputError, match="at least 2 columns"):
        make_reference("correlation", x[:, :1])
    with pytest.raises(InputError, match="response"):
        make_reference("regression", x, {"response": 5})
    with pytest.raises(InputError, match="unknown utility"):
        make_reference("happiness", x)


def test_labels_warn_that_microaggregation_keeps_the_mean():
    assert "Eq 14" in utility_label("mean")
    assert "keeps the mean exactly" in utility_label("mean", "microaggregation")
    assert "keeps the mean exactly" in utility_label("mean-error", "rankswap")
    assert "keeps the mean" not in utility_label("variance", "microaggregation")
    for name in UTILITIES:
        assert utility_label(name).startswith("U")


def test_mean_efficiency_by_hand():
    """(s^2/n) / (s^2/n + mean over replicates of the squared masking error of the mean), summed over columns."""
    x = _x(n=40)
    masked = _replicates(x, m=25, scale=0.8)
    ref = make_reference("mean", x)
    eff = utility_efficiency("mean", UTILITIES["mean"].stats(masked, ref), ref)
    sampling = x.var(axis=0, ddof=1).sum() / x.shape[0]
    masking = np.mean([((rep.mean(axis=0) - x.mean(axis=0)) ** 2).sum() for rep in masked])
    assert eff == pytest.approx(sampling / (sampling + masking))
    assert utility_efficiency("mean", UTILITIES["mean"].stats(x[None], ref), ref) == 1.0


def test_every_measure_states_its_direction():
    assert all(isinstance(measure.higher_is_better, bool) for measure in UTILITIES.values())
    assert utility_efficiency("variance", UTILITIES["variance"].stats(_replicates(_x()), make_reference(
        "variance", _x())), make_reference("variance", _x())) is None


@settings(max_examples=40, deadline=None)
@given(n=st.integers(3, 40), p=st.integers(1, 3), scale=st.floats(0.0, 1e4), shift=st.floats(-1e3, 1e3),
       seed=st.integers(0, 2**16), method=st.sampled_from(["noise", "shift", "groups", "shrink"]))
def test_efficiency_is_a_share(n, p, scale, shift, seed, method):
    """Every measure with an efficiency gives one in [0, 1], whatever the masking does to the data."""
    rng = np.random.default_rng(seed)
    x = rng.lognormal(size=(n, p)) * 10
    if method == "noise":
        masked = x + scale * rng.normal(size=(5, n, p))
    elif method == "shift":  # a biased release
        masked = np.repeat(x[None] + shift, 3, axis=0)
    elif method == "groups":  # means of pairs: a mean-preserving release with a smaller variance
        order = np.argsort(x[:, 0])
        masked = x.copy()
        for start in range(0, n - 1, 2):
            rows = order[start:start + 2]
            masked[rows] = x[rows].mean(axis=0)
        masked = masked[None]
    else:  # every value to the mean: no variance left
        masked = np.repeat(np.repeat(x.mean(axis=0, keepdims=True), n, axis=0)[None], 2, axis=0)
    for name, measure in UTILITIES.items():
        if measure.efficiency is None:
            continue
        ref = make_reference(name, x)
        eff = utility_efficiency(name, measure.stats(masked, ref), ref)
        assert 0.0 <= eff <= 1.0, (name, eff)
