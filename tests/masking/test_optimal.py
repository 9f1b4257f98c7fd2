"""Optimal univariate microaggregation (rumap/masking/microaggregation/optimal.py), Hansen & Mukherjee (2003)."""

from __future__ import annotations

import numpy as np
import pytest
from microaggregation_helpers import UNIVARIATE_HEURISTICS

from rumap.errors import InputError
from rumap.masking.microaggregation import microaggregate, sum_of_squares

# The peer package microagg1d compiles its numba kernels when imported (about a minute of CPU, not
# cacheable for its jitclasses): the tests that compare with it are marked slow (`make test-slow`);
# the exhaustive search below checks the optimum in every run.
PEER = pytest.mark.slow


@PEER
@pytest.mark.parametrize("k", [2, 3, 4, 6, 11])
def test_optimal_below_every_univariate_heuristic_and_equal_to_microagg1d(k):
    from microagg1d import univariate_microaggregation

    x = np.random.default_rng(k).lognormal(sigma=1.2, size=997)
    optimal = microaggregate(x, k, "optimal")
    assert optimal.group_sizes.min() >= k and optimal.group_sizes.max() <= 2 * k - 1
    for name in UNIVARIATE_HEURISTICS:
        assert optimal.sse <= microaggregate(x, k, name).sse * (1 + 1e-12), name
    # microagg1d 0.4.0's default "simple" method can miss the optimum; its
    # "wilber" and "galil_park" methods find it.
    for method in ("wilber", "galil_park"):
        sse, _ = sum_of_squares(x, univariate_microaggregation(x, k, method=method))
        assert optimal.sse == pytest.approx(sse, rel=1e-9), method
    sse_default, _ = sum_of_squares(x, univariate_microaggregation(x, k))
    assert optimal.sse <= sse_default * (1 + 1e-12)


@pytest.mark.parametrize("k", [3, 5])
def test_optimal_keeps_precision_on_tight_clusters_far_apart(k):
    # Runs of SSE ~1e-6 among values spread over 1e6: prefix sums over the whole
    # sorted array lose the runs' SSE to rounding; sums anchored at each run do not.
    rng = np.random.default_rng(0)
    centres = rng.integers(0, 1000, 500).astype(float) * 1000
    x = np.repeat(centres, 6) + rng.normal(0, 1e-3, 3000)
    optimal = microaggregate(x, k, "optimal")
    for name in UNIVARIATE_HEURISTICS:
        assert optimal.sse <= microaggregate(x, k, name).sse * (1 + 1e-9), name


@PEER
def test_optimal_large_k_uses_prefix_sums():
    from microagg1d import univariate_microaggregation

    x = np.random.default_rng(5).lognormal(size=3000)
    optimal = microaggregate(x, 600, "optimal")
    sse, _ = sum_of_squares(x, univariate_microaggregation(x, 600, method="wilber"))
    assert optimal.sse == pytest.approx(sse, rel=1e-9)
    assert optimal.group_sizes.min() >= 600


@PEER
def test_optimal_on_census_column(census):
    from microagg1d import univariate_microaggregation

    x = census["FEDTAX"].to_numpy(float)
    for k in (3, 5):
        optimal = microaggregate(x, k, "optimal")
        sse, _ = sum_of_squares(x, univariate_microaggregation(x, k, method="wilber"))
        assert optimal.sse == pytest.approx(sse, rel=1e-9)
        assert all(optimal.sse <= microaggregate(x, k, a).sse * (1 + 1e-12) for a in UNIVARIATE_HEURISTICS)


def test_optimal_is_univariate():
    with pytest.raises(InputError, match="one column, got 2"):
        microaggregate(np.ones((10, 2)), 2, "optimal")


def _brute_force_sse(x: np.ndarray, k: int) -> float:
    """Least SSE over every partition of sorted ``x`` into runs of k .. 2k-1 (exhaustive recursion)."""
    if x.size == 0:
        return 0.0
    return min((float(np.sum((x[:length] - x[:length].mean()) ** 2)) + _brute_force_sse(x[length:], k)
                for length in range(k, min(2 * k - 1, x.size) + 1)), default=np.inf)


@pytest.mark.parametrize("seed", range(12))
def test_optimal_equals_exhaustive_search_on_small_files(seed):
    from rumap.masking.microaggregation.optimal import _optimal_sorted

    rng = np.random.default_rng(seed)
    k = int(rng.integers(1, 5))
    n = int(rng.integers(k, 15))
    x = np.sort(np.round(rng.lognormal(size=n), int(rng.integers(0, 3))))
    runs = _optimal_sorted(x, k)
    assert runs.sum() == n and runs.min() >= k and runs.max() <= 2 * k - 1
    bounds = np.concatenate(([0], np.cumsum(runs)))
    sse = sum(float(np.sum((x[a:b] - x[a:b].mean()) ** 2)) for a, b in zip(bounds[:-1], bounds[1:], strict=True))
    assert sse == pytest.approx(_brute_force_sse(x, k), rel=1e-9, abs=1e-12)
