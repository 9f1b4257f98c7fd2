"""Numbers for readers: tables never show different values as equal."""

from __future__ import annotations

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from rumap.present.numbers import distinct_digits, format_numbers


def test_the_issues_case_tiny_utilities_read_apart():
    values = [8.12e-07, 8.14e-07, 8.9e-07]
    assert format_numbers(values) == ["8.12e-07", "8.14e-07", "8.9e-07"]
    assert distinct_digits([0.995012, 0.995018]) == 5
    assert distinct_digits([1.0, 1.0, 2.0]) == 3  # equal values may read equal


@given(st.lists(st.floats(min_value=-1e12, max_value=1e12, allow_nan=False, allow_infinity=False)
                .filter(lambda v: v == 0 or abs(v) > 1e-300), min_size=1, max_size=30))
def test_different_values_never_read_equal(values):
    shown = format_numbers(values)
    for a, b, sa, sb in zip(values, values[1:], shown, shown[1:], strict=False):
        if sa == sb:
            assert a == b or float(np.float64(f"{a:.15g}")) == float(np.float64(f"{b:.15g}"))
    assert len(set(shown)) == len(set(f"{v:.15g}" for v in values))
