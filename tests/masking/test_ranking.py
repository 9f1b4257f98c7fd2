"""Fixed-size groups on a criterion and individual ranking (rumap/masking/microaggregation/ranking.py)."""

from __future__ import annotations

import numpy as np
from microaggregation_helpers import same_partition

from rumap.masking.microaggregation import CRITERIA, microaggregate, standardize_columns


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
