"""The out-of-core key frequencies against the in-memory path, on files both can hold (CSV and Parquet)."""

from __future__ import annotations

import threading

import numpy as np
import pandas as pd
import pytest

from rumap.errors import InputError
from rumap.risk.cells import wildcard_frequencies
from rumap.risk.individual import key_frequencies_with_missing
from rumap.scale import apply_chunks, individual_risk, key_frequencies, progress_to, scan, wildcard_join

pytest.importorskip("polars")

KEYS = ["age", "region", "sex", "status"]


def record_frequencies(path, keys, weight=None, chunk_size=700):
    """Each record's (fk, Fk) from the engine, looked up chunk by chunk in file order."""
    result = key_frequencies(scan(path), keys, weight=weight)
    rows = []
    apply_chunks(scan(path), lambda chunk, start: rows.append(result.rows(chunk)), chunk_size=chunk_size,
                 progress=False)
    rows = np.concatenate(rows)
    return result, result.fk[rows], result.Fk[rows]


@pytest.mark.parametrize("weight", [None, "w"])
def test_record_frequencies_equal_the_in_memory_path(files, weight):
    path, frame = files
    result, fk, Fk = record_frequencies(path, KEYS, weight)
    expected_fk, expected_Fk = key_frequencies_with_missing(frame, KEYS, None if weight is None else frame[weight])
    np.testing.assert_array_equal(fk, expected_fk)
    np.testing.assert_allclose(Fk, expected_Fk, rtol=1e-12)  # the same sums, added in another order
    assert result.n == len(frame) and result.weighted == (weight is not None)
    assert result.rows_with_missing == int(frame[KEYS].isna().any(axis=1).sum()) > 0


def test_wildcard_join_equals_the_pairwise_count():
    rng = np.random.default_rng(3)
    codes = rng.integers(-1, 3, size=(400, 4))  # -1 missing, as key_codes gives
    distinct, count = np.unique(codes, axis=0, return_counts=True)
    fk, _ = wildcard_join(distinct + 1, count, count.astype(float))
    brute = [int(((distinct == row) | (distinct < 0) | (row < 0)).all(axis=1) @ count) for row in distinct]
    np.testing.assert_array_equal(fk, brute)
    _, weighted = wildcard_frequencies(distinct, count.astype(float))  # one record per row, weighted by its count
    np.testing.assert_array_equal(fk, weighted)


def test_wide_keys_fold_past_int64(tmp_path):
    """Twelve keys of 60 categories: the product of the radices passes 2^62, the rows still match exactly."""
    rng = np.random.default_rng(5)
    frame = pd.DataFrame({f"k{j}": rng.integers(0, 60, 500) for j in range(12)})
    frame.iloc[::7, 3] = np.nan
    path = tmp_path / "wide.parquet"
    frame.to_parquet(path)
    keys = list(frame.columns)
    _, fk, _ = record_frequencies(path, keys, chunk_size=128)
    np.testing.assert_array_equal(fk, key_frequencies_with_missing(frame, keys)[0])


def test_chunks_are_written_in_file_order(files, tmp_path):
    path, frame = files
    out = tmp_path / "out.parquet"
    n = apply_chunks(scan(path, ["sex"]), lambda chunk, start: chunk.with_row_index("row", offset=start),
                     out=out, chunk_size=1000, progress=False)
    written = pd.read_parquet(out)
    assert n == len(frame) and written["row"].tolist() == list(range(n))
    assert written["sex"].tolist() == frame["sex"].tolist()


def test_progress_goes_to_stderr(files, capsys):
    path, _ = files
    apply_chunks(scan(path), lambda chunk, start: None, chunk_size=1000, label="counting")
    captured = capsys.readouterr()
    assert captured.out == "" and "counting: 3,000 records" in captured.err


