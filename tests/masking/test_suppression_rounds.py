"""The rounds of local suppression on classes of records equal the rounds on every record, compared value by value."""

from __future__ import annotations

from itertools import combinations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rumap.masking.categorical import local_suppression
from rumap.masking.suppression_rounds import suppression_rounds
from rumap.risk.cells import cell_frequencies, wildcard_frequencies
from rumap.risk.individual import individual_risk_kernel


def _record_rounds(codes, k, max_risk, weights, rank, depth, members=None, shared=()):
    """The heuristic record by record: every record's frequencies and every combination's cells, each round."""
    codes = codes.copy()
    n, p = codes.shape
    categories = codes.max(axis=0) + 1
    suppressed = np.zeros(codes.shape, dtype=bool)
    threshold = max(k if k is not None else 1, 2)
    rounds = 0
    while True:
        rounds += 1
        fk, Fk = wildcard_frequencies(codes, weights)
        at_risk = np.zeros(n, dtype=bool) if k is None else fk < k
        if max_risk is not None:
            risk = 1.0 / fk if weights is None else individual_risk_kernel(fk, np.maximum(Fk, fk))
            at_risk |= risk > max_risk
        rows = np.flatnonzero(at_risk & (codes >= 0).any(axis=1))
        if rows.size == 0:
            return suppressed, rounds
        counts = np.zeros((rows.size, p))
        for d in range(1, depth + 1):
            for columns in combinations(range(p), d):
                _group, freq, known = cell_frequencies(codes, columns)
                unsafe = known[rows] & (freq[rows] < threshold)
                counts[np.ix_(unsafe, list(columns))] += 1
        counts[codes[rows] < 0] = -np.inf
        choice = np.argmax(counts * 1e6 - rank * 1e3 + categories / (categories.max() + 1.0), axis=1)
        codes[rows, choice] = -1
        suppressed[rows, choice] = True
        for j in shared:
            blanked = np.isin(members, members[suppressed[:, j]]) & ~suppressed[:, j] & (codes[:, j] >= 0)
            codes[blanked, j] = -1
            suppressed[blanked, j] = True


def _codes(seed, n, p, missing):
    rng = np.random.default_rng(seed)
    sizes = rng.integers(2, 6, p)
    codes = np.column_stack([np.minimum(rng.geometric(0.5, n) - 1, s - 1) for s in sizes]).astype(np.int64)
    codes[rng.random(codes.shape) < missing] = -1
    return codes


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10**6), n=st.integers(1, 60), p=st.integers(1, 4), missing=st.sampled_from([0.0, 0.1]),
       k=st.integers(2, 4), depth_less=st.integers(0, 2), weighted=st.booleans(), risky=st.booleans())
