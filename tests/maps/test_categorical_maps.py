"""R-U maps of categorical protection: local suppression over k, banding over the width, PRAM over theta."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from cli_helpers import ROOT

from rumap.maps.categorical import banding_map, hellinger_utility, pram_map, pram_reidentification, suppression_map
from rumap.masking.categorical import band, local_suppression
from rumap.risk.individual import individual_risk

SURVEY = ROOT / "data" / "survey.csv"
KEYS = ["age_band", "sex", "region", "marital", "occupation"]


@pytest.fixture(scope="module")
def survey() -> pd.DataFrame:
    return pd.read_csv(SURVEY)


def test_suppression_map_points_are_the_protected_files(survey):
    m = suppression_map(survey, KEYS, [1, 2, 3, 5], weight="weight")
    assert m.parameter == "k" and m.utility[0] == 1.0
    assert m.risk[0] == pytest.approx(individual_risk(survey, KEYS, weight="weight").global_risk)
    three = local_suppression(survey, KEYS, k=3)
    assert m.risk[2] == pytest.approx(individual_risk(three.data, KEYS, weight="weight").global_risk)
    assert m.utility[2] == pytest.approx(1 - three.suppressed.mean())
    assert (np.diff(m.utility) <= 0).all() and (np.diff(m.risk) <= 0).all()


def test_banding_map_points(survey):
    keys = ["age", "sex", "region"]
    m = banding_map(survey, keys, "age", [1, 10, 30])
    banded = band(survey, "age", 10)
    assert m.risk[1] == pytest.approx(individual_risk(banded, keys).global_risk)
    means = survey["age"].groupby(banded["age"]).transform("mean")
    sse = float(((survey["age"] - means) ** 2).sum())
    assert m.utility[1] == pytest.approx(1 - sse / float(((survey["age"] - survey["age"].mean()) ** 2).sum()))
    assert m.utility[0] == 1.0


def test_pram_map_is_reproducible_and_bounded(survey):
    first = pram_map(survey, ["sex", "region", "marital"], [0.3, 0.8, 1.0], replicates=8, seed=4)
    second = pram_map(survey, ["sex", "region", "marital"], [0.3, 0.8, 1.0], replicates=8, seed=4)
    np.testing.assert_array_equal(first.risk, second.risk)
    assert first.utility[-1] == 1.0 and first.risk_se[-1] == 0.0
    assert (np.diff(first.risk) > 0).all() and (first.risk_se[:-1] > 0).all()
    census = 1.0 / survey.groupby(["sex", "region", "marital"])["sex"].transform("size")
    assert first.risk[-1] == pytest.approx(census.mean())  # unchanged file: the census risk mean(1/f_k)


def test_hellinger_and_reidentification_by_hand():
    a = pd.DataFrame({"k": ["x", "x", "y", "y"]})
    b = pd.DataFrame({"k": ["x", "y", "y", "y"]})
    expected = 1 - np.sqrt(0.5 * ((np.sqrt(0.5) - np.sqrt(0.25)) ** 2 + (np.sqrt(0.5) - np.sqrt(0.75)) ** 2))
    assert hellinger_utility(a, b, ["k"]) == pytest.approx(expected)
    assert pram_reidentification(a, b, ["k"]) == pytest.approx((1 / 1 + 0 + 1 / 3 + 1 / 3) / 4)


def test_the_default_grids_are_the_command_lines_expansion_of_the_same_ends():
    from rumap.cli.flags import parse_grid
    from rumap.release.registry import CATEGORICAL_METHODS

    pram, recode, suppress = (CATEGORICAL_METHODS[name] for name in ("pram", "recode", "suppress"))
    assert pram.values() == parse_grid("0.2:1:5", "theta").tolist()
    np.testing.assert_allclose(pram.values(), [0.2, 0.4, 0.6, 0.8, 1.0], rtol=0, atol=1e-15)
    assert recode.values() == parse_grid("2:10:5", "band_width").tolist() == [2.0, 4.0, 6.0, 8.0, 10.0]
    assert suppress.values() == parse_grid("1:5", "k", integer=True).tolist() == [1, 2, 3, 4, 5]
    assert suppress.values(stop=3) == [1, 2, 3] and all(type(k) is int for k in suppress.values())
