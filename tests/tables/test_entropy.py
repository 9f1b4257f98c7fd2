"""DR = 1 / H(X | Y = y) and 1 / log2 m (rumap/tables/entropy.py), Domingo-Ferrer, Oganian & Torra, Eq 2-3."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from rumap.errors import InputError
from rumap.tables.bounds import suppression_bounds
from rumap.tables.entropy import count_values, entropy_risk, uniform_risk
from rumap.tables.published import paper_table1


def test_uniform_and_entropy_risk():
    assert uniform_risk(407) == pytest.approx(0.11535, abs=1e-5)
    assert uniform_risk(1) == math.inf and uniform_risk(math.inf) == 0.0
    assert entropy_risk(np.ones(407)) == pytest.approx(uniform_risk(407))
    assert entropy_risk([0.5, 0.5]) == pytest.approx(1.0)
    assert entropy_risk([0, 3, 0]) == math.inf
    with pytest.raises(InputError):
        entropy_risk([-1, 2])
    with pytest.raises(InputError):
        uniform_risk(0.5)


@given(st.floats(1.0, 1e9), st.floats(1.0, 1e9))
def test_dr_decreasing_in_m(m1, m2):
    lo, hi = sorted((m1, m2))
    assert uniform_risk(hi) <= uniform_risk(lo)


def test_given_distribution_changes_risk():
    table = paper_table1()
    uniform = suppression_bounds(table)
    flat = suppression_bounds(table, distribution=lambda v: np.ones_like(v))
    np.testing.assert_allclose(flat.risk, uniform.risk)
    peaked = suppression_bounds(table, distribution=lambda v: np.exp(-0.05 * (v - v.mean()) ** 2))
    assert np.all(peaked.risk > uniform.risk)
    with pytest.raises(InputError, match="weights for 407 possible values"):
        suppression_bounds(table, distribution=lambda v: np.ones(3))
    with pytest.raises(InputError, match="distribution must be a function"):
        suppression_bounds(table, distribution=[1, 2])


def test_count_values():
    assert count_values(0, 406).item() == 407
    assert count_values(0.5, 2.5).item() == 2
    assert count_values(-1e-9, 405.9999999).item() == 407


# --- rounding -----------------------------------------------------------------------------------------------------
