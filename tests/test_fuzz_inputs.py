"""Hostile inputs named where they are: the column, the 1-based row or line, the value, the flag or plan key.

Each case runs in this process on a tiny file (``rumap.cli.main`` through
:func:`cli_helpers.run_cli`, or the Python function), and the in-memory and
the out-of-core readers must refuse the same files with the same message.
"""

from __future__ import annotations

import pytest
from cli_helpers import assert_bad_input, run_cli

pytest.importorskip("polars")

WIDE = 1600  # columns of a header of about 80 KB: longer than the 64 KB a reader sniffs
LONG_NAME = "a_variable_with_a_long_descriptive_name_{:05d}"

#: name -> (file's text, the message both readers give, after "FILE: ").
READING = {
    "short row": ("sex,region\nf,a\nm\nf,b\n", "line 3 has 1 field(s) but the header has 2 (line 1 is the header)"),
    "long row": ("sex,region\nf,a\nm,b,c\n", "line 3 has 3 field(s) but the header has 2 (line 1 is the header)"),
    "long and short rows": ("sex,region\nf,a\nm\nf,b,c\n",
                            "line 3 has 1 field(s) but the header has 2 (line 1 is the header)"),
    "first row long": ("sex,region\nf,a,b\nm\nf,b\n",
                       "line 2 has 3 field(s) but the header has 2 (line 1 is the header)"),
    "quoted short row": ('sex,region\n"f","a"\n"m"\n', "line 3 has 1 field(s) but the header has 2 (line 1 is the header)"),
    "duplicated header": ("sex,region,sex\nf,a,b\nm,b,a\n",
                          "the header names a column more than once: 'sex' (columns 1 and 3)"),
    "wide duplicated header": (",".join(["sex", "region", *map(LONG_NAME.format, range(WIDE)), "sex"]) + "\n"
                               + ",".join(["f"] * (WIDE + 3)) + "\n" + ",".join(["m"] * (WIDE + 3)) + "\n",
                               f"the header names a column more than once: 'sex' (columns 1 and {WIDE + 3})"),
}


@pytest.mark.parametrize("case", READING)
@pytest.mark.parametrize("engine", ["memory", "scale"])
def test_both_readers_refuse_a_file_with_one_message(tmp_path, case, engine):
    text, message = READING[case]
    path = tmp_path / "data.csv"
    path.write_text(text)
    assert_bad_input(run_cli("risk", "individual", "--data", path, "--keys", "sex,region", "--engine", engine),
                     f"error: {path}: {message}")


def _cut_header() -> list[str]:
    """Names whose header's first 64 KB end in the middle of a name, on a name given before (``v2``)."""
    names, size = ["sex", "region"], len("sex,region,")
    while size < 65536 - 100:
        names.append(f"v{len(names)}")
        size += len(names[-1]) + 1
    names.append("f" * (65536 - size - 1 - len("v2")))  # then ",v2..." crosses byte 65536 just after "v2"
    return [*names, "v2_and_more", "last"]


def test_a_header_longer_than_the_sniffed_bytes_is_read_whole(tmp_path):
    from rumap.io.data import read_table
    from rumap.scale import scan

    names = _cut_header()
    path = tmp_path / "wide.csv"
    path.write_text(",".join(names) + "\n" + ",".join(["f"] * len(names)) + "\n")
    assert list(read_table(path).columns) == names
    assert scan(path).columns == tuple(names)


#: name -> (file's text, the message, after "FILE: "): a value that is no weight, wherever it is.
WEIGHTS = {
    "text deep in the column": ("sex,w\n" + "".join(f"{'fm'[i % 2]},{10 + i}\n" for i in range(150)) + "m,abc\n",
                                "weight 'w' must be a number >= 1 in every record, got abc in row 151"),
    "below 1": ("sex,w\nf,10\nm,0.5\nf,2\n", "weight 'w' must be a number >= 1 in every record, got 0.5 in row 2"),
}


@pytest.mark.parametrize("case", WEIGHTS)
@pytest.mark.parametrize("engine", ["memory", "scale"])
def test_a_bad_weight_is_named_by_its_row_and_value(tmp_path, case, engine):
    text, message = WEIGHTS[case]
    path = tmp_path / "data.csv"
    path.write_text(text)
    assert_bad_input(run_cli("risk", "individual", "--data", path, "--keys", "sex", "--weight", "w",
                             "--engine", engine), f"error: {path}: {message}")


def test_text_past_the_rows_that_set_a_column_type_is_named(tmp_path, monkeypatch):
    import rumap.scale.source as source

    monkeypatch.setattr(source, "_CSV_SCHEMA_ROWS", 5)
    path = tmp_path / "data.csv"
    path.write_text("sex,w\n" + "".join(f"f,{10 + i}\n" for i in range(20)) + "m,abc\n")
    assert_bad_input(run_cli("risk", "individual", "--data", path, "--keys", "sex", "--weight", "w",
                             "--engine", "scale"), f"error: {path}: column 'w' is not numeric (e.g. 'abc' in row 21)")
