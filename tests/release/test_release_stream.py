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
    microdata = {m for m, r in STEP_METHODS.items() if r.stage == "microdata"}
    assert microdata - set(NOT_STREAMED) <= set(STREAMED) and set(STEP_METHODS) - set(STREAMED) == set(NOT_STREAMED)
    check_streamed(ReleasePlan((PLANS["absolute"].steps[0], Step("suppress", {"k": 2}, keys=("key",)),
                                Step("rankswap", {"swap_percent": 5.0}, columns=("a",)))))
    with pytest.raises(InputError, match=r"step 2 \(table\) cannot be applied chunk by chunk: a table's steps "
                                         r"tabulate .* then the table steps in memory"):
        check_streamed(ReleasePlan((PLANS["absolute"].steps[0], Step("table", keys=("key",)))))


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



# --- steps that need whole columns: gathered in one pass, computed in memory, put back chunk by chunk ---------------

MICRO = Step("microaggregation", {"k": 3}, columns=("a", "b"))
SUPPRESS = Step("suppress", {"k": 3, "importance": {"key": 2.0}}, keys=("age", "key", "region"))
WHOLE_PLANS = {  # plan, passes over the file
    "microaggregation": (ReleasePlan((MICRO,)), 2),
    "microaggregation-optimal_pc1": (ReleasePlan((Step("microaggregation", {"k": 4, "algorithm": "optimal_pc1",
                                                                            "standardize": True},
                                                       columns=("b", "a")),)), 2),
    "rankswap": (ReleasePlan((Step("rankswap", {"swap_percent": 10.0}, columns=("a", "b"), seed=2),)), 2),
    "suppress": (ReleasePlan((SUPPRESS,)), 2),
    "suppress-optimal": (ReleasePlan((Step("suppress", {"k": 3, "optimal": True}, keys=("key", "age")),)), 2),
    "granularity": (ReleasePlan((Step("granularity", {"level": 50.0}, keys=("key", "age")),)), 2),
    # recode -> microaggregation -> noise (its variances from the masked columns) -> suppress -> PRAM -> top/bottom
    "mixed": (ReleasePlan((Step("recode", {"merge": {"key": {"x": "xy", "y": "xy"}}}, keys=("key",)), MICRO,
                           Step("noise", {"lambda2_frac": 0.2}, columns=("a",), seed=3), SUPPRESS,
                           Step("pram", {"theta": 0.5}, keys=("key",), seed=4),
                           Step("top_bottom", {"variable": "age", "above": 70}, keys=("age",)))), 5),
}


@pytest.fixture(scope="module")
def mixed_file(tmp_path_factory):
    rng = np.random.default_rng(8)
    a = rng.lognormal(3.0, 0.5, size=157)
    region = rng.choice(["north", "south", "east", "west"], size=157, p=[0.5, 0.3, 0.15, 0.05]).astype(object)
    region[[*range(16), 40, 156]] = None
    age = rng.integers(0, 95, size=157).astype(float)
    age[[3, 17, 156]] = np.nan
    frame = pd.DataFrame({"id": np.arange(157), "a": a, "b": 0.5 * a + rng.normal(size=157), "age": age,
                          "key": rng.choice(["x", "y", "z"], size=157), "region": region})
    path = tmp_path_factory.mktemp("stream-whole") / "original.parquet"
    frame.to_parquet(path, index=False)
    return frame, path


def _same_summaries(streamed: tuple, in_memory: list) -> None:
    """Equal keys and values; floats (SSE/SST) to 1e-12 relative (sums accumulated in another order)."""
    assert len(streamed) == len(in_memory)
    for got, expected in zip(streamed, in_memory, strict=True):
        assert got.keys() == expected.keys()
        for key, value in expected.items():
            assert got[key] == (pytest.approx(value, rel=1e-12) if isinstance(value, float) else value)


