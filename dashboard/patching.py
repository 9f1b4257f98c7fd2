"""Wrapping a function of an installed library once, for the changes ``python -m dashboard.serve`` makes."""

from __future__ import annotations

from collections.abc import Callable
from types import ModuleType


def wrap_once(module: ModuleType, name: str, wrap: Callable[[Callable], Callable], mark: str) -> bool:
    """Replace ``module.name`` with ``wrap(module.name)``, unless the function there carries ``mark`` already.

    Parameters
    ----------
    module : module
    name : str
        The function's name in ``module``.
    wrap : callable
        Takes the original function, returns its replacement (which gets the attribute ``mark``).
    mark : str
        The attribute that tells a replacement made before.

    Returns
    -------
    bool
        Whether the replacement is in place (``False``: ``module`` has no ``name``).

    Examples
    --------
    >>> import types
    >>> library = types.ModuleType("library")
    >>> library.answer = lambda: 41
    >>> plus_one = lambda original: (lambda: original() + 1)
    >>> wrap_once(library, "answer", plus_one, "plus_one"), wrap_once(library, "answer", plus_one, "plus_one")
    (True, True)
    >>> library.answer()
    42
    >>> wrap_once(library, "question", plus_one, "plus_one")
    False
    """
    original = getattr(module, name, None)
    if original is None:
        return False
    if getattr(original, mark, False):
        return True
    replacement = wrap(original)
    setattr(replacement, mark, True)
    setattr(module, name, replacement)
    return True
