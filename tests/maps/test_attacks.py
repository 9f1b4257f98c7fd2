"""Snooper attacks: targets, knowledge states, Eq 12 risk and its standard error, envelope."""

from __future__ import annotations

import math

import numpy as np
import pytest
from cli_helpers import ROOT
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from rumap.errors import InputError
from rumap.io.data import numeric_column, read_table
from rumap.maps.attacks import (
    attack_squared_errors,
    order_statistics,
    parse_target,
    publication_effect,
    rational_envelope,
    resolve_target,
    resolve_targets,
    risk_estimate,
    rounding_resolution,
)
from rumap.maps.simulation import SimulationConfig, simulate
from rumap.result import RUMap


@pytest.mark.parametrize(("text", "parsed"), [
    ("max", ("max", 0.0)), ("min", ("min", 0.0)), ("p99", ("percentile", 0.99)), ("p01", ("percentile", 0.01)),
    ("p99.5", ("percentile", 0.995)), ("row:12", ("row", 12.0)),
])
def test_parse_target(text, parsed):
    kind, arg = parse_target(text)
    assert kind == parsed[0] and arg == pytest.approx(parsed[1])


@pytest.mark.parametrize("text", ["p0", "p100", "row:0", "median", "p", "row:x", "P99"])
def test_parse_target_refuses(text):
    with pytest.raises(InputError, match="target"):
        parse_target(text)


@pytest.mark.parametrize("text", ["p0", "p100", "p100.5", "p0.0"])
def test_a_percentile_outside_the_percentile_state_s_p_is_refused_in_percent(text):
    with pytest.raises(InputError, match=r"the percentile must be in \(0, 100\)$"):
        parse_target(text)


def test_resolve_targets_on_small_data():
    x = np.array([5.0, 1.0, 9.0, 3.0, 3.0, 7.0, 2.0, 8.0, 6.0, 4.0])
    t = {t.name: t for t in resolve_targets(["max", "min", "p50", "p10", "row:4", "p99"], x)}
    assert (t["max"].record, t["max"].rank, t["max"].value) == (2, 10, 9.0)
    assert (t["min"].record, t["min"].rank, t["min"].value) == (1, 1, 1.0)
    assert (t["p50"].rank, t["p50"].value) == (5, 4.0)  # ceil(10 * 0.5) = 5
    assert (t["p10"].rank, t["p10"].value) == (1, 1.0)
    assert (t["row:4"].record, t["row:4"].rank, t["row:4"].value) == (3, 3, 3.0)  # ties broken by record order
    assert t["p99"].rank == 10
    with pytest.raises(InputError, match="only 10 rows"):
        resolve_target("row:11", x)


def test_income_percentile_targets_are_table_1():
    income = numeric_column(read_table(ROOT / "data" / "income.csv"), "income")
    values = {t.name: t.value for t in resolve_targets(["min", "p01", "p10", "p90", "p99", "max"], income)}
    assert values == {"min": 2000, "p01": 2000, "p10": 7200, "p90": 35000, "p99": 70000, "max": 95200}
    p99 = resolve_target("p99", income)
    assert p99.rank == 176
    np.testing.assert_array_equal(np.quantile(income, [0.01, 0.1, 0.9, 0.99], method="inverted_cdf"),
                                  [2000, 7200, 35000, 70000])


def test_attack_errors_by_hand():
    x = np.array([1.0, 4.0, 2.0, 8.0])
    masked = np.array([[1.5, 3.0, 2.5, 7.0], [0.0, 9.0, 2.0, 8.5]])
    targets = resolve_targets(["max", "row:2"], x)
    errors = attack_squared_errors(masked, targets, ["index", "position", "mean"])
    means = masked.mean(axis=1)
    expected = np.column_stack([
        (8 - masked[:, 3]) ** 2, (8 - masked.max(axis=1)) ** 2, (8 - means) ** 2,
        (4 - masked[:, 1]) ** 2, (4 - np.sort(masked, axis=1)[:, 2]) ** 2, (4 - means) ** 2,
    ])
    np.testing.assert_allclose(errors, expected)


def test_corrected_shrinks_toward_the_mean():
    x = np.array([0.0, 1.0, 2.0, 3.0, 10.0])
    masked = np.array([[0.5, 1.0, 2.5, 3.0, 12.0]])
    target = resolve_targets(["max"], x)
    s2 = masked.var(ddof=1)
    tau_hat = masked.mean() + (12.0 - masked.mean()) * math.sqrt((s2 - 4.0) / s2)
    assert attack_squared_errors(masked, target, ["corrected"], lambda2=4.0)[0, 0] == pytest.approx((10 - tau_hat) ** 2)
    # lambda2 above the masked variance: the estimate is the mean
    assert attack_squared_errors(masked, target, ["corrected"], lambda2=1e6)[0, 0] == pytest.approx(
        (10 - masked.mean()) ** 2)
    with pytest.raises(InputError, match="published noise variance"):
        attack_squared_errors(masked, target, ["corrected"])
    with pytest.raises(InputError, match="unknown knowledge"):
        attack_squared_errors(masked, target, ["psychic"])


