"""The measures of a release against its original (rumap.risk.synthetic, rumap.risk.propensity) against brute force."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest

from rumap.errors import InputError
from rumap.risk.propensity import logistic_probabilities, propensity_design
from rumap.risk.synthetic import (
    dcr_share,
    disco,
    membership_advantage,
    nndr,
    pmse,
    repu,
    synthetic_measures,
)


def _frame(rng: np.random.Generator, n: int) -> pd.DataFrame:
    return pd.DataFrame({"x": rng.normal(size=n), "y": rng.integers(0, 4, n).astype(float),
                         "c": rng.choice(["u", "v", "w"], n), "d": rng.choice(["p", "q"], n)})


def _distance(a: pd.Series, b: pd.Series, sd: dict, categorical: list[str]) -> float:
    """The issue's distance, written out: numeric ((x - y) / s)^2 plus 1 per differing category."""
    total = sum(((a[c] - b[c]) / sd[c]) ** 2 for c in sd) + sum(a[c] != b[c] for c in categorical)
    return float(np.sqrt(total))


def _distances(original: pd.DataFrame, points: pd.DataFrame, reference: pd.DataFrame,
               columns: list[str] = ("x", "y", "c", "d")) -> np.ndarray:
    sd = {c: original[c].std(ddof=1) for c in ("x", "y") if c in columns}
    categorical = [c for c in ("c", "d") if c in columns]
    return np.array([[_distance(p, r, sd, categorical) for _, r in reference.iterrows()]
                     for _, p in points.iterrows()])


#: The searches of the nearest records, forced by their thresholds: every pair (the default on small files with
#: categories), subsets of agreeing categorical columns with KD-trees, one KD-tree of one-hot coordinates.
SEARCHES = {"pairs": {}, "subsets": {"BRUTE_PAIRS": 0}, "one-hot": {"BRUTE_PAIRS": 0, "MAX_SUBSET_COLUMNS": 0}}


