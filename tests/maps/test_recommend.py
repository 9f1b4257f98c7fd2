"""The recommendation: the grid rule against brute force, the exact analytic optimum, the decision's uncertainty."""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from rumap.errors import InputError
from rumap.maps import utility
from rumap.maps.analytic import analytic_map
from rumap.maps.recommend import RECOMMENDATION_KEYS, ReplicateRisk, recommend, recommend_exact
from rumap.maps.setting import AnalyticSetting
from rumap.maps.simulation import SimulationConfig, simulate
from rumap.result import RUMap

PAPER = AnalyticSetting(n=200, sigma2=1.0)


def _curve(values, risk, utility_values, se=None, efficiency=None, knowledge="index", target="max", config=None):
    return RUMap(parameter="k", values=values, risk=risk, utility=utility_values, risk_se=se, efficiency=efficiency,
                 knowledge=knowledge, target=target, method="microaggregation", config=config or {})


def _brute_force(values, risks, upper, utility_values, bound, decision, higher=True):
    """Every value in turn: safe for every curve? then the most utility, ties to the smallest value."""
    best = None
    for j, v in enumerate(values):
        judged = [u[j] if decision == "upper" else r[j] for r, u in zip(risks, upper, strict=True)]
        if any(not (x <= bound) for x in judged) or math.isnan(utility_values[j]):
            continue
        score = utility_values[j] if higher else -utility_values[j]
        if best is None or score > best[0] + 1e-9 * max(1, abs(best[0])) or \
                (abs(score - best[0]) <= 1e-9 * max(1, abs(best[0])) and v < best[1]):
            best = (score, v)
    return None if best is None else best[1]


@settings(max_examples=150, deadline=None)
@given(data=st.data(), g=st.integers(1, 8), curves=st.integers(1, 3), decision=st.sampled_from(["upper", "mean"]),
       bound=st.floats(0.1, 10.0))
def test_grid_rule_matches_brute_force(data, g, curves, decision, bound):
    values = sorted(data.draw(st.lists(st.integers(1, 50), min_size=g, max_size=g, unique=True)))
    util = data.draw(st.lists(st.sampled_from([0.5, 1.0, 2.0, 3.0, 4.0]), min_size=g, max_size=g))
    maps, risks, uppers = [], [], []
    for c in range(curves):
        risk = data.draw(st.lists(st.floats(0.0, 12.0), min_size=g, max_size=g))
        se = data.draw(st.lists(st.floats(0.0, 2.0), min_size=g, max_size=g))
        maps.append(_curve(values, risk, util, se=se, knowledge=f"k{c}"))
        risks.append(risk)
        uppers.append([r + 1.96 * s for r, s in zip(risk, se, strict=True)])
    expected = _brute_force(values, risks, uppers, util, bound, decision)
    got = recommend(maps, bound, decision)
    assert got.feasible == (expected is not None)
    if expected is None:
        assert got.value is None and got.reason.startswith("no k on the grid")
    else:
        assert got.value == expected
        j = values.index(expected)
        assert got.risk == max(r[j] for r in risks) and got.risk_upper == pytest.approx(max(u[j] for u in uppers))
        assert got.utility == util[j]
        judged = uppers if decision == "upper" else risks
        assert got.binding["knowledge"] == f"k{int(np.argmax([u[j] for u in judged]))}"


def test_infeasible_is_never_the_grids_end():
    maps = [_curve([2, 5, 10], [9.0, 8.0, 7.0], [3.0, 2.0, 1.0])]
    r = recommend(maps, 5.0, "mean")
    assert not r.feasible and r.value is None and r.utility is None
    assert "the least is 7 at k = 10" in r.reason
    assert r.to_dict() == {"feasible": False, "value": None, "risk": None, "risk_upper": None, "utility": None,
                           "efficiency": None, "binding": {"target": "max", "knowledge": "index"},
                           "reason": r.reason, "p_exceed": None, "value_interval": None}
    assert tuple(r.to_dict()) == RECOMMENDATION_KEYS


def test_upper_decision_uses_the_band():
    maps = [_curve([2, 5, 10], [4.0, 3.5, 1.0], [3.0, 2.0, 1.0], se=[1.0, 1.0, 1.0])]
    assert recommend(maps, 5.0, "mean").value == 2
    upper = recommend(maps, 5.0, "upper")
    assert upper.value == 10 and upper.risk == 1.0 and upper.risk_upper == pytest.approx(2.96)


def test_k_above_the_number_of_records_is_never_recommended():
    maps = [_curve([5, 50, 3000], [9.0, 9.0, 1.0], [1.0, 1.0, 1.0])]
    r = recommend(maps, 5.0, "mean", n_records=601)
    assert not r.feasible and "above the 601 records left out" in r.reason
    assert recommend(maps, 5.0, "mean").value == 3000


