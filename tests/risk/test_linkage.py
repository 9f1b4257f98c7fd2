"""Record linkage (Domingo-Ferrer & Torra 2004, Sections 2.1-2.2): distance-based and Fellegi-Sunter."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rumap.errors import InputError
from rumap.risk.linkage import (
    AGGREGATIONS,
    distance_linkage,
    linkage_risk_distance,
    linkage_risk_distance_shared_ties,
    linkage_risk_probabilistic,
    record_linkage,
    variable_distance,
)


def test_variable_distances_of_definition_1():
    assert variable_distance("nominal", 3, 3) == 0.0
    assert variable_distance("nominal", 3, 4) == 1.0
    # ordinal: categories between the two values, both included, over |D(V)|
    assert variable_distance("ordinal", 0, 2, cardinality=5) == pytest.approx(3 / 5)
    assert variable_distance("ordinal", 4, 1, cardinality=5) == pytest.approx(4 / 5)
    assert variable_distance("ordinal", 2, 2, cardinality=5) == pytest.approx(1 / 5)
    assert variable_distance("numeric", -1.5, 2.0) == pytest.approx(3.5)
    with pytest.raises(InputError, match="kind"):
        variable_distance("interval", 1, 2)


# --- distance-based -------------------------------------------------------

@pytest.mark.parametrize("engine", ["auto", "kdtree", "brute"])
def test_identical_files_link_completely(data, engine):
    result = distance_linkage(data, data.copy(), engine=engine)
    assert result.linked_correctly == 1.0 and result.n_tied == 0 and result.n == 800


def test_ties_are_not_correct_links(data):
    x = data.copy()
    x[5] = x[17]  # two identical original records
    for engine in ("kdtree", "brute"):
        result = distance_linkage(x, x.copy(), engine=engine)
        assert result.n_correct == 798 and result.n_tied == 2, engine


def test_tie_on_the_keys_only_is_not_a_link(data):
    x = data.copy()
    x[3, :2] = x[9, :2]  # equal on the two key variables, different elsewhere
    result = distance_linkage(x, x.copy(), keys=[0, 1])
    assert result.n_correct == 798 and result.n_tied == 2
    assert distance_linkage(x, x.copy()).n_correct == 800


@pytest.mark.parametrize("aggregation", list(AGGREGATIONS))
@pytest.mark.parametrize("scale", [0.05, 0.3, 1.0])
def test_kdtree_equals_brute_force(data, aggregation, scale, noisy):
    y = noisy(data, scale)
    kd = distance_linkage(data, y, aggregation=aggregation, engine="kdtree")
    brute = distance_linkage(data, y, aggregation=aggregation, engine="brute")
    assert (kd.n_correct, kd.n_tied) == (brute.n_correct, brute.n_tied)


def test_brute_force_agrees_with_an_explicit_distance_matrix(noisy):
    rng = np.random.default_rng(3)
    x = rng.normal(size=(60, 3))
    y = noisy(x, 0.4, seed=4)
    z = (x - x.mean(0)) / x.std(0, ddof=1)
    w = (y - x.mean(0)) / x.std(0, ddof=1)
    d = ((w[:, None, :] - z[None, :, :]) ** 2).sum(-1)
    own = np.diag(d).copy()
    np.fill_diagonal(d, np.inf)
    expected = int((own < d.min(axis=1)).sum())
    assert distance_linkage(x, y, engine="brute").n_correct == expected


def test_risk_falls_as_noise_grows(data, noisy):
    risks = [distance_linkage(data, noisy(data, s)).linked_correctly for s in (0.0, 0.15, 0.3, 0.6, 1.2, 3.0)]
    assert risks[0] == 1.0
    assert all(a > b for a, b in zip(risks, risks[1:], strict=False)), risks
    assert risks[-1] < 0.02


def test_key_subset_links_less_than_all_keys(data, noisy):
    y = noisy(data, 0.2)
    assert distance_linkage(data, y, keys=["x1"]).linked_correctly < distance_linkage(data, y).linked_correctly


def test_standardization_makes_units_irrelevant(data, noisy):
    y = noisy(data, 0.3)
    scale = np.array([1.0, 1000.0, 0.001, 50.0])
    base = distance_linkage(data, y)
    scaled = distance_linkage(data * scale, y * scale)
    assert scaled.n_correct == base.n_correct
    unscaled = distance_linkage(data * scale, y * scale, standardize="none")
    assert unscaled.n_correct < base.n_correct  # the 1000x column dominates, its noise too


def test_nominal_and_ordinal_keys():
    rng = np.random.default_rng(5)
    n = 400
    original = pd.DataFrame({"region": rng.choice(list("ABCDEFGHIJ"), n), "size": rng.choice(["S", "M", "L", "XL"], n),
                             "income": rng.lognormal(10, 1, n)})
    masked = original.copy()
    assert distance_linkage(original, masked, orders={"size": ["S", "M", "L", "XL"]}).n_correct == \
        n - distance_linkage(original, masked, orders={"size": ["S", "M", "L", "XL"]}).n_tied
    swap = rng.random(n) < 0.3
    masked.loc[swap, "region"] = rng.choice(list("ABCDEFGHIJ"), int(swap.sum()))
    masked["income"] = masked["income"] * np.exp(rng.normal(0, 0.05, n))
    mixed = distance_linkage(original, masked, orders={"size": ["S", "M", "L", "XL"]})
    assert mixed.kinds == ("nominal", "ordinal", "numeric")
    assert 0.3 < mixed.linked_correctly < 1.0
    only_categorical = distance_linkage(original, masked, keys=["region", "size"])
    # 40 combinations for 400 records: almost every record ties with another
    assert only_categorical.linked_correctly < 0.1


def _mixed(n: int, seed: int) -> tuple[pd.DataFrame, pd.DataFrame]:
    rng = np.random.default_rng(seed)
    original = pd.DataFrame({"x": rng.normal(size=n), "y": rng.normal(size=n),
                             "region": rng.choice(list("abcde"), n), "size": rng.integers(0, 6, n)})
    masked = original.copy()
    masked[["x", "y"]] += rng.normal(scale=0.3, size=(n, 2))
    swap = rng.random(n) < 0.2
    masked.loc[swap, "size"] = rng.integers(0, 6, int(swap.sum()))
    return original, masked


@pytest.mark.parametrize("aggregation", list(AGGREGATIONS))
@pytest.mark.parametrize("ordinal", [True, False])
def test_mixed_keys_kdtree_equals_brute_force(aggregation, ordinal):
    original, masked = _mixed(600, seed=13)
    kinds = {"size": "ordinal" if ordinal else "nominal"}
    brute = distance_linkage(original, masked, kinds=kinds, aggregation=aggregation, engine="brute")
    auto = distance_linkage(original, masked, kinds=kinds, aggregation=aggregation)
    assert (auto.n_correct, auto.n_tied) == (brute.n_correct, brute.n_tied)
    assert 0.2 < brute.linked_correctly < 1.0
    # categorical keys alone: many exact ties, found alike
    cat = distance_linkage(original, masked, keys=["region", "size"], kinds=kinds, aggregation=aggregation,
                           engine="brute")
    assert cat.n_tied > 0
    assert (cat.n_correct, cat.n_tied) == (lambda r: (r.n_correct, r.n_tied))(
        distance_linkage(original, masked, keys=["region", "size"], kinds=kinds, aggregation=aggregation))


def test_one_dimensional_arrays_and_to_dict(data):
    result = distance_linkage(data[:, 0], data[:, 0] + 1e-9)
    d = result.to_dict()
    assert d["method"] == "distance" and d["n"] == 800 and d["linked_correctly"] == 1.0
    assert result.to_frame().loc[0, "n_correct"] == 800


def test_dataset_measures_have_the_engine_signature(data, noisy):
    y = noisy(data, 0.2)
    assert linkage_risk_distance(data, y) == distance_linkage(data, y).linked_correctly
    assert 0.0 <= linkage_risk_probabilistic(data[:300], y[:300]) <= 1.0


@pytest.mark.parametrize("bad, fragment", [
    (lambda x: (x, x[:-1]), "rows"),
    (lambda x: (x, np.where(np.arange(x.size).reshape(x.shape) == 7, np.nan, x)), "row 2"),
])
def test_bad_input_names_the_problem(data, bad, fragment):
    original, masked = bad(data[:20])
    with pytest.raises(InputError, match=fragment):
        distance_linkage(original, masked)


def test_unknown_key_and_options(data):
    with pytest.raises(InputError, match="no column 'age'"):
        distance_linkage(data, data, keys=["age"])
    with pytest.raises(InputError, match="aggregation"):
        distance_linkage(data, data, aggregation="median")
    with pytest.raises(InputError, match="method"):
        record_linkage(data, data, method="fuzzy")
    frame = pd.DataFrame({"s": ["a", "b", "c"]})
    with pytest.raises(InputError, match="'d'.*not in its given order"):
        distance_linkage(frame, frame.replace("c", "d"), orders={"s": ["a", "b", "c"]})
    with pytest.raises(InputError, match="kdtree"):
        distance_linkage(frame, frame, kinds={"s": "ordinal"}, aggregation="max", engine="kdtree")


@settings(max_examples=30, deadline=None)
@given(n=st.integers(2, 40), p=st.integers(1, 3), scale=st.floats(0, 2), seed=st.integers(0, 10_000),
       rounding=st.sampled_from([None, 0, 1]))
def test_property_kdtree_brute_and_permutation(n, p, scale, seed, rounding):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(n, p))
    y = x + rng.normal(scale=scale, size=x.shape)
    if rounding is not None:  # many exact ties
        x, y = np.round(x, rounding), np.round(y, rounding)
    kd = distance_linkage(x, y, engine="kdtree")
    brute = distance_linkage(x, y, engine="brute")
    assert (kd.n_correct, kd.n_tied) == (brute.n_correct, brute.n_tied)
    assert 0.0 <= kd.linked_correctly <= 1.0
    perm = rng.permutation(n)
    assert distance_linkage(x[perm], y[perm]).n_correct == kd.n_correct


# --- as the R of an empirical map ----------------------------------------------

def test_empirical_map_with_record_linkage_falls_as_noise_grows():
    from rumap.maps.simulation import SimulationConfig, simulate
    from rumap.risk.measures import DATASET_RISK_MEASURES

    assert DATASET_RISK_MEASURES["record-linkage"].measure is linkage_risk_distance
    assert DATASET_RISK_MEASURES["probabilistic-linkage"].measure is linkage_risk_probabilistic
    x = np.random.default_rng(20).normal(size=(300, 3))
    config = SimulationConfig(method="noise", values=(0.01, 0.1, 0.5, 2.0), targets=(), knowledge=(),
                              risk_measures=("record-linkage", "probabilistic-linkage"), replicates=4,
                              method_options={"relative": True}, seed=1)
    maps = {m.knowledge: m for m in simulate(x, config).maps}
    for name in ("record-linkage", "probabilistic-linkage"):
        ru = maps[name]
        assert np.all(np.diff(ru.risk) < 0), (name, ru.risk)
        assert np.all(np.diff(ru.utility) < 0)
        assert 0.0 <= ru.risk.min() and ru.risk.max() <= 1.0
    assert maps["record-linkage"].risk[0] > 0.7 and maps["record-linkage"].risk[-1] < 0.05


def test_tie_share_credits_one_over_t(data):
    x = data.copy()
    x[5] = x[17]                 # a pair of identical originals: credit 1/2 each
    x[30] = x[40] = x[50]        # three: credit 1/3 each
    for engine in ("kdtree", "brute"):
        result = distance_linkage(x, x.copy(), engine=engine, ties="share")
        assert result.n_correct == 795 and result.n_tied == 5
        assert result.tie_credit == pytest.approx(2 * 0.5 + 3 / 3)
        assert result.linked_correctly == pytest.approx((795 + 2) / 800)
    assert distance_linkage(x, x.copy()).linked_correctly == 795 / 800  # default: ties are not links
    with pytest.raises(InputError, match="ties"):
        distance_linkage(x, x, ties="random")


def test_tie_share_with_categorical_keys_and_midpoints():
    original, masked = _mixed(300, seed=14)
    for aggregation in AGGREGATIONS:
        kinds = {"size": "ordinal"}
        brute = distance_linkage(original, masked, keys=["region", "size"], kinds=kinds, aggregation=aggregation,
                                 engine="brute", ties="share")
        auto = distance_linkage(original, masked, keys=["region", "size"], kinds=kinds, aggregation=aggregation,
                                ties="share")
        assert brute.tie_credit == pytest.approx(auto.tie_credit)
        assert 0 < brute.tie_credit < brute.n_tied
    # a masked record at the midpoint of two originals (microaggregation with k = 2) is a tie of 2
    x = np.array([[0.0], [1.0], [10.0], [11.0]])
    y = np.array([[0.5], [0.5], [10.5], [10.5]])
    assert distance_linkage(x, y).linked_correctly == 0.0
    assert distance_linkage(x, y, ties="share").linked_correctly == pytest.approx(0.5)


def test_microaggregation_map_with_record_linkage():
    from rumap.maps.simulation import SimulationConfig, simulate
    from rumap.risk.measures import DATASET_RISK_MEASURES

    assert DATASET_RISK_MEASURES["record-linkage-shared-ties"].measure is linkage_risk_distance_shared_ties
    x = np.random.default_rng(22).normal(size=(300, 3))
    config = SimulationConfig(method="microaggregation", values=(1, 2, 3, 5, 10), targets=(), knowledge=(),
                              risk_measures=("record-linkage", "record-linkage-shared-ties"))
    maps = {m.knowledge: m for m in simulate(x, config).maps}
    strict, shared = maps["record-linkage"].risk, maps["record-linkage-shared-ties"].risk
    assert strict[0] == shared[0] == 1.0          # k = 1 releases the data
    assert strict[1] == 0.0                       # k = 2: every masked record is the midpoint of two
    # ... which the intruder guesses right half the time, unless a third original is nearer still
    assert 0.4 < shared[1] <= 0.5
    assert np.all(np.diff(shared) < 0), shared
    assert np.all(strict[2:] <= shared[2:])


@pytest.mark.parametrize("aggregation", ["sum_of_squares", "sum", "max"])
@pytest.mark.parametrize(("sample", "points"), [(2, 800), (200, 60)])
def test_originals_repeated_many_times_link_as_brute_force_does(aggregation, sample, points, monkeypatch):
    # whole numbers: each point of the original file repeated ~40 times. A sample of 200 rows finds the repeats and
    # the KD-tree holds the distinct points (20 + 40); one of 2 rows misses them and the tree holds every row
    from rumap.risk.linkage import distance, neighbours

    monkeypatch.setattr(neighbours, "DISTINCT_SAMPLE", sample)
    rng = np.random.default_rng(5)
    x = np.column_stack([rng.integers(0, 5, 800), rng.integers(0, 4, 800)]).astype(float)
    x[:40] = rng.normal(size=(40, 2))  # and some points of their own
    y = x + np.where(rng.random(x.shape) < 0.5, 0.0, rng.normal(0, 0.4, x.shape))
    keys = distance._encode_keys(x, y, None, None, None, "original")
    assert len(neighbours.distinct_rows(keys.original)[0]) == points
    own, other = distance._kdtree_nearest(keys, aggregation)
    brute_own, brute_other = distance._brute_force_nearest(keys, aggregation)
    np.testing.assert_allclose(own, brute_own, rtol=1e-12)
    np.testing.assert_allclose(other, brute_other, rtol=1e-12, atol=1e-12)
    kd, brute = (distance_linkage(x, y, aggregation=aggregation, engine=e) for e in ("kdtree", "brute"))
    assert (kd.n_correct, kd.n_tied) == (brute.n_correct, brute.n_tied)
    assert kd.n_tied > 500 and kd.n_correct > 0  # most repeated points tie; some of the others link
