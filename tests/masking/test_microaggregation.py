"""Microaggregation: published MDAV losses, the guarantees of each algorithm, invariants."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from rumap.errors import InputError
from rumap.masking.microaggregation import ALGORITHMS, CRITERIA, microaggregate, standardize_columns, sum_of_squares

# 100 * SSE / SST of MDAV on standardized data (../shared/data/README.md).
PUBLISHED_MDAV = {
    "census.csv": {3: 5.69, 4: 7.49, 5: 9.09, 10: 14.16},
    "tarragona.csv": {3: 16.93, 4: 19.55, 5: 22.46, 10: 33.19},
}
UNIVARIATE_HEURISTICS = ["mdav", "mwa", "fixed", "individual"]


def plain_mdav(x: np.ndarray, k: int) -> np.ndarray:
    """MDAV written directly from Domingo-Ferrer & Mateo-Sanz (2002), exact distances, no tricks."""
    labels = np.full(x.shape[0], -1)
    label = 0

    def group_around(centre: int, rest: np.ndarray) -> np.ndarray:
        dist = ((x[rest] - x[centre]) ** 2).sum(axis=1)
        return rest[np.argsort(dist, kind="stable")[:k]]

    rest = np.arange(x.shape[0])
    while rest.size >= 2 * k:
        centroid = x[rest].mean(axis=0)
        r = rest[np.argmax(((x[rest] - centroid) ** 2).sum(axis=1))]
        s = rest[np.argmax(((x[rest] - x[r]) ** 2).sum(axis=1))]
        two = rest.size >= 3 * k
        for centre in ([r, s] if two else [r]):
            labels[group_around(centre, rest)] = label
            label += 1
            rest = rest[labels[rest] < 0]
    labels[rest] = label
    return labels


def same_partition(a: np.ndarray, b: np.ndarray) -> bool:
    """Whether two label vectors describe the same partition."""
    pairs = set(zip(a.tolist(), b.tolist(), strict=True))
    return len(pairs) == len(set(a.tolist())) == len(set(b.tolist()))


@pytest.fixture(scope="module")
def census(shared_data) -> pd.DataFrame:
    return pd.read_csv(shared_data / "census.csv")


@pytest.mark.parametrize("name", list(PUBLISHED_MDAV))
def test_mdav_reproduces_published_information_loss(shared_data, name):
    frame = pd.read_csv(shared_data / name)
    assert frame.shape[1] == 13
    for k, published in PUBLISHED_MDAV[name].items():
        result = microaggregate(frame, k, "mdav", standardize=True)
        assert 100 * result.information_loss == pytest.approx(published, abs=0.05), (name, k)
        assert result.group_sizes.min() >= k


@pytest.mark.parametrize("seed, n, p, k", [(0, 300, 4, 3), (1, 157, 2, 5), (2, 64, 3, 10), (3, 200, 6, 2),
                                           (4, 31, 1, 4), (5, 12, 2, 6)])
def test_mdav_equals_plain_implementation(seed, n, p, k):
    rng = np.random.default_rng(seed)
    x = rng.lognormal(size=(n, p))
    fast = microaggregate(x, k, "mdav")
    assert same_partition(fast.groups, plain_mdav(x, k))


@pytest.mark.parametrize("k", [2, 3, 9])
def test_mdav_ties_and_offsets_equal_plain_implementation(k):
    rng = np.random.default_rng(k)
    grid = rng.integers(0, 4, size=(240, 3)).astype(float)  # many duplicates and equal distances
    assert same_partition(microaggregate(grid, k, "mdav").groups, plain_mdav(grid, k))
    shifted = 1e7 + rng.normal(size=(200, 2))  # large offset, small spread
    assert same_partition(microaggregate(shifted, k, "mdav").groups, plain_mdav(shifted - 1e7, k))


def test_mdav_group_sizes_and_large_k():
    x = np.random.default_rng(3).normal(size=(103, 3))
    sizes = microaggregate(x, 10, "mdav").group_sizes
    assert sorted(sizes.tolist()) == [10] * 9 + [13]
    assert microaggregate(x, 60, "mdav").group_sizes.tolist() == [103]
    assert microaggregate(x, 1, "mdav").information_loss == 0.0


@pytest.mark.parametrize("k", [2, 3, 5, 7])
@pytest.mark.parametrize("p", [1, 3])
def test_mwa_group_sizes_between_k_and_2k_minus_1(k, p):
    x = np.random.default_rng(k * 10 + p).lognormal(size=(151, p))
    result = microaggregate(x, k, "mwa")
    assert result.group_sizes.min() >= k
    assert result.group_sizes.max() <= 2 * k - 1


def test_mwa_on_census_beats_fixed_size_and_keeps_sizes(census):
    mwa = microaggregate(census, 4, "mwa", standardize=True)
    fixed = microaggregate(census, 4, "fixed", standardize=True)
    assert 4 <= mwa.group_sizes.min() and mwa.group_sizes.max() <= 7
    assert mwa.information_loss < fixed.information_loss


@pytest.mark.parametrize("k", [2, 3, 4, 6, 11])
def test_optimal_below_every_univariate_heuristic_and_equal_to_microagg1d(k):
    from microagg1d import univariate_microaggregation

    x = np.random.default_rng(k).lognormal(sigma=1.2, size=997)
    optimal = microaggregate(x, k, "optimal")
    assert optimal.group_sizes.min() >= k and optimal.group_sizes.max() <= 2 * k - 1
    for name in UNIVARIATE_HEURISTICS:
        assert optimal.sse <= microaggregate(x, k, name).sse * (1 + 1e-12), name
    # microagg1d 0.4.0's default "simple" method can miss the optimum; its
    # "wilber" and "galil_park" methods find it.
    for method in ("wilber", "galil_park"):
        sse, _ = sum_of_squares(x, univariate_microaggregation(x, k, method=method))
        assert optimal.sse == pytest.approx(sse, rel=1e-9), method
    sse_default, _ = sum_of_squares(x, univariate_microaggregation(x, k))
    assert optimal.sse <= sse_default * (1 + 1e-12)


@pytest.mark.parametrize("k", [3, 5])
def test_optimal_keeps_precision_on_tight_clusters_far_apart(k):
    # Runs of SSE ~1e-6 among values spread over 1e6: prefix sums over the whole
    # sorted array lose the runs' SSE to rounding; sums anchored at each run do not.
    rng = np.random.default_rng(0)
    centres = rng.integers(0, 1000, 500).astype(float) * 1000
    x = np.repeat(centres, 6) + rng.normal(0, 1e-3, 3000)
    optimal = microaggregate(x, k, "optimal")
    for name in UNIVARIATE_HEURISTICS:
        assert optimal.sse <= microaggregate(x, k, name).sse * (1 + 1e-9), name


def test_optimal_large_k_uses_prefix_sums():
    from microagg1d import univariate_microaggregation

    x = np.random.default_rng(5).lognormal(size=3000)
    optimal = microaggregate(x, 600, "optimal")
    sse, _ = sum_of_squares(x, univariate_microaggregation(x, 600, method="wilber"))
    assert optimal.sse == pytest.approx(sse, rel=1e-9)
    assert optimal.group_sizes.min() >= 600


def test_optimal_on_census_column(census):
    from microagg1d import univariate_microaggregation

    x = census["FEDTAX"].to_numpy(float)
    for k in (3, 5):
        optimal = microaggregate(x, k, "optimal")
        sse, _ = sum_of_squares(x, univariate_microaggregation(x, k, method="wilber"))
        assert optimal.sse == pytest.approx(sse, rel=1e-9)
        assert all(optimal.sse <= microaggregate(x, k, a).sse * (1 + 1e-12) for a in UNIVARIATE_HEURISTICS)


def test_optimal_is_univariate():
    with pytest.raises(InputError, match="one column, got 2"):
        microaggregate(np.ones((10, 2)), 2, "optimal")


def test_fixed_criteria():
    rng = np.random.default_rng(7)
    x = rng.normal(size=(50, 3)) * [1.0, 10.0, 100.0]
    by_first = microaggregate(x, 5, "fixed", criterion="variable")
    order = np.argsort(x[:, 0])
    assert by_first.groups[order].tolist() == np.repeat(np.arange(10), 5).tolist()
    for criterion in CRITERIA:
        result = microaggregate(x, 6, "fixed", criterion=criterion)
        assert sorted(result.group_sizes.tolist()) == [6] * 7 + [8]
    # Variables 2 and 3 move together and dominate; variable 1 is noise.
    t = rng.permutation(60).astype(float)
    y = np.column_stack([rng.normal(size=60), 10 * t, 100 * t + rng.normal(size=60)])
    by_t = microaggregate(t, 5, "fixed")
    assert same_partition(microaggregate(y, 5, "fixed", criterion="pc1").groups, by_t.groups)
    assert same_partition(microaggregate(y * [1e5, 1, 1], 5, "fixed", criterion="pc1").groups,
                          microaggregate(y[:, 0], 5, "fixed").groups)
    assert not same_partition(microaggregate(y, 5, "fixed", criterion="variable").groups, by_t.groups)
    # The sum of z-scores ignores the scales: it sorts by z1 + z2 + z3 whatever the units.
    assert same_partition(microaggregate(y * [1e5, 1, 1], 5, "fixed", criterion="zsum").groups,
                          microaggregate(y, 5, "fixed", criterion="zsum").groups)
    zsum = standardize_columns(y).sum(axis=1)
    assert same_partition(microaggregate(y, 5, "fixed", criterion="zsum").groups,
                          microaggregate(zsum, 5, "fixed").groups)


def test_individual_ranking_partitions_every_variable():
    x = np.random.default_rng(8).normal(size=(23, 3))
    result = microaggregate(x, 4, "individual")
    assert result.groups.shape == (23, 3)
    assert result.group_sizes.tolist() == [4, 4, 4, 4, 7]
    for j in range(3):
        assert np.bincount(result.groups[:, j]).tolist() == [4, 4, 4, 4, 7]
        assert np.all(np.diff(result.masked[np.argsort(x[:, j]), j]) >= -1e-12)  # order kept
    assert result.to_frame().columns.tolist() == ["x1", "x2", "x3", "group[x1]", "group[x2]", "group[x3]"]


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
    ({"k": 2, "algorithm": "ward"}, "unknown algorithm 'ward'"),
    ({"k": 2, "criterion": "median"}, "unknown criterion 'median'"),
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


# --------------------------------------------------------------------------- properties


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


@settings(max_examples=100, deadline=None, derandomize=True)
@given(arrays(np.float64, st.tuples(st.integers(2, 60), st.integers(1, 3)),
              elements=st.sampled_from([0.0, 1.0, 2.0, 5.0]) | st.floats(-1e3, 1e3, allow_subnormal=False)),
       st.integers(1, 12), st.booleans())
def test_mdav_equals_plain_implementation_property(values, k, shift):
    """The float32 scans with float64 re-checks give the partition of the direct float64 algorithm."""
    k = min(k, values.shape[0])
    if shift:
        values = values + 1e6
    assert same_partition(microaggregate(values, k, "mdav").groups, plain_mdav(values, k))