@pytest.mark.parametrize("name", list(WHOLE_PLANS))
@pytest.mark.parametrize("chunk_size", [52, 16, 1000])  # 52: a last chunk of one record
def test_whole_column_steps_in_chunks_give_the_in_memory_release(mixed_file, tmp_path, name, chunk_size):
    frame, path = mixed_file
    plan, passes = WHOLE_PLANS[name]
    out = tmp_path / "released.parquet"
    done = release_in_chunks(path, plan, out, chunk_size)
    in_memory = apply_plan(frame, plan)
    streamed = pd.read_parquet(out)
    assert (done.rows, done.chunks, done.passes) == (157, -(-157 // chunk_size), passes)
    pd.testing.assert_frame_equal(streamed, round_trip(in_memory.data, "released.parquet"), check_exact=False,
                                  rtol=1e-12, atol=1e-12)
    _same_summaries(done.summaries, [o.summary for o in in_memory.outcomes])
    assert streamed["id"].equals(frame["id"])  # the other columns pass through
    assert all(not streamed[c].equals(frame[c]) for c in plan.steps[-1 if name != "mixed" else 1].columns or ())
    assert all(s.get("suppressed", 1) > 0 for s in done.summaries)  # the suppressions did something


@pytest.mark.parametrize("name", ["two-steps", "absolute"])
def test_noise_summaries_are_those_in_memory(original, tmp_path, name):
    frame, path = original
    done = release_in_chunks(path, PLANS[name], tmp_path / "o.parquet", 40)
    assert list(done.summaries) == [o.summary for o in apply_plan(frame, PLANS[name]).outcomes]


@pytest.mark.parametrize("name", list(CATEGORICAL_PLANS))
def test_categorical_summaries_are_those_in_memory(categorical, tmp_path, name):
    frame, path = categorical
    plan, _ = CATEGORICAL_PLANS[name]
    done = release_in_chunks(path, plan, tmp_path / "o.parquet", 16)
    assert list(done.summaries) == [o.summary for o in apply_plan(frame, plan).outcomes]
    assert any(done.summaries)


def test_a_quadratic_microaggregation_over_the_budget_is_refused_before_any_pass(mixed_file, tmp_path):
    from rumap.budget import WorkBudget

    _, path = mixed_file
    out = tmp_path / "o.parquet"
    plan = ReleasePlan((PLANS["absolute"].steps[0], Step("microaggregation", {"k": 3, "algorithm": "mwa"},
                                                         columns=("a", "b"))))
    with pytest.raises(InputError, match=r"step 2 \(microaggregation\): the run needs .*mwa of 157 records x 2 "
                                         r"variables.*mdav_partitioned .* or optimal_pc1 is linear"):
        release_in_chunks(path, plan, out, 50, budget=WorkBudget(work=1e4))
    assert not out.exists()
    with pytest.raises(InputError, match=r"over the work limit") as refused:
        release_in_chunks(path, ReleasePlan((Step("microaggregation", {"k": 3, "algorithm": "mdav_partitioned"},
                                                  columns=("a", "b")),)), out, 50, budget=WorkBudget(work=1e3))
    assert "quadratic" not in str(refused.value)
    release_in_chunks(path, plan, out, 50, budget=WorkBudget(work=1e5))
    assert out.exists()


def test_a_missing_column_is_named_before_any_pass(mixed_file, tmp_path):
    _, path = mixed_file
    plan = ReleasePlan((MICRO, Step("suppress", {"k": 2}, keys=("key", "nowhere"))))
    with pytest.raises(InputError, match=r"no column 'nowhere'; columns are id, a, b, age, key, region"):
        release_in_chunks(path, plan, tmp_path / "o.parquet", 50)


def test_each_pass_before_the_writing_one_is_told(mixed_file, tmp_path):
    _, path = mixed_file
    told: list[str] = []
    done = release_in_chunks(path, WHOLE_PLANS["mixed"][0], tmp_path / "o.parquet", 1000, stage=told.append)
    assert told == ["step 2 (microaggregation): a pass over the 157 records for its columns",
                    "step 2 (microaggregation): computing on its 2 column(s) in memory",
                    "step 3 (noise): a pass over the 157 records for its covariance",
                    "step 4 (suppress): a pass over the 157 records for its columns",
                    "step 4 (suppress): computing on its 3 column(s) in memory",
                    "step 5 (pram): a pass over the 157 records for its keys' counts"]
    assert done.passes == len(told) - 2 + 1
