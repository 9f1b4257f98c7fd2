"""MST as a generator of rumap.synthesis: the one MST of rumap.privacy, categories as given, its map over epsilon."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from rumap.errors import InputError
from rumap.maps.synthetic import synthetic_map
from rumap.privacy.mst import mst_fit
from rumap.synthesis import GENERATORS, synthesize

pytest.importorskip("opendp")


@pytest.fixture(scope="module")
def frame():
    rng = np.random.default_rng(5)
    a = rng.choice(list("xyz"), 300)
    b = np.where(rng.random(300) < 0.9, a, "w")  # b follows a
    return pd.DataFrame({"a": a, "b": pd.Series(b).mask(rng.random(300) < 0.2),
                         "k": rng.integers(0, 3, 300)})


def test_the_record_draws_from_privacys_mst_with_the_originals_values_and_types(frame):
    record = GENERATORS["mst"]
    assert (record.parameter, record.entry, record.no_map != "") == ("epsilon", "privacy_loss", True)
    model = record.fit(frame, 1.0, np.random.default_rng(0)).model  # no column of more than BANDS values: as given
    again = mst_fit(frame, list(frame.columns), 1.0, model.delta, np.random.default_rng(0))
    assert model.order == again.order and model.rho == again.rho and model.epsilon == pytest.approx(1.0)
    copy = synthesize(frame, "mst", parameter=50.0, rows=3000, seed=2).copies[0]
    assert copy.dtypes.to_dict() == frame.dtypes.to_dict() and set(copy["k"]) <= {0, 1, 2}
    assert copy["b"].isna().mean() == pytest.approx(frame["b"].isna().mean(), abs=0.03)  # missing: a category
    kept = (copy["a"] == copy["b"]).mean()
    assert kept == pytest.approx((frame["a"] == frame["b"]).mean(), abs=0.05)
    assert synthesize(frame[["k"]], "mst", seed=1).copies[0].shape == (300, 1)  # one column: its counts alone


def test_a_numeric_column_of_many_values_is_measured_in_bands_and_drawn_within_them():
    x = np.random.default_rng(3).normal(size=400)
    original = pd.DataFrame({"x": x, "n": np.round(x * 100).astype(int)})
    copy = synthesize(original, "mst", parameter=20.0, rows=2000, seed=4).copies[0]
    assert not copy["x"].isin(original["x"]).all() and copy["x"].between(x.min(), x.max()).all()
    assert copy["n"].dtype == original["n"].dtype and copy["x"].std() == pytest.approx(x.std(), rel=0.15)


def test_its_map_keeps_more_utility_as_epsilon_grows_and_refuses_a_bad_epsilon(frame):
    codes = frame.apply(lambda c: pd.factorize(c, use_na_sentinel=False)[0]).astype(float)  # a page's numbers
    m = synthetic_map(codes, "mst", [0.02, 20.0], "nndr", "pmse", replicates=2, seed=1)
    assert (m.parameter, m.method) == ("epsilon", "mst") and m.utility[0] < m.utility[1]
    with pytest.raises(InputError, match="epsilon must be"):
        synthetic_map(codes, "mst", [0.0, 1.0], replicates=2)
    with pytest.raises(InputError, match="distinct values"):
        synthesize(pd.DataFrame({"u": np.arange(4000).astype(str), "v": np.arange(4000).astype(str)}), "mst")