def test_efficiency_decides_where_the_map_has_one_and_ties_go_to_the_least_masking():
    """Eq 14's U grows with k under microaggregation, but its efficiency is 100% at every k: the smallest safe k."""
    maps = [_curve([2, 5, 10, 50], [9.0, 4.0, 2.0, 1.0], [1.0, 2.0, 5.0, 9.0], efficiency=[1.0, 1.0, 1.0, 1.0])]
    r = recommend(maps, 5.0, "mean")
    assert r.value == 5 and r.efficiency == 1.0


def test_lower_is_better_utility_is_respected(monkeypatch):
    monkeypatch.setitem(utility.UTILITIES, "loss", replace(utility.UTILITIES["sse"], higher_is_better=False))
    maps = [_curve([1, 2, 3], [1.0, 1.0, 1.0], [0.3, 0.1, 0.2], config={"utility": "loss"})]
    assert recommend(maps, 5.0, "mean").value == 2
    maps = [_curve([1, 2, 3], [1.0, 1.0, 1.0], [0.3, 0.1, 0.2], config={"utility": "sse"})]
    assert recommend(maps, 5.0, "mean").value == 1


def test_maps_over_different_grids_are_refused():
    with pytest.raises(InputError, match="same parameter values"):
        recommend([_curve([1, 2], [1.0, 1.0], [1.0, 1.0]), _curve([1, 3], [1.0, 1.0], [1.0, 1.0])], 5.0)


# --- the exact analytic optimum --------------------------------------------------------------


@settings(max_examples=60, deadline=None)
@given(n=st.integers(10, 5000), sigma2=st.floats(0.01, 100.0), max_risk=st.floats(0.001, 50.0))
def test_exact_optimum_is_the_closed_form(n, sigma2, max_risk):
    """Record knowledge: lambda2 = 1 / R_max; population: n / R_max - (n + 1) sigma2 (Eq 2-3, inverted)."""
    setting = AnalyticSetting(n=n, sigma2=sigma2)
    expected = max(1 / max_risk, n / max_risk - (n + 1) * sigma2, 0.0)
    r = recommend_exact(["record", "population"], setting, max_risk, upper=1e9)
    assert r.feasible and r.exact
    assert r.value == pytest.approx(expected, rel=1e-9, abs=1e-12)
    assert r.efficiency == pytest.approx(sigma2 / (sigma2 + r.value))
    assert r.risk <= max_risk * (1 + 1e-9)


def test_exact_optimum_beats_the_grid_and_says_when_it_is_beyond_the_range():
    grid = np.linspace(0.0, 3.0, 301)
    exact = recommend_exact(["record"], PAPER, max_risk=0.6, upper=3.0)
    on_grid = recommend(analytic_map(["record"], grid, PAPER), max_risk=0.6)
    assert exact.value == pytest.approx(1 / 0.6) and on_grid.value == pytest.approx(1.67)
    assert exact.utility > on_grid.utility
    beyond = recommend_exact(["record"], PAPER, max_risk=0.1, upper=3.0)
    assert not beyond.feasible and beyond.value is None and "10, beyond the range shown" in beyond.reason


# --- the decision's uncertainty ------------------------------------------------------------


def test_p_exceed_agrees_with_the_normal_approximation():
    """Squared errors with known spread: the bootstrap P(R > bound) is close to 1 - Phi((bound - R) / SE)."""
    rng = np.random.default_rng(4)
    samples = rng.exponential(1.0, size=(400, 1)) * np.array([[0.5, 1.0, 2.0]])
    mse = samples.mean(axis=0)
    risk = 1 / mse
    se = samples.std(axis=0, ddof=1) / math.sqrt(400) / mse**2
    bound = float(risk[1] + 0.5 * se[1])  # the middle value is safe by its mean, not by its band
    m = _curve([1, 2, 3], risk, [3.0, 2.0, 1.0], se=se)
    r = recommend([m], bound, "mean", replicates=[ReplicateRisk(samples)], seed=1, resamples=4000)
    assert r.value == 2
    assert r.p_exceed == pytest.approx(stats.norm.sf(0.5), abs=0.05)
    low, high = r.value_interval
    assert (low, high) == (2.0, 3.0)
    upper = recommend([m], bound, "upper", replicates=[ReplicateRisk(samples)], seed=1, resamples=4000)
    assert upper.value == 3 and upper.p_exceed < 0.01
    again = recommend([m], bound, "mean", replicates=[ReplicateRisk(samples)], seed=1, resamples=4000)
    assert again == r


