"""Long runs in the shared process pool: the same result as in the script thread, errors and progress come back."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from dashboard.background import run_in_pool
from rumap.errors import InputError
from rumap.specs import DataSource, EmpiricalSpec


def _spec(x: np.ndarray, knowledge: list[str]) -> EmpiricalSpec:
    config = {"method": "noise", "values": [0.1, 0.5, 1.0], "targets": ["max"], "knowledge": knowledge,
              "replicates": 20, "seed": 7}
    return EmpiricalSpec(simulation=config, data=DataSource.of("upload", "x.csv", ["x"], x), max_risk=1.0)


def test_a_run_in_the_pool_equals_the_run_here_and_reports_progress():
    x = np.random.default_rng(3).normal(10.0, 2.0, size=(300, 1))
    spec = _spec(x, ["index", "position"])
    seen: list = []
    pooled = run_in_pool(spec, x, progress=seen.append)
    here = spec.run(x)
    for a, b in zip(pooled.maps, here.maps, strict=True):
        np.testing.assert_array_equal(a.risk, b.risk)
        np.testing.assert_array_equal(a.utility, b.utility)
    assert seen and all(f is None or 0.0 <= f <= 1.0 for f in seen)


def test_bad_input_in_the_pool_is_raised_here():
    x = np.random.default_rng(3).normal(10.0, 2.0, size=(300, 1))
    other = np.random.default_rng(4).normal(10.0, 2.0, size=(300, 1))
    with pytest.raises(InputError):
        run_in_pool(_spec(x, ["index"]), other)  # not the data the specification was made for


def test_a_workers_warm_up_loads_the_compiled_kernels_a_map_uses():
    # in a fresh interpreter, as a worker starts: before the warm-up no kernel is loaded, after it each one is
    check = """
from dashboard.background import _ready
from rumap._compile import compiled
from rumap.maps.moments import _mask_moments_kernel
from rumap.maps.selection import _select_ranks_kernel
from rumap.masking.swapping import _swap_partners_kernel
kernels = (_select_ranks_kernel, _mask_moments_kernel, _swap_partners_kernel)
print([len(compiled(k).signatures) for k in kernels], _ready(), [len(compiled(k).signatures) for k in kernels])
"""
    root = Path(__file__).resolve().parents[2]
    out = subprocess.run([sys.executable, "-c", check], cwd=root, capture_output=True, text=True, check=True).stdout
    assert out.split() == ["[0,", "0,", "0]", "True", "[1,", "1,", "1]"]


def test_workers_take_the_lowest_priority():
    code = ("import os\nfrom dashboard.background import lower_priority, NICENESS\nbefore = os.nice(0)\n"
            "how = lower_priority()\n"
            "if how == 'idle':\n    assert os.sched_getscheduler(0) == os.SCHED_IDLE\n"
            "elif how == 'nice':\n    assert os.nice(0) == before + NICENESS\n"
            "print(how)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    expected = "idle" if hasattr(os, "SCHED_IDLE") and sys.platform.startswith("linux") else done.stdout.strip()
    assert done.stdout.strip() == expected


def test_a_method_registered_here_runs_in_a_worker_process_as_it_does_here():
    from method_helpers import toy_registered

    from dashboard.background import submit

    x = np.array([[1234.0], [2500.0], [4999.0], [7777.0], [12345.0]])
    with toy_registered():
        spec = EmpiricalSpec(simulation={"method": "toy", "values": [1000.0, 3000.0], "targets": ["max"],
                                         "knowledge": ["index"]}, data=DataSource.of("upload", "x.csv", ["x"], x))
        pooled = submit(spec, x).future.result(timeout=240)  # the worker's own result, never a run here
        here = spec.run(x)
    assert pooled.maps[0].method == "toy"
    for a, b in zip(pooled.maps, here.maps, strict=True):
        np.testing.assert_array_equal(a.risk, b.risk)
        np.testing.assert_array_equal(a.utility, b.utility)
