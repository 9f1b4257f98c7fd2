"""Every upload format is read from memory (bytes), and every bad file gets a message naming the problem."""

from __future__ import annotations

import sys

import numpy as np
import pandas as pd
import pyreadstat
import pytest

from rumap.errors import InputError
from rumap.io import data as data_module
from rumap.io.data import (
    READERS,
    identifier_columns,
    numeric_column,
    numeric_columns,
    read_table_bytes,
    summary_table,
    text_among_numbers,
)

FRAME = pd.DataFrame({"income": [2000.0, 7200.0, 20100.0, 35000.0, 95200.0], "region": ["a", "b", "c", "d", "e"]})


def _write(fmt: str, path):
    writers = {
        "csv": lambda: FRAME.to_csv(path, index=False),
        "tsv": lambda: FRAME.to_csv(path, index=False, sep="\t"),
        "xlsx": lambda: FRAME.to_excel(path, index=False),
        "parquet": lambda: FRAME.to_parquet(path),
        "dta": lambda: FRAME.to_stata(path, write_index=False),
        "sav": lambda: pyreadstat.write_sav(FRAME, str(path)),
        "xpt": lambda: pyreadstat.write_xport(FRAME, str(path), file_format_version=5, table_name="DATA"),
    }
    writers[fmt]()
    return path.read_bytes()


@pytest.mark.parametrize("fmt", ["csv", "tsv", "xlsx", "parquet", "dta", "sav", "xpt"])
def test_each_format_reads_from_memory(tmp_path, fmt):
    content = _write(fmt, tmp_path / f"upload.{fmt}")
    frame = read_table_bytes(content, f"upload.{fmt}")
    assert list(frame.columns) == ["income", "region"]
    np.testing.assert_allclose(numeric_column(frame, "income"), FRAME["income"])
    assert list(frame["region"].astype(str)) == list(FRAME["region"])


def test_sas7bdat_reader_reports_a_broken_file():
    # Neither pandas nor pyreadstat can write .sas7bdat; the reader must at least turn a bad file into a message.
    with pytest.raises(InputError, match=r"broken\.sas7bdat: cannot read the file as \.sas7bdat"):
        read_table_bytes(b"not a sas file" * 100, "broken.sas7bdat")
    assert ".sas7bdat" in READERS


def test_every_reader_is_tested_or_an_alias():
    tested = {".csv", ".tsv", ".xlsx", ".parquet", ".dta", ".sav", ".xpt", ".sas7bdat"}
    aliases = {".txt": ".csv", ".tab": ".tsv", ".xlsm": ".xlsx", ".pq": ".parquet"}
    for suffix in READERS:
        assert suffix in tested or READERS[suffix] is READERS[aliases[suffix]], suffix


@pytest.mark.parametrize(("name", "content", "fragment"), [
    ("data.xyz", b"a,b\n1,2\n", "unknown file format '.xyz'"),
    ("data", b"a,b\n1,2\n", "unknown file format '(no extension)'"),
    ("empty.csv", b"", "empty.csv: the file is empty"),
    ("latin.csv", "income,name\n1,Müller\n2,Strauß\n".encode("latin-1"), "latin.csv: the file is not UTF-8 text"),
    ("header.csv", b"income\n", "header.csv: the file has no rows or no columns"),
    ("bad.parquet", b"PAR1 not really", "bad.parquet: cannot read the file as .parquet"),
    ("bad.xlsx", b"not a zip", "bad.xlsx: cannot read the file as .xlsx"),
])
def test_bad_files_get_messages(name, content, fragment):
    with pytest.raises(InputError) as info:
        read_table_bytes(content, name)
    assert fragment in str(info.value)
    assert "Traceback" not in str(info.value)


def test_size_limit(monkeypatch):
    monkeypatch.setattr(data_module, "MAX_BYTES", 10)
    with pytest.raises(InputError, match="big.csv: the file is 0 MB, over the 0 MB limit"):
        read_table_bytes(b"a,b\n1,2\n3,4\n", "big.csv")


def test_no_numeric_column_and_missing_values():
    frame = pd.DataFrame({"name": ["a", "b"], "x": [1.0, np.nan], "y": [1.0, 2.0]})
    with pytest.raises(InputError, match="column 'name' is not numeric"):
        numeric_columns(frame, ["name"], source="f.csv")
    with pytest.raises(InputError, match="f.csv: no numeric column"):
        numeric_columns(frame[["name"]], None, source="f.csv")
    with pytest.raises(InputError, match="column 'x' has 1 missing"):
        numeric_columns(frame, ["x", "y"], source="f.csv")
    with pytest.raises(InputError, match="needs at least 2 complete rows"):
        numeric_columns(frame, ["x", "y"], source="f.csv", missing="drop")
    np.testing.assert_array_equal(numeric_columns(frame, ["y"], missing="drop")[:, 0], [1.0, 2.0])


def test_a_column_of_numbers_with_a_text_value_is_named_and_its_text_counts_as_missing():
    content = b"id,income,sex\n" + b"\n".join(f"{i + 1},{1000 + 13 * i},{'mf'[i % 2]}".encode() for i in range(30))
    content = content.replace(b"\n8,1091,", b"\n8,unknown,").replace(b"\n12,1143,", b"\n12, ,")
    frame = read_table_bytes(content, "survey.csv")
    assert not pd.api.types.is_numeric_dtype(frame["income"])  # the reader keeps the file's text
    (mixed,) = text_among_numbers(frame)
    assert (mixed.column, mixed.texts, mixed.example, mixed.row, mixed.numbers) == ("income", 1, "unknown", 8, 28)
    with pytest.raises(InputError, match=r"column 'income' has 1 text value\(s\) among its numbers "
                                         r"\(e.g. 'unknown' in row 8\)"):
        numeric_columns(frame, ["income"], "survey.csv")
    values = numeric_columns(frame, ["income", "id"], "survey.csv", missing="drop")
    expected = [(i + 1, 1000 + 13 * i) for i in range(30) if i + 1 not in (8, 12)]
    np.testing.assert_array_equal(values, np.array(expected, dtype=float)[:, ::-1])
    with pytest.raises(InputError, match="column 'sex' is not numeric"):
        numeric_columns(frame, ["sex"], "survey.csv", missing="drop")
    assert identifier_columns(frame) == ["id"]


