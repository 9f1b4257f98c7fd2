"""Exceptions raised by rumap for bad input, and the message for an optional package that is missing."""

from __future__ import annotations

import importlib
from typing import Any


class InputError(ValueError):
    """Bad input: a parameter, file, column or value that rumap cannot use.

    The message names the offending item (parameter, file, column or value) so
    that the command-line interface can print it as one line and the dashboard
    can show it in an error box.

    Parameters
    ----------
    message : str
        What is wrong, naming the parameter, file, column or value.
    """


def optional_module(module: str, purpose: str, extra: str) -> Any:
    """Import an optional dependency, or say which extra of rumap installs it.

    Parameters
    ----------
    module : str
        The module's import name, e.g. ``"pyreadstat"``.
    purpose : str
        What needs it, for the message, e.g. ``"reading .sav files"``.
    extra : str
        The extra of rumap that installs it, e.g. ``"formats"``.

    Returns
    -------
    module
        The imported module.

    Raises
    ------
    InputError
        If the module is not installed; the message names the extra.

    Examples
    --------
    >>> from rumap.errors import optional_module
    >>> optional_module("json", "writing JSON", "formats").__name__
    'json'
    """
    try:
        return importlib.import_module(module)
    except ImportError:
        raise InputError(f"{purpose} needs {module}, which is not installed: pip install 'rumap[{extra}]'") from None
