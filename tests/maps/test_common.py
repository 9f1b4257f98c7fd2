"""The measures every masking method shares (rumap/maps/common.py), against computations written out by hand."""

from __future__ import annotations

import numpy as np
import pytest

from rumap.maps.common import (
    COMMON_KNOWLEDGE,
    COMMON_REPLICATES,
    COMMON_RISK,
    COMMON_RISK_LABEL,
    COMMON_UTILITY_LABEL,
    common_stats,
    information_loss,
)
from rumap.maps.simulation import SimulationConfig, simulate
from rumap.masking.microaggregation import microaggregate
from rumap.risk.measures import DATASET_RISK_MEASURES
from rumap.specs import DataSource, EmpiricalSpec


def _relative(new: float, old: float) -> float:
    if old == 0:
        return 0.0 if new == 0 else 1.0
    return min(1.0, abs(new - old) / abs(old))


def loss_by_hand(x: np.ndarray, y: np.ndarray) -> float:
    """IL written out with loops: the mean over groups of the mean capped relative change."""
    n, p = x.shape
    means = [_relative(sum(y[:, k]) / n, sum(x[:, k]) / n) for k in range(p)]
    variances = []
    for k in range(p):
        mx, my = sum(x[:, k]) / n, sum(y[:, k]) / n
        variances.append(_relative(sum((y[:, k] - my) ** 2) / (n - 1), sum((x[:, k] - mx) ** 2) / (n - 1)))
    groups = [np.mean(means), np.mean(variances)]
    if p > 1:
        corr = []
        for a in range(p):
            for b in range(a + 1, p):
                rx, ry = np.corrcoef(x[:, a], x[:, b])[0, 1], np.corrcoef(y[:, a], y[:, b])[0, 1]
                corr.append(1.0 if np.isnan(ry) else _relative(ry, rx))
        groups.append(np.mean(corr))
    return float(np.mean(groups))


def linked_by_hand(x: np.ndarray, y: np.ndarray) -> float:
    """The share re-identified: each masked record's nearest originals (standardised), a tie of t counting 1/t."""
    sd = x.std(axis=0, ddof=1)
    share = 0.0
    for i in range(x.shape[0]):
        d = (((x - y[i]) / sd) ** 2).sum(axis=1)
        nearest = np.flatnonzero(np.isclose(d, d.min(), rtol=1e-12, atol=1e-12))
        share += (i in nearest) / len(nearest)
    return share / x.shape[0]


@pytest.fixture(scope="module")
def data() -> np.ndarray:
    rng = np.random.default_rng(5)
    z = rng.normal(size=(60, 3))
    return np.column_stack([50 + 10 * z[:, 0], 20 + 5 * (z[:, 0] + z[:, 1]), 3 + z[:, 2]])


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_information_loss_equals_the_loops(data, seed):
    rng = np.random.default_rng(seed)
    masked = data + rng.normal(scale=[3.0, 2.0, 0.5], size=data.shape)
    assert information_loss(data, masked) == pytest.approx(loss_by_hand(data, masked), rel=1e-12)
    assert information_loss(data[:, :1], masked[:, :1]) == pytest.approx(loss_by_hand(data[:, :1], masked[:, :1]))


def test_information_loss_caps_each_change_at_one(data):
    assert information_loss(data, data * 5.0) == pytest.approx((1.0 + 1.0 + 0.0) / 3)
    assert information_loss(data, data) == 0.0


def test_common_stats_of_microaggregation_equal_the_hand_computation(data):
    for k in (2, 3, 7):
        masked = microaggregate(data, k).masked
        risk, utility = common_stats(data, masked[None])[0]
        assert risk == pytest.approx(linked_by_hand(data, masked))
        assert utility == pytest.approx(1.0 - loss_by_hand(data, masked))


@pytest.mark.parametrize("scale", [0.0, 0.05, 0.5, 2.0])
def test_the_common_risk_is_the_registered_linkage_measure(data, scale):
    rng = np.random.default_rng(8)
    masked = data[None] + scale * rng.normal(size=(3, *data.shape)) * data.std(axis=0)
    masked[2, :5] = masked[2, 5:10]  # duplicates: ties among originals
    expected = [DATASET_RISK_MEASURES[COMMON_RISK].measure(data, m) for m in masked]
    np.testing.assert_allclose(common_stats(data, masked)[:, 0], expected, rtol=0, atol=1e-12)
    np.testing.assert_allclose(common_stats(data[:, :1], masked[:, :, :1])[:, 0],
                               [DATASET_RISK_MEASURES[COMMON_RISK].measure(data[:, :1], m) for m in masked[:, :, :1]],
                               rtol=0, atol=1e-12)


