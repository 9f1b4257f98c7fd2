"""The rows and columns of a file found without reading its values, and the memory they would take."""

from __future__ import annotations

import pandas as pd
import pytest

from rumap.io.table_size import BYTES_PER_VALUE, TableShape, in_memory_bytes, table_shape


def test_parquet_rows_and_columns_come_from_its_metadata(tmp_path):
    pytest.importorskip("pyarrow")
    path = tmp_path / "x.parquet"
    pd.DataFrame({"sex": ["f", "m", None] * 7, "age": range(21)}).to_parquet(path, row_group_size=5)
    assert table_shape(path) == TableShape(21, ("sex", "age"), True)
    assert table_shape(path).to_dict() == {"rows": 21, "columns": ["sex", "age"], "exact": True}


@pytest.mark.parametrize(("name", "text", "rows", "columns"), [
    ("a.csv", "sex,region\nf,a\nm,b\n", 2, ("sex", "region")),
    ("b.csv", "sex;region\nf;a\nm;b", 2, ("sex", "region")),  # no line break at the end
    ("c.tsv", "sex\tregion name\nf\ta\n", 1, ("sex", "region name")),
    ("d.txt", '"a,b",c\n1,2\n', 1, ("a,b", "c")),
    ("e.csv", "sex,region\n", 0, ("sex", "region")),
])
def test_a_text_read_whole_is_counted_exactly(tmp_path, name, text, rows, columns):
    path = tmp_path / name
    path.write_text(text)
    assert table_shape(path) == TableShape(rows, columns, True)


def test_a_larger_text_is_extrapolated_from_a_sample_of_its_bytes(tmp_path):
    path = tmp_path / "big.csv"
    lines = [f"{i % 97},{'x' * (i % 13)},{i}" for i in range(20_000)]
    path.write_text("a,b,c\n" + "\n".join(lines) + "\n")
    shape = table_shape(path, sample=4096)
    assert not shape.exact and shape.columns == ("a", "b", "c")
    assert shape.rows == pytest.approx(20_000, rel=0.1)
    assert table_shape(path, sample=10**7) == TableShape(20_000, ("a", "b", "c"), True)


def test_files_it_cannot_size_are_left_to_the_reader(tmp_path):
    (tmp_path / "x.xlsx").write_bytes(b"not really")
    (tmp_path / "bad.parquet").write_bytes(b"not parquet")
    (tmp_path / "wide.csv").write_text("a" * 100)  # no line break within the sample
    for name in ("x.xlsx", "bad.parquet", "missing.csv", "wide.csv"):
        assert table_shape(tmp_path / name, sample=50) is None, name
    assert table_shape(tmp_path) is None


def test_the_memory_counts_the_columns_a_step_uses():
    shape = TableShape(1_000, ("a", "b", "c", "d"), True)
    assert in_memory_bytes(shape) == 4_000 * BYTES_PER_VALUE
    assert in_memory_bytes(shape, ["a", "b", "a"]) == 2_000 * BYTES_PER_VALUE
