"""Just-in-time compilation of the sequential kernels with numba, on first use (cached on disk)."""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from typing import Any


@cache
def compiled(kernel: Callable[..., Any]) -> Callable[..., Any]:
    """``kernel`` compiled by ``numba.njit`` (no Python objects, cached on disk), compiled once per process.

    numba is imported here, not with rumap, so that ``import rumap`` stays quick.
    """
    import numba

    return numba.njit(cache=True, nogil=True)(kernel)