def test_simulated_map_carries_its_uncertainty():
    x = np.random.default_rng(8).normal(10.0, 2.0, size=400)
    config = SimulationConfig(values=(0.5, 1.0, 2.0, 4.0, 8.0), targets=("max", "p90"), knowledge=("index",),
                              replicates=100, seed=3)
    result = simulate(x, config)
    r = result.recommendation(0.6)
    assert r.feasible and r.value == 4.0  # R(index) = 1 / lambda2: 0.5 at 2, but its band reaches above 0.6
    assert 0.0 <= r.p_exceed <= 0.05
    assert r.value_interval[0] <= r.value <= r.value_interval[1]
    mean = result.recommendation(0.6, decision="mean")
    assert mean.value == 2.0 and 0.0 < mean.p_exceed < 0.5


def test_microaggregation_recommends_the_smallest_safe_k_not_the_largest():
    x = np.random.default_rng(3).lognormal(size=(300, 2))
    result = simulate(x, SimulationConfig(method="microaggregation", values=(2, 3, 5, 10, 50, 300),
                                          targets=("max",), knowledge=("index",)))
    risk = result.maps[0].risk
    bound = float(risk[2]) * 1.000001
    r = result.recommendation(bound)
    safe = [k for k, v in zip(result.maps[0].values, risk, strict=True) if v <= bound]
    assert r.value == min(safe) and r.efficiency == pytest.approx(1.0)
    assert r.p_exceed is None and r.value_interval is None  # one replicate of a deterministic method: nothing to resample


def test_a_bound_never_crosses_to_another_risk_measure():
    share = replace(_curve([1, 2], [0.5, 0.1], [1.0, 1.0]), risk_label="R = record-linkage")
    with pytest.raises(InputError, match="one risk measure"):
        recommend([_curve([1, 2], [1.0, 1.0], [1.0, 1.0]), share], 5.0)
    x = np.random.default_rng(8).normal(10.0, 2.0, size=200)
    result = simulate(x, SimulationConfig(values=(0.5, 2.0, 8.0), targets=("max",), knowledge=("index",),
                                          risk_measures=("record-linkage",), replicates=20, seed=1))
    r = result.recommendation(0.6, decision="mean")  # in the units of 1 / MSE: the share's curve is not judged by it
    assert r.binding == {"target": "max", "knowledge": "index"} and r.value == 2.0


def test_the_interval_covers_what_independent_simulations_find():
    """Second computation: 40 independent runs (other seeds) give the smallest safe value the bootstrap brackets."""
    x = np.random.default_rng(5).normal(50.0, 10.0, size=300)
    grid = tuple(np.round(np.linspace(2.0, 20.0, 19), 6))

    def run(seed):
        config = SimulationConfig(values=grid, targets=("max",), knowledge=("position",), replicates=60, seed=seed)
        return simulate(x, config)

    bound = 0.1
    first = run(0).recommendation(bound, decision="mean")
    low, high = first.value_interval
    found = [run(seed).recommendation(bound, decision="mean").value for seed in range(1, 41)]
    inside = np.mean([v is not None and low <= v <= high for v in found])
    assert low < high and inside >= 0.8, (low, high, sorted(found))
    p_exceed = np.mean([v is None or v > first.value for v in found])  # other runs needing more noise
    assert abs(first.p_exceed - p_exceed) < 0.3, (first.p_exceed, p_exceed)


def test_a_bound_and_its_tolerable_error_convert_as_the_paper_says():
    from rumap.errors import InputError
    from rumap.maps.recommend import error_of_max_risk, max_risk_of_error

    # Duncan et al. (2001), Section 4: an average error of $5K is R_max = 4.0E-08
    assert max_risk_of_error(5000.0) == pytest.approx(4.0e-8, rel=1e-15)
    assert error_of_max_risk(4.0e-8) == pytest.approx(5000.0, rel=1e-15)
    for value in (1e-12, 0.2, 1.0, 5.0, 13300.0, 1e9):
        # the formulas the dashboard's pages computed each on their own
        assert max_risk_of_error(value) == 1.0 / float(value) ** 2
        assert error_of_max_risk(value) == 1.0 / math.sqrt(value)
        assert error_of_max_risk(value) == pytest.approx(1 / value ** 0.5, rel=1e-15)
        assert max_risk_of_error(error_of_max_risk(value)) == pytest.approx(value, rel=1e-14)
    for bad in (0.0, -1.0, float("inf"), float("nan")):
        with pytest.raises(InputError):
            max_risk_of_error(bad)
        with pytest.raises(InputError):
            error_of_max_risk(bad)
