"""rumap.tables.marked: a protected table as text, suppressed cells marked; read back, it gives every value."""

from __future__ import annotations

import io

import numpy as np
import pandas as pd
import pytest

from rumap.errors import InputError
from rumap.io.data import table_bytes
from rumap.tables.marked import marked_table
from rumap.tables.published import PublishedTable, paper_table1


def _read_back(content: bytes, mark: str) -> np.ndarray:
    frame = pd.read_csv(io.BytesIO(content), dtype=str, keep_default_na=False)
    cells = frame.iloc[:, 1:].to_numpy()
    return np.where(cells == mark, np.nan, cells).astype(float)


@pytest.mark.parametrize("mark", ["", "x", "..", "-999"])
def test_marks_exactly_the_suppressed_cells_and_keeps_every_value(mark):
    table = paper_table1()  # four suppressed cells (x1..x4 of the paper)
    frame = marked_table(table, mark, row_header="activity")
    assert list(frame.columns) == ["activity", *table.column_labels, "Total"]
    assert frame["activity"].tolist() == [*table.row_labels, "Total"]
    suppressed = np.isnan(table.values)
    assert suppressed.sum() == 4
    assert ((frame.iloc[:, 1:].to_numpy() == mark) == suppressed).all()
    back = _read_back(table_bytes(frame, "t.csv"), mark)
    np.testing.assert_array_equal(np.isnan(back), suppressed)
    np.testing.assert_array_equal(back[~suppressed], table.values[~suppressed])


def test_values_keep_every_digit():
    values = np.array([[0.1, 123456789.0, np.nan], [1e-7, 2.5, np.nan], [np.nan, np.nan, np.nan]])
    frame = marked_table(PublishedTable(("a", "b"), ("u", "v"), values), "x")
    assert frame.loc[0, "u"] == "0.1" and frame.loc[0, "v"] == "123456789" and frame.loc[1, "u"] == "1e-07"


def test_a_mark_that_reads_as_a_published_value_or_spans_lines_is_refused():
    with pytest.raises(InputError, match="also a published value"):
        marked_table(paper_table1(), "80")  # the first cell of the table
    with pytest.raises(InputError, match="one line"):
        marked_table(paper_table1(), "x\ny")
    with pytest.raises(InputError, match="table"):
        marked_table(pd.DataFrame(), "x")
