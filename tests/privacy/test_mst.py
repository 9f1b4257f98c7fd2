"""MST's synthetic records: OpenDP's accounting of its three measurements, the tree, the seed."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from rumap.errors import InputError
from rumap.privacy.mst import mst_synthesize

pytest.importorskip("opendp")


@pytest.fixture(scope="module")
def frame():
    rng = np.random.default_rng(0)
    a = rng.choice(list("xyz"), 600)
    b = np.where(rng.random(600) < 0.9, a, "w")  # b follows a; c is independent noise
    return pd.DataFrame({"a": a, "b": b, "c": rng.choice(list("uv"), 600), "d": rng.choice(list("pq"), 600)})


def test_the_budget_is_spent_in_thirds_and_stated_as_asked(frame):
    out = mst_synthesize(frame, ["a", "b", "c", "d"], epsilon=2.0, delta=1e-5, seed=3)
    parts = out.to_dict()["privacy"]["parts"]
    assert set(parts) == {"one_way", "selection", "two_way"}
    assert parts["one_way"] == pytest.approx(parts["selection"]) == pytest.approx(parts["two_way"])
    assert out.epsilon == pytest.approx(2.0, rel=1e-6) and out.delta == 1e-5
    assert len(out.edges) == 3 and {c for e in out.edges for c in e} == {"a", "b", "c", "d"}


def test_a_strong_dependence_is_kept_at_a_large_epsilon_and_the_seed_repeats(frame):
    out = mst_synthesize(frame, ["a", "b", "c"], epsilon=20.0, seed=1)
    assert ("a", "b") in out.edges or ("b", "a") in out.edges
    s = out.synthetic
    assert (s["a"] == s["b"]).mean() == pytest.approx((frame["a"] == frame["b"]).mean(), abs=0.06)
    assert abs(s.shape[0] - 600) < 20
    again = mst_synthesize(frame, ["a", "b", "c"], epsilon=20.0, seed=1)
    pd.testing.assert_frame_equal(s, again.synthetic)
    assert mst_synthesize(frame, ["a", "b"], epsilon=1.0, records=50).synthetic.shape == (50, 2)


def test_columns_are_two_or_more_of_the_frame(frame):
    with pytest.raises(InputError, match="columns: MST needs two or more"):
        mst_synthesize(frame, ["a"], epsilon=1.0)
    with pytest.raises(InputError, match="columns: no column 'z'"):
        mst_synthesize(frame, ["a", "z"], epsilon=1.0)


def test_the_map_over_epsilon_keeps_more_of_the_2_way_tables_as_epsilon_grows(frame):
    from rumap.maps.mst import mst_map

    m = mst_map(frame.head(200), ["a", "b", "c"], [0.05, 20.0], replicates=2, seed=4)
    assert m.parameter == "epsilon" and m.method == "mst" and m.utility[0] < m.utility[1]
    assert m.config["mean_tvd"] == pytest.approx([1 - u for u in m.utility])
