"""The small files the examples run on: the docstrings' examples and the valid examples of :func:`validate_params`.

One place for them, below every subpackage (it imports only the validation's
marker), so that no production module holds another's fixture. The paper's worked
examples, as specifications, are :mod:`rumap.present.examples`.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from rumap._validation import assumes_valid

__all__ = ["example_file", "persons_file"]

#: A small file of persons: two categorical keys (``sex``, ``region``, one value missing) and a weight ``w``.
PERSONS = "sex,region,w\nf,a,10\nf,a,20\nm,,5\nm,b,8\n"


@assumes_valid
def example_file(name: str, text: str) -> Path:
    """A small public example file, written once to the temporary folder (again if its text differs).

    Parameters
    ----------
    name : str
        The file's name (its extension is its format).
    text : str

    Returns
    -------
    Path

    Examples
    --------
    >>> example_file("numbers.csv", "a\\n1\\n").read_text()
    'a\\n1\\n'
    """
    path = Path(tempfile.gettempdir()) / f"rumap-example-{name}"
    if not path.is_file() or path.read_text() != text:
        path.write_text(text)
    return path


@assumes_valid
def persons_file() -> str:
    """The path of :data:`PERSONS` as a CSV file of its own, in a new temporary folder (a run may write beside it).

    Returns
    -------
    str

    Examples
    --------
    >>> Path(persons_file()).read_text().splitlines()[0]
    'sex,region,w'
    """
    path = Path(tempfile.mkdtemp()) / "persons.csv"
    path.write_text(PERSONS)
    return str(path)
