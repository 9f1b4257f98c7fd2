"""A release plan applied chunk by chunk equals the plan applied in memory, whatever the chunk size."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from rumap.errors import InputError
from rumap.release.apply import STEP_METHODS, apply_plan, round_trip
from rumap.release.plan import ReleasePlan, Step
from rumap.release.stream import NOT_STREAMED, STREAMED, check_streamed, release_in_chunks


@pytest.fixture(scope="module")
def original(tmp_path_factory):
    rng = np.random.default_rng(4)
    a = rng.lognormal(3.0, 0.5, size=157)
    frame = pd.DataFrame({"id": np.arange(157), "a": a, "b": 0.5 * a + rng.normal(size=157),
                          "key": rng.choice(["x", "y", "z"], size=157)})
    path = tmp_path_factory.mktemp("stream") / "original.parquet"
    frame.to_parquet(path, index=False)
    return frame, path


PLANS = {
    "absolute": ReleasePlan((Step("noise", {"lambda2": 2.0, "truncate_below": 0.0}, columns=("a",), seed=5),)),
    "two-steps": ReleasePlan((Step("noise", {"lambda2": 1.0, "unequal_above": 30.0}, columns=("a", "b"), seed=1),
                              Step("noise", {"lambda2_frac": 0.3, "correlated": True}, columns=("b", "a"), seed=2))),
}


@pytest.mark.parametrize("name", list(PLANS))
@pytest.mark.parametrize("chunk_size", [52, 16, 1000])  # 52: a last chunk of one record
def test_chunks_give_the_in_memory_release(original, tmp_path, name, chunk_size):
    frame, path = original
    plan = PLANS[name]
    out = tmp_path / "released.parquet"
    done = release_in_chunks(path, plan, out, chunk_size)
    streamed = pd.read_parquet(out)
    expected = apply_plan(frame, plan).data
    assert (done.rows, done.columns, done.chunks) == (157, 4, -(-157 // chunk_size))
    assert list(streamed.columns) == list(frame.columns)
    pd.testing.assert_frame_equal(streamed[["id", "key"]], frame[["id", "key"]])
    if name == "absolute":  # the same draws, the same arithmetic: the same bits
        assert done.passes == 1
        np.testing.assert_array_equal(streamed["a"], expected["a"])
    else:  # the covariance summed from chunks: equal up to rounding
        assert done.passes == 2
        np.testing.assert_allclose(streamed[["a", "b"]], expected[["a", "b"]], rtol=1e-12, atol=1e-12)
        assert not np.allclose(streamed["a"], frame["a"])


def test_every_step_method_is_streamed_or_refused_with_a_reason():
    assert set(STEP_METHODS) - set(STREAMED) - set(NOT_STREAMED) <= {m for m, r in STEP_METHODS.items()
                                                                       if r.stage != "microdata"}
    with pytest.raises(InputError, match=r"step 2 \(suppress\).*protect suppress --engine scale"):
        check_streamed(ReleasePlan((PLANS["absolute"].steps[0], Step("suppress", {"k": 2}, keys=("key",)))))
    with pytest.raises(InputError, match=r"step 1 \(rankswap\)"):
        check_streamed(ReleasePlan((Step("rankswap", {"swap_percent": 5.0}, columns=("a",)),)))


@pytest.fixture(scope="module")
def categorical(tmp_path_factory):
    rng = np.random.default_rng(8)
    region = rng.choice(["north", "south", "east", "west"], size=157, p=[0.5, 0.3, 0.15, 0.05]).astype(object)
    region[[*range(16), 40, 156]] = None  # chunks of 16: a first chunk where region and age are all missing
    age = rng.integers(0, 95, size=157).astype(float)
    age[:16] = np.nan
    frame = pd.DataFrame({"a": rng.lognormal(3.0, 0.5, size=157), "age": age,
                          "key": rng.choice(["x", "y", "z"], size=157), "region": region,
                          "empty": pd.Series([None] * 157, dtype=object)})
    path = tmp_path_factory.mktemp("stream-categorical") / "original.parquet"
    frame.to_parquet(path, index=False)
    return frame, path


PRAM = Step("pram", {"theta": 0.4}, keys=("empty", "key", "region"), seed=7)  # "empty" draws nothing
RECODE = Step("recode", {"band_width": 10, "variable": "age", "merge": {"key": {"x": "xy", "y": "xy"}}},
              keys=("age", "key"))
TOP_BOTTOM = Step("top_bottom", {"variable": "age", "above": 70, "below": 20}, keys=("age",))
CATEGORICAL_PLANS = {  # plan, passes over the file
    "pram": (ReleasePlan((PRAM,)), 2),
    "recode": (ReleasePlan((RECODE,)), 1),
    "top_bottom": (ReleasePlan((TOP_BOTTOM,)), 1),
    "mixed": (ReleasePlan((Step("noise", {"lambda2_frac": 0.2}, columns=("a",), seed=3),
                           Step("recode", {"merge": {"key": {"x": "xy", "y": "xy"}}}, keys=("key",)),
                           Step("pram", {"theta": 0.5}, keys=("key", "region"), seed=11), TOP_BOTTOM)), 3),
}


@pytest.mark.parametrize("name", list(CATEGORICAL_PLANS))
@pytest.mark.parametrize("chunk_size", [52, 16, 1000])  # 52: a last chunk of one record
def test_categorical_steps_in_chunks_give_the_in_memory_release(categorical, tmp_path, name, chunk_size):
    frame, path = categorical
    plan, passes = CATEGORICAL_PLANS[name]
    out = tmp_path / "released.parquet"
    done = release_in_chunks(path, plan, out, chunk_size)
    expected = round_trip(apply_plan(frame, plan).data, "released.parquet")
    streamed = pd.read_parquet(out)
    assert (done.rows, done.chunks, done.passes) == (157, -(-157 // chunk_size), passes)
    pd.testing.assert_frame_equal(streamed, expected, check_exact=False, rtol=1e-12, atol=1e-12)
    changed = [c for c in frame.columns if not streamed[c].equals(round_trip(frame, "o.parquet")[c])]
    assert changed == {"pram": ["key", "region"], "recode": ["age", "key"], "top_bottom": ["age"],
                       "mixed": ["a", "age", "key", "region"]}[name]

