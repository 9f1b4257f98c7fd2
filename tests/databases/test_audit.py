"""Query auditing: exact and interval disclosure refused with their culprits; the seed's EMP example."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rumap.databases.audit import audit_queries, dominated, emp_salaries
from rumap.errors import InputError


def test_the_classic_exact_disclosure_sequence_is_refused():
    log = audit_queries([10.0, 20.0, 30.0], ["SUM:1,2,3", "SUM:1,2"], protection=0)
    first, second = log.decisions
    assert first.answered and first.answer == 60.0
    assert not second.answered and second.reason == "exact disclosure"
    assert second.record == 3 and second.culprits == (1,)
    assert "record 3 = q1 - this query" in second.explanation


def test_a_single_record_query_is_exact_disclosure():
    log = audit_queries([10.0, 20.0, 30.0], ["SUM:2"], protection=0)
    assert log.decisions[0].reason == "exact disclosure" and log.decisions[0].culprits == ()


def test_seed_emp_example_with_the_dominance_rule():
    """Seed 004: q1, q2 answered; q3 (the total) makes the Management sum 90 known, dominated by record 1;
    q4 is sensitive by the (2, 85%) rule on its own."""
    log = audit_queries(emp_salaries(), ["SUM:4-6", "SUM:7-9", "SUM:*", "SUM:1-3"], protection=0,
                        dominance_n=2, dominance_k=0.85)
    reasons = [d.reason for d in log.decisions]
    assert reasons == ["safe", "safe", "sensitive inferred sum", "sensitive"]
    assert log.decisions[2].culprits == (1, 2)
    assert "{1, 2, 3}" in log.decisions[2].explanation and "(90)" in log.decisions[2].explanation
    assert [d.answer for d in log.decisions[:2]] == [10.0, 10.0]


def test_seed_emp_example_with_a_protection_interval():
    """Non-negative salaries: after q1, q2, q3 record 1 lies in [0, 90], short of 85 + 10% = 93.5."""
    log = audit_queries(emp_salaries(), ["SUM:4-6", "SUM:7-9", "SUM:*"], protection=10)
    third = log.decisions[2]
    assert third.reason == "interval disclosure" and third.record == 1
    assert third.interval == pytest.approx((0.0, 90.0)) and third.culprits == (1, 2)
    # with 5% protection [80.75, 89.25] fits inside [0, 90]: answered
    assert audit_queries(emp_salaries(), ["SUM:4-6", "SUM:7-9", "SUM:*"], protection=5).decisions[2].answered


def test_hand_checked_mean_and_count():
    # MEAN:1,2 = 15 gives x1 + x2 = 30; with SUM:1-3 = 60, x3 = 30 is exact
    log = audit_queries([10.0, 20.0, 30.0], ["MEAN:1,2", "COUNT:1", "SUM:1-3"], protection=0)
    assert [d.answered for d in log.decisions] == [True, True, False]
    assert log.decisions[0].answer == 15.0 and log.decisions[1].answer == 1.0
    assert log.decisions[2].record == 3


def test_threshold_rule_and_unsupported_queries():
    log = audit_queries([1.0, 2.0, 3.0, 4.0], ["COUNT:1,2", "SUM:1-3"], protection=0, threshold=3)
    assert [d.reason for d in log.decisions] == ["sensitive", "safe"]
    for bad in (["MAX:1,2"], ["COUNT>2:1,2"]):
        with pytest.raises(InputError):
            audit_queries([1.0, 2.0, 3.0], bad)
    with pytest.raises(InputError):
        audit_queries([1.0, -2.0, 3.0], ["SUM:1,2"])  # below the known lower bound 0
    with pytest.raises(InputError):
        audit_queries([1.0, 2.0, 3.0], ["SUM:1,2"], dominance_n=2)


def test_implied_ranges_after_the_answers():
    log = audit_queries([10.0, 20.0, 30.0, 40.0], ["SUM:1-4", "SUM:1,2"], protection=0)
    assert log.low.tolist() == [0.0, 0.0, 0.0, 0.0]
    assert log.high.tolist() == pytest.approx([30.0, 30.0, 70.0, 70.0])
    assert log.to_dict()["answered"] == 2


def test_dominance_rule():
    assert dominated([85.0, 3.0, 2.0], 2, 0.85) and not dominated([4.0, 3.0, 3.0], 2, 0.85)


def _brute_force_ranges(values, sets, answered, width):
    """Second computation: the LP ranges from scratch over the answered queries (scipy, no auditor)."""
    from scipy.optimize import linprog

    n = len(values)
    rows = np.array([[1.0 if i in sets[j] else 0.0 for i in range(n)] for j in answered])
    rhs = rows @ values
    out = []
    for i in range(n):
        c = np.zeros(n)
        c[i] = 1
        lo = linprog(c, A_eq=rows, b_eq=rhs, bounds=[(0, None)] * n, method="highs")
        hi = linprog(-c, A_eq=rows, b_eq=rhs, bounds=[(0, None)] * n, method="highs")
        out.append((lo.fun, -hi.fun if hi.status == 0 else np.inf))
    return out


@settings(max_examples=40, deadline=None)
@given(values=st.lists(st.integers(1, 100).map(float), min_size=2, max_size=6), protection=st.sampled_from([0, 5, 20, 50]),
       sets=st.lists(st.sets(st.integers(0, 5), min_size=1), min_size=1, max_size=8))
def test_no_answered_sequence_pins_a_value_within_its_protection_interval(values, protection, sets):
    n = len(values)
    sets = [sorted({i % n for i in s}) for s in sets]
    queries = [f"SUM:{','.join(str(i + 1) for i in s)}" for s in sets]
    log = audit_queries(values, queries, protection=protection)
    answered = [j for j, d in enumerate(log.decisions) if d.answered]
    if not answered:
        return
    a = np.array(values)
    width = protection / 100 * a
    for i, (lo, hi) in enumerate(_brute_force_ranges(a, sets, answered, width)):
        assert hi - lo > 1e-6
        assert lo <= a[i] - width[i] + 1e-6 and hi >= a[i] + width[i] - 1e-6
    for d in log.decisions:  # every refusal's culprits are earlier answered queries
        assert set(d.culprits) <= {j + 1 for j in answered if j + 1 < d.number}


def test_refusal_is_needed_the_culprits_alone_with_the_query_disclose():
    values = np.array([5.0, 7.0, 11.0, 13.0])
    sets = [(1, 2), (3, 4), (1, 3), (2, 4), (1,)]
    for protection in (0, 30):
        log = audit_queries(values, [f"SUM:{','.join(map(str, s))}" for s in sets], protection=protection)
        for d in log.decisions:
            if d.answered or d.reason == "sensitive":
                continue
            subset = [f"SUM:{','.join(map(str, sets[c - 1]))}" for c in d.culprits]
            again = audit_queries(values, [*subset, d.query], protection=protection)
            assert not again.decisions[-1].answered  # the culprits suffice
            for drop in itertools.combinations(subset, len(subset) - 1) if subset else ():
                assert audit_queries(values, [*drop, d.query], protection=protection).decisions[-1].answered


@settings(max_examples=40, deadline=None)
@given(values=st.lists(st.integers(1, 50).map(float), min_size=2, max_size=6), protection=st.sampled_from([5, 25, 60]),
       sets=st.lists(st.sets(st.integers(0, 5), min_size=1), min_size=1, max_size=7))
def test_decisions_equal_a_brute_force_auditor(values, protection, sets):
    """Second computation of every decision: LP ranges from scratch over the answered queries plus the new one."""
    n = len(values)
    sets = [sorted({i % n for i in s}) for s in sets]
    a = np.array(values)
    width = protection / 100 * a
    log = audit_queries(values, [f"SUM:{','.join(str(i + 1) for i in s)}" for s in sets], protection=protection)
    answered: list[int] = []
    for j, decision in enumerate(log.decisions):
        ranges = _brute_force_ranges(a, sets, [*answered, j], width)
        unsafe = any(hi - lo <= 1e-6 or lo > a[i] - width[i] + 1e-6 or hi < a[i] + width[i] - 1e-6
                     for i, (lo, hi) in enumerate(ranges))
        assert decision.answered == (not unsafe), (j, decision.explanation, ranges)
        if decision.answered:
            answered.append(j)


def test_a_long_query_sequence_is_refused_before_any_linear_program(monkeypatch):
    import rumap.databases.audit as audit

    def no_work(*args, **kwargs):
        raise AssertionError("the audit started")

    monkeypatch.setattr(audit, "_Auditor", no_work)
    values = np.arange(1.0, 21.0)
    queries = [f"SUM:{i % 20 + 1},{(i + 3) % 20 + 1},{(i + 7) % 20 + 1}" for i in range(500)]
    with pytest.raises(InputError, match="500 queries over 20 records: about 2e\\+04 linear programs"):
        audit.audit_queries(values, queries)