def _median(values) -> float:
    s = sorted(values)
    m = len(s)
    return s[m // 2] if m % 2 else (s[m // 2 - 1] + s[m // 2]) / 2


@pytest.fixture(scope="module")
def files():
    rng = np.random.default_rng(7)
    original, holdout = _frame(rng, 14), _frame(rng, 11)
    release = pd.concat([original.iloc[:5], _frame(rng, 8)], ignore_index=True)  # five copied records
    return original, release, holdout


@pytest.mark.parametrize("search", list(SEARCHES))
@pytest.mark.parametrize("columns", [["x", "y", "c", "d"], ["x", "y"], ["c", "d"]])
def test_distance_measures_equal_brute_force(files, monkeypatch, search, columns):
    from rumap.risk import synthetic

    for name, value in SEARCHES[search].items():
        monkeypatch.setattr(synthetic, name, value)
    original, release, holdout = files
    to_original = _distances(original, release, original, columns)
    to_holdout = _distances(original, release, holdout, columns)
    d_o, d_h = to_original.min(axis=1), to_holdout.min(axis=1)
    close = np.isclose(d_o, d_h, rtol=1e-9, atol=1e-12)
    expected_dcr = np.mean(np.where(close, 0.5, (d_o < d_h).astype(float)))
    assert dcr_share(original, release, holdout, columns) == pytest.approx(expected_dcr, abs=1e-12)

    two = np.sort(to_original, axis=1)[:, :2]
    ratios = [0.0 if b == 0 else a / b for a, b in two]
    assert nndr(original, release, columns) == pytest.approx(_median(ratios), abs=1e-12)

    member_o = _distances(original, original, release, columns).min(axis=1)
    member_h = _distances(original, holdout, release, columns).min(axis=1)
    med = _median(list(member_o) + list(member_h))
    expected = np.mean(member_o < med) - np.mean(member_h < med)
    assert membership_advantage(original, release, holdout, columns) == pytest.approx(expected, abs=1e-12)


def test_key_measures_equal_brute_force(files):
    original, release, _ = files
    keys = ["c", "d"]
    combos = lambda f: [tuple(r) for r in f[keys].itertuples(index=False)]  # noqa: E731
    co, cr = combos(original), combos(release)
    uniques = sum(1 for k in set(co) if co.count(k) == 1 and cr.count(k) == 1)
    assert repu(original, release, keys) == pytest.approx(100 * uniques / len(original))
    disclosed = 0
    for combo, target in zip(co, original["y"], strict=True):
        values = {t for k, t in zip(cr, release["y"], strict=True) if k == combo}
        disclosed += values == {target}
    assert disco(original, release, keys, "y") == pytest.approx(100 * disclosed / len(original))


def test_a_copy_against_a_disjoint_holdout():
    rng = np.random.default_rng(3)
    original, holdout = _frame(rng, 40), _frame(rng, 40)
    original["x"] += 10.0  # the holdout lies far from every original record
    m = synthetic_measures(original, original, holdout, keys=["c", "d", "y"])
    combos = original.groupby(["c", "d", "y"]).size()
    assert m.dcr_share == 1.0
    assert m.nndr == 0.0
    assert m.membership_advantage == 1.0
    assert m.repu == pytest.approx(100 * (combos == 1).sum() / len(original))
    assert m.pmse == 0.0 and m.linkage == 1.0 and m.common_utility == 1.0


def test_a_release_drawn_from_the_holdout_shows_no_copying():
    rng = np.random.default_rng(5)
    n = 1500
    data = pd.DataFrame({"x": rng.normal(size=3 * n), "z": rng.normal(size=3 * n)})
    original, holdout, release = data.iloc[:n], data.iloc[n:2 * n], data.iloc[2 * n:]
    assert dcr_share(original, release, holdout) == pytest.approx(0.5, abs=0.04)
    assert abs(membership_advantage(original, release, holdout)) < 0.06


def _bfgs_probabilities(design: np.ndarray, labels: np.ndarray) -> np.ndarray:
    """A second fit: the log-likelihood maximised by scipy's BFGS (quasi-Newton, no Hessian)."""
    from scipy.optimize import minimize
    from scipy.special import expit

    def loss(beta):
        eta = design @ beta
        return np.sum(np.logaddexp(0.0, eta) - labels * eta), design.T @ (expit(eta) - labels)

    beta = minimize(loss, np.zeros(design.shape[1]), jac=True, method="BFGS", options={"gtol": 1e-10}).x
    return expit(design @ beta)


def test_pmse_against_a_second_implementation(files):
    original, release, _ = files
    design, labels = propensity_design(original, release, ["x", "y", "c", "d"], [False, False, True, True])
    assert design.shape[1] == 1 + 2 + 2 + 1  # intercept, two numbers, c without u, d without p
    c = labels.mean()
    expected = np.mean((_bfgs_probabilities(design, labels) - c) ** 2)
    value, standardised = pmse(original, release)
    assert value == pytest.approx(expected, abs=1e-6)
    assert standardised == pytest.approx(value / ((design.shape[1] - 1) * (1 - c) ** 2 * c / len(labels)))


def test_pmse_of_separated_files_is_c_times_one_minus_c():
    original, release = pd.DataFrame({"x": [0.0, 1.0, 2.0]}), pd.DataFrame({"x": [5.0, 6.0]})
    c = 2 / 5
    assert pmse(original, release)[0] == pytest.approx(c * (1 - c), abs=1e-12)
    x = np.column_stack([np.ones(4), [0.0, 1.0, 1.0, 2.0]])  # separated but at x = 1: the limit of the fit
    assert logistic_probabilities(x, np.array([0.0, 1.0, 0.0, 1.0])).tolist() == pytest.approx([0, 0.5, 0.5, 1],
                                                                                                abs=1e-6)


def test_missing_values_are_a_category_of_their_own():
    original = pd.DataFrame({"x": [1.0, np.nan, 3.0], "c": ["a", None, "b"]})
    release = pd.DataFrame({"x": [np.nan, 3.0], "c": [None, "b"]})
    assert nndr(original, release) == 0.0  # each release record is an original one, missing values and all
    assert repu(original, release, ["c"]) == pytest.approx(200 / 3)


@pytest.mark.parametrize(("call", "fragment"), [
    (lambda o, r: nndr(o.iloc[:1], r), "two records"),
    (lambda o, r: repu(o, r, ["nosuch"]), "nosuch"),
    (lambda o, r: disco(o, r, ["c"], "c"), "also a key"),
    (lambda o, r: synthetic_measures(o, r, target="y"), "target needs keys"),
    (lambda o, r: nndr(o.assign(x=np.inf), r), "row 1"),
])
def test_bad_input_names_the_culprit(files, call, fragment):
    original, release, _ = files
    with pytest.raises(InputError, match=fragment):
        call(original, release)


def test_every_combination_of_inputs_gives_its_measures(files):
    original, release, holdout = files
    for with_holdout, keys, target in itertools.product([None, holdout], [None, ["c"]], [None, "y"]):
        if target is not None and keys is None:
            continue
        m = synthetic_measures(original, release, with_holdout, keys=keys, target=target).to_dict()
        assert (m["dcr_share"] is None) == (with_holdout is None)
        assert (m["repu"] is None) == (keys is None)
        assert (m["disco"] is None) == (target is None)
        assert m["linkage"] is None  # the release has another number of records: no pairs


def test_the_searches_agree_on_larger_files_with_missing_values(monkeypatch):
    from rumap.risk import synthetic

    rng = np.random.default_rng(9)
    original, release = _frame(rng, 300), _frame(rng, 200)
    original.loc[::7, "x"] = np.nan
    release = pd.concat([release, original.iloc[:20]], ignore_index=True)  # copies: distance 0, nndr 0 / 0
    values = {}
    for search, thresholds in SEARCHES.items():
        with monkeypatch.context() as patch:
            for name, value in thresholds.items():
                patch.setattr(synthetic, name, value)
            values[search] = [nndr(original, release), dcr_share(original, release, release.iloc[::-1]),
                              nndr(original, release, ["c", "d"]), nndr(original, release, ["x", "c"])]
    assert values["subsets"] == pytest.approx(values["pairs"], abs=1e-12)
    assert values["one-hot"] == pytest.approx(values["pairs"], abs=1e-12)
