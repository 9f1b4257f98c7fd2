"""The dominance rule's flaw (rumap/tables/dominance.py): Domingo-Ferrer & Torra (2004), Section 3.2."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from rumap.errors import InputError
from rumap.tables.dominance import (
    coalition_bound,
    dominance_flaw,
    example1,
    lemma1_fraction,
    lemma1_ratio,
    relative_contributions,
    theorem1_scan,
)

K_AT_09 = (0.9 - 1) / (0.9**3 - 1)  # f(0.9) for n = 1, N = 3: 0.369004 (the paper rounds it to 0.369)


def test_example2_published_tails():
    """Example 2: n = 1, k = 0.369, N = 3: r = 0.9; tails 0.298893 (X_ns) and 0.315498 (X_s)."""
    flaw = dominance_flaw(1, 0.369, 3)
    assert flaw.r == pytest.approx(0.9, abs=2e-5)
    assert flaw.nonsensitive_tail == pytest.approx(0.298893, abs=5e-6)
    assert flaw.sensitive_tail == pytest.approx(0.315498, abs=5e-6)
    assert flaw.theorem_holds
    assert not flaw.nonsensitive_dominance and flaw.sensitive_dominance


def test_example2_exact_at_r_09():
    """With k = f(0.9) exactly the published six digits are reproduced."""
    flaw = dominance_flaw(1, K_AT_09, 3)
    assert flaw.r == pytest.approx(0.9, abs=1e-12)
    assert round(flaw.nonsensitive_tail, 6) == 0.298893
    assert round(flaw.sensitive_tail, 6) == 0.315498
    assert flaw.sensitive[0] == pytest.approx(0.369, abs=1e-5)  # "the largest relative contribution is 0.369"


def test_example1_bounds_60_and_80():
    """Example 1: the second largest contributor bounds the largest at 60 (non-sensitive) and 80 (sensitive)."""
    ex = example1()
    ns, s = ex.nonsensitive_cell, ex.sensitive_cell
    assert (ns.sensitive, s.sensitive) == (False, True)
    assert (ns.upper_bound, s.upper_bound) == (60.0, 80.0)
    assert (ns.gap, s.gap) == (1.0, 19.0)
    assert ex.flawed
    assert ex.to_frame()["contributions"].tolist() == ["59, 40, 1", "61, 20, 19"]
    assert ex.to_dict()["flawed"] is True


def test_coalition_bound_of_two():
    b = coalition_bound([10, 50, 30, 5, 5], n=2, k=0.7)
    assert b.upper_bound == 60.0 and b.gap == 10.0 and b.largest == 50.0
    assert b.sensitive  # 50 + 30 = 80 >= 70


@settings(max_examples=80, deadline=None)
@given(st.integers(1, 6), st.integers(2, 60), st.floats(0.01, 0.99))
def test_lemma1_root(n, cells, k):
    assume(cells > n and k > n / cells + 1e-6)
    r = lemma1_ratio(n, k, cells)
    assert 0 < r < 1
    assert (r**n - 1) / (r**cells - 1) == pytest.approx(k, rel=1e-9)
    assert lemma1_fraction(r, n, cells) == pytest.approx(k, rel=1e-12)


@settings(max_examples=80, deadline=None)
@given(st.integers(1, 6), st.integers(2, 60), st.floats(0.01, 0.99))
def test_constructions(n, cells, k):
    assume(cells > n and k > n / cells + 1e-6)
    f = dominance_flaw(n, k, cells)
    r = f.r
    R = relative_contributions(r, cells)
    eq3 = r ** np.arange(1, cells + 1) * (r - 1) / (r ** (cells + 1) - r)
    np.testing.assert_allclose(R, eq3, rtol=1e-9)  # Eq 3
    assert R[:n].sum() == pytest.approx(k, rel=1e-9)  # Eq 2
    assert f.nonsensitive.sum() == pytest.approx(1.0) and f.sensitive.sum() == pytest.approx(1.0)
    assert np.all(np.diff(f.nonsensitive) < 0)  # x_n > x_(n+1) still (epsilon = a third of the gap)
    assert f.nonsensitive[:n].sum() == pytest.approx(k - f.epsilon, rel=1e-9)
    assert f.sensitive[:n].sum() == pytest.approx(k, rel=1e-9)
    assert not f.nonsensitive_dominance and f.sensitive_dominance
    # the tails in closed form, Eq A.2 and A.3
    a2 = (1 - k) - k * r**n * (r - 1) / (r**n - 1)
    a3 = (1 - k) * (cells - n - 1) / (cells - n)
    assert f.nonsensitive_tail == pytest.approx(a2, abs=1e-9)
    assert f.sensitive_tail == pytest.approx(a3, abs=1e-9)
    assert f.nonsensitive_bound == pytest.approx(f.nonsensitive[0] + f.nonsensitive_tail)


@pytest.mark.parametrize("n, k", [(1, 0.6), (2, 0.7), (3, 0.8), (5, 0.9), (1, 0.95)])
def test_theorem1_for_large_n(n, k):
    """Theorem 1: for N large, X_ns gives the closer bound; the tails tend to r(1 - k) and 1 - k."""
    scan = theorem1_scan(n, k, [n + 1, n + 2, 50, 400, 3000])
    assert scan.holds[-3:].all()
    assert scan.nonsensitive_tail[-1] == pytest.approx(scan.limit_nonsensitive, abs=1e-3)
    assert scan.sensitive_tail[-1] == pytest.approx(scan.limit_sensitive, abs=1e-3)
    assert scan.limit_nonsensitive < scan.limit_sensitive
    assert scan.smallest_cells is not None and scan.smallest_cells <= 50
    assert set(scan.to_frame().columns) == {"cells", "r", "nonsensitive_tail", "sensitive_tail", "theorem_holds"}


def test_theorem1_scan_drops_n_without_root():
    scan = theorem1_scan(2, 0.5, [3, 4, 5, 6])
    assert scan.cells.tolist() == [5, 6]  # 2/4 = 0.5 is not below k


def test_to_dict_has_contract_keys():
    out = dominance_flaw(2, 0.7, 10).to_dict()
    assert {"r", "nonsensitive_tail", "sensitive_tail", "theorem_holds", "nonsensitive", "sensitive"} <= set(out)
    assert len(out["nonsensitive"]) == 10


@pytest.mark.parametrize("args, fragment", [
    ((1, 0.3, 3), "must exceed n/N"),
    ((3, 0.9, 3), "cells (N = 3) must exceed n = 3"),
    ((1, 1.0, 3), "below 1"),
    ((0, 0.5, 3), "n must be an integer >= 1"),
    ((1, 0.5, 1), "cells must be an integer in [2, 100000]"),
])
def test_bad_inputs(args, fragment):
    with pytest.raises(InputError) as info:
        dominance_flaw(*args)
    assert fragment in str(info.value)
