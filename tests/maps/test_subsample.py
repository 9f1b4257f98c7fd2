"""Empirical maps estimated on subsamples: closed forms of the whole file within 4 stated SEs, and the refusals."""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest
from scipy.stats import norm

from rumap.errors import InputError
from rumap.maps.attacks import KNOWLEDGE
from rumap.maps.methods import METHODS
from rumap.maps.simulation import SimulationConfig, simulate
from rumap.maps.subsample import REFUSED, VALID, subsample_rows
from rumap.maps.utility import UTILITIES
from rumap.risk.measures import DATASET_RISK_MEASURES

N, M_SUB, B, REPS = 20_000, 500, 8, 10
LAMBDA2 = (0.5, 8.0)


@pytest.fixture(scope="module")
def data() -> np.ndarray:
    return np.random.default_rng(3).normal(10.0, 2.0, size=(N, 1))


@pytest.fixture(scope="module")
def config() -> SimulationConfig:
    return SimulationConfig(values=LAMBDA2, targets=("max", "row:7"), knowledge=("index",), replicates=REPS, seed=2,
                            risk_measures=("sdid",), subsample=M_SUB, subsamples=B)


@pytest.fixture(scope="module")
def result(data, config):
    return simulate(data, config)


def _within(estimate, se, truth, z=4.0):
    estimate, se, truth = map(np.asarray, (estimate, se, truth))
    assert np.all(se > 0), se
    assert np.all(np.abs(estimate - truth) <= z * se), (estimate, truth, se)


def test_the_targets_risk_is_the_whole_files_closed_form(result, data):
    """Index knowledge of additive noise: R = 1 / lambda2 whatever the record (Eq 12), for the file's max too."""
    by_target = {m.target: m for m in result.maps if m.knowledge == "index"}
    assert set(by_target) == {"max", "row:7"}
    assert by_target["max"].config["target_row"] == int(np.argmax(data[:, 0])) + 1
    assert by_target["row:7"].config["target_value"] == pytest.approx(data[6, 0])
    for m in by_target.values():
        _within(m.risk, m.risk_se, 1.0 / np.array(LAMBDA2))
        assert np.all(m.risk_se < 0.25 * m.risk)  # small enough for the comparison to mean something


def test_the_mean_utility_is_scaled_to_the_whole_file(result, data):
    """Eq 14 on n records: 1 / ((s^2 + lambda2 (1 + 1/M)) / n), the subsample's value times n / m."""
    s2 = float(data[:, 0].var(ddof=1))
    lam = np.array(LAMBDA2)
    m = result.maps[0]
    _within(m.utility, m.utility_se, N / (s2 + lam * (1.0 + 1.0 / REPS)))
    assert result.subsample.utility_scale == N / M_SUB
    assert np.all(m.utility_se < 0.1 * m.utility)


def test_the_dataset_risk_is_the_whole_files_share(result, data):
    """sdid: P(|e| <= 0.05 s) = 2 Phi(0.05 s / lambda) - 1 for normal noise e of variance lambda2."""
    m = next(m for m in result.maps if m.knowledge == "sdid")
    s = float(data[:, 0].std(ddof=1))
    _within(m.risk, m.risk_se, 2.0 * norm.cdf(0.05 * s / np.sqrt(LAMBDA2)) - 1.0)


def test_the_result_states_m_n_b_and_the_method(result, config):
    sub = result.subsample
    assert (sub.m, sub.n, sub.subsamples, sub.method) == (M_SUB, N, B, "between-subsample")
    assert result.n_records == N and result.common is None
    out = result.to_dict()
    assert out["subsample"]["covers"].startswith("sampling error") and out["n"] == N
    assert out["config"]["subsample"] == M_SUB
    assert SimulationConfig.from_dict(out["config"]) == config
    frame = result.to_frame()
    assert {"risk_se", "utility_se", "risk_low", "utility_high"} <= set(frame.columns)
    assert len(result.replicate_risks) == len(result.maps)
    assert result.replicate_risks[0].samples.shape == (B * REPS, len(LAMBDA2))


def test_seeded_and_chunk_free(data, config, result):
    again = simulate(data, dataclasses.replace(config, chunk_size=3, subsamples=2))
    first_two = simulate(data, dataclasses.replace(config, subsamples=2))
    for a, b in zip(again.maps, first_two.maps, strict=True):
        for name in ("risk", "risk_se", "utility", "utility_se"):
            np.testing.assert_array_equal(getattr(a, name), getattr(b, name))
    assert not np.allclose(first_two.maps[0].risk, result.maps[0].risk)


