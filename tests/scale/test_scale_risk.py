"""Out-of-core individual, household and global risk, k-anonymity and l-diversity against rumap.risk.individual."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from rumap.errors import InputError
from rumap.risk import individual as memory
from rumap.scale import individual_risk, scan

pytest.importorskip("polars")

KEYS = ["age", "region", "sex", "status"]


@pytest.mark.parametrize("weight", [None, "w"])
def test_totals_and_records_equal_the_in_memory_path(files, weight, tmp_path):
    path, frame = files
    out = tmp_path / "records.parquet"
    result = individual_risk(scan(path), KEYS, weight=weight, household="hh", k=3, sensitive="income", out=out,
                             chunk_size=700, progress=False)
    expected = memory.individual_risk(frame, KEYS, weight=weight, household="hh", k=3)
    diversity = memory.l_diversity(frame, KEYS, "income")
    records = pd.read_parquet(out)
    np.testing.assert_array_equal(records["fk"], expected.fk)
    np.testing.assert_allclose(records["Fk"], expected.Fk, rtol=1e-12)
    np.testing.assert_allclose(records["risk"], expected.risk, rtol=1e-12)
    np.testing.assert_allclose(records["household_risk"], expected.household_risk, rtol=1e-12)
    np.testing.assert_array_equal(records["l_diversity"], diversity)
    assert result.n == expected.n and result.k_anonymity_violations == expected.k_anonymity_violations
    assert result.expected_reidentifications == pytest.approx(expected.expected_reidentifications, rel=1e-12)
    assert result.global_risk == pytest.approx(expected.global_risk, rel=1e-12)
    assert result.household_expected_reidentifications == pytest.approx(
        expected.household_expected_reidentifications, rel=1e-12)
    assert result.max_risk == pytest.approx(expected.risk.max(), rel=1e-12)
    assert result.l_diversity_min == diversity.min() and result.l_diversity_one == int((diversity == 1).sum())
    assert result.households == frame["hh"].nunique()


def test_household_partitions_give_the_in_memory_household_risk(tmp_path):
    """Households summed a hash partition of their ids at a time: string ids scattered over chunks, empty parts."""
    rng = np.random.default_rng(3)
    frame = pd.DataFrame({"a": rng.integers(0, 4, 600), "b": rng.choice(list("xyz"), 600),
                          "w": rng.uniform(1, 9, 600), "hh": [f"h{i}" for i in rng.integers(0, 90, 600)]})
    frame.loc[rng.random(600) < 0.1, "a"] = None
    path = tmp_path / "households.parquet"
    frame.to_parquet(path)
    expected = memory.individual_risk(frame, ["a", "b"], weight="w", household="hh")
    assert 0 < expected.household_expected_reidentifications < len(frame)
    for parts in (1, 3, 40):  # 40 parts of 90 households: some hold none
        out = tmp_path / f"records_{parts}.parquet"
        result = individual_risk(scan(path), ["a", "b"], weight="w", household="hh", out=out, chunk_size=300,
                                 progress=False, household_partitions=parts)
        np.testing.assert_allclose(pd.read_parquet(out)["household_risk"], expected.household_risk, rtol=1e-12)
        assert result.household_expected_reidentifications == pytest.approx(
            expected.household_expected_reidentifications, rel=1e-12)
        assert result.households == 90 == frame["hh"].nunique()
    with pytest.raises(InputError, match="household_partitions"):
        individual_risk(scan(path), ["a"], household="hh", household_partitions=0, progress=False)


def test_a_household_missing_is_named_with_its_row(tmp_path):
    frame = pd.DataFrame({"a": ["x", "y", "x"], "hh": [1.0, None, 2.0]})
    path = tmp_path / "h.csv"
    frame.to_csv(path, index=False)
    with pytest.raises(InputError, match="household 'hh' is missing in row 2"):
        individual_risk(scan(path), ["a"], household="hh", chunk_size=1, progress=False)
    with pytest.raises(InputError, match="also a key"):
        individual_risk(scan(path), ["a"], sensitive="a", progress=False)


def test_identity_risk_equals_the_in_memory_path(files):
    from rumap.risk.identity import identity_risk_from_data
    from rumap.scale import identity_risk

    path, frame = files
    for method in ("ml", "moments"):
        result = identity_risk(scan(path), ["sex", "hh"], N=40_000.0, a=50.0, max_risk=0.01, method=method)
        expected = identity_risk_from_data(frame, ["sex", "hh"], N=40_000.0, a=50.0, max_risk=0.01, method=method)
        got, want = result.to_dict(), expected.to_dict()
        assert got.keys() == want.keys()
        for name, value in want.items():
            exact = value is None or isinstance(value, (str, list))
            assert got[name] == (value if exact else pytest.approx(value, rel=1e-12)), name
    with pytest.raises(InputError, match=r"key column 'age' has a missing value in row \d+"):
        identity_risk(scan(path), ["sex", "age"], N=40_000.0, a=50.0)
    missing_row = int(np.flatnonzero(frame["age"].isna())[0]) + 1
    with pytest.raises(InputError, match=f"in row {missing_row}$"):
        identity_risk(scan(path), ["sex", "age"], N=40_000.0, a=50.0)


def test_l_diversity_where_a_key_value_has_only_missing_sensitive_values(tmp_path):
    frame = pd.DataFrame({"a": ["x", "y", "y", "z", None, "z", "w"], "b": [1, 1, 2, 2, 1, 2, 3],
                          "s": [None, "p", "q", "p", "q", None, None]})
    path = tmp_path / "l.parquet"
    frame.to_parquet(path)
    out = tmp_path / "l_records.csv"
    individual_risk(scan(path), ["a", "b"], sensitive="s", out=out, progress=False)
    np.testing.assert_array_equal(pd.read_csv(out)["l_diversity"], memory.l_diversity(frame, ["a", "b"], "s"))


def test_the_expected_reidentifications_do_not_depend_on_the_order_or_blocks_of_the_key_rows():
    from types import SimpleNamespace

    from rumap.scale.risk import _Totals

    rng = np.random.default_rng(3)
    count, fk = rng.integers(1, 40, 20_000), rng.integers(1, 1000, 20_000)
    order = rng.permutation(count.size)

    def total(*parts):
        totals = _Totals(None)
        for rows in parts:
            totals.add(SimpleNamespace(count=count[rows], fk=fk[rows]), 1.0 / fk[rows], None)
        return totals.expected

    rows = np.arange(count.size)
    exact = total(rows)  # the sum of the products, correctly rounded; a dot product differs with the order
    assert exact == total(order) == total(order[:7000], order[7000:]) == total(rows[:1], rows[1:])
    assert exact == pytest.approx(float(np.dot(count, 1.0 / fk)), rel=1e-14)