def test_identifiers_by_name_or_by_consecutive_values():
    rng = np.random.default_rng(1)
    frame = pd.DataFrame({"person_id": rng.permutation(50) * 7 + 3, "row": rng.permutation(50),
                          "income": rng.normal(size=50), "age": rng.integers(20, 60, 50),
                          "serial": np.r_[np.arange(49), 3], "visits": rng.permutation(50) + 1,
                          "caseID": rng.permutation(50) * 3, "amount_paid": rng.normal(100, 9, 50).round(2)})
    assert identifier_columns(frame) == ["person_id", "row", "visits", "caseID"]


def test_summary_table_matches_numpy():
    x = FRAME["income"].to_numpy()
    table = summary_table(x).set_index("statistic")["value"]
    assert table["n"] == 5
    assert table["mean"] == pytest.approx(x.mean())
    assert table["sd"] == pytest.approx(x.std(ddof=1))
    assert table["max"] == 95200.0 and table["min"] == 2000.0


@pytest.mark.parametrize("name, module", [("survey.sav", "pyreadstat"), ("survey.xpt", "pyreadstat"),
                                          ("survey.sas7bdat", "pyreadstat"), ("table.parquet", "pyarrow"),
                                          ("table.xlsx", "openpyxl")])
def test_a_missing_reader_names_the_extra(monkeypatch, name, module):
    monkeypatch.setitem(sys.modules, module, None)  # as if it were not installed
    with pytest.raises(InputError) as info:
        read_table_bytes(b"some bytes", name)
    message = str(info.value)
    assert message.startswith(f"{name}: ") and module in message and "pip install 'rumap[formats]'" in message


@pytest.mark.parametrize("name, content", [("d.csv", b"income,age,income\n1,2,3\n4,5,6\n"),
                                           ("d.tsv", b"income\tage\tincome\n1\t2\t3\n4\t5\t6\n")])
def test_a_header_naming_a_column_twice_is_refused(name, content):
    with pytest.raises(InputError, match=rf"^{name}: the header names a column more than once: 'income' \(columns 1 and 3\)$"):
        read_table_bytes(content, name)


def test_an_excel_header_naming_a_column_twice_is_refused(tmp_path):
    path = tmp_path / "d.xlsx"
    pd.DataFrame([[1, 2, 3]], columns=["a", "b", "c"]).rename(columns={"c": "a"}).to_excel(path, index=False)
    with pytest.raises(InputError, match="names a column more than once: 'a'"):
        read_table_bytes(path.read_bytes(), "d.xlsx")


def test_devices_pipes_and_files_over_the_limit_are_refused_before_reading(tmp_path, monkeypatch):
    import os

    from rumap.io.data import read_table

    endless = tmp_path / "endless.csv"
    endless.symlink_to("/dev/zero")
    with pytest.raises(InputError, match="endless.csv: not a regular file"):
        read_table(endless)
    fifo = tmp_path / "pipe.csv"
    os.mkfifo(fifo)
    with pytest.raises(InputError, match="pipe.csv: not a regular file"):
        read_table(fifo)  # opening a pipe would block: it is refused from its metadata
    monkeypatch.setattr(data_module, "MAX_BYTES", 4096)
    big = tmp_path / "big.csv"
    with big.open("wb") as handle:
        handle.truncate(10 * 2**20)  # a sparse 10 MB file: refused from its size, never read
    with pytest.raises(InputError, match="big.csv: the file is 10 MB, over the 0 MB limit"):
        read_table(big)


def test_a_frame_with_a_column_named_twice_is_refused():
    frame = pd.DataFrame([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], columns=["a", "a"])
    for call in (lambda: numeric_columns(frame, ["a"], source="f"), lambda: numeric_column(frame, "a", source="f")):
        with pytest.raises(InputError, match=r"^f: the header names a column more than once: 'a' \(columns 1 and 2\)$"):
            call()


@pytest.mark.parametrize(("text", "expected"), [
    ("income;age\n420,1576;33\n1.200,5;41\n", [420.1576, 1200.5]),           # decimal comma, dot thousands
    ("income;age\n420,5;33\n88;41\n", [420.5, 88.0]),                          # decimal comma only
    ("income\tage\n3,25\t1\n4,5\t2\n", [3.25, 4.5]),                            # tab-separated, decimal comma
    ("income;age\n420.5;33\n88.25;41\n", [420.5, 88.25]),                       # semicolons, decimal dot
    ("income,age\n420.5,33\n88,41\n", [420.5, 88.0]),                           # the usual CSV
])
def test_european_numbers_are_read_as_numbers(text, expected):
    from rumap.io.data import numeric_column, read_table_bytes

    frame = read_table_bytes(text.encode(), "data.csv")
    assert numeric_column(frame, "income").tolist() == expected


def test_a_csv_with_rows_longer_than_its_header_is_refused():
    from rumap.io.data import read_table_bytes

    with pytest.raises(InputError, match=r"^ragged.csv: line 2 has 4 field\(s\) but the header has 2 \(line 1 is the header\)$"):
        read_table_bytes(b"income,spend\n1,2,3,4\n5\n", "ragged.csv")
