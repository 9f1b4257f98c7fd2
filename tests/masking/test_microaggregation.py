"""microaggregate (rumap/masking/microaggregation): standardizing, the result, bad input, invariants of every algorithm."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from microaggregation_helpers import same_partition

from rumap.errors import InputError
from rumap.masking.microaggregation import ALGORITHMS, microaggregate, standardize_columns, sum_of_squares


def test_standardize_groups_on_z_scores_masks_in_original_units():
    rng = np.random.default_rng(9)
    x = np.column_stack([rng.normal(0, 1, 80), rng.normal(1000, 500, 80)])
    result = microaggregate(x, 3, "mdav", standardize=True, columns=["a", "b"])
    z = standardize_columns(x)
    assert same_partition(result.groups, microaggregate(z, 3, "mdav").groups)
    for g in range(result.n_groups):
        members = result.groups == g
        np.testing.assert_allclose(result.masked[members], np.broadcast_to(x[members].mean(axis=0), (members.sum(), 2)))
    sse, sst = sum_of_squares(z, result.groups)
    assert result.sse == pytest.approx(sse) and result.sst == pytest.approx(sst)
    assert result.sst == pytest.approx(2 * 79)  # z-scores with the sample sd
    raw = microaggregate(x, 3, "mdav")
    assert raw.information_loss != pytest.approx(result.information_loss)


def test_result_frame_and_dict():
    x = np.arange(10.0)
    result = microaggregate(x, 3, "optimal", columns=["income"])
    frame = result.to_frame()
    assert frame.columns.tolist() == ["income", "group"] and len(frame) == 10
    summary = result.to_dict()
    assert {"algorithm", "k", "n", "groups", "min_group_size", "max_group_size", "sse", "sst",
            "information_loss"} <= set(summary)
    assert summary["groups"] == 3 and summary["min_group_size"] == 3 and summary["max_group_size"] == 4
    assert result.masked.shape == (10, 1)
    with pytest.raises(ValueError):
        result.masked[0, 0] = 1.0


@pytest.mark.parametrize("kwargs, match", [
    ({"k": 0}, "k must be an integer >= 1"),
    ({"k": 2.5}, "k must be an integer"),
    ({"k": 11}, "k must be at most the number of records n = 10, got k = 11"),
    ({"k": 2, "algorithm": "ward"}, "algorithm must be one of mdav, mwa, fixed, individual, optimal, mdav_partitioned, optimal_pc1, got 'ward'"),
    ({"k": 2, "criterion": "median"}, "criterion must be one of pc1, variable, zsum, got 'median'"),
])
def test_bad_parameters(kwargs, match):
    with pytest.raises(InputError, match=match):
        microaggregate(np.arange(10.0), **kwargs)


def test_bad_data():
    with pytest.raises(InputError, match="missing or non-finite values, first in row 2, column 1"):
        microaggregate([1.0, np.nan, 3.0], 1)
    with pytest.raises(InputError, match="numeric"):
        microaggregate(["a", "b"], 1)
    with pytest.raises(InputError, match="columns has 1 names but data has 2"):
        microaggregate(np.ones((4, 2)), 2, columns=["a"])
    with pytest.raises(InputError, match="no column 'z'"):
        microaggregate(pd.DataFrame({"a": [1.0, 2.0, 3.0]}), 1, columns=["z"])



@st.composite
def problems(draw):
    n = draw(st.integers(1, 40))
    p = draw(st.integers(1, 3))
    values = draw(arrays(np.float64, (n, p), elements=st.floats(-1e4, 1e4, allow_nan=False, allow_subnormal=False)))
    k = draw(st.integers(1, n))
    algorithms = [a for a in ALGORITHMS if a != "optimal" or p == 1]
    return values, k, draw(st.sampled_from(algorithms)), draw(st.booleans())


@settings(max_examples=150, deadline=None)
@given(problems())
def test_invariants(problem):
    values, k, algorithm, standardize = problem
    n, p = values.shape
    result = microaggregate(values, k, algorithm, standardize=standardize)
    labels = result.groups if result.groups.ndim == 2 else np.repeat(result.groups[:, None], p, axis=1)
    scale = np.abs(values).max() + 1.0
    for j in range(p):
        sizes = np.bincount(labels[:, j])
        assert sizes.min() >= k and sizes.sum() == n
        if algorithm in ("mwa", "optimal"):
            assert sizes.max() <= max(2 * k - 1, n if n < 2 * k else 0)
        # Every value is its group's mean, so each variable's mean is preserved.
        means = np.bincount(labels[:, j], weights=values[:, j]) / sizes
        np.testing.assert_allclose(result.masked[:, j], means[labels[:, j]], atol=1e-9 * scale)
        assert result.masked[:, j].mean() == pytest.approx(values[:, j].mean(), abs=1e-9 * scale)
    # SSE + SSA = SST, with SSA computed on its own.
    space = standardize_columns(values) if standardize else values
    ssa = 0.0
    for j in range(p):
        sizes = np.bincount(labels[:, j])
        group_means = np.bincount(labels[:, j], weights=space[:, j]) / sizes
        ssa += float((sizes * (group_means - space[:, j].mean()) ** 2).sum())
    assert result.sse + ssa == pytest.approx(result.sst, rel=1e-9, abs=1e-9 * (scale ** 2) * n)
    assert 0.0 <= result.information_loss <= 1.0 + 1e-12


@pytest.mark.parametrize("algorithm", ["mdav", "mwa", "individual", "fixed"])
def test_the_groups_do_not_depend_on_the_arrays_memory_layout(algorithm):
    from rumap.io.data import BUNDLED_DATA, read_table

    frame = read_table(BUNDLED_DATA["survey (synthetic, households and weights)"])[["weight", "age"]]
    values = frame.to_numpy(dtype=float)
    row_major = microaggregate(np.ascontiguousarray(values), 5, algorithm)
    for layout in (np.asfortranarray(values), frame):
        assert np.array_equal(microaggregate(layout, 5, algorithm).groups, row_major.groups)
