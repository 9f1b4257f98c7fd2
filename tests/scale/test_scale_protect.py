"""Out-of-core local suppression, PRAM and global recoding against the in-memory functions, value by value."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from rumap.errors import InputError
from rumap.masking.categorical import band, category_text, local_suppression, pram, recode, top_bottom_code
from rumap.scale import individual_risk, scan
from rumap.scale.cluster_protect import cluster_pram, cluster_recode, cluster_suppress
from rumap.scale.protect import pram_file, suppress_file
from rumap.scale.recoding import FileRecoding, recode_file, recoded_keys

pytest.importorskip("polars")

KEYS = ["age", "region", "sex", "status"]


def _text(column: pd.Series) -> list:
    """Values as written (1 and 1.0 alike), None where missing."""
    return [None if pd.isna(v) else category_text(v) for v in column.astype(object)]


def _read(path) -> pd.DataFrame:
    return pd.read_parquet(path) if str(path).endswith(".parquet") else pd.read_csv(path)


@pytest.mark.parametrize(("k", "max_risk", "weight", "chunking"), [(3, None, None, "chunks"),
                                                                    (None, 0.2, "w", "ranges")])
def test_suppression_of_a_file_equals_the_in_memory_suppression(files, tmp_path, k, max_risk, weight, chunking):
    path, frame = files
    out = tmp_path / "suppressed.parquet"
    messages = []
    result = _run(suppress_file, cluster_suppress, chunking, path, KEYS, out, k=k, max_risk=max_risk, weight=weight,
                  importance={"sex": 1.0}, progress=False)
    expected = local_suppression(frame, KEYS, k=k, max_risk=max_risk, weight=weight, importance={"sex": 1.0},
                                 progress=messages.append)
    written = pd.read_parquet(out)
    assert list(written.columns) == list(frame.columns) and len(written) == len(frame)
    for j, key in enumerate(KEYS):
        assert _text(written[key]) == _text(expected.data[key]), key
        assert result.per_variable[j] == int(expected.suppressed[:, j].sum())
    assert result.rounds == expected.rounds == len(messages)
    assert result.to_dict() == {**expected.to_dict(), "suppressed_share": pytest.approx(expected.suppressed_share)}
    np.testing.assert_array_equal(written["w"], frame["w"])


PARQUET_ONLY = pytest.mark.parametrize("files", ["parquet", pytest.param("csv", marks=pytest.mark.slow)], indirect=True)


@PARQUET_ONLY
@pytest.mark.parametrize(("k", "max_risk", "weight"), [(3, None, None), (None, 0.1, "w")])
def test_suppression_with_households_equals_the_in_memory_suppression(files, tmp_path, k, max_risk, weight):
    path, frame = files
    out = tmp_path / "households.parquet"
    shared = ["region", "age"]
    result = suppress_file(scan(path), KEYS, out, k=k, max_risk=max_risk, weight=weight, household="hh",
                           household_variables=shared, chunk_size=900, progress=False)
    expected = local_suppression(frame, KEYS, k=k, max_risk=max_risk, weight=weight, household="hh",
                                 household_variables=shared)
    alone = local_suppression(frame, KEYS, k=k, max_risk=max_risk, weight=weight)
    written = pd.read_parquet(out)
    for j, key in enumerate(KEYS):
        assert _text(written[key]) == _text(expected.data[key]), key
        assert result.per_variable[j] == int(expected.suppressed[:, j].sum())
    assert result.rounds == expected.rounds
    assert not np.array_equal(expected.suppressed, alone.suppressed)  # the households changed something
    for key in shared:  # blanked in one member, blanked in all of the household (where it was known)
        blank = written[key].isna() & frame[key].notna()
        assert not (frame["hh"].isin(frame["hh"][blank]) & written[key].notna()).any(), key


@PARQUET_ONLY
def test_suppression_with_households_needs_the_household_and_key_variables(files):
    path, _ = files
    with pytest.raises(InputError, match="need the household"):
        suppress_file(scan(path), KEYS, None, k=3, household_variables=["region"], progress=False)
    with pytest.raises(InputError, match="must be keys"):
        suppress_file(scan(path), KEYS, None, k=3, household="hh", household_variables=["w"], progress=False)


def test_suppression_beyond_the_file_is_infeasible_and_writes_nothing(files, tmp_path):
    path, frame = files
    result = suppress_file(scan(path), KEYS, tmp_path / "none.parquet", k=len(frame) + 1, progress=False)
    assert not result.feasible and "nothing was suppressed" in result.reason
    assert not (tmp_path / "none.parquet").exists()
    with pytest.raises(InputError, match="give k"):
        suppress_file(scan(path), KEYS, None, progress=False)


#: The chunkings of the one chunk runner a file's protection runs over: the file as one chunk, chunks, ranges.
CHUNKINGS = {"one chunk": {"chunk_size": 10**6}, "chunks": {"chunk_size": 1234}, "ranges": {"chunk_size": 700}}


def _run(function, cluster_function, chunking, path, *args, **options):
    """``function`` over the file's chunks (or ``cluster_function`` over its ranges, run here)."""
    if chunking == "ranges":
        return cluster_function(path, *args, **CHUNKINGS[chunking], **options)
    return function(scan(path), *args, **CHUNKINGS[chunking], **options)


