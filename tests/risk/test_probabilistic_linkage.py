"""Probabilistic record linkage (rumap/risk/linkage/probabilistic.py): Fellegi & Sunter, m and u by EM."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from rumap.errors import InputError
from rumap.risk.linkage import (
    fellegi_sunter_em,
    probabilistic_linkage,
)


def test_em_recovers_m_and_u():
    rng = np.random.default_rng(7)
    m_true, u_true = np.array([0.95, 0.9, 0.85, 0.9, 0.8]), np.array([0.1, 0.05, 0.2, 0.1, 0.15])
    p_true, pairs = 0.02, 400_000
    matched = rng.random(pairs) < p_true
    agree = np.where(matched[:, None], rng.random((pairs, 5)) < m_true, rng.random((pairs, 5)) < u_true)
    counts = np.bincount(agree.astype(int) @ (1 << np.arange(5)), minlength=32)
    fit = fellegi_sunter_em(counts, 5, match_share=0.1)
    m, u, p = fit.m, fit.u, fit.match_proportion
    assert fit.converged
    assert m == pytest.approx(m_true, abs=0.02)
    assert u == pytest.approx(u_true, abs=0.005)
    assert p == pytest.approx(p_true, rel=0.1)
    plain = fellegi_sunter_em(counts, 5, match_share=0.1, accelerate=False, max_iter=100_000)
    assert plain.converged and fit.iterations < plain.iterations
    assert fit.log_likelihood >= plain.log_likelihood - 1e-9 * abs(plain.log_likelihood)
    np.testing.assert_allclose(fit.m, plain.m, atol=1e-4)
    np.testing.assert_allclose(fit.u, plain.u, atol=1e-4)


def test_probabilistic_identical_files_and_noise(noisy):
    x = np.random.default_rng(8).normal(size=(500, 4))
    identical = probabilistic_linkage(x, x.copy())
    assert identical.linked_correctly > 0.95
    assert identical.n_correct + identical.n_tied == 500  # own pairing is optimal; ties are exchanges
    risks = [probabilistic_linkage(x, noisy(x, s)).linked_correctly for s in (0.0, 0.1, 0.5, 2.0)]
    assert risks[0] > risks[1] > risks[2] >= risks[3]
    assert risks[3] < 0.02


def test_probabilistic_duplicates_are_ties():
    x = np.random.default_rng(9).normal(size=(200, 3))
    x[10] = x[20]
    result = probabilistic_linkage(x, x.copy())
    assert result.n_tied >= 2
    assert result.n_correct <= 198


def test_blocking_bounds_the_pairs(noisy):
    x = np.random.default_rng(10).normal(size=(3000, 5))
    y = noisy(x, 0.02)
    one = probabilistic_linkage(x, y, block_size=3000)
    blocked = probabilistic_linkage(x, y, block_size=500)
    assert one.settings["blocks"] == 1 and blocked.settings["blocks"] == 6
    assert blocked.linked_correctly > 0.8 and one.linked_correctly > 0.8
    assert set(blocked.to_dict()) >= {"method", "n", "linked_correctly", "m", "u"}


def test_probabilistic_categorical_keys():
    rng = np.random.default_rng(11)
    frame = pd.DataFrame({"a": rng.integers(0, 30, 400), "b": rng.choice(list("pqrstuvwxyz"), 400),
                          "c": rng.integers(0, 40, 400)})
    result = probabilistic_linkage(frame, frame.copy(), kinds={"a": "nominal", "c": "nominal"})
    assert result.kinds == ("nominal", "nominal", "nominal")
    assert result.linked_correctly > 0.9


def test_probabilistic_rejects_bad_options(data):
    with pytest.raises(InputError, match="block_size"):
        probabilistic_linkage(data, data, block_size=1)
    with pytest.raises(InputError, match="tolerance"):
        probabilistic_linkage(data, data, tolerance=-1)


def test_em_converges_on_blocked_linkage_and_reports_it(noisy):
    x = np.random.default_rng(12).normal(size=(4000, 5))
    result = probabilistic_linkage(x, noisy(x, 0.3), block_size=1000)
    assert result.settings["em_converged"] is True
    assert result.settings["em_iterations"] < 1000


def test_em_cap_is_reported_as_not_converged():
    counts = np.array([9000.0, 300.0, 300.0, 400.0])
    capped = fellegi_sunter_em(counts, 2, match_share=0.05, max_iter=2, tol=1e-300)
    assert not capped.converged and capped.iterations == 2
    fit = fellegi_sunter_em(counts, 2, match_share=0.05)
    assert fit.to_dict()["converged"] is True and list(fit.to_frame().columns) == ["key", "m", "u", "agreement_weight"]
