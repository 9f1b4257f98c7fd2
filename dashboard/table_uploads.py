"""The Tables page's file given on a tab, kept in memory across pages, and its risks as text."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from dashboard.files import kept_file

#: The formats of a table or contributions file.
TABLE_TYPES = ["csv", "txt", "tsv", "xlsx", "parquet"]


@dataclass(frozen=True)
class Upload:
    """A file given on a tab: its table and its name (the reproduce panel reads it by that name)."""

    frame: pd.DataFrame
    name: str


def upload_block(label: str, key: str, help_text: str) -> Upload | None:
    """A file uploader whose file the session keeps; ``None`` without one (the tab then uses its example).

    Parameters
    ----------
    label, key, help_text : str
        The uploader's label, key and help.

    Returns
    -------
    Upload or None
    """
    file = kept_file(label, key, type=TABLE_TYPES, help=help_text)  # kept in memory across pages
    return None if file is None else Upload(file.frame, file.name)


def risk_text(value: float) -> str:
    """A cell's risk as shown: four significant digits, ∞ when unbounded.

    Parameters
    ----------
    value : float

    Returns
    -------
    str
    """
    return "∞" if not np.isfinite(value) else f"{value:.4g}"
