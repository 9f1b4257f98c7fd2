"""The radix sort's order against numpy's stable argsort."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from rumap.masking.ranks import stable_order


@settings(max_examples=40, deadline=None)
@given(arrays(np.float64, st.integers(0, 300),
              elements=st.floats(allow_nan=False, allow_infinity=True, width=64)
              | st.sampled_from([0.0, -0.0, 1.0, -1.0, 5e-324, -5e-324])))
def test_equals_stable_argsort(values):
    np.testing.assert_array_equal(stable_order(values), np.argsort(values, kind="stable"))


def test_every_digit_pass():
    # spread over the whole range of doubles: no digit is shared, every pass runs
    values = np.random.default_rng(1).integers(0, 2**64 - 1, size=5000, dtype=np.uint64, endpoint=True).view(np.float64)
    values = values[np.isfinite(values)]
    values = np.concatenate([values, values[:100]])  # repeats
    np.testing.assert_array_equal(stable_order(values), np.argsort(values, kind="stable"))
