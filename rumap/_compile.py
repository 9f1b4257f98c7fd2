"""Just-in-time compilation of the sequential kernels with numba, on first use (cached on disk)."""

from __future__ import annotations

import atexit
import gc
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import cache
from pathlib import Path
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


class _LockedFirstCall:
    """A numba dispatcher whose first call in this process holds a lock file beside numba's cache of the kernel.

    Processes that start together (a server's workers, test workers) would each compile a kernel whose cache
    is not yet on disk, every one of them paying the whole compilation; under the lock one compiles and writes
    the cache, and the others, once it is released, load what it wrote. Later calls go to the dispatcher
    straight; its attributes (``signatures``, ``py_func``) are the dispatcher's.
    """

    def __init__(self, dispatcher: Any) -> None:
        self._dispatcher = dispatcher
        self._first = True
        self._thread_lock = threading.Lock()

    def __getattr__(self, name: str) -> Any:
        if name in ("_dispatcher", "_first", "_thread_lock"):  # not set yet (a copy or unpickling in progress)
            raise AttributeError(name)
        return getattr(self._dispatcher, name)

    def __call__(self, *args: Any) -> Any:
        if self._first:
            with self._thread_lock:
                if self._first:
                    with _cache_lock(self._dispatcher):
                        out = self._dispatcher(*args)
                    self._first = False
                    return out
        return self._dispatcher(*args)


@contextmanager
def _cache_lock(dispatcher: Any) -> Iterator[None]:
    """An exclusive ``flock`` on ``<kernel>.lock`` in the kernel's numba cache folder (none where it cannot be)."""
    try:
        import fcntl

        folder = Path(dispatcher._cache._cache_path)
        handle = open(folder / f"{dispatcher.py_func.__qualname__}.lock", "a")  # noqa: SIM115
    except (ImportError, AttributeError, OSError):  # no flock here, or the folder is not writable
        yield
        return
    with handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


@cache
def compiled(kernel: Callable[..., Any]) -> Callable[..., Any]:
    """``kernel`` compiled by ``numba.njit`` (no Python objects, cached on disk), compiled once per process.

    numba is imported here, not with rumap, so that ``import rumap`` stays quick. The first call holds a lock
    beside the kernel's cache on disk (:class:`_LockedFirstCall`), so that processes starting together compile
    it once between them.
    """
    load_compiler()
    import numba

    return _LockedFirstCall(numba.njit(cache=True, nogil=True)(kernel))
