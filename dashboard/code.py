"""Building blocks of the reproduce panels: file arguments, command lines and short Python scripts."""

from __future__ import annotations

import shlex
from collections.abc import Mapping, Sequence

from rumap.io.data import BUNDLED_DATA
from rumap.present.commands import shown_path


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
