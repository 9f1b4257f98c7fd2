"""Building blocks of the reproduce panels: file arguments, command lines and short Python scripts."""

from __future__ import annotations

import shlex
from collections.abc import Mapping, Sequence
from pathlib import Path

from rumap.io.data import BUNDLED_DATA

#: The project's root: bundled data sets are named relative to it, as the command line is run from there.
ROOT = Path(__file__).resolve().parents[1]


def bundled_path(name: str) -> str:
    """The path of a bundled data set relative to the project's root.

    Parameters
    ----------
    name : str
        A key of :data:`rumap.io.data.BUNDLED_DATA`.

    Returns
    -------
    str
    """
    path = Path(BUNDLED_DATA[name]).resolve()
    try:
        return str(path.relative_to(ROOT))
    except ValueError:
        return str(path)


def command(*parts: object) -> str:
    """A ``python -m rumap`` command line, each part quoted for the shell.

    Parameters
    ----------
    *parts
        The subcommand, flags and values (numbers are written with ``repr``).

    Returns
    -------
    str
    """
    return shlex.join(["python", "-m", "rumap", *(_text(p) for p in parts)])


def _text(value: object) -> str:
    if isinstance(value, float):
        return repr(value).removesuffix(".0") if value.is_integer() else repr(value)
    return str(value)


def script(imports: Mapping[str, Sequence[str]], lines: Sequence[str]) -> str:
    """A Python script: its imports (module -> names) then its lines.

    Parameters
    ----------
    imports : mapping of str to sequence of str
        ``{"rumap.io.data": ["read_table"]}`` gives ``from rumap.io.data import read_table``.
    lines : sequence of str
        The statements.

    Returns
    -------
    str
    """
    head = [f"import {module}" if not names else f"from {module} import {', '.join(sorted(set(names)))}"
            for module, names in sorted(imports.items())]
    return "\n".join([*head, "", *lines])