def test_every_method_of_a_simulation_has_its_common_curve(data):
    runs = {"noise": (0.0, 0.2, 1.0), "microaggregation": (2, 5, 60), "rankswap": (1.0, 10.0)}
    for method, values in runs.items():
        config = SimulationConfig(method=method, values=values, targets=("max",), knowledge=("index",),
                                  replicates=4, seed=3)
        common = simulate(data, config).common
        assert (common.risk_label, common.utility_label) == (COMMON_RISK_LABEL, COMMON_UTILITY_LABEL)
        assert common.knowledge == COMMON_KNOWLEDGE and common.method == method
        np.testing.assert_array_equal(common.efficiency, common.utility)  # the unmasked data's U is 1
        assert common.values.tolist() == [float(v) for v in values]
        assert np.all((common.risk >= 0) & (common.risk <= 1)) and np.all((common.utility >= 0)
                                                                          & (common.utility <= 1))
        if method == "noise":  # no noise: every record re-identified, nothing changed
            assert common.risk[0] == 1.0 and common.utility[0] == 1.0
            assert common.risk[2] < common.risk[1] < 1.0 and common.utility[2] < common.utility[1] < 1.0
        if method == "microaggregation":  # k = n: one group, its centroid tied with all 60; variances and
            assert common.risk[2] == pytest.approx(1 / 60)  # correlations lost, means kept
            assert common.utility[2] == pytest.approx(1 - 2 / 3)
            masked = microaggregate(data, 5).masked
            assert common.risk[1] == pytest.approx(linked_by_hand(data, masked))
        if method == "rankswap":  # swapping keeps every column's mean and variance: only correlations change
            assert 0.0 < common.utility[1] < 1.0


def test_common_measures_use_the_first_replicates_whatever_the_chunks(data):
    config = dict(method="noise", values=(0.1, 0.5), targets=("max",), knowledge=("index",), seed=9)
    first = simulate(data, SimulationConfig(**config, replicates=COMMON_REPLICATES)).common
    more = simulate(data, SimulationConfig(**config, replicates=COMMON_REPLICATES + 7, chunk_size=3)).common
    np.testing.assert_allclose(more.risk, first.risk)
    np.testing.assert_allclose(more.utility, first.utility)
    np.testing.assert_allclose(more.utility_se, first.utility_se)


def test_the_common_curve_is_in_the_json_and_the_analysis(data):
    config = SimulationConfig(values=(0.1, 0.5), targets=("max",), knowledge=("index",), replicates=3, seed=1)
    result = simulate(data, config)
    from rumap.cli.json_output import simulation_json

    spec = EmpiricalSpec(simulation=config, data=DataSource.of("upload", "x.csv", ["a", "b", "c"], data))
    analysis = spec.run(data)
    assert result.to_dict()["common"]["risk_label"] == simulation_json(analysis)["common"]["risk_label"] \
        == COMMON_RISK_LABEL
    assert len(simulation_json(analysis)["curves"]) == 1  # the run's own curves stay as they were
    assert analysis.common is not None and analysis.renamed("other").common is analysis.common
    assert analysis.to_dict()["common"]["utility_label"] == COMMON_UTILITY_LABEL


@pytest.mark.parametrize("seed", [0, 1])
def test_one_variable_by_search_in_the_sorted_originals_equals_the_kd_tree(seed):
    # one variable takes the sorted search; a constant second column (z = 0) keeps the same links on the KD-tree
    from rumap.maps.common import _linked_shares

    rng = np.random.default_rng(seed)
    x = rng.integers(0, 40, size=(400, 1)).astype(float)  # many equal originals: ties of every kind
    masked = x[None] + rng.normal(scale=[[[0.0]], [[0.4]], [[3.0]], [[30.0]]], size=(4, 400, 1))
    masked[1] = np.round(masked[1])  # masked values exactly between or on originals
    masked[2, :20] = x[20:40]
    with_zero = np.concatenate([x, np.zeros_like(x)], axis=1)
    expected = _linked_shares(with_zero, np.concatenate([masked, np.zeros_like(masked)], axis=2))
    np.testing.assert_allclose(_linked_shares(x, masked), expected, rtol=0, atol=1e-12)
    assert expected[0] == pytest.approx(np.mean(1.0 / np.bincount(x[:, 0].astype(int))[x[:, 0].astype(int)]))
