"""The Pareto frontier and the best point under a risk bound, checked against brute force."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rumap.errors import InputError
from rumap.maps.analytic import analytic_map
from rumap.maps.optimum import max_tolerable_risk
from rumap.maps.pareto import best_under_risk, map_points, pareto_frontier
from rumap.maps.setting import AnalyticSetting
from rumap.result import RUMap


def _map(values, risk, utility, method="noise", **kw) -> RUMap:
    return RUMap(parameter="k", values=values, risk=risk, utility=utility, method=method, **kw)


def _brute_force(u: np.ndarray, r: np.ndarray) -> set[int]:
    keep = set()
    for i in range(u.size):
        beaten = any((u[j] >= u[i]) and (r[j] <= r[i]) and ((u[j] > u[i]) or (r[j] < r[i]))
                     for j in range(u.size))
        if not beaten:
            keep.add(i)
    return keep


finite = st.floats(min_value=0.0, max_value=10.0, allow_nan=False).map(lambda v: round(v, 1))


@settings(max_examples=80, deadline=None)
@given(st.lists(st.tuples(finite, finite), min_size=1, max_size=25), st.integers(1, 3))
def test_frontier_is_exactly_the_unbeaten_points(points, n_maps):
    u = np.array([p[0] for p in points])
    r = np.array([p[1] for p in points])
    split = np.array_split(np.arange(u.size), n_maps)
    maps = [_map(np.arange(idx.size), r[idx], u[idx], method=f"m{i}") for i, idx in enumerate(split) if idx.size]
    front = pareto_frontier(maps)
    expected = _brute_force(u, r)
    # the frontier holds one point per distinct unbeaten (U, R) pair
    assert sorted(zip(front["utility"], front["risk"], strict=True)) == sorted({(u[i], r[i]) for i in expected})
    assert np.all(np.diff(front["utility"]) < 0) and np.all(np.diff(front["risk"]) < 0)


def test_frontier_names_method_and_parameter():
    noise = _map([0.1, 0.5, 1.0], risk=[5.0, 2.0, 1.0], utility=[9.0, 6.0, 5.0], method="noise")
    micro = _map([3, 5, 8], risk=[3.0, 1.5, 0.5], utility=[8.0, 6.5, 4.0], method="microaggregation")
    front = pareto_frontier([noise, micro], labels=["noise", "micro"])
    assert list(front["map"]) == ["noise", "micro", "micro", "noise", "micro"]
    assert list(front["value"]) == [0.1, 3, 5, 1.0, 8]
    assert set(front.columns) == {"map", "method", "parameter", "value", "utility", "risk"}
    choice = best_under_risk([noise, micro], 2.0, labels=["noise", "micro"])
    assert (choice.map, choice.value, choice.utility, choice.risk) == ("micro", 5.0, 6.5, 1.5)
    assert not best_under_risk([noise, micro], 0.1).reachable


def test_best_under_risk_approaches_the_exact_analytic_optimum():
    setting = AnalyticSetting(n=200, sigma2=1.0)
    (record,) = analytic_map(["record"], np.linspace(0, 1, 1001), setting)
    choice = best_under_risk([record], 5.0)
    exact = max_tolerable_risk("record", setting, 5.0)
    assert choice.value == pytest.approx(exact.lambda2, abs=1e-3)
    assert choice.utility == pytest.approx(200 / 1.2, rel=1e-3)
    assert choice.risk <= 5.0


def test_infinite_risk_is_dominated_and_mixed_measures_are_refused():
    a = _map([0, 1], risk=[np.inf, 1.0], utility=[2.0, 1.0])
    b = _map([0, 1], risk=[3.0, 2.0], utility=[2.0, 1.0])
    front = pareto_frontier([a, b], labels=["a", "b"])
    assert list(zip(front["map"], front["value"], strict=True)) == [("b", 0), ("a", 1)]
    other = _map([0], risk=[1.0], utility=[1.0], utility_label="U = 1 - SSE/SST")
    with pytest.raises(InputError, match="measure R or U differently"):
        map_points([a, other])
    with pytest.raises(InputError, match="maps must be a list or tuple of RUMap"):
        pareto_frontier([])


def test_a_lower_is_better_utility_turns_the_frontier_around(monkeypatch):
    from dataclasses import replace as replace_record

    from rumap.maps import utility

    monkeypatch.setitem(utility.UTILITIES, "loss", replace_record(utility.UTILITIES["sse"], higher_is_better=False))
    m = RUMap(parameter="k", values=[1, 2, 3], risk=[3.0, 2.0, 1.0], utility=[0.1, 0.5, 0.3], config={"utility": "loss"})
    front = pareto_frontier([m])
    assert front["value"].tolist() == [1.0, 3.0]  # k = 2 loses more and risks more than k = 3
    assert best_under_risk([m], 2.5).value == 3.0
    higher = RUMap(parameter="k", values=[1, 2, 3], risk=[3.0, 2.0, 1.0], utility=[0.1, 0.5, 0.3])
    assert best_under_risk([higher], 2.5).value == 2.0
