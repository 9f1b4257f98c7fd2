"""Just-in-time compilation of the sequential kernels with numba, on first use (cached on disk)."""

from __future__ import annotations

import atexit
import gc
import threading
from collections.abc import Callable
from functools import cache
from typing import Any

#: Whether numba is imported (and the exit's freeze registered), and the lock of the first import.
_numba_loaded = False
_lock = threading.Lock()


def load_compiler() -> None:
    """Import numba, once per process, and spare the interpreter's exit from walking its tables.

    numba's compiler and type tables are about 110,000 objects that live as
    long as the process; the last collection at interpreter exit walked them
    all (about a quarter of a second of a short process). At exit, and only
    then, the objects still alive are frozen out of that walk
    (:func:`gc.freeze`): during the process the collector is left as it was,
    and what the exit walk no longer does for cyclic garbage is what Python
    does not promise at exit anyway (finalizers of objects alive at exit).
    """
    global _numba_loaded
    with _lock:
        if not _numba_loaded:
            import numba  # noqa: F401

            atexit.register(gc.freeze)
            _numba_loaded = True


@cache
def compiled(kernel: Callable[..., Any]) -> Callable[..., Any]:
    """``kernel`` compiled by ``numba.njit`` (no Python objects, cached on disk), compiled once per process.

    numba is imported here, not with rumap, so that ``import rumap`` stays quick.
    """
    load_compiler()
    import numba

    return numba.njit(cache=True, nogil=True)(kernel)
