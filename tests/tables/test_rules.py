"""Sensitivity rules (rumap/tables/rules.py): threshold, (n,k)-dominance, p% and pq, cell by cell."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rumap.errors import InputError
from rumap.tables.rules import Contributions, apply_rule, example_contributions

EXAMPLE1_CELLS = ["A", "A", "A", "B", "B", "B"]
EXAMPLE1_VALUES = [59, 40, 1, 61, 20, 19]


def test_example1_dominance_verdicts():
    """Domingo-Ferrer & Torra (2004), Example 1: n = 1, k = 60%: (59, 40, 1) passes, (61, 20, 19) is sensitive."""
    result = apply_rule(EXAMPLE1_CELLS, EXAMPLE1_VALUES, "dominance", n=1, k=0.6)
    assert result.cells == ("A", "B")
    assert result.sensitive.tolist() == [False, True]
    assert result.statistic == pytest.approx([0.59, 0.61])
    assert "59%" in result.reasons[0] and "< k = 60%" in result.reasons[0]
    assert ">= k = 60%" in result.reasons[1]
    assert result.sensitive_cells == ["B"]


def test_p_percent_rule_sees_what_dominance_misses():
    """The p% rule flags (59, 40, 1), where the second contributor bounds the first within 1.7%."""
    result = apply_rule(EXAMPLE1_CELLS, EXAMPLE1_VALUES, "p-percent", p=10)
    assert result.sensitive.tolist() == [True, False]
    assert result.statistic == pytest.approx([1 / 59, 19 / 61])
    assert "1.695%" in result.reasons[0]


def test_pq_rule_with_q_100_is_the_p_percent_rule():
    values = np.random.default_rng(1).gamma(0.7, 10, 300)
    cells = np.random.default_rng(2).integers(0, 40, 300).astype(str)
    pq = apply_rule(cells, values, "pq", p=15, q=100)
    pp = apply_rule(cells, values, "p-percent", p=15)
    np.testing.assert_array_equal(pq.sensitive, pp.sensitive)
    np.testing.assert_allclose(pq.statistic, pp.statistic)


def test_pq_rule_by_hand():
    # remainder after the two largest: 5 + 4 = 9; largest 60; 9/60 = 0.15
    cells, values = ["c"] * 4, [60, 31, 5, 4]
    assert apply_rule(cells, values, "pq", p=10, q=50).sensitive[0]  # 0.15 < 0.2
    assert not apply_rule(cells, values, "pq", p=10, q=80).sensitive[0]  # 0.15 >= 0.125


def test_threshold_rule_counts_contributors():
    result = apply_rule(["a", "a", "b", "c", "c", "c"], [1, 2, 3, 4, 5, 6], "threshold", threshold=3)
    assert result.contributors.tolist() == [2, 1, 3]
    assert result.sensitive.tolist() == [True, True, False]
    assert result.reasons[1] == "1 contributor (< threshold 3)"


def test_dominance_cell_with_n_or_fewer_contributors_is_sensitive():
    result = apply_rule(["a", "a", "b"], [50, 50, 10], "dominance", n=2, k=0.99)
    assert result.sensitive.all()


def test_single_contributor_is_sensitive_under_p_percent():
    result = apply_rule(["solo"], [42.0], "p-percent", p=1)
    assert result.sensitive[0] and "single contributor" in result.reasons[0]


def test_frame_and_dict_outputs():
    result = apply_rule(example_contributions(), rule="dominance", n=2, k=0.8)
    frame = result.to_frame()
    assert list(frame.columns) == ["cell", "total", "contributors", "largest", "second", "statistic", "limit",
                                   "sensitive", "reason"]
    assert frame["total"].tolist() == [100.0] * 5
    out = result.to_dict()
    assert out["rule"] == "dominance" and out["parameters"] == {"n": 2, "k": 0.8}
    assert out["sensitive_cells"] == result.sensitive_cells
    assert len(out["cells"]) == 5


def test_contributions_refuse_negative_values_and_missing_labels():
    with pytest.raises(InputError, match="negative"):
        Contributions(np.array(["a"]), np.array([-1.0]))
    with pytest.raises(InputError, match="no cell label"):
        Contributions(np.array(["a", None], dtype=object), np.array([1.0, 2.0]))


@pytest.mark.parametrize("rule, params, fragment", [
    ("median", {}, "rule must be one of"),
    ("dominance", {"n": 1}, "needs k"),
    ("dominance", {"n": 1, "k": 0.6, "p": 10}, "takes n, k, not p"),
    ("dominance", {"n": 0, "k": 0.6}, "n must be an integer >= 1"),
    ("dominance", {"n": 1, "k": 1.5}, "k must be a number in (0, 1]"),
    ("p-percent", {"p": 0}, "p must be a number in (0, 100]"),
    ("pq", {"p": 20, "q": 10}, "needs p < q"),
    ("threshold", {"threshold": 2.5}, "threshold must be an integer >= 1"),
])
def test_bad_parameters_name_the_problem(rule, params, fragment):
    with pytest.raises(InputError) as info:
        apply_rule(EXAMPLE1_CELLS, EXAMPLE1_VALUES, rule, **params)
    assert fragment in str(info.value)


# --- properties -------------------------------------------------------------------------------------------------

contributions_strategy = st.lists(
    st.tuples(st.integers(0, 5), st.integers(0, 1000)), min_size=1, max_size=40)


def _arrays(pairs):
    cells = np.array([f"c{c}" for c, _ in pairs], dtype=object)
    values = np.array([v for _, v in pairs], dtype=float)
    return cells, values


def _naive(cells, values, n):
    """Per-cell totals, counts, top-n sums with Python loops: the reference."""
    out = {}
    for cell in sorted(set(cells)):
        v = sorted(values[cells == cell], reverse=True)
        out[cell] = (sum(v), len(v), sum(v[:n]), v[0], v[1] if len(v) > 1 else 0.0)
    return out


@settings(max_examples=60, deadline=None)
@given(contributions_strategy, st.integers(1, 4))
def test_vectorized_grouping_matches_loops(pairs, n):
    cells, values = _arrays(pairs)
    result = apply_rule(cells, values, "dominance", n=n, k=0.5)
    naive = _naive(cells, values, n)
    assert list(result.cells) == list(naive)
    for i, cell in enumerate(result.cells):
        total, count, top, first, second = naive[cell]
        assert result.total[i] == pytest.approx(total)
        assert result.contributors[i] == count
        assert result.largest[i] == first and result.second[i] == second
        assert result.sensitive[i] == (top >= 0.5 * total)


@settings(max_examples=60, deadline=None)
@given(contributions_strategy, st.floats(0.05, 1.0), st.floats(0.05, 1.0), st.integers(1, 3))
def test_dominance_monotone_in_k_and_n(pairs, k1, k2, n):
    cells, values = _arrays(pairs)
    lo, hi = sorted((k1, k2))
    at_lo = apply_rule(cells, values, "dominance", n=n, k=lo).sensitive
    at_hi = apply_rule(cells, values, "dominance", n=n, k=hi).sensitive
    assert np.all(at_hi <= at_lo)  # a larger k flags no new cell
    more = apply_rule(cells, values, "dominance", n=n + 1, k=lo).sensitive
    assert np.all(at_lo <= more)  # a larger n flags no fewer


@settings(max_examples=60, deadline=None)
@given(contributions_strategy, st.floats(0.5, 50), st.floats(0.5, 50))
def test_p_percent_monotone_in_p(pairs, p1, p2):
    cells, values = _arrays(pairs)
    lo, hi = sorted((p1, p2))
    assert np.all(apply_rule(cells, values, "p-percent", p=lo).sensitive
                  <= apply_rule(cells, values, "p-percent", p=hi).sensitive)


@settings(max_examples=60, deadline=None)
@given(contributions_strategy, st.floats(51, 100), st.floats(51, 100))
def test_pq_monotone_in_q(pairs, q1, q2):
    cells, values = _arrays(pairs)
    lo, hi = sorted((q1, q2))
    assert np.all(apply_rule(cells, values, "pq", p=20, q=hi).sensitive
                  <= apply_rule(cells, values, "pq", p=20, q=lo).sensitive)


@settings(max_examples=60, deadline=None)
@given(contributions_strategy, st.integers(1, 10), st.integers(1, 10))
def test_threshold_monotone(pairs, t1, t2):
    cells, values = _arrays(pairs)
    lo, hi = sorted((t1, t2))
    assert np.all(apply_rule(cells, values, "threshold", threshold=lo).sensitive
                  <= apply_rule(cells, values, "threshold", threshold=hi).sensitive)


@settings(max_examples=40, deadline=None)
@given(contributions_strategy, st.randoms(use_true_random=False))
def test_order_of_contributions_does_not_matter(pairs, rnd):
    cells, values = _arrays(pairs)
    perm = list(range(len(pairs)))
    rnd.shuffle(perm)
    a = apply_rule(cells, values, "p-percent", p=10)
    b = apply_rule(cells[perm], values[perm], "p-percent", p=10)
    np.testing.assert_array_equal(a.sensitive, b.sensitive)
    np.testing.assert_allclose(a.statistic, b.statistic)


def test_cells_named_by_numbers_come_in_numeric_order():
    cells = ["10", "2", "1", "10", "2", "1", "B7", "B10"]
    result = apply_rule(cells, [5.0, 7.0, 9.0, 1.0, 3.0, 2.0, 4.0, 6.0], rule="threshold", threshold=2)
    assert result.cells == ("1", "2", "10", "B7", "B10")
    frame = pd.DataFrame({"cell": cells, "value": [5.0, 7.0, 9.0, 1.0, 3.0, 2.0, 4.0, 6.0]})
    totals = frame.groupby("cell")["value"].sum()
    assert [totals[c] for c in result.cells] == result.to_frame()["total"].tolist()
