"""R-U maps of synthetic data (rumap.maps.synthetic)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from rumap.errors import InputError
from rumap.maps.synthetic import SYNTHETIC_RISKS, SYNTHETIC_UTILITIES, synthetic_map


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(4)
    n = 160
    x = rng.normal(size=n)
    return pd.DataFrame({"x": x, "y": x + 0.2 * rng.normal(size=n), "s": rng.choice(["a", "b", "c"], n),
                         "t": rng.integers(0, 3, n)})


def test_cart_copies_less_as_its_leaves_grow(data):
    m = synthetic_map(data, "cart", [1, 80], replicates=4, seed=3)
    assert m.parameter == "minbucket" and m.method == "cart" and m.knowledge == "dcr_share"
    assert m.risk[0] > 0.8 and m.risk[1] < 0.65  # leaves of one record copy it; one leaf draws the marginals
    assert m.utility[0] > m.utility[1]
    again = synthetic_map(data, "cart", [1, 80], replicates=4, seed=3)
    np.testing.assert_array_equal(again.risk, m.risk)


@pytest.mark.parametrize("risk", list(SYNTHETIC_RISKS))
@pytest.mark.parametrize("utility", list(SYNTHETIC_UTILITIES))
def test_every_measure_maps(data, risk, utility):
    m = synthetic_map(data, "copula", [0.0, 1.0], risk=risk, utility=utility, replicates=2, keys=["s"], target="t",
                      copies=2, seed=1)
    assert np.isfinite(m.risk).all() and np.isfinite(m.utility).all() and m.config["copies"] == 2


def test_on_the_common_measures_it_overlays_a_masking_map(data):
    from rumap.maps.common import common_map
    from rumap.maps.pareto import pareto_frontier

    synthetic = synthetic_map(data, "copula", [0.0, 1.0], risk="linkage", utility="common", replicates=2)
    masked = common_map("noise", "lambda2", np.array([0.0, 1.0]), np.array([[[1.0, 1.0], [0.2, 0.5]]] * 2))
    frontier = pareto_frontier([synthetic, masked])
    assert set(frontier["method"]) <= {"copula", "noise"} and len(frontier) >= 1


@pytest.mark.parametrize(("kwargs", "fragment"), [
    ({"risk": "repu"}, "needs keys"),
    ({"holdout_share": 0.999}, "fewer than two"),
    ({"values": [0.0, 2.0]}, "shrinkage"),
])
def test_bad_input_names_the_culprit(data, kwargs, fragment):
    with pytest.raises(InputError, match=fragment):
        synthetic_map(data, "copula", **{"values": [0.0], "replicates": 2, **kwargs})
