"""The Modified Ward's Algorithm (rumap/masking/microaggregation/mwa.py): group sizes k .. 2k-1, less loss."""

from __future__ import annotations

import numpy as np
import pytest

from rumap.masking.microaggregation import microaggregate


@pytest.mark.parametrize("k", [2, 3, 5, 7])
@pytest.mark.parametrize("p", [1, 3])
def test_mwa_group_sizes_between_k_and_2k_minus_1(k, p):
    x = np.random.default_rng(k * 10 + p).lognormal(size=(151, p))
    result = microaggregate(x, k, "mwa")
    assert result.group_sizes.min() >= k
    assert result.group_sizes.max() <= 2 * k - 1


def test_mwa_on_census_beats_fixed_size_and_keeps_sizes(census):
    mwa = microaggregate(census, 4, "mwa", standardize=True)
    fixed = microaggregate(census, 4, "fixed", standardize=True)
    assert 4 <= mwa.group_sizes.min() and mwa.group_sizes.max() <= 7
    assert mwa.information_loss < fixed.information_loss