def test_without_subsample_the_config_has_no_subsample_keys():
    out = SimulationConfig(values=(1.0,)).to_dict()
    assert "subsample" not in out and "subsamples" not in out


def test_subsample_rows_against_a_count():
    """Every row but the kept one is drawn with the same frequency (m - 1) / (n - 1), the kept one always."""
    rng = np.random.default_rng(0)
    counts = np.zeros(6)
    for _ in range(3000):
        rows = subsample_rows(6, 3, np.array([2]), rng)
        assert rows[0] == 2 and len(set(rows.tolist())) == 3 and rows.min() >= 0 and rows.max() < 6
        counts[rows] += 1
    assert counts[2] == 3000
    others = np.delete(counts, 2) / 3000
    assert np.all(np.abs(others - 0.4) < 4 * math.sqrt(0.4 * 0.6 / 3000))


def test_every_registered_name_is_classified():
    for kind, registry in (("knowledge", KNOWLEDGE), ("utility", UTILITIES), ("risk_measure", DATASET_RISK_MEASURES)):
        assert set(registry) == set(VALID[kind]) | set(REFUSED[kind]), kind
    assert {"noise", "microaggregation", "rankswap"} <= set(VALID["method"]) | set(REFUSED["method"])


@pytest.mark.parametrize(("changes", "named"), [
    ({"knowledge": ("index", "position")}, "knowledge 'position'"),
    ({"knowledge": ("mean",)}, "knowledge 'mean'"),
    ({"utility": "variance"}, "utility 'variance'"),
    ({"risk_measures": ("record-linkage", "interval-disclosure")}, "risk measure 'interval-disclosure'"),
    ({"risk_measures": ("probabilistic-linkage",)}, "risk measure 'probabilistic-linkage'"),
    ({"method": "microaggregation", "values": (2, 3)}, "method 'microaggregation'"),
    ({"method": "rankswap", "values": (1.0,)}, "method 'rankswap'"),
    ({"rational": True}, "rational snooper"),
    ({"subsample": 1}, "subsample"),
    ({"subsamples": 1}, "subsamples"),
])
def test_what_a_subsample_cannot_estimate_is_refused_by_name(changes, named):
    base = {"values": (1.0,), "targets": ("max",), "knowledge": ("index",), "subsample": 100}
    with pytest.raises(InputError, match=named.replace("(", r"\(")):
        SimulationConfig(**{**base, **changes})


def test_an_unknown_method_is_refused_as_not_known():
    from rumap.maps import subsample

    assert "not known" in subsample._refusal("method", "some-new-method")
    assert set(METHODS) >= set(VALID["method"])


def test_a_subsample_as_large_as_the_data_is_refused(data):
    with pytest.raises(InputError, match="not fewer"):
        simulate(data[:50], SimulationConfig(values=(1.0,), knowledge=("index",), subsample=50))


def test_what_is_offered_is_what_the_config_accepts():
    from rumap.maps.subsample import allowed

    base = {"values": (1.0,), "targets": ("max",), "knowledge": ("index",), "subsample": 100}
    for kind, registry, field in (("knowledge", KNOWLEDGE, "knowledge"), ("utility", UTILITIES, "utility"),
                                  ("risk_measure", DATASET_RISK_MEASURES, "risk_measures")):
        accepted = []
        for name in registry:
            value = (name,) if field in ("knowledge", "risk_measures") else name
            try:
                SimulationConfig(**{**base, field: value})
            except InputError:
                continue
            accepted.append(name)
        assert allowed(kind, list(registry)) == accepted, kind
    assert allowed("method", list(METHODS)) == [n for n in METHODS if n in VALID["method"]]


def test_a_spec_on_known_data_refuses_a_subsample_as_large_as_the_data(data):
    from rumap.specs import DataSource, EmpiricalSpec

    source = DataSource.of("inline", "x", ["x"], data[:50])
    with pytest.raises(InputError, match="subsample: 50 records is not fewer than the data's 50"):
        EmpiricalSpec(simulation={"values": [1.0], "knowledge": ["index"], "targets": ["max"], "subsample": 50},
                      data=source)
    EmpiricalSpec(simulation={"values": [1.0], "knowledge": ["index"], "targets": ["max"], "subsample": 49},
                  data=source)