def test_progress_goes_to_the_context_receiver_only(files, capsys):
    path, _ = files
    steps, elsewhere = [], []
    with progress_to(lambda label, done, total: steps.append((label, done))):
        other = threading.Thread(target=lambda: apply_chunks(scan(path), lambda chunk, start: elsewhere.append(1),
                                                             chunk_size=1000, progress=False))
        other.start()
        other.join()
        apply_chunks(scan(path), lambda chunk, start: None, chunk_size=1000, progress=False, label="counting")
        individual_risk(scan(path), ["sex", "region"], household="hh", progress=False)
    assert steps[0] == ("counting", 1000) and ("counting", 3000) in steps
    assert ("key frequencies (one streaming pass)", 3000) in steps and steps[-1] == ("household risk", 3000)
    assert len(elsewhere) == 3 and capsys.readouterr().err == ""  # the other thread reported to no one
    apply_chunks(scan(path), lambda chunk, start: None, progress=False)
    assert steps[-1] == ("household risk", 3000)  # the receiver is gone after the block


def test_bad_input_is_named(files, tmp_path):
    path, _ = files
    with pytest.raises(InputError, match="no column 'nope'"):
        key_frequencies(scan(path), ["nope"])
    with pytest.raises(InputError, match="weight 'sex' must be a number >= 1"):
        key_frequencies(scan(path), ["age"], weight="sex")
    with pytest.raises(InputError, match="also a key"):
        key_frequencies(scan(path), ["age", "w"], weight="w")
    with pytest.raises(InputError, match="no such file"):
        scan(tmp_path / "absent.parquet")
    with pytest.raises(InputError, match="not '.xlsx'"):
        scan(tmp_path / "absent.xlsx")
    low = tmp_path / "low.csv"
    low.write_text("a,w\nx,2\ny,0.5\n")
    with pytest.raises(InputError, match="got 0.5 in row 2"):
        key_frequencies(scan(low), ["a"], weight="w")


@pytest.mark.parametrize("chunk_size", [300, 700, 999, 4000])
def test_batches_of_a_parquet_file_of_several_row_groups_are_its_records_in_order(tmp_path, chunk_size):
    frame = pd.DataFrame({"a": np.arange(2500), "b": np.where(np.arange(2500) % 7 == 0, None, "x")})
    path = tmp_path / "groups.parquet"
    frame.to_parquet(path, row_group_size=700)
    chunks = list(scan(path).batches(chunk_size))
    assert [c.height for c in chunks] == [min(chunk_size, 2500 - start) for start in range(0, 2500, chunk_size)]
    joined = pd.concat([c.to_pandas() for c in chunks], ignore_index=True)
    pd.testing.assert_frame_equal(joined, frame)


def _plain(value):
    """A key value as comparable across readers: missing as None, numbers as floats."""
    if value is None or (isinstance(value, float) and np.isnan(value)) or value is pd.NA:
        return None
    return float(value) if isinstance(value, (int, float, np.number)) else str(value)


@pytest.mark.parametrize("partitions", [None, 1, 3])
def test_the_table_written_a_partition_at_a_time_is_the_key_frequencies(files, tmp_path, partitions):
    from rumap.scale import frequencies_file

    path, frame = files
    out = tmp_path / "table.parquet"
    result = frequencies_file(scan(path), KEYS, out, weight="w", chunk_size=100, partitions=partitions,
                              progress=False)
    whole = key_frequencies(scan(path), KEYS, weight="w")
    written = pd.read_parquet(out)
    assert list(written.columns) == [*KEYS, "count", "weight", "fk", "Fk"]

    def rows(table):
        return sorted((repr(tuple(_plain(v) for v in row[:4])), *row[4:]) for row in
                      table[[*KEYS, "count", "fk", "Fk"]].itertuples(index=False, name=None))

    got, want = rows(written), rows(whole.to_frame())
    assert [r[:3] for r in got] == [r[:3] for r in want]
    np.testing.assert_allclose([r[3] for r in got], [r[3] for r in want], rtol=1e-12)
    assert written["count"].sum() == len(frame) and np.isclose(written["weight"].sum(), frame["w"].sum())
    assert result.to_dict() == {**whole.to_dict(), "partitions": result.partitions, "records_out": str(out),
                                "engine": "scale"}
    assert result.partitions == partitions if partitions is not None else result.partitions > 1
