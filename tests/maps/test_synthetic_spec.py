"""The synthetic map as a specification (rumap.specs.synthetic): its run, its common curve, its command and step."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from rumap.errors import InputError
from rumap.maps.synthetic import measure_synthetic, synthetic_map
from rumap.release.from_map import step_from_synthetic
from rumap.release.plan import Step
from rumap.specs import DataSource
from rumap.specs.synthetic import SyntheticSpec


@pytest.fixture(scope="module")
def table(tmp_path_factory):
    rng = np.random.default_rng(7)
    x = rng.normal(size=(50, 2))
    path = tmp_path_factory.mktemp("syn") / "d.csv"
    pd.DataFrame(x, columns=["a", "b"]).to_csv(path, index=False)
    return path, x


def test_the_spec_runs_its_map_and_the_common_one_from_the_same_copies(table):
    path, x = table
    spec = SyntheticSpec("cart", (5, 20), DataSource.of("upload", str(path), ["a", "b"], x), replicates=2,
                         seed=3, max_risk=0.7)
    analysis = spec.run(x)
    own, common = analysis.maps[0], analysis.common
    direct = synthetic_map(pd.DataFrame(x, columns=["a", "b"]), "cart", [5, 20], replicates=2, seed=3)
    np.testing.assert_array_equal(own.risk, direct.risk)
    assert common.knowledge == "linkage" and common.config["utility"] == "common"
    assert analysis.recommendation().feasible in (True, False)
    assert SyntheticSpec.from_dict(json.loads(json.dumps(spec.to_dict()))) == spec


def test_a_value_draws_the_same_whatever_the_rest_of_the_grid(table):
    frame = pd.DataFrame(table[1], columns=["a", "b"])
    alone = synthetic_map(frame, "copula", [0.5], replicates=2, seed=1)
    among = synthetic_map(frame, "copula", [0.0, 0.5], replicates=2, seed=1)
    assert alone.risk[0] == among.risk[1] and alone.utility[0] == among.utility[1]


@pytest.mark.parametrize(("arguments", "fragment"), [
    ({"method": "nosuch"}, "method must be one of"),
    ({"values": (0,)}, "minbucket"),
    ({"risk": "repu"}, "risk repu needs keys"),
    ({"risk": "nosuch"}, "risk must be one of"),
    ({"keys": ("z",), "risk": "repu"}, "'z' is not a column"),
])
def test_a_bad_spec_is_refused(table, arguments, fragment):
    given = {"method": "cart", "values": (5,), "data": DataSource.of("upload", "d.csv", ["a", "b"], table[1]),
             **arguments}
    with pytest.raises(InputError, match=fragment):
        SyntheticSpec(**given)


def test_the_step_of_a_map_point_and_a_release_measured_as_a_copy(table):
    spec = SyntheticSpec("copula", (0.0, 0.5), DataSource.of("upload", "d.csv", ["a", "b"], table[1]), seed=4)
    assert step_from_synthetic(spec, 0.5) == Step("synthesize", {"generator": "copula", "shrinkage": 0.5},
                                                  columns=("a", "b"), seed=4)
    with pytest.raises(InputError, match="whole minbucket"):
        step_from_synthetic(SyntheticSpec("cart", (5,), spec.data), 5.5)
    frame = pd.DataFrame(table[1], columns=["a", "b"])
    assert measure_synthetic(frame, frame, "linkage") == 1.0  # a copy links every record
    assert measure_synthetic(frame, frame, "nndr") == 1.0  # R = 1 - NNDR, each copy on its own original
    with pytest.raises(InputError, match="needs holdout"):
        measure_synthetic(frame, frame, "dcr_share")