@pytest.mark.parametrize(("files", "chunking"), [("parquet", "one chunk"), ("csv", "chunks"), ("parquet", "ranges")],
                         indirect=["files"])
def test_pram_of_a_file_equals_the_in_memory_pram_whatever_the_chunking(files, tmp_path, chunking):
    path, frame = files
    expected = pram(frame, KEYS, 0.6, seed=11)
    out = tmp_path / f"pram{path.suffix}"
    result = _run(pram_file, cluster_pram, chunking, path, KEYS, 0.6, 11, out, progress=False)
    written = _read(out)
    for j, key in enumerate(KEYS):
        assert _text(written[key]) == _text(expected.data[key]), key
        assert result.changed[key] == int(expected.changed[:, j].sum())
    got, want = result.to_dict(), expected.to_dict()
    for summary in (got, want):  # a CSV's integer column with blanks: pandas reads 1.0, the engine 1
        for matrix in summary["matrices"].values():
            matrix["categories"] = [_written(c) for c in matrix["categories"]]
    assert got == want


def _written(text: str) -> str:
    try:
        return category_text(float(text))
    except ValueError:
        return text


@PARQUET_ONLY
@pytest.mark.parametrize("chunking", ["chunks", "ranges"])
def test_recoding_of_a_file_equals_the_in_memory_recoding(files, tmp_path, chunking):
    path, frame = files
    out = tmp_path / "recoded.csv"
    mapping = {"region": {"east": "east+west", "west": "east+west"}, "status": {"3": "2+"}}
    result = _run(recode_file, cluster_recode, chunking, path, out, mapping, bands=[("age", 4)], top=[("w", 25)],
                  bottom=[("hh", 100)], progress=False)
    expected = top_bottom_code(top_bottom_code(band(recode(frame, mapping), "age", 4), "w", above=25), "hh", below=100)
    written = pd.read_csv(out, dtype=str, keep_default_na=False, na_values=[""])
    for column in ["region", "status", "age", "w", "hh"]:
        assert _text(written[column]) == _text(expected[column]), column
        before, after = _text(frame[column]), _text(expected[column])
        assert result.changed[column] == sum(a != b for a, b in zip(before, after, strict=True))
        assert result.categories[column] == {"before": len(set(before) - {None}), "after": len(set(after) - {None})}
    assert _text(written["sex"]) == _text(frame["sex"])


