"""A page's own data file: a bundled example or an upload, read in memory (shared by the pages that take one)."""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd
import streamlit as st

from dashboard.code import bundled_path
from dashboard.widgets import remembered
from rumap.io.data import BUNDLED_DATA, read_table, read_table_bytes

#: The choices of :func:`example_or_upload`.
SOURCES = ["bundled example", "upload a file"]


@dataclass(frozen=True)
class PageFile:
    """The file a page assesses: its table, its name (for messages) and how code refers to it."""

    frame: pd.DataFrame
    name: str
    path: str


def example_or_upload(example: str, key: str, label: str) -> PageFile | None:
    """A radio choosing the bundled ``example`` or an upload; ``None`` while the upload is missing.

    Parameters
    ----------
    example : str
        A key of :data:`rumap.io.data.BUNDLED_DATA`.
    key : str
        Prefix of the widgets' keys (``{key}_source``, ``{key}_upload``).
    label : str
        The uploader's label.

    Returns
    -------
    PageFile or None
    """
    source = remembered(st.radio, "data", f"{key}_source", SOURCES[0], options=SOURCES)
    if source == SOURCES[1]:
        upload = st.file_uploader(label, key=f"{key}_upload")
        if upload is None:
            return None
        return PageFile(read_table_bytes(upload.getvalue(), upload.name), upload.name, upload.name)
    path = BUNDLED_DATA[example]
    return PageFile(read_table(path), path.name, bundled_path(example))
