"""rumap._compile: a kernel's first call waits for another process compiling it, then loads its cache."""

from __future__ import annotations

import fcntl
import subprocess
import sys
import time
from pathlib import Path

import numba
import numpy as np

from rumap._compile import compiled

KERNEL = "def toy_kernel(x):\n    return x * 2.0 + 1.0\n"

CALL = """
import sys
sys.path.insert(0, sys.argv[1])
from rumap._compile import compiled
from toykernels import toy_kernel
kernel = compiled(toy_kernel)
print("ready", flush=True)
print(kernel(1.5), sum(kernel._cache_misses.values()), sum(kernel._cache_hits.values()), flush=True)
"""


def test_a_process_waits_for_the_one_compiling_a_kernel_and_loads_what_it_wrote(tmp_path):
    (tmp_path / "toykernels.py").write_text(KERNEL)
    sys.path.insert(0, str(tmp_path))
    try:
        from toykernels import toy_kernel
    finally:
        sys.path.remove(str(tmp_path))
    plain = numba.njit(cache=True)(toy_kernel)  # the same kernel and cache, without the lock
    folder = Path(plain._cache._cache_path)
    folder.mkdir(parents=True, exist_ok=True)
    with open(folder / "toy_kernel.lock", "a") as held:
        fcntl.flock(held, fcntl.LOCK_EX)  # as a process compiling it holds it
        other = subprocess.Popen([sys.executable, "-c", CALL, str(tmp_path)], stdout=subprocess.PIPE, text=True,
                                 cwd=Path(__file__).resolve().parents[1])
        assert other.stdout.readline().strip() == "ready"
        time.sleep(0.5)
        assert other.poll() is None  # waiting for the lock, not compiling
        assert plain(1.5) == 4.0  # compiled here, and its cache written
        fcntl.flock(held, fcntl.LOCK_UN)
    out, _ = other.communicate(timeout=120)
    assert out.split() == ["4.0", "0", "1"]  # no compilation of its own: one load from the cache


def test_the_compiled_kernel_keeps_the_dispatchers_attributes():
    from rumap.maps.moments import _moments_kernel

    kernel = compiled(_moments_kernel)
    assert kernel.py_func is _moments_kernel and compiled(_moments_kernel) is kernel
    kernel(np.ones((2, 3, 2)))
    assert len(kernel.signatures) >= 1
