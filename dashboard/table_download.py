"""Download of a protected table with its suppressed cells marked as the user chooses (blank, ``x`` or a code).

The file is made in memory (:func:`rumap.tables.marked.marked_table`, then
:func:`rumap.io.data.table_bytes`) and leaves only by the download.
"""

from __future__ import annotations

import streamlit as st

from dashboard.widgets import errors_shown, remembered
from rumap.io.data import table_bytes
from rumap.tables.marked import SUPPRESSION_MARKS, marked_table
from rumap.tables.published import PublishedTable

#: The choices of the mark: the usual ones, then a code the user types.
CODE = "a code"


def marked_download(table: PublishedTable, key: str, file_stem: str = "protected_table", row_header: str = "") -> None:
    """A choice of the suppressed cells' mark and the protected table's CSV download.

    Parameters
    ----------
    table : PublishedTable
        The protected table (suppressed cells NaN).
    key : str
        Prefix of the widgets' keys (``{key}_mark``, ``{key}_code``, ``{key}_download``).
    file_stem : str
        The file's name without ``.csv``.
    row_header : str
        The header of the row labels' column.
    """
    cols = st.columns([2, 1, 2], vertical_alignment="bottom")
    with cols[0]:
        choice = remembered(st.radio, "Suppressed cells written as", f"{key}_mark", "x",
                            options=[*SUPPRESSION_MARKS, CODE], horizontal=True)
    mark = SUPPRESSION_MARKS.get(choice)
    if mark is None:
        with cols[1]:
            mark = remembered(st.text_input, "code", f"{key}_code", "..", max_chars=20)
    with errors_shown():
        content = table_bytes(marked_table(table, mark, row_header=row_header), f"{file_stem}.csv")
        cols[2].download_button("Protected table (CSV)", content, file_name=f"{file_stem}.csv", mime="text/csv",
                                key=f"{key}_download", on_click="ignore")
