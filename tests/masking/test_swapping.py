"""Rank swapping: per-column permutations within the rank window, seeded."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from rumap.errors import InputError
from rumap.masking.swapping import rank_swap, swap_window


def plain_rank_swap(x: np.ndarray, swap_percent: float, seed: int) -> np.ndarray:
    """The algorithm of the module docstring written as a direct O(n w) loop."""
    rng = np.random.default_rng(seed)
    columns = x[:, None] if x.ndim == 1 else x
    n = columns.shape[0]
    window = swap_window(n, swap_percent)
    out = columns.copy()
    if window < 1:
        return out.reshape(x.shape)
    for j in range(columns.shape[1]):
        order = np.argsort(columns[:, j], kind="stable")
        draws = rng.random(n)
        partner = np.arange(n)
        done = np.zeros(n, dtype=bool)
        for rank in range(n):
            if done[rank]:
                continue
            done[rank] = True
            free = [other for other in range(rank + 1, min(n - 1, rank + window) + 1) if not done[other]]
            if free:
                other = free[int(draws[rank] * len(free))]
                partner[rank], partner[other] = other, rank
                done[other] = True
        out[order, j] = columns[order[partner], j]
    return out.reshape(x.shape)


def test_equals_plain_algorithm_with_ties():
    # integers with many repeats and signed zeros: ranks of equal values follow the record order
    x = np.random.default_rng(4).integers(-3, 4, size=(300, 2)).astype(float)
    x[::7, 0] = -0.0
    for swap_percent in (2.0, 30.0):
        np.testing.assert_array_equal(rank_swap(x, swap_percent, seed=9), plain_rank_swap(x, swap_percent, 9))


def assert_within_window(x: np.ndarray, y: np.ndarray, window: int) -> None:
    """Every masked value is a value of its column at most ``window`` ranks from the record's own."""
    n = x.shape[0]
    for j in range(x.shape[1]):
        sorted_values = np.sort(x[:, j])
        assert np.array_equal(np.sort(y[:, j]), sorted_values)  # a permutation of the column
        rank = np.argsort(np.argsort(x[:, j], kind="stable"), kind="stable")
        low = sorted_values[np.maximum(rank - window, 0)]
        high = sorted_values[np.minimum(rank + window, n - 1)]
        assert np.all((low <= y[:, j]) & (y[:, j] <= high))


@pytest.mark.parametrize("n, p, swap_percent", [(177, 1, 5.0), (200, 3, 10.0), (53, 2, 50.0), (1000, 1, 0.5),
                                                (40, 2, 100.0), (10, 1, 12.0)])
def test_equals_plain_algorithm(n, p, swap_percent):
    x = np.random.default_rng(n).lognormal(size=(n, p))
    np.testing.assert_array_equal(rank_swap(x, swap_percent, seed=11), plain_rank_swap(x, swap_percent, 11))


def test_permutation_within_window_and_pairwise():
    x = np.random.default_rng(1).normal(size=(500, 3))
    y = rank_swap(x, 4.0, seed=2)
    window = swap_window(500, 4.0)
    assert window == 20
    assert_within_window(x, y, window)
    for j in range(3):
        moved = x[:, j] != y[:, j]
        assert moved.mean() > 0.95  # nearly every record is swapped
        # Swaps are exchanges between two records: the record that received my value gave me its own.
        source = {v: i for i, v in enumerate(x[:, j])}
        giver = np.array([source[v] for v in y[:, j]])
        assert np.array_equal(giver[giver], np.arange(500))
    assert not np.array_equal(y[:, 0], y[:, 1])  # columns are swapped independently


def test_seeds():
    x = np.random.default_rng(3).normal(size=(300, 2))
    np.testing.assert_array_equal(rank_swap(x, 10, seed=5), rank_swap(x, 10, seed=5))
    assert not np.array_equal(rank_swap(x, 10, seed=5), rank_swap(x, 10, seed=6))
    generator = np.random.default_rng(5)
    np.testing.assert_array_equal(rank_swap(x, 10, seed=generator), rank_swap(x, 10, seed=5))


def test_shapes_and_zero_window():
    x = np.arange(20.0)
    assert rank_swap(x, 10, seed=0).shape == (20,)
    np.testing.assert_array_equal(rank_swap(x, 0, seed=0), x)
    np.testing.assert_array_equal(rank_swap(x, 4.9, seed=0), x)  # window floor(0.98) = 0
    assert np.abs(rank_swap(x, 5, seed=0) - x).max() == 1  # window 1: neighbours exchange
    assert swap_window(177, 5) == 8


@pytest.mark.parametrize("swap_percent, match", [(-1, "swap_percent must be a number in \\[0, 100\\]"),
                                                 (100.5, "swap_percent"), (float("nan"), "swap_percent")])
def test_bad_swap_percent(swap_percent, match):
    with pytest.raises(InputError, match=match):
        rank_swap(np.arange(5.0), swap_percent)


def test_bad_data():
    with pytest.raises(InputError, match=r"data has 1 missing or infinite value\(s\), first in row 2"):
        rank_swap([1.0, np.nan, 2.0], 10)
    with pytest.raises(InputError, match="numeric"):
        rank_swap(["a", "b"], 10)


@settings(max_examples=100, deadline=None)
@given(arrays(np.float64, st.tuples(st.integers(1, 60), st.integers(1, 3)),
              elements=st.floats(-1e6, 1e6, allow_nan=False) | st.sampled_from([0.0, 1.0, 2.0])),
       st.floats(0, 100), st.integers(0, 2**32 - 1))
def test_properties(x, swap_percent, seed):
    y = rank_swap(x, swap_percent, seed=seed)
    assert y.shape == x.shape
    assert_within_window(x, y, swap_window(x.shape[0], swap_percent))
    np.testing.assert_array_equal(y, rank_swap(x, swap_percent, seed=seed))
    np.testing.assert_allclose(y.mean(axis=0), x.mean(axis=0), rtol=1e-12, atol=1e-6)


def test_swap_distance_distribution_over_seeds_equals_plain_algorithm():
    # Histogram of the rank distance each value moves, pooled over seeds: the compiled
    # kernel draws the same partners as the direct loop, all within the window.
    x = np.random.default_rng(0).lognormal(size=(400, 1))
    window = swap_window(400, 5.0)
    rank = np.argsort(np.argsort(x[:, 0], kind="stable"), kind="stable")
    sorted_values = np.sort(x[:, 0])
    fast, plain = np.zeros(window + 1, dtype=int), np.zeros(window + 1, dtype=int)
    for seed in range(40):
        for out, counts in ((rank_swap(x, 5.0, seed=seed), fast), (plain_rank_swap(x, 5.0, seed), plain)):
            moved = np.abs(np.searchsorted(sorted_values, out[:, 0]) - rank)
            assert moved.max() <= window
            counts += np.bincount(moved, minlength=window + 1)
    np.testing.assert_array_equal(fast, plain)
    assert fast[0] < 0.05 * fast.sum()  # almost every record is swapped
    assert fast[1:].min() > 0  # every distance of the window occurs