def test_risk_estimate_and_delta_method():
    errors = np.array([[1.0, 0.0], [3.0, 0.0], [2.0, 0.0], [6.0, 0.0]])
    risk, se = risk_estimate(errors)
    mse = errors[:, 0].mean()
    assert risk[0] == pytest.approx(1 / mse)
    assert se[0] == pytest.approx(errors[:, 0].std(ddof=1) / 2 / mse**2)
    assert math.isinf(risk[1])
    risk, se = risk_estimate(np.array([[4.0]]), deterministic=True)
    assert risk[0] == 0.25 and se[0] == 0.0


@settings(max_examples=60, deadline=None)
@given(data=arrays(float, st.tuples(st.integers(1, 4), st.integers(2, 60)), elements=st.floats(-100, 100)),
       picks=st.lists(st.floats(0, 1), min_size=1, max_size=6))
def test_order_statistics_equal_sorting(data, picks):
    n = data.shape[1]
    ranks = sorted({1 + int(p * (n - 1)) for p in picks})
    got = order_statistics(data, ranks)
    expected = np.sort(data, axis=1)
    for r in ranks:
        np.testing.assert_array_equal(got[r], expected[:, r - 1])


@settings(max_examples=40, deadline=None)
@given(data=arrays(float, st.tuples(st.integers(2, 5), st.integers(3, 40)), elements=st.floats(-100, 100)))
def test_position_of_the_max_is_at_least_the_index_estimate(data):
    """max(Y) >= Y_t: position knowledge of the max never underestimates more than index knowledge."""
    x = np.arange(data.shape[1], dtype=float)
    target = resolve_targets(["max"], x)
    masked = x + data
    assert np.all(order_statistics(masked, [x.size])[x.size] >= masked[:, -1])
    errors = attack_squared_errors(masked, target, ["index", "position"])
    assert np.all(np.isfinite(errors)) and np.all(errors >= 0)


def _map(knowledge, risk, se):
    return RUMap(parameter="lambda2", values=[1, 2, 3], risk=risk, utility=[3, 2, 1], risk_se=se,
                 method="noise", knowledge=knowledge, target="max")


def test_rational_envelope_keeps_the_chosen_strategy_and_its_se():
    a = _map("index", [5, 1, 1], [0.5, 0.1, 0.1])
    b = _map("position", [4, 2, 3], [0.4, 0.2, 0.3])
    env = rational_envelope([a, b])
    np.testing.assert_array_equal(env.risk, [5, 2, 3])
    np.testing.assert_array_equal(env.risk_se, [0.5, 0.2, 0.3])
    assert env.config["best_state"] == ["index", "position", "position"]
    assert env.knowledge == "rational" and env.target == "max"


def test_publication_effect_ratio():
    ratio, se = publication_effect(_map("position", [1, 2, 4], [0.1, 0.2, 0.4]),
                                   _map("corrected", [2, 2, 2], [0.2, 0.2, 0.2]))
    np.testing.assert_allclose(ratio, [2, 1, 0.5])
    np.testing.assert_allclose(se, ratio * np.sqrt(0.1**2 + 0.1**2))


# --- exact disclosure: a masked value equal to the original is an error of exactly 0 -------


def test_a_group_of_equal_values_is_an_exact_disclosure():
    """Nine records of 1.1 at the bottom: MDAV's group mean is 1.1 up to rounding, so risk +inf (was 2.0e+31)."""
    x = np.concatenate([np.random.default_rng(0).normal(5, 1, size=200), [1.1] * 9])
    result = simulate(x, SimulationConfig(method="microaggregation", values=(2, 3, 5, 7, 8), targets=("min",),
                                          knowledge=("index", "position")))
    for m in result.maps:
        assert np.all(np.isposinf(m.risk)), m.risk
        assert np.all(m.risk_se == 0)


def test_rounding_resolution_covers_a_mean_of_equal_values():
    for value in (0.1, 1.1, 3.3, 10.1, 1e12 + 0.1):
        for k in range(2, 40):
            group = np.full(k, value)
            assert abs(group.sum() / k - value) <= rounding_resolution(np.full(50, value))
            assert abs(sum(group.tolist()) / k - value) <= rounding_resolution(np.full(50, value))


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**16), levels=st.integers(2, 6), scale=st.sampled_from([1e-3, 0.1, 1.0, 1e4, 1e9]),
       k=st.integers(2, 9))
def test_a_finite_risk_never_exceeds_what_the_datas_scale_allows(seed, levels, scale, k):
    """With many ties, every risk is +inf (exact) or at most M / resolution^2: rounding never makes a risk."""
    rng = np.random.default_rng(seed)
    x = rng.integers(1, levels + 1, size=60) * scale * 1.1
    if np.ptp(x) == 0:
        x[0] += scale
    result = simulate(x, SimulationConfig(method="microaggregation", values=(k,), targets=("min", "max", "p50"),
                                          knowledge=("index", "position", "mean")))
    limit = 1 / rounding_resolution(x) ** 2
    for m in result.maps:
        risk = m.risk[0]
        assert np.isposinf(risk) or risk <= limit, (m.target, m.knowledge, risk, limit)


def test_targets_of_a_large_column_by_radix_order_equal_numpys_argsort():
    from rumap.maps.attacks import _RADIX_FROM, resolve_target, resolve_targets

    column = np.round(np.random.default_rng(2).normal(size=_RADIX_FROM + 7), 2)  # many ties
    order = np.argsort(column, kind="stable")
    names = ("max", "min", "p01", "p50", "p99", "row:3")
    assert resolve_targets(names, column) == tuple(resolve_target(t, column, order) for t in names)
