"""Confidentiality via camouflage: Eq 1-2 hold, every guarantee holds the exact answer, LP = closed forms."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rumap.databases.camouflage import answer_queries, camouflage_vectors, exact_answer, simplex_extreme
from rumap.databases.intervals import implied_ranges
from rumap.databases.queries import parse_queries
from rumap.errors import InputError

EMP = np.array([85.0, 3, 2, 4, 3, 3, 4, 3, 3])  # seed 004's EMP salaries


def test_vectors_reach_the_protection_bounds_eq_1_2():
    cvc = camouflage_vectors(EMP, protection=20, k=4, seed=3)
    assert cvc.vectors.shape == (4, 9)
    np.testing.assert_array_equal(cvc.values, EMP)  # P^k = a
    np.testing.assert_allclose(cvc.lower, EMP * 0.8)
    np.testing.assert_allclose(cvc.upper, EMP * 1.2)
    assert (cvc.low <= cvc.lower + 1e-12).all() and (cvc.high >= cvc.upper - 1e-12).all()
    assert set(cvc.to_frame().columns) >= {"record", "value", "P1", "P4", "l", "u", "p_min", "p_max"}


def test_k_below_three_and_bad_widths_are_refused():
    for kwargs in ({"k": 2}, {"protection": 0.0}, {"protection": -5.0}, {"protection": float("nan")}):
        with pytest.raises(InputError):
            camouflage_vectors(EMP, **kwargs)


def test_seed_example_answers():
    cvc = camouflage_vectors(EMP, protection=10, k=3, seed=1)
    answers = answer_queries(cvc, ["SUM:*", "MAX:*", "MIN:*", "COUNT:1-4", "SUM:4-9"])
    frame = answers.to_frame()
    assert frame.loc[0, "exact"] == 110.0
    assert frame.loc[1, "high"] == pytest.approx(93.5)  # the largest salary reaches u_1 = 85 * 1.1
    assert frame.loc[1, "low"] <= 85.0 <= frame.loc[1, "high"]
    assert (frame.loc[3, "answer"], frame.loc[3, "guarantee"]) == (4.0, 0.0)  # COUNT without condition: |T|
    # the sum over 6 records of the mixed vectors cancels: its guarantee is below the sum of half-widths (2.0)
    assert frame.loc[4, "guarantee"] < 0.1 * 20
    assert answers.to_dict()["answers"][0]["query"] == "SUM:1-9"


def _lp_linear(points: np.ndarray, scale: float) -> tuple[float, float]:
    """min and max of sum over the simplex by LP (scipy), the second computation of the closed form."""
    from scipy.optimize import linprog

    k = points.shape[0]
    c = points.sum(axis=1) / scale
    low = linprog(c, A_eq=np.ones((1, k)), b_eq=[1.0], bounds=[(0, None)] * k, method="highs")
    high = linprog(-c, A_eq=np.ones((1, k)), b_eq=[1.0], bounds=[(0, None)] * k, method="highs")
    return low.fun, -high.fun


def test_closed_forms_equal_the_lp_of_eq_3_4():
    cvc = camouflage_vectors(np.arange(1.0, 13.0), protection=30, k=5, seed=7)
    for text in ("SUM:1-6", "MEAN:2,5,9,12", "SUM:*"):
        q = parse_queries([text], 12)[0]
        answers = answer_queries(cvc, [q])
        lo, hi = _lp_linear(cvc.vectors[:, q.index], len(q.records) if q.kind == "MEAN" else 1.0)
        assert answers.low[0] == pytest.approx(lo) and answers.high[0] == pytest.approx(hi)


def test_min_max_lp_against_a_dense_grid_of_the_simplex():
    rng = np.random.default_rng(5)
    points = rng.uniform(0, 10, size=(3, 4))
    best_min, best_max = -np.inf, np.inf
    for a, b in itertools.product(np.linspace(0, 1, 201), repeat=2):
        if a + b <= 1:
            x = np.array([a, b, 1 - a - b]) @ points
            best_min, best_max = max(best_min, x.min()), min(best_max, x.max())
    assert simplex_extreme(points, maximize=True) == pytest.approx(best_min, abs=0.1)
    assert simplex_extreme(points, maximize=True) >= best_min - 1e-9
    assert simplex_extreme(points, maximize=False) == pytest.approx(best_max, abs=0.1)
    assert simplex_extreme(points, maximize=False) <= best_max + 1e-9


@settings(max_examples=60, deadline=None)
@given(values=st.lists(st.floats(-1e4, 1e4, allow_nan=False), min_size=2, max_size=12),
       protection=st.floats(0.5, 100), k=st.integers(3, 6), seed=st.integers(0, 2**16),
       picks=st.lists(st.tuples(st.sampled_from(["SUM", "MEAN", "MIN", "MAX", "COUNT>0", "COUNT<=5", "COUNT"]),
                                st.lists(st.integers(0, 11), min_size=1, max_size=12)), min_size=1, max_size=8))
def test_the_guarantee_always_holds_the_exact_answer(values, protection, k, seed, picks):
    n = len(values)
    queries = [f"{kind}:{','.join(str(i % n + 1) for i in records)}" for kind, records in picks]
    cvc = camouflage_vectors(values, protection=protection, k=k, seed=seed)
    answers = answer_queries(cvc, queries)
    tol = 1e-7 * (1 + np.abs(answers.exact))
    assert (answers.answer - answers.guarantee <= answers.exact + tol).all()
    assert (answers.exact <= answers.answer + answers.guarantee + tol).all()
    assert (answers.guarantee >= 0).all()


@settings(max_examples=30, deadline=None)
@given(values=st.lists(st.floats(1, 1e4), min_size=2, max_size=8), protection=st.floats(1, 60),
       seed=st.integers(0, 2**16), sets=st.lists(st.sets(st.integers(0, 7), min_size=1), min_size=1, max_size=8))
def test_no_answers_narrow_a_record_inside_its_protection_bounds(values, protection, seed, sets):
    n = len(values)
    queries = parse_queries([f"SUM:{','.join(str(i % n + 1) for i in s)}" for s in sets], n)
    cvc = camouflage_vectors(values, protection=protection, seed=seed)
    answers = answer_queries(cvc, queries)
    mins, maxs = implied_ranges(queries, answers.low, answers.high, n)
    scale = 1e-6 * max(values)
    assert (mins <= cvc.lower + scale).all() and (maxs >= cvc.upper - scale).all()


def test_exact_answers():
    values = np.array([1.0, 5.0, 7.0])
    expected = {"SUM:*": 13.0, "MEAN:1,2": 3.0, "MIN:2,3": 5.0, "MAX:*": 7.0, "COUNT>4:*": 2.0, "COUNT<5:*": 1.0}
    for text, value in expected.items():
        assert exact_answer(values, parse_queries([text], 3)[0]) == value


def test_answer_with_camouflage_is_the_vectors_then_the_answers():
    from rumap.databases.camouflage import answer_with_camouflage

    values = [85.0, 3, 2, 4, 3, 3, 4, 3, 3]
    queries = ["SUM:1-3", "MEAN:4-6", "MIN:1-9", "MAX:2-9", "COUNT>3:1-9"]
    released = answer_with_camouflage(values, queries, protection=20.0, k=4, seed=7)
    vectors = camouflage_vectors(values, protection=20.0, k=4, seed=7)
    np.testing.assert_array_equal(released.vectors.vectors, vectors.vectors)
    np.testing.assert_equal(released.to_dict(), {**answer_queries(vectors, queries).to_dict(),
                                                 "vectors": vectors.to_dict()})
    with pytest.raises(InputError, match="k"):
        answer_with_camouflage(values, queries, k=2)
