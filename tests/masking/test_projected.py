"""Optimal runs on the first principal component (rumap/masking/microaggregation/projected.py)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from rumap.masking.microaggregation import microaggregate
from rumap.masking.microaggregation.ranking import _first_principal_component


def brute_force_sse(ordered: np.ndarray, k: int) -> float:
    """Least SSE over every cut of the ordered rows into runs of k .. 2k-1, by enumeration."""
    n = ordered.shape[0]
    best = np.inf
    for cuts in itertools.product([0, 1], repeat=n - 1):
        bounds = [0] + [i + 1 for i, c in enumerate(cuts) if c] + [n]
        lengths = np.diff(bounds)
        if lengths.min() < k or lengths.max() > 2 * k - 1:
            continue
        sse = sum(float(((ordered[a:b] - ordered[a:b].mean(axis=0)) ** 2).sum()) for a, b in itertools.pairwise(bounds))
        best = min(best, sse)
    return best


@pytest.mark.parametrize("seed, n, p, k", [(0, 12, 3, 2), (1, 13, 2, 3), (2, 11, 4, 4), (3, 9, 2, 1)])
def test_least_sse_of_runs_on_the_ordering(seed, n, p, k):
    x = np.random.default_rng(seed).lognormal(size=(n, p))
    result = microaggregate(x, k, "optimal_pc1")
    ordered = x[np.argsort(_first_principal_component(x), kind="stable")]
    assert result.sse == pytest.approx(brute_force_sse(ordered, k), rel=1e-10)
    ranks = np.argsort(np.argsort(_first_principal_component(x), kind="stable"))
    for g in range(result.n_groups):  # every group is a run of consecutive ranks
        members = np.sort(ranks[result.groups == g])
        assert members[-1] - members[0] == members.size - 1


def test_never_above_fixed_groups_on_the_same_ordering():
    rng = np.random.default_rng(5)
    x = np.exp(0.8 * rng.normal(size=(3000, 1)) + 0.6 * rng.normal(size=(3000, 4)))
    for k in (3, 6):
        ours = microaggregate(x, k, "optimal_pc1", standardize=True)
        fixed = microaggregate(x, k, "fixed", criterion="pc1", standardize=True)
        assert ours.sse <= fixed.sse
        assert ours.group_sizes.min() >= k and ours.group_sizes.max() <= 2 * k - 1


def test_one_variable_is_optimal():
    x = np.random.default_rng(2).lognormal(size=500)
    assert np.array_equal(microaggregate(x, 4, "optimal_pc1").groups, microaggregate(x, 4, "optimal").groups)
