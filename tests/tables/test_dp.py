"""Tables released with differential privacy: the noise's law, OpenDP's accounting, additivity, seeds, errors."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from rumap.errors import InputError
from rumap.privacy.accounting import calibrate
from rumap.tables.dp import _nonnegative_integers, _simplex_projection, dp_release, dp_table
from rumap.tables.hierarchy import read_hrc
from rumap.tables.ndtable import build_table

dp = pytest.importorskip("opendp.prelude")
dp.enable_features("contrib")


@pytest.fixture(scope="module")
def wide():
    """A 1-D count table of 4,000 codes, one record each: 4,000 finest cells to draw noise on."""
    return build_table(pd.DataFrame({"code": [f"c{i:04d}" for i in range(4000)]}), ["code"])


@pytest.fixture(scope="module")
def microdata():
    rng = np.random.default_rng(0)
    n = 60
    return pd.DataFrame({"region": rng.choice(["N1", "N2", "S1"], n), "size": rng.choice(["a", "b", "c"], n),
                         "sector": rng.choice(["x", "y"], n), "v": rng.normal(20, 30, n).round()})


HRC = read_hrc("N\n@N1\n@N2\nS\n@S1\n")


# the variance of one count's noise, as the mechanism defines it, at the loss asked for
@pytest.mark.parametrize("mechanism, loss, variance", [
    ("laplace", {"epsilon": 0.5}, 2 / 0.5 ** 2),
    ("discrete-laplace", {"epsilon": 0.5}, 2 * math.exp(-0.5) / (1 - math.exp(-0.5)) ** 2),
    ("gaussian", {"rho": 0.125}, 1 / (2 * 0.125)),
    ("discrete-gaussian", {"rho": 0.125}, 1 / (2 * 0.125)),
])
def test_noise_variance_over_seeds_is_the_mechanisms(wide, mechanism, loss, variance):
    release = None
    noise = []
    for seed in range(8):
        release = dp_release(wide, calibrate(mechanism, 1.0, **loss), seed=seed)
        noise.append((release.noisy - release.original)[release.finest])
    noise = np.concatenate(noise)
    assert abs(noise.mean()) < 0.05 * math.sqrt(variance)
    assert noise.var() == pytest.approx(variance, rel=0.10)
    assert (noise == np.rint(noise)).all() == mechanism.startswith("discrete")


@pytest.mark.parametrize("mechanism, loss", [("laplace", {"epsilon": 0.7}), ("discrete-laplace", {"epsilon": 2.0}),
                                             ("gaussian", {"rho": 0.3}), ("discrete-gaussian", {"rho": 0.3}),
                                             ("gaussian", {"epsilon": 1.0, "delta": 1e-5})])
def test_the_stated_loss_is_opendps_map(mechanism, loss):
    stated = calibrate(mechanism, 3.0, **loss)
    discrete = mechanism.startswith("discrete")
    atom = dp.atom_domain(T=int) if discrete else dp.atom_domain(T=float, nan=False)
    d_in = 3 if discrete else 3.0
    if "laplace" in mechanism:
        m = dp.m.make_laplace(dp.vector_domain(atom), dp.l1_distance(T=type(d_in)), scale=stated.scale)
        assert stated.epsilon == m.map(d_in) == pytest.approx(loss["epsilon"])
        assert stated.delta is None and stated.rho is None
        assert stated.scale == pytest.approx(3.0 / loss["epsilon"])
        return
    m = dp.m.make_gaussian(dp.vector_domain(atom), dp.l2_distance(T=type(d_in)), scale=stated.scale)
    assert stated.rho == m.map(d_in)
    delta = loss.get("delta", 1e-6)
    approx = dp.c.make_fix_delta(dp.c.make_zCDP_to_approxDP(m), delta)
    assert (stated.epsilon, stated.delta) == approx.map(d_in)
    if "rho" in loss:
        assert stated.rho == pytest.approx(loss["rho"]) and stated.scale == pytest.approx(3.0 / math.sqrt(0.6))
    else:
        assert stated.epsilon == pytest.approx(1.0, rel=1e-3)


@pytest.mark.parametrize("mechanism, loss", [("laplace", {"epsilon": 0.05}), ("discrete-laplace", {"epsilon": 1.0}),
                                             ("gaussian", {"rho": 0.01}), ("discrete-gaussian", {"rho": 2.0})])
def test_every_published_count_table_is_additive_non_negative_integers(microdata, mechanism, loss):
    for dims in (["region", "size"], ["region", "size", "sector"]):
        for seed in range(3):
            release = dp_table(microdata, dims, {"region": HRC}, mechanism=mechanism, seed=seed, **loss)
            published = release.published
            assert (published >= 0).all() and (published == np.rint(published)).all()
            assert np.abs(release.table.equations() @ published).max() == 0
            assert published[0] == max(round(release.noisy[0]), 0)  # the noisy grand total kept
            assert release.to_dict()["additive"]


def test_a_sum_is_clamped_to_its_bounds_and_additive(microdata):
    release = dp_table(microdata, ["region", "size"], {"region": HRC}, "v", (-10, 40), epsilon=1.0, seed=1)
    assert release.privacy.sensitivity == 40 and release.privacy.scale == 40
    assert release.original[0] == pytest.approx(np.clip(microdata["v"], -10, 40).sum())
    assert np.abs(release.table.equations() @ release.published).max() < 1e-9
    assert release.to_dict()["disclosure"]["unit_recovered"] is None
    with pytest.raises(InputError, match="loss: the discrete-laplace mechanism adds integer noise"):
        dp_table(microdata, ["region"], value_column="v", bounds=(0, 1), mechanism="discrete-laplace", epsilon=1.0)
    with pytest.raises(InputError, match="bounds: a sum's noise needs"):
        dp_table(microdata, ["region"], value_column="v", epsilon=1.0)


def test_post_processing_keeps_the_total_and_every_run_within_one():
    rng = np.random.default_rng(5)
    y = rng.laplace(0, 3, 500) + rng.choice([0, 0, 1, 8], 500)
    x = _nonnegative_integers(y)
    assert (x >= 0).all() and (x == np.rint(x)).all() and x.sum() == round(y.sum())
    projected = _simplex_projection(y, y.sum())
    assert (projected >= 0).all() and projected.sum() == pytest.approx(y.sum())
    kept = projected > 0  # the least-squares projection moves every kept cell by the same theta
    assert np.ptp((y - projected)[kept]) < 1e-9 and (y[~kept] <= (y - projected)[kept][0] + 1e-9).all()
    start, end = np.sort(rng.integers(0, 501, (2, 200)), axis=0)
    run_sums = np.concatenate([[0], np.cumsum(x)])
    run_projected = np.concatenate([[0], np.cumsum(projected)])
    assert (np.abs((run_sums[end] - run_sums[start]) - (run_projected[end] - run_projected[start])) < 1).all()
    assert (_nonnegative_integers(np.array([-3.0, -1.0, 2.0])) == 0).all()  # a negative total publishes zeros


def test_the_seed_gives_the_same_table_and_no_seed_opendps_sampler(microdata):
    first = dp_table(microdata, ["region", "size"], epsilon=1.0, seed=11)
    again = dp_table(microdata, ["region", "size"], epsilon=1.0, seed=11)
    other = dp_table(microdata, ["region", "size"], epsilon=1.0, seed=12)
    assert first.sampler == "numpy" and np.array_equal(first.published, again.published)
    assert not np.array_equal(first.noisy, other.noisy)
    unseeded = dp_table(microdata, ["region", "size"], mechanism="discrete-gaussian", rho=0.5)
    assert unseeded.sampler == "opendp" and unseeded.to_dict()["seed"] is None
    assert np.abs(unseeded.table.equations() @ unseeded.published).max() == 0


def test_errors_decrease_with_epsilon_over_seeds(microdata):
    def error(epsilon: float) -> float:
        return np.mean([dp_table(microdata, ["region", "size"], epsilon=epsilon, seed=s).utility()["absolute_error"]
                        for s in range(10)])

    errors = [error(e) for e in (0.1, 1.0, 10.0)]
    assert errors[0] > errors[1] > errors[2]


def test_the_loss_is_given_once_and_laplace_takes_no_rho():
    with pytest.raises(InputError, match="epsilon, rho: give the privacy loss"):
        calibrate("laplace", 1.0)
    with pytest.raises(InputError, match="epsilon, rho: give the privacy loss"):
        calibrate("gaussian", 1.0, epsilon=1.0, rho=1.0)
    with pytest.raises(InputError, match="rho: the laplace mechanism is pure"):
        calibrate("laplace", 1.0, rho=1.0)
    with pytest.raises(InputError, match="sensitivity: the discrete-gaussian mechanism"):
        calibrate("discrete-gaussian", 2.5, rho=1.0)


def test_the_map_over_epsilon_rises_in_risk_and_utility_and_repeats_from_its_seed(microdata):
    from rumap.maps.dp_tables import DP_TABLE_MEASURES, dp_table_map

    table = build_table(microdata, ["region", "size"], {"region": HRC})
    m = dp_table_map(table, [0.1, 1.0, 10.0], replicates=20, seed=3)
    assert m.parameter == "epsilon" and m.method == "dp-table"
    assert m.risk[0] < m.risk[1] < m.risk[2] and m.utility[0] < m.utility[1] < m.utility[2]
    assert all(len(m.config[key]) == 3 for key in (*DP_TABLE_MEASURES, "interval_half_width"))
    assert m.config["interval_half_width"] == pytest.approx([1.959964 * math.sqrt(2) / e for e in (0.1, 1.0, 10.0)], rel=1e-5)
    again = dp_table_map(table, [0.1, 1.0, 10.0], replicates=20, seed=3)
    assert np.array_equal(m.risk, again.risk) and np.array_equal(m.utility, again.utility)
    units = build_table(microdata.head(12), ["region", "size", "sector"])
    total = dp_table_map(units, [1.0], utility="total", risk="unit_recovered", replicates=5)
    assert total.utility[0] == pytest.approx(1 - total.config["total_relative_error"][0])
    assert total.risk[0] == total.config["unit_recovered"][0]


def test_suppression_on_the_dp_measures_shares_their_plane(microdata):
    from rumap.maps.dp_tables import dp_table_map, suppression_threshold_map

    table = build_table(microdata.head(20), ["region", "size"])
    suppressed = suppression_threshold_map(table, [1, 4])
    noisy = dp_table_map(table, [1.0], replicates=3)
    assert (suppressed.risk_label, suppressed.utility_label) == (noisy.risk_label, noisy.utility_label)
    small = (table.frequencies >= 1) & (table.frequencies <= 3)
    assert small.any() and suppressed.risk.tolist() == [1.0, 0.0]  # all published; every small cell a primary
    assert suppressed.utility[0] == 1.0 and suppressed.utility[1] < 1.0
    assert suppressed.config["suppressed"][0] == 0 and suppressed.config["suppressed"][1] >= small.sum()
