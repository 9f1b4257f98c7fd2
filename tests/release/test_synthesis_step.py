"""The synthesis step of a release plan (rumap.release.synthesis)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from rumap.errors import InputError
from rumap.release.apply import apply_plan
from rumap.release.plan import ReleasePlan, Step
from rumap.release.synthesis import GENERATOR_PARAMETERS
from rumap.synthesis import GENERATORS


def test_the_steps_generators_are_the_registrys():
    assert GENERATOR_PARAMETERS == {name: record.parameter for name, record in GENERATORS.items()}


def test_a_plan_synthesises_every_column():
    rng = np.random.default_rng(1)
    data = pd.DataFrame({"s": rng.choice(["a", "b"], 30), "x": rng.normal(size=30), "k": rng.integers(0, 3, 30)})
    plan = ReleasePlan((Step("synthesize", {"generator": "copula", "shrinkage": 0.5}, columns=["x", "s", "k"],
                             seed=4),))
    result = apply_plan(data, plan)
    assert list(result.data.columns) == ["s", "x", "k"] and len(result.data) == 30
    assert result.outcomes[0].summary["synthesised"] == ["x", "s", "k"]
    assert not result.data["x"].isin(data["x"]).all()  # new values, not the original records
    assert apply_plan(data, plan).data.equals(result.data)
    with pytest.raises(InputError, match="name them all.*'s'"):
        apply_plan(data, ReleasePlan((Step("synthesize", {}, columns=["x"]),)))


@pytest.mark.parametrize(("parameters", "fragment"), [
    ({"generator": "nosuch"}, "generator must be one of"),
    ({"generator": "cart", "shrinkage": 0.5}, "shrinkage is a parameter of generator copula"),
    ({"minbucket": 0}, "minbucket"),
])
def test_bad_parameters_are_refused(parameters, fragment):
    with pytest.raises(InputError, match=fragment):
        Step("synthesize", parameters, columns=["x"])
