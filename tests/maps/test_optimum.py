"""Rational snooper, crossings and maximum tolerable risk (FORMULAS.md part A, Figures 2-4)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import optimize

from rumap.errors import InputError
from rumap.maps.analytic import STATES, analytic_map, extreme_constants, state_risk
from rumap.maps.optimum import (
    _root_smallest,
    crossings,
    envelope,
    max_tolerable_risk,
)
from rumap.maps.setting import AnalyticSetting

PAPER = AnalyticSetting(n=200, sigma2=1.0)


def test_paper_record_knowledge_max_risk_5():
    opt = max_tolerable_risk("record", PAPER, 5.0)
    assert opt.reachable
    assert opt.lambda2 == pytest.approx(0.2)
    assert opt.utility == pytest.approx(166.7, abs=0.05)
    assert opt.efficiency == pytest.approx(0.8333, abs=1e-4)


def test_paper_population_needs_no_noise():
    opt = max_tolerable_risk("population", PAPER, 5.0)
    assert opt.lambda2 == 0.0 and opt.risk == pytest.approx(0.995, abs=5e-4)


def test_unreachable_within_upper_bound():
    opt = max_tolerable_risk("record", PAPER, 5.0, upper=0.1)
    assert not opt.reachable
    assert opt.to_dict() == {"state": "record", "max_risk": 5.0, "reachable": False, "lambda2": None, "risk": None,
                             "utility": None, "efficiency": None}


@pytest.mark.parametrize("state", ["mean-target", "population", "record"])
def test_closed_forms_equal_root_finding(state):
    setting = PAPER.with_(tau=0.05)
    for r_max in (0.5, 0.9, 3.0, 40.0):
        closed = max_tolerable_risk(state, setting, r_max)
        root = _root_smallest(STATES[state], setting, r_max, 1e12)
        assert closed.lambda2 == pytest.approx(root, rel=1e-9, abs=1e-12)


@pytest.mark.parametrize("state", ["percentile", "maximum", "minimum"])
def test_root_found_risk_equals_bound(state):
    opt = max_tolerable_risk(state, PAPER, 2.0)
    assert opt.reachable and opt.risk == pytest.approx(2.0, rel=1e-9)
    # just below the optimum the bound is violated
    assert state_risk(state, [opt.lambda2 * (1 - 1e-6)], PAPER)[0] > 2.0


def test_nonmonotone_maximum_gives_smallest_solution():
    # An outlying observed maximum: the bias first shrinks as noise grows, so R rises then falls.
    x = np.concatenate([np.linspace(-1, 1, 99), [8.0]])
    setting = AnalyticSetting.from_data(x)
    lam = np.linspace(0, 50, 2001)
    r = state_risk("maximum", lam, setting)
    assert r.argmax() > 0  # not monotone
    bound = 0.5 * (r[0] + r.max())
    opt = max_tolerable_risk("maximum", setting, bound)
    feasible = lam[r <= bound]
    assert opt.lambda2 <= feasible.min() + 1e-9


def test_record_population_crossing_by_hand():
    # 1/lambda2 = n/((n+1) sigma2 + lambda2)  =>  lambda2 = (n+1) sigma2 / (n-1)
    found = crossings(["record", "population"], PAPER, (0.0, 3.0))
    assert len(found) == 1
    assert found[0].lambda2 == pytest.approx(201 / 199, rel=1e-10)


def test_population_maximum_crossing_by_hand():
    # n / ((n+1) + l) = 1 / [K2 (1 + l) + K1^2 (sqrt(1 + l) - 1)^2]  (sigma2 = 1)
    k1, k2 = extreme_constants(200)
    g = lambda lam: 201 + lam - 200 * (k2 * (1 + lam) + k1**2 * (math.sqrt(1 + lam) - 1) ** 2)  # noqa: E731
    by_hand = optimize.brentq(g, 1e-9, 100)
    found = crossings(["population", "maximum"], PAPER, (0.0, 100.0))
    assert [c.lambda2 for c in found] == [pytest.approx(by_hand, rel=1e-9)]


def test_record_and_maximum_do_not_cross_at_paper_n():
    # Figure 4: knowing the target is the maximum helps the snooper less than record knowledge.
    assert crossings(["record", "maximum"], PAPER, (0.0, 100.0)) == []


def test_population_percentile_crossing_by_hand():
    # Figure 3: (n+1) sigma2 + l = n [c (1 + l) + z^2 (sqrt(1 + l) - 1)^2], c = p(1-p)/(n phi(z)^2)
    from scipy import stats

    z = stats.norm.ppf(0.99)
    c = 0.99 * 0.01 / (200 * stats.norm.pdf(z) ** 2)
    g = lambda lam: 201 + lam - 200 * (c * (1 + lam) + z**2 * (math.sqrt(1 + lam) - 1) ** 2)  # noqa: E731
    by_hand = optimize.brentq(g, 1e-6, 10)
    found = crossings(["population", "percentile"], PAPER, (0.0, 10.0))
    assert [c.lambda2 for c in found] == [pytest.approx(by_hand, rel=1e-9)]


def test_envelope_is_the_rational_snooper():
    lam = np.linspace(0.0, 3.0, 50)
    maps = analytic_map(["record", "population", "percentile", "maximum"], lam, PAPER)
    rational = envelope(maps)
    for m in maps:
        assert np.all(rational.risk >= m.risk)
    assert rational.knowledge == "rational"
    assert rational.config["best_state"][0] == "record"
    assert rational.config["best_state"][-1] == "population"


def test_envelope_needs_common_grid():
    a = analytic_map(["record"], [0.1, 0.2], PAPER)[0]
    b = analytic_map(["record"], [0.1, 0.3], PAPER)[0]
    with pytest.raises(InputError):
        envelope([a, b])


def test_bad_max_risk():
    with pytest.raises(InputError, match="max_risk"):
        max_tolerable_risk("record", PAPER, 0.0)
    with pytest.raises(InputError, match="unknown state"):
        max_tolerable_risk("nonsense", PAPER, 1.0)


@settings(max_examples=40, deadline=None)
@given(n=st.integers(5, 10**5), sigma2=st.floats(0.01, 100), r_max=st.floats(1e-3, 1e3),
       state=st.sampled_from(["population", "record", "percentile", "maximum", "minimum"]))
def test_optimum_meets_the_bound_and_is_smallest(n, sigma2, r_max, state):
    setting = AnalyticSetting(n=n, sigma2=sigma2)
    opt = max_tolerable_risk(state, setting, r_max)
    assert opt.reachable
    assert opt.risk <= r_max * (1 + 1e-9)
    assert 0 < opt.efficiency <= 1
    if opt.lambda2 > 0:
        assert state_risk(state, [opt.lambda2 * (1 - 1e-5)], setting)[0] > r_max


@pytest.mark.parametrize("state", ["percentile", "maximum", "minimum"])
def test_a_far_upper_end_finds_the_same_optimum(state):
    """The search grid starts below the data's variance whatever the upper end (1e100 failed to converge)."""
    setting = AnalyticSetting(n=200, sigma2=1.0)
    near = max_tolerable_risk(state, setting, 5.0)
    for upper in (1e100, 1e300):
        assert max_tolerable_risk(state, setting, 5.0, upper=upper).lambda2 == pytest.approx(near.lambda2, rel=1e-9)


def test_the_command_line_and_the_export_keep_their_forms_of_an_optimum():
    from dataclasses import replace

    from rumap.cli.json_output import optimum_json
    from rumap.specs import AnalyticSpec

    reached = max_tolerable_risk("record", PAPER, 5.0)
    unreached = max_tolerable_risk("record", PAPER, 5.0, upper=0.1)
    # the forms the command line and the export had when Optimum.to_dict was the command line's
    assert optimum_json(reached) == {"lambda2": reached.lambda2, "risk": reached.risk, "utility": reached.utility,
                                     "efficiency": reached.efficiency}
    assert optimum_json(unreached) is None
    analysis = AnalyticSpec(n=200, sigma2=1.0, states=("record",), lambda2_num=5, max_risk=5.0).run()
    exported = replace(analysis, optima=(reached, unreached)).to_dict()["optima"]
    assert exported == [{"state": "record", "max_risk": 5.0, **optimum_json(reached)},
                        {"state": "record", "max_risk": 5.0, "reachable": False}]