def test_recoding_of_codes_numbers_and_text_with_missing_values_equals_the_in_memory_recoding(tmp_path):
    frame = pd.DataFrame({"code": pd.array([1, 2, None, 3, 2, 7, None, 1], dtype="Int64"),
                          "level": [1.0, 2.5, np.nan, 3.0, 2.5, -0.0, 2.5, 40.0],
                          "amount": [12.0, 1234567.0, np.nan, -0.0, 150.0, 0.25, 99.5, 100.0],
                          "rate": [0.5, np.nan, 2.0, 1.0, 1234567.0, 3.25, -1.0, 0.999],
                          "town": ["a", None, "b", "c", "a", "d", "b", "e"],
                          "size": [3, 17, 250, 9, 3, 61, 5, 17]})
    path = tmp_path / "codes.parquet"
    frame.to_parquet(path)
    out = tmp_path / "recoded.parquet"
    mapping = {"code": {"1": "low", 2: "low", "9": "none"},  # 9 names no value; 3 and 7 keep theirs
               "level": {"2.5": "mid", "3": 3}, "town": {"a": "ab", "b": "ab", "z": "zz"}}
    result = recode_file(scan(path), out, mapping, bands=[("size", 10)], top=[("amount", 100)],
                         bottom=[("rate", 1)], chunk_size=3, progress=False)
    expected = top_bottom_code(top_bottom_code(band(recode(frame, mapping), "size", 10), "amount", above=100),
                               "rate", below=1)
    written = pd.read_parquet(out)
    for column in frame.columns:
        assert _text(written[column]) == _text(expected[column]), column
        old, new = _text(frame[column]), _text(expected[column])
        assert result.changed[column] == sum(a != b for a, b in zip(old, new, strict=True))
        assert result.categories[column] == {"before": len(set(old) - {None}), "after": len(set(new) - {None})}
    assert _text(written["code"]) == ["low", "low", None, "3", "low", "7", None, "low"]
    assert _text(written["level"]) == ["1", "mid", None, "3", "mid", "0", "mid", "40"]
    assert _text(written["amount"]) == ["12", ">100", None, "-0", ">100", "0.25", "99.5", "100"]
    assert _text(written["rate"]) == ["<1", None, "2", "1", "1.23457e+06", "3.25", "<1", "<1"]


def test_recoding_refuses_text_to_band_with_the_in_memory_message(tmp_path):
    frame = pd.DataFrame({"town": ["a", "b", "a", "c", "a"]})
    path = tmp_path / "towns.parquet"
    frame.to_parquet(path)
    with pytest.raises(InputError) as in_memory:
        band(frame, "town", 5, source=str(path))
    with pytest.raises(InputError) as out_of_core:
        recode_file(scan(path), None, bands=[("town", 5)], progress=False)
    assert str(out_of_core.value) == str(in_memory.value) and "5 value(s)" in str(in_memory.value)


def _missing_everywhere(tmp_path) -> tuple:
    """The census-like file with a missing value in every key (no key to split the partitions on alone)."""
    from tests.scale.conftest import census_like

    frame = census_like(1500, 11)
    frame.loc[frame.index % 97 == 5, "sex"] = None
    path = tmp_path / "missing.parquet"
    frame.astype({"status": "Int64"}).to_parquet(path)
    return path, pd.read_parquet(path)


@PARQUET_ONLY
@pytest.mark.parametrize(("chunk_size", "partitions"), [(40, None), (40, 1), (300, 5), (1000, 2)])
@pytest.mark.parametrize("households", [False, True])
def test_suppression_a_partition_and_a_chunk_of_classes_at_a_time_equals_the_in_memory_suppression(
        files, tmp_path, chunk_size, partitions, households):
    """Partitions of the distinct rows, classes at risk followed a few at a time, hash parts: the same cells blanked."""
    path, frame = files
    options = {"household": "hh", "household_variables": ["region", "age"]} if households else {}
    out = tmp_path / "parts.parquet"
    result = suppress_file(scan(path), KEYS, out, k=3, chunk_size=chunk_size, partitions=partitions,
                           progress=False, **options)
    expected = local_suppression(frame, KEYS, k=3, **options)
    written = pd.read_parquet(out)
    for j, key in enumerate(KEYS):
        assert _text(written[key]) == _text(expected.data[key]), key
        assert result.per_variable[j] == int(expected.suppressed[:, j].sum())
    assert result.rounds == expected.rounds


