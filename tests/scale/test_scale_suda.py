"""Out-of-core SUDA2 against the in-memory SUDA2, record by record."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from rumap.budget import WorkBudget
from rumap.errors import InputError
from rumap.risk.suda import suda2
from rumap.scale import scan
from rumap.scale.suda import suda_file

pytest.importorskip("polars")

KEYS = ["age", "region", "sex", "status"]


PARQUET_ONLY = pytest.mark.parametrize("files", ["parquet", pytest.param("csv", marks=pytest.mark.slow)], indirect=True)


@PARQUET_ONLY
@pytest.mark.parametrize("max_size", [None, 3])
def test_suda_of_a_file_equals_the_in_memory_suda(files, tmp_path, max_size):
    path, frame = files
    out = tmp_path / "suda.parquet"
    result = suda_file(scan(path), KEYS, out, max_size=max_size, dis_fraction=0.05, chunk_size=700, progress=False)
    expected = suda2(frame, KEYS, max_size=max_size, dis_fraction=0.05)
    assert expected.special_uniques >= 10  # the file has MSUs to find
    written = pd.read_parquet(out)
    pd.testing.assert_frame_equal(written, expected.to_frame(), check_dtype=False)
    want = expected.to_dict()
    got = result.to_dict()
    for key in ("n", "keys", "max_size", "dis_fraction", "msus_by_size", "special_uniques", "sample_uniques", "dis",
                "variables"):
        assert got[key] == want[key], key
    assert got["max_score"] == max(want["score"]) and got["max_dis_score"] == max(want["dis_score"])
    assert result.distinct_rows < len(frame) and result.out == str(out)


@PARQUET_ONLY
def test_suda_of_a_file_refuses_what_the_in_memory_suda_refuses(files):
    path, _ = files
    with pytest.raises(InputError, match="max_size"):
        suda_file(scan(path), KEYS, max_size=5, progress=False)
    with pytest.raises(InputError, match="no column"):
        suda_file(scan(path), ["age", "zz"], progress=False)
    with pytest.raises(InputError, match="distinct key rows"):
        suda_file(scan(path), KEYS, budget=WorkBudget(work=10), progress=False)
    alone = suda_file(scan(path), ["sex"], progress=False)  # two categories of many records: no MSU
    assert alone.msus_by_size == (0,) and alone.special_uniques == 0 and alone.to_dict()["records_out"] is None


@pytest.mark.parametrize("wide", [False, True])
@pytest.mark.parametrize("form", ["parquet", "csv"])
def test_suda_of_a_file_of_many_varied_keys_equals_the_in_memory_suda(tmp_path, wide, form):
    """Keys folded into one int64 per row, and keys too varied for one (61^12 rows): the same values."""
    rng = np.random.default_rng(11)
    width = 12 if wide else 5
    frame = pd.DataFrame({f"k{j}": rng.integers(0, 60 if wide else 5, 400).astype(float) for j in range(width)})
    frame.iloc[::9, 2] = np.nan
    path = tmp_path / f"keys.{form}"
    if form == "csv":
        frame.to_csv(path, index=False)
    else:
        frame.to_parquet(path, row_group_size=150)
    keys = list(frame.columns)
    out = tmp_path / "suda.csv"
    size = 2 if wide else None
    result = suda_file(scan(path), keys, out, max_size=size, chunk_size=170, progress=False)
    expected = suda2(frame, keys, max_size=size)
    assert expected.special_uniques > 0
    pd.testing.assert_frame_equal(pd.read_csv(out), expected.to_frame(), check_dtype=False)
    want = expected.to_dict()
    assert result.to_dict()["msus_by_size"] == want["msus_by_size"] and result.dis == want["dis"]
    assert result.special_uniques == want["special_uniques"] and result.sample_uniques == want["sample_uniques"]
