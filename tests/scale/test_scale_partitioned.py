"""Key rows a partition at a time: each partition count gives the in-memory path's records and totals."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from rumap.risk import individual as memory
from rumap.scale import individual_risk, scan
from rumap.scale.partitioned import partition_count

pytest.importorskip("polars")

KEYS = ["age", "region", "sex", "status"]


def every_key_missing(n: int, seed: int) -> pd.DataFrame:
    """Keys that all miss some values (the partition key too: its rows with a missing value join every partition)."""
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame({"a": rng.integers(0, 9, n).astype(float), "b": rng.choice(list("pqrs"), n),
                          "c": rng.integers(0, 3, n).astype(float), "w": rng.uniform(1, 20, n),
                          "hh": rng.integers(0, n // 3, n), "s": rng.choice(["x", "y", "z", None], n),
                          "t": rng.integers(0, 70, n).astype(float)})  # past 63 values: no bit mask per row
    for column, share in (("a", 0.04), ("b", 0.1), ("c", 0.2), ("t", 0.05)):
        frame.loc[rng.random(n) < share, column] = None
    return frame


def compare(path, frame, keys, partitions, tmp_path, sensitive):
    out = tmp_path / f"records_{partitions}.parquet"
    result = individual_risk(scan(path), keys, weight="w", household="hh", k=3, sensitive=sensitive, out=out,
                             chunk_size=400, progress=False, partitions=partitions)
    expected = memory.individual_risk(frame, keys, weight="w", household="hh", k=3)
    diversity = memory.l_diversity(frame, keys, sensitive)
    records = pd.read_parquet(out)
    np.testing.assert_array_equal(records["fk"], expected.fk)
    np.testing.assert_allclose(records["Fk"], expected.Fk, rtol=1e-12)
    np.testing.assert_allclose(records["risk"], expected.risk, rtol=1e-12)
    np.testing.assert_allclose(records["household_risk"], expected.household_risk, rtol=1e-12)
    np.testing.assert_array_equal(records["l_diversity"], diversity)
    assert result.k_anonymity_violations == expected.k_anonymity_violations
    assert result.expected_reidentifications == pytest.approx(expected.expected_reidentifications, rel=1e-12)
    assert result.household_expected_reidentifications == pytest.approx(
        expected.household_expected_reidentifications, rel=1e-12)
    assert result.max_risk == pytest.approx(expected.risk.max(), rel=1e-12)
    assert result.records_at_max == int((records["risk"] >= result.max_risk).sum())
    assert result.distinct_rows == len(frame[keys].drop_duplicates())
    assert result.l_diversity_min == diversity.min() and result.l_diversity_one == int((diversity == 1).sum())


@pytest.mark.parametrize("partitions", [3])
def test_partitions_give_the_in_memory_records(files, partitions, tmp_path):
    path, frame = files
    compare(path, frame, KEYS, partitions, tmp_path, "income")


@pytest.mark.parametrize(("partitions", "sensitive"), [(2, "s"), (5, "t")])
def test_rows_missing_a_partition_key_join_every_partition(partitions, sensitive, tmp_path):
    frame = every_key_missing(1500, 11)
    path = tmp_path / "missing.parquet"
    frame.to_parquet(path)
    compare(path, pd.read_parquet(path), ["a", "b", "c"], partitions, tmp_path, sensitive)


def test_partitions_from_the_chunk_size():
    assert [partition_count(n, 1000) for n in (1, 1000, 1001, 10_000)] == [1, 1, 2, 10]


def test_weights_are_checked_in_the_first_pass(tmp_path):
    from rumap.errors import InputError

    low = tmp_path / "low.csv"
    low.write_text("a,w\nx,2\ny,0.5\n")
    with pytest.raises(InputError, match="got 0.5 in row 2"):
        individual_risk(scan(low), ["a"], weight="w", partitions=2, progress=False)
    text = tmp_path / "text.csv"
    text.write_text("a,w\nx,heavy\ny,2\n")
    with pytest.raises(InputError, match="got heavy in row 1"):
        individual_risk(scan(text), ["a"], weight="w", partitions=2, progress=False)
