"""The generators of rumap.synthesis: CART's minbucket, the copula's shrinkage, missing values, seeds."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from rumap.errors import InputError
from rumap.synthesis import GENERATORS, synthesize


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(11)
    n = 400
    x = rng.normal(size=n)
    return pd.DataFrame({"x": x, "y": 2 * x + 0.3 * rng.normal(size=n), "g": np.where(x > 0, "hi", "lo"),
                         "k": rng.integers(0, 5, n)})


def _correlation(frame: pd.DataFrame) -> float:
    return float(np.corrcoef(frame["x"], frame["y"])[0, 1])


def test_cart_with_one_leaf_draws_each_column_from_its_marginal(data):
    copy = synthesize(data, "cart", parameter=len(data), rows=4000, seed=1).copies[0]
    assert abs(_correlation(copy)) < 0.06  # the original's is 0.99
    assert set(copy["x"]) <= set(data["x"]) and set(copy["g"]) <= set(data["g"])
    share = (copy["g"] == "hi").mean()
    assert share == pytest.approx((data["g"] == "hi").mean(), abs=0.03)
    pd.crosstab(copy["g"], copy["x"] > 0)  # the category no longer follows x's sign
    assert ((copy["g"] == "hi") == (copy["x"] > 0)).mean() == pytest.approx(0.5, abs=0.05)


def test_cart_with_small_leaves_keeps_the_relations(data):
    copy = synthesize(data, "cart", parameter=5, seed=1).copies[0]
    assert _correlation(copy) > 0.95
    assert ((copy["g"] == "hi") == (copy["x"] > 0)).mean() > 0.95
    assert copy.dtypes.to_dict() == data.dtypes.to_dict()


def test_copula_shrinkage_moves_the_correlation_towards_none(data):
    kept = _correlation(synthesize(data, "copula", parameter=0.0, rows=4000, seed=2).copies[0])
    gone = _correlation(synthesize(data, "copula", parameter=1.0, rows=4000, seed=2).copies[0])
    assert kept > 0.95 and abs(gone) < 0.06
    copy = synthesize(data, "copula", seed=2).copies[0]
    assert set(copy["g"]) <= {"hi", "lo"} and set(copy["k"]) <= set(range(5))  # whole numbers stay whole


#: Generators whose noise (MST's differential privacy), at their default parameter, swamps the share of missing
#: values of 400 records: theirs are tested at a parameter of little noise (tests/synthesis/test_mst_generator.py).
NOISY = ("mst",)


@pytest.mark.parametrize("method", [m for m in GENERATORS if m not in NOISY])
def test_missing_values_are_synthesised_as_a_category(data, method):
    holed = data.copy()
    holed.loc[::4, "y"] = np.nan
    holed.loc[1::5, "g"] = None
    copy = synthesize(holed, method, rows=4000, seed=3).copies[0]
    assert copy["y"].isna().mean() == pytest.approx(0.25, abs=0.03)
    assert copy["g"].isna().mean() == pytest.approx(0.2, abs=0.03)


@pytest.mark.parametrize("method", list(GENERATORS))
def test_a_seed_gives_the_same_bytes(data, method):
    def text(seed):
        return synthesize(data, method, copies=2, seed=seed).to_frame().to_csv(index=False).encode()

    assert text(5) == text(5) != text(6)
    stacked = synthesize(data, method, copies=2, rows=7, seed=5).to_frame()
    assert stacked["copy"].tolist() == [1] * 7 + [2] * 7 and list(stacked.columns[1:]) == list(data.columns)


@pytest.mark.parametrize(("kwargs", "fragment"), [
    ({"method": "cart", "parameter": 0}, "minbucket must be"),
    ({"method": "copula", "parameter": 1.5}, "shrinkage must be"),
    ({"method": "cart", "columns": ["x", "nosuch"]}, "nosuch"),
    ({"method": "cart", "copies": 0}, "copies must be"),
])
def test_bad_input_names_the_culprit(data, kwargs, fragment):
    with pytest.raises(InputError, match=fragment):
        synthesize(data, **kwargs)
