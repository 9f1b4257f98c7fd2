"""Reading published tables (rumap/tables/table_files.py): labels, totals, x for a suppressed cell."""

from __future__ import annotations

import pandas as pd
import pytest
from table_helpers import TABLE1

from rumap.errors import InputError
from rumap.tables.table_files import contributions_from_frame, published_table_from_frame


def test_reading_errors_name_row_and_column():
    frame = pd.read_csv(TABLE1, dtype=str)
    frame.iloc[2, 3] = "lots"
    with pytest.raises(InputError, match=r"t.csv: row '5', column '6' is 'lots'"):
        published_table_from_frame(frame, source="t.csv")
    frame.iloc[2, 3] = None
    with pytest.raises(InputError, match="is empty"):
        published_table_from_frame(frame, source="t.csv")
    frame.iloc[2, 3] = "-4"
    with pytest.raises(InputError, match="negative"):
        published_table_from_frame(frame, source="t.csv")
    with pytest.raises(InputError, match="needs a label column"):
        published_table_from_frame(frame.iloc[:, :2], source="t.csv")


def test_contributions_from_frame_and_errors():
    frame = pd.DataFrame({"unit": ["x", "y", "z"], "turnover": ["3", "4.5", "1"], "other": [1, 2, 3]})
    c = contributions_from_frame(frame, "unit", "turnover", source="f.csv")
    assert c.values.tolist() == [3.0, 4.5, 1.0]
    with pytest.raises(InputError, match="f.csv: no column 'cell'"):
        contributions_from_frame(frame, source="f.csv")
    bad = frame.assign(turnover=["3", "lots", "1"])
    with pytest.raises(InputError, match="'turnover' row 2 is not a number"):
        contributions_from_frame(bad, "unit", "turnover", source="f.csv")


def _table(rows: list[list[str]], header: tuple[str, ...] = ("row", "c1", "c2", "Total")) -> pd.DataFrame:
    return pd.DataFrame(rows, columns=list(header))


@pytest.mark.parametrize("rows, message", [
    ([["a", "1", "2", "3"], ["Total", "1", "2", "3"], ["b", "4", "5", "9"], ["Total", "5", "7", "12"]],
     "row 2 is labelled 'Total' but is not the last row"),
    ([["a", "1", "2", "3"], ["a", "4", "5", "9"], ["Total", "5", "7", "12"]], "row label 'a' appears more than once"),
    ([["a", "\u0661", "2", "3"], ["b", "4", "5", "9"], ["Total", "5", "7", "12"]], "row 'a', column 'c1'"),
    ([["a", "nan", "2", "3"], ["b", "4", "5", "9"], ["Total", "5", "7", "12"]], "row 'a', column 'c1'"),
    ([["a", "inf", "2", "3"], ["b", "4", "5", "9"], ["Total", "5", "7", "12"]], "row 'a', column 'c1'"),
])
def test_malformed_published_tables_are_refused(rows, message):
    with pytest.raises(InputError, match=message):
        published_table_from_frame(_table(rows))


def test_a_total_column_in_the_middle_and_repeated_column_labels_are_refused():
    rows = [["a", "1", "1", "2", "3"], ["Total", "1", "1", "2", "3"]]
    with pytest.raises(InputError, match="column 1 is labelled 'total' but is not the last column"):
        published_table_from_frame(_table(rows, ("row", "total", "c1", "c2", "Total")))
    with pytest.raises(InputError, match="column label 'c1' appears more than once"):
        published_table_from_frame(pd.DataFrame([["a", "1", "2", "3"], ["Total", "1", "2", "3"]],
                                                columns=["row", "c1", "c1 ", "Total"]))
