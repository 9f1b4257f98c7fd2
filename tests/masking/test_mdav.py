"""MDAV (rumap/masking/microaggregation/mdav.py): published losses, and equality with a plain implementation."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from microaggregation_helpers import same_partition

from rumap.masking.microaggregation import microaggregate

# 100 * SSE / SST of MDAV on standardized data (../shared/data/README.md).
PUBLISHED_MDAV = {
    "census.csv": {3: 5.69, 4: 7.49, 5: 9.09, 10: 14.16},
    "tarragona.csv": {3: 16.93, 4: 19.55, 5: 22.46, 10: 33.19},
}


def plain_mdav(x: np.ndarray, k: int) -> np.ndarray:
    """MDAV written directly from Domingo-Ferrer & Mateo-Sanz (2002), exact distances, no tricks."""
    labels = np.full(x.shape[0], -1)
    label = 0

    def group_around(centre: int, rest: np.ndarray) -> np.ndarray:
        dist = ((x[rest] - x[centre]) ** 2).sum(axis=1)
        return rest[np.argsort(dist, kind="stable")[:k]]

    rest = np.arange(x.shape[0])
    while rest.size >= 2 * k:
        centroid = x[rest].mean(axis=0)
        r = rest[np.argmax(((x[rest] - centroid) ** 2).sum(axis=1))]
        s = rest[np.argmax(((x[rest] - x[r]) ** 2).sum(axis=1))]
        two = rest.size >= 3 * k
        for centre in ([r, s] if two else [r]):
            labels[group_around(centre, rest)] = label
            label += 1
            rest = rest[labels[rest] < 0]
    labels[rest] = label
    return labels


@pytest.mark.parametrize("name", list(PUBLISHED_MDAV))
def test_mdav_reproduces_published_information_loss(shared_data, name):
    frame = pd.read_csv(shared_data / name)
    assert frame.shape[1] == 13
    for k, published in PUBLISHED_MDAV[name].items():
        result = microaggregate(frame, k, "mdav", standardize=True)
        assert 100 * result.information_loss == pytest.approx(published, abs=0.05), (name, k)
        assert result.group_sizes.min() >= k


@pytest.mark.parametrize("seed, n, p, k", [(0, 300, 4, 3), (1, 157, 2, 5), (2, 64, 3, 10), (3, 200, 6, 2),
                                           (4, 31, 1, 4), (5, 12, 2, 6)])
def test_mdav_equals_plain_implementation(seed, n, p, k):
    rng = np.random.default_rng(seed)
    x = rng.lognormal(size=(n, p))
    fast = microaggregate(x, k, "mdav")
    assert same_partition(fast.groups, plain_mdav(x, k))


@pytest.mark.parametrize("k", [2, 3, 9])
def test_mdav_ties_and_offsets_equal_plain_implementation(k):
    rng = np.random.default_rng(k)
    grid = rng.integers(0, 4, size=(240, 3)).astype(float)  # many duplicates and equal distances
    assert same_partition(microaggregate(grid, k, "mdav").groups, plain_mdav(grid, k))
    shifted = 1e7 + rng.normal(size=(200, 2))  # large offset, small spread
    assert same_partition(microaggregate(shifted, k, "mdav").groups, plain_mdav(shifted - 1e7, k))


def test_mdav_group_sizes_and_large_k():
    x = np.random.default_rng(3).normal(size=(103, 3))
    sizes = microaggregate(x, 10, "mdav").group_sizes
    assert sorted(sizes.tolist()) == [10] * 9 + [13]
    assert microaggregate(x, 60, "mdav").group_sizes.tolist() == [103]
    assert microaggregate(x, 1, "mdav").information_loss == 0.0


@settings(max_examples=100, deadline=None, derandomize=True)
@given(arrays(np.float64, st.tuples(st.integers(2, 60), st.integers(1, 3)),
              elements=st.sampled_from([0.0, 1.0, 2.0, 5.0]) | st.floats(-1e3, 1e3, allow_subnormal=False)),
       st.integers(1, 12), st.booleans())
def test_mdav_equals_plain_implementation_property(values, k, shift):
    """The float32 scans with float64 re-checks give the partition of the direct float64 algorithm."""
    k = min(k, values.shape[0])
    if shift:
        values = values + 1e6
    assert same_partition(microaggregate(values, k, "mdav").groups, plain_mdav(values, k))