def test_rounds_on_classes_equal_the_rounds_on_records(seed, n, p, missing, k, depth_less, weighted, risky):
    codes = _codes(seed, n, p, missing)
    rng = np.random.default_rng(seed + 1)
    weights = rng.uniform(1.0, 30.0, n) if weighted else None
    rank = rng.integers(0, 2, p).astype(float)
    depth = max(1, p - depth_less)
    max_risk = 0.3 if risky else None
    k_target = None if risky and seed % 2 else k
    if k_target is None and max_risk is None:
        k_target = k
    fast, fast_rounds = suppression_rounds(codes, k_target, max_risk, weights, rank, depth)
    slow, slow_rounds = _record_rounds(codes, k_target, max_risk, weights, rank, depth)
    np.testing.assert_array_equal(fast, slow)
    assert fast_rounds == slow_rounds


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 10**6), n=st.integers(1, 40), k=st.integers(2, 4), weighted=st.booleans())
def test_classes_given_with_their_counts_decide_as_their_records(seed, n, k, weighted):
    distinct = np.unique(_codes(seed, n, 3, 0.1), axis=0)
    rng = np.random.default_rng(seed)
    counts = rng.integers(1, 4, distinct.shape[0])
    weights = rng.uniform(1.0, 9.0, counts.sum()) if weighted else None
    records = np.repeat(distinct, counts, axis=0)
    sums = None if weights is None else np.bincount(np.repeat(np.arange(counts.size), counts), weights=weights)
    max_risk = 0.4 if weighted else None
    by_class, class_rounds = suppression_rounds(distinct, k, max_risk, sums, np.zeros(3), 3, counts=counts)
    by_record, record_rounds = suppression_rounds(records, k, max_risk, weights, np.zeros(3), 3)
    np.testing.assert_array_equal(np.repeat(by_class, counts, axis=0), by_record)
    assert class_rounds == record_rounds


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 10**6), n=st.integers(2, 60), k=st.integers(2, 3))
def test_household_variables_spread_as_record_by_record(seed, n, k):
    codes = _codes(seed, n, 3, 0.05)
    members = np.sort(np.random.default_rng(seed).integers(0, max(1, n // 3), n))
    fast, fast_rounds = suppression_rounds(codes, k, None, None, np.zeros(3), 3, members, (0, 2))
    slow, slow_rounds = _record_rounds(codes, k, None, None, np.zeros(3), 3, members, (0, 2))
    np.testing.assert_array_equal(fast, slow)
    assert fast_rounds == slow_rounds


@pytest.fixture(scope="module")
def census_like() -> pd.DataFrame:
    """Two thousand records with a household structure, a skewed key and missing values."""
    rng = np.random.default_rng(7)
    size = 1 + rng.binomial(4, 0.3, 800)
    household = np.repeat(np.arange(size.size), size)[:2000]
    frame = pd.DataFrame({"household": household, "region": rng.integers(0, 6, size.size)[household],
                          "age": np.minimum(rng.gamma(2.0, 9.0, household.size).astype(int), 30),
                          "sex": rng.integers(0, 2, household.size),
                          "education": rng.choice([0.0, 1.0, 2.0, 3.0, np.nan], household.size,
                                                  p=[0.4, 0.3, 0.2, 0.08, 0.02])})
    return frame


def test_local_suppression_of_a_census_like_file_equals_the_record_rounds_and_is_k_anonymous(census_like):
    keys = ["region", "age", "sex", "education"]
    messages: list[str] = []
    result = local_suppression(census_like, keys, k=3, household="household", household_variables=["region"],
                               progress=messages.append)
    codes = np.column_stack([pd.factorize(census_like[key])[0] for key in keys]).astype(np.int64)
    members = census_like["household"].to_numpy()
    slow, rounds = _record_rounds(codes, 3, None, None, np.zeros(4), 4, members, (0,))
    np.testing.assert_array_equal(result.suppressed, slow)
    assert result.rounds == rounds and len(messages) == rounds and messages[-1].endswith("classes)")
    assert "0 records in 0 classes at risk" in messages[-1]
    fk, _ = wildcard_frequencies(np.where(result.suppressed, -1, codes))
    assert fk.min() >= 3 and 0 < result.suppressed.sum() < codes.size


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 10**6), n=st.integers(2, 80), k=st.integers(2, 4), followed=st.integers(1, 6),
       households=st.booleans())
def test_classes_followed_a_few_at_a_time_decide_as_all_at_once(seed, n, k, followed, households):
    """Classes at risk searched in groups, and classes formed in hash parts, in the smallest integer type: the same."""
    codes = _codes(seed, n, 4, 0.1)
    members = np.sort(np.random.default_rng(seed).integers(-1, max(1, n // 3), n)) if households else None
    shared = (0, 2) if households else ()
    counts = np.random.default_rng(seed + 2).integers(1, 3, n)
    whole, whole_rounds = suppression_rounds(codes, k, None, None, np.zeros(4), 4, members, shared, counts=counts)
    parts, part_rounds = suppression_rounds(codes.astype(np.int8), k, None, None, np.zeros(4), 4, members, shared,
                                            counts=counts.astype(np.int32), followed=followed)
    np.testing.assert_array_equal(parts, whole)
    assert part_rounds == whole_rounds
