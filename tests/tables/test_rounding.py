"""Rounding to base b and the rounding R-U map (rumap/tables/rounding.py), Section 4.2."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from table_helpers import TABLE1_COMPLETE

from rumap.errors import InputError
from rumap.result import RUMap
from rumap.tables.published import paper_table1
from rumap.tables.rounding import round_table, rounding_risk, rounding_ru_map


@pytest.mark.parametrize("base", [2, 3, 4, 5, 10, 25])
def test_rounding_interior_risk_is_one_over_log2_b(base):
    cells = np.array([[37, 120, 64], [250, 99, 1001]], dtype=float)
    result = rounding_risk(cells, base)
    assert np.all(result.rounded % base == 0)
    assert np.all((result.min <= cells) & (cells <= result.max))
    assert result.values.tolist() == [[base] * 3] * 2
    assert result.risk == pytest.approx(np.full((2, 3), 1 / math.log2(base)))
    assert result.mse == pytest.approx(np.mean((result.rounded - cells) ** 2))


@given(st.integers(0, 300), st.integers(1, 40))
def test_rounding_interval_is_the_preimage(x, base):
    """Every integer that rounds to the same value lies in [min, max], and m counts exactly them."""
    result = rounding_risk(np.array([float(x)]), base)
    rounded = result.rounded[0]
    preimage = [v for v in range(0, x + 2 * base) if round_table(np.array([float(v)]), base)[0] == rounded]
    assert result.min[0] == min(preimage) and result.max[0] == max(preimage)
    assert result.values[0] == len(preimage)


def test_rounding_zero_cells_use_nonnegativity():
    result = rounding_risk(np.array([0.0, 1.0, 2.0]), 5)
    assert result.values.tolist() == [3, 3, 3]  # [0, 2.5): 0, 1, 2
    assert rounding_risk(np.array([0.0]), 5, nonnegative=False).values.tolist() == [5]
    with pytest.raises(InputError, match="multiple of the resolution"):
        rounding_risk(np.array([1.0]), 2.5)
    with pytest.raises(InputError, match="suppressed"):
        rounding_risk(paper_table1(), 5)


def test_rounding_ru_map():
    cells = TABLE1_COMPLETE
    bases = [1, 5, 10, 50, 100, 500]
    ru = rounding_ru_map(cells, bases, statistic="mean")
    assert isinstance(ru, RUMap) and ru.parameter == "b" and ru.method == "rounding" and ru.target == "mean"
    assert ru.risk[0] == math.inf and ru.utility[0] == math.inf  # b = 1 publishes the table
    for b, risk, utility in zip(bases[1:], ru.risk[1:], ru.utility[1:], strict=True):
        rr = rounding_risk(cells, b)
        assert risk == pytest.approx(rr.mean_risk)
        assert utility == pytest.approx(1 / np.mean((rr.rounded - cells) ** 2))
    assert np.all(np.diff(ru.risk[1:]) < 0)  # coarser rounding, less risk
    top = rounding_ru_map(cells, bases, statistic="max")
    assert np.all(top.risk >= ru.risk)
    assert RUMap.from_dict(top.to_dict()).values.tolist() == bases
    with pytest.raises(InputError, match="statistic must be one of max, mean"):
        rounding_ru_map(cells, bases, statistic="median")


# --- table redesign -----------------------------------------------------------------------------------------------
