"""Building blocks of the reproduce panels: file arguments, and the command lines and short Python scripts of
:mod:`rumap.present.reproduce` for the results that have no specification there."""

from __future__ import annotations

from rumap.io.data import BUNDLED_DATA
from rumap.present.commands import shown_path
from rumap.present.reproduce import command_line as command
from rumap.present.reproduce import python_script as script

__all__ = ["bundled_path", "command", "script"]


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
