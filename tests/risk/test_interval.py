"""Interval disclosure (Domingo-Ferrer & Torra 2004, Section 2.3): rank intervals and SD intervals."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rumap.errors import InputError
from rumap.risk.interval import interval_disclosure, interval_risk, rank_half_width, sdid_risk


def test_rank_half_width():
    # ranks in [r - h, r + h] differ by 2h, which must be < p n / 100
    assert rank_half_width(10, 20) == 0      # p n / 100 = 2: only h = 0 (2h = 0 < 2)
    assert rank_half_width(10, 40) == 1      # 4: 2h = 2 < 4, 2h = 4 is not
    assert rank_half_width(10, 30) == 1      # 3
    assert rank_half_width(100, 10) == 4     # 10: 2h = 8
    assert rank_half_width(1000, 1) == 4


def test_rank_intervals_known_case():
    x = np.arange(1.0, 11.0)
    y = x + 0.5
    # h = 1: the interval around y_r runs from y_(r-1) to y_(r+1) = [x - 0.5, x + 1.5], which holds x,
    # except for the lowest record, whose interval [1.5, 2.5] misses 1
    result = interval_disclosure(x, y, p=40)
    assert result.risk == pytest.approx(0.9)
    # h = 0: the interval is the masked value itself
    assert interval_disclosure(x, y, p=20).risk == 0.0
    assert interval_disclosure(x, x.copy(), p=20).risk == 1.0


def test_rank_intervals_by_variable():
    x = pd.DataFrame({"a": np.arange(10.0), "b": np.arange(10.0)})
    y = x.copy()
    y["b"] = y["b"][::-1].to_numpy()  # reversed: far from the original except near the middle
    result = interval_disclosure(x, y, p=40)
    assert result.per_variable[0] == 1.0
    assert result.per_variable[1] == pytest.approx(0.2)  # 4 and 5 (interval [3..5], [4..6]) hold themselves
    assert result.risk == pytest.approx(0.6)
    frame = result.to_frame()
    assert list(frame["variable"]) == ["a", "b", "(all)"]
    assert result.to_dict()["per_variable"]["b"] == pytest.approx(0.2)


def test_sd_intervals_known_case():
    x = np.array([0.0, 1.0, 2.0, 3.0, 4.0])
    sd = x.std(ddof=1)  # 1.5811
    y = x + np.array([0.0, 0.5, 1.0, -0.7, 2.0])
    # p = 50: radius 0.79; differences 0, 0.5, 0.7 inside, 1.0 and 2.0 outside
    assert 0.5 * sd == pytest.approx(0.7906, abs=1e-4)
    assert interval_disclosure(x, y, p=50, method="sd").risk == pytest.approx(0.6)
    assert sdid_risk(x, y, p=50) == pytest.approx(0.6)


def test_defaults_and_dataset_measures():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(500, 3))
    y = x + rng.normal(scale=0.3, size=x.shape)
    assert interval_disclosure(x, y).p == 10.0
    assert interval_disclosure(x, y, method="sd").p == 5.0
    assert interval_risk(x, y) == interval_disclosure(x, y).risk
    assert interval_risk(x, y, p=20) > interval_risk(x, y, p=2)


def test_risk_falls_as_noise_grows():
    rng = np.random.default_rng(1)
    x = rng.normal(size=(2000, 2))
    e = rng.normal(size=x.shape)
    for measure in (interval_risk, sdid_risk):
        risks = [measure(x, x + s * e) for s in (0.0, 0.05, 0.2, 1.0)]
        assert risks[0] == 1.0 and all(a > b for a, b in zip(risks, risks[1:], strict=False)), risks


def test_bad_input():
    x = np.arange(10.0)
    with pytest.raises(InputError, match=r"^p must be a number in \(0, 100\], got 0"):
        interval_disclosure(x, x, p=0)
    with pytest.raises(InputError, match="^p must be"):
        interval_disclosure(x, x, p=150)
    with pytest.raises(InputError, match="^method must be one of rank, sd, got 'quantile'"):
        interval_disclosure(x, x, method="quantile")
    frame = pd.DataFrame({"a": [1.0, 2.0, 3.0], "s": ["x", "y", "z"]})
    with pytest.raises(InputError, match="column 's' is not numeric"):
        interval_disclosure(frame, frame)
    with pytest.raises(InputError, match="rows"):
        interval_disclosure(x, x[:5])


@settings(max_examples=40, deadline=None)
@given(n=st.integers(2, 60), seed=st.integers(0, 10_000), scale=st.floats(0, 3),
       p1=st.floats(0.5, 100), p2=st.floats(0.5, 100), method=st.sampled_from(["rank", "sd"]))
def test_property_share_in_unit_interval_and_monotone_in_p(n, seed, scale, p1, p2, method):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(n, 2))
    y = x + rng.normal(scale=scale, size=x.shape)
    low, high = sorted((p1, p2))
    r_low = interval_disclosure(x, y, low, method).risk
    r_high = interval_disclosure(x, y, high, method).risk
    assert 0.0 <= r_low <= r_high <= 1.0


@settings(max_examples=30, deadline=None)
@given(n=st.integers(2, 60), seed=st.integers(0, 10_000), p=st.floats(0.5, 100))
def test_property_rank_rule_ignores_monotone_transforms(n, seed, p):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=n)
    y = x + rng.normal(scale=0.5, size=n)
    assert interval_disclosure(np.exp(x), np.exp(y), p).risk == interval_disclosure(x, y, p).risk


def test_empirical_map_with_interval_disclosure_falls_as_noise_grows():
    from rumap.maps.simulation import SimulationConfig, simulate
    from rumap.risk.measures import DATASET_RISK_MEASURES

    assert DATASET_RISK_MEASURES["interval-disclosure"].measure is interval_risk
    assert DATASET_RISK_MEASURES["sdid"].measure is sdid_risk
    x = np.random.default_rng(21).normal(size=(400, 2))
    config = SimulationConfig(method="noise", values=(0.01, 0.1, 1.0), targets=(), knowledge=(),
                              risk_measures=("interval-disclosure", "sdid"), replicates=3,
                              method_options={"relative": True})
    for ru in simulate(x, config).maps:
        assert np.all(np.diff(ru.risk) < 0), (ru.knowledge, ru.risk)
