"""File arguments of the reproduce panels: a bundled data set's path as the generated code names it."""

from __future__ import annotations

from rumap.io.data import BUNDLED_DATA
from rumap.present.commands import shown_path

__all__ = ["bundled_path"]


def bundled_path(name: str) -> str:
    """The path of a bundled data set as a command run from the working directory names it.

    Parameters
    ----------
    name : str
        A key of :data:`rumap.io.data.BUNDLED_DATA`.

    Returns
    -------
    str
    """
    return shown_path(BUNDLED_DATA[name])
