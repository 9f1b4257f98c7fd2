"""The text of reproducing code: a ``python -m rumap`` command line and a Python script with its imports."""

from __future__ import annotations

import shlex
from collections.abc import Mapping, Sequence

from rumap._validation import InstanceOf, assumes_valid, validate_params

__all__ = ["command_line", "python_script"]


def _number(value: object) -> str:
    if isinstance(value, float):
        return repr(value).removesuffix(".0") if value.is_integer() else repr(value)
    return str(value)


@assumes_valid
def command_line(*parts: object) -> str:
    """A ``python -m rumap`` command line, each part quoted for the shell.

    Parameters
    ----------
    *parts
        The subcommand, flags and values (a whole float is written without ``.0``, another with ``repr``).

    Returns
    -------
    str

    Examples
    --------
    >>> command_line("table", "dominance-flaw", "--n", 2, "--k", 0.75, "--file", "my data.csv")
    "python -m rumap table dominance-flaw --n 2 --k 0.75 --file 'my data.csv'"
    """
    return shlex.join(["python", "-m", "rumap", *(_number(p) for p in parts)])


@validate_params({"imports": InstanceOf(Mapping, "a mapping of module to names"),
                  "lines": InstanceOf(Sequence, "a list of statements")},
                 example=lambda: {"imports": {"numpy as np": []}, "lines": ["x = np.zeros(2)"]})
def python_script(imports: Mapping[str, Sequence[str]], lines: Sequence[str]) -> str:
    """A Python script: its imports (module -> names) then its lines.

    Parameters
    ----------
    imports : mapping of str to sequence of str
        ``{"rumap.io.data": ["read_table"]}`` gives ``from rumap.io.data import read_table``;
        a module with no names is imported as a whole.
    lines : sequence of str
        The statements.

    Returns
    -------
    str

    Examples
    --------
    >>> print(python_script({"numpy as np": [], "rumap.io.data": ["read_table"]}, ["x = np.zeros(2)"]))
    import numpy as np
    from rumap.io.data import read_table
    <BLANKLINE>
    x = np.zeros(2)
    """
    head = [f"import {module}" if not names else f"from {module} import {', '.join(sorted(set(names)))}"
            for module, names in sorted(imports.items())]
    return "\n".join([*head, "", *lines])
