"""Just-in-time compilation of the sequential kernels with numba, on first use (cached on disk)."""

from __future__ import annotations

import gc
from collections.abc import Callable
from functools import cache
from typing import Any

_frozen = False


@cache
def compiled(kernel: Callable[..., Any]) -> Callable[..., Any]:
    """``kernel`` compiled by ``numba.njit`` (no Python objects, cached on disk), compiled once per process.

    numba is imported here, not with rumap, so that ``import rumap`` stays quick.
    """
    import numba

    return numba.njit(cache=True, nogil=True)(kernel)


def freeze_loaded() -> None:
    """Once per process, after the first run that loaded compiled kernels: freeze (:func:`gc.freeze`) the
    objects loaded so far.

    Loading numba and its tables leaves about 110,000 objects that live as
    long as the process; every full collection, and the interpreter's
    collections at exit, walked them all (about a fifth of a second of a short
    process). Frozen, the collector skips them; they are still freed when no
    longer referenced, only a reference cycle among them outlives its last
    use. The dashboard's server freezes its loaded modules the same way.
    """
    global _frozen
    if not _frozen and compiled.cache_info().currsize:
        _frozen = True
        gc.freeze()