@pytest.mark.parametrize(("chunk_size", "partitions", "households"), [(30, None, False), (30, 3, True), (500, 2, False)])
def test_suppression_of_a_file_missing_values_in_every_key_equals_the_in_memory_suppression(
        tmp_path, chunk_size, partitions, households):
    path, frame = _missing_everywhere(tmp_path)
    assert frame[KEYS].isna().any().all()
    options = {"household": "hh", "household_variables": ["region"]} if households else {}
    out = tmp_path / "suppressed.parquet"
    result = suppress_file(scan(path), KEYS, out, k=3, chunk_size=chunk_size, partitions=partitions,
                           progress=False, **options)
    expected = local_suppression(frame, KEYS, k=3, **options)
    written = pd.read_parquet(out)
    for key in KEYS:
        assert _text(written[key]) == _text(expected.data[key]), key
    assert result.per_variable == tuple(int(v) for v in expected.suppressed.sum(axis=0))
    assert result.rounds == expected.rounds


@pytest.mark.parametrize("partitions", [1, 3])
def test_the_recoded_keys_read_from_the_source_give_the_written_files_risk_record_by_record(tmp_path, partitions):
    rng = np.random.default_rng(5)
    n = 400
    frame = pd.DataFrame({"code": pd.array(rng.integers(1, 9, n), dtype="Int64"),
                          "level": rng.choice([1.0, 2.5, 3.0, 40.0, np.nan], n),
                          "town": rng.choice(["a", "b", "c", "d", None], n),
                          "size": rng.integers(0, 60, n), "amount": rng.choice([0.5, 1.0, 20.0, 99.0, 150.0], n),
                          "w": rng.uniform(1.0, 5.0, n)})
    frame.loc[rng.random(n) < 0.1, "code"] = pd.NA
    path, out = tmp_path / "codes.parquet", tmp_path / "recoded.parquet"
    frame.to_parquet(path)
    source = scan(path)
    mapping = {"code": {"1": "low", 2: "low", "3": "7"}, "level": {"2.5": "mid", "3": 3}, "town": {"a": "ab", "b": "ab"}}
    result = recode_file(source, out, mapping, bands=[("size", 10)], top=[("amount", 30)], chunk_size=90, progress=False)
    view = recoded_keys(source, result)
    keys = ["code", "level", "town", "size", "amount"]
    for weight in (None, "w"):
        got = individual_risk(view, keys, weight=weight, k=2, out=tmp_path / "view.parquet", chunk_size=100,
                              partitions=partitions, progress=False, overwrite=True)
        want = individual_risk(scan(out), keys, weight=weight, k=2, out=tmp_path / "file.parquet", chunk_size=100,
                               partitions=partitions, progress=False, overwrite=True)
        for name in ("expected_reidentifications", "global_risk", "max_risk"):  # sums added in another order
            assert getattr(got, name) == pytest.approx(getattr(want, name), rel=1e-12), name
        for name in ("n", "records_at_max", "distinct_rows", "k_anonymity_violations", "weighted"):
            assert getattr(got, name) == getattr(want, name), name
        pd.testing.assert_frame_equal(pd.read_parquet(tmp_path / "view.parquet"), pd.read_parquet(tmp_path / "file.parquet"))
    ranks = view.lazy(["town"]).collect()["town"].to_list()  # a code per written text, missing where it is
    texts = _text(pd.read_parquet(out)["town"])
    assert [None if r is None else sorted(set(texts) - {None})[r] for r in ranks] == texts
    twice = FileRecoding(result.n, result.changed, result.categories, result.out,
                         {"town": pd.DataFrame({"old": ["a", "a"], "new": ["x", "y"]}).pipe(_polars)})
    assert recoded_keys(source, twice) is None  # a value written as two texts: read the written file instead


def _polars(frame: pd.DataFrame):
    import polars as pl

    return pl.from_pandas(frame)
