"""Order statistics by selection from a sample-bounded candidate subset (rumap/maps/selection.py)."""

from __future__ import annotations

import numpy as np
import pytest

from rumap._compile import compiled
from rumap.maps.attacks import order_statistics
from rumap.maps.selection import SAMPLE_SIZE, _select_ranks_kernel, select_ranks


def _rows(kind: str, rng: np.random.Generator, r: int, n: int) -> np.ndarray:
    return {
        "lognormal": lambda: rng.lognormal(size=(r, n)),
        "sorted": lambda: np.sort(rng.normal(size=(r, n)), axis=1),
        "reversed": lambda: np.sort(rng.normal(size=(r, n)), axis=1)[:, ::-1],
        "ties": lambda: np.round(rng.normal(size=(r, n))),
        "constant": lambda: np.full((r, n), 2.5),
        "outliers": lambda: np.where(rng.random((r, n)) < 0.02, 1e9, rng.normal(size=(r, n))),
    }[kind]()


@pytest.mark.parametrize("kind", ["lognormal", "sorted", "reversed", "ties", "constant", "outliers"])
def test_select_ranks_equals_full_sort(kind):
    rng = np.random.default_rng(len(kind))
    for n in (4096, 9_999, 25_000):
        rows = _rows(kind, rng, 3, n)
        ranks = np.unique(np.concatenate(([1, 2, n // 100, n // 2, n - 1, n], rng.integers(1, n + 1, 3))))
        np.testing.assert_array_equal(select_ranks(rows, ranks), np.sort(rows, axis=1)[:, ranks - 1])


def test_bounds_that_miss_fall_back_to_the_whole_row():
    # Every sampled position holds an outlier, so the sample's bounds miss every rank:
    # the fallback still gives the exact values.
    n = 20_000
    rows = np.random.default_rng(3).lognormal(size=(4, n))
    rows[:, :: max(1, n // SAMPLE_SIZE)] = 1e9
    ranks = np.array([7, 200, 5_000, 19_990])
    np.testing.assert_array_equal(select_ranks(rows, ranks), np.sort(rows, axis=1)[:, ranks - 1])
    kernel = compiled(_select_ranks_kernel)
    np.testing.assert_array_equal(kernel(rows, ranks, SAMPLE_SIZE, 0.0), np.sort(rows, axis=1)[:, ranks - 1])


def test_order_statistics_of_long_rows_equal_the_sort_and_strided_input():
    masked = np.random.default_rng(4).normal(size=(5, 30_000, 2))[:, :, 1]  # a column of replicates, strided
    ranks = [1, 300, 3_000, 27_000, 29_700, 30_000]
    stats = order_statistics(masked, ranks)
    expected = np.sort(masked, axis=1)
    for r in ranks:
        np.testing.assert_array_equal(stats[r], expected[:, r - 1])


def test_rows_of_one_masking_share_bounds_and_drifting_rows_still_come_out_exact():
    # Replicates of one masking: from the fourth row on, each rank's interval comes from the rows before.
    # Drifting rows make those shared intervals miss, so the row's own sample (and then the whole row) decides.
    rng = np.random.default_rng(5)
    n = 50_000
    x = rng.lognormal(size=n)
    replicates = x + 0.3 * rng.standard_normal((30, n))
    drifting = replicates + 50.0 * np.arange(30)[:, None]
    drifting[-1, :: max(1, n // SAMPLE_SIZE)] = 1e9  # the last row's sample misses too
    ranks = np.array([2, 500, 25_000, 49_500, 49_999])
    for rows in (replicates, drifting):
        np.testing.assert_array_equal(select_ranks(rows, ranks), np.sort(rows, axis=1)[:, ranks - 1])
