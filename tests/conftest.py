"""Shared test fixtures: paths to the project's and the shared reference data."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import settings

ROOT = Path(__file__).resolve().parent.parent
SHARED_DATA = ROOT.parent / "shared" / "data"


#: The process that, as a run on several workers starts, imports the packages the tests use (their bytecode written
#: once, before the workers start, not by each worker, server and subprocess of a fresh virtual environment at once),
#: then compiles the kernels (numba, cached on disk beside rumap's modules) at normal priority while the workers
#: run. On a fresh clone the kernels were compiled by the dashboard's workers, which warm them up at the lowest
#: priority and got no processor while the tests ran: the browser tests' first map waited for them. The tests
#: that need a kernel first wait for it here, not compile it again (:mod:`rumap._compile`'s lock).
_WARM_UP: subprocess.Popen | None = None
WARM_UP = """
import dask.dataframe, hypothesis, kaleido, numba, openpyxl, pandas, playwright.sync_api, plotly.graph_objects, plotly.io
import polars, pyarrow.parquet, pyreadstat, scipy.optimize, scipy.sparse, scipy.spatial, scipy.stats, sklearn.linear_model
import sklearn.tree, streamlit, streamlit.testing.v1
import dashboard.background, rumap.cli
print("imported", flush=True)
import numpy as np
from dashboard.background import _ready
from rumap.masking.microaggregation import ALGORITHMS, microaggregate
_ready()
x = np.random.default_rng(0).normal(size=(40, 2))
for name in ALGORITHMS:
    for columns in (x, x[:, :1]):
        try:
            microaggregate(columns, 3, name)
        except ValueError:  # an algorithm for one column (InputError is a ValueError)
            pass
"""


def pytest_configure(config) -> None:
    global _WARM_UP
    if hasattr(config, "workerinput") or not config.getoption("numprocesses", None) or config.option.collectonly:
        return
    _WARM_UP = subprocess.Popen([sys.executable, "-c", WARM_UP], cwd=ROOT, stdout=subprocess.PIPE,
                                stderr=subprocess.DEVNULL, text=True, env={**os.environ, "PYTHONDONTWRITEBYTECODE": ""})
    _WARM_UP.stdout.readline()  # the imports done (or the process ended): the workers start now


def pytest_unconfigure(config) -> None:
    if _WARM_UP is not None and _WARM_UP.poll() is None:
        _WARM_UP.terminate()
        _WARM_UP.wait()


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """``../shared/data`` beside the project's root (the CASC reference files)."""
    if not SHARED_DATA.is_dir():
        pytest.fail(f"reference data not found at {SHARED_DATA}: ../shared must be beside the project")
    return SHARED_DATA


# Property tests draw their examples from a fixed seed, so every run (and CI) checks the same cases;
# `HYPOTHESIS_PROFILE=explore pytest` draws fresh ones.
settings.register_profile("default", derandomize=True, deadline=None, print_blob=True)
settings.register_profile("explore", deadline=None, print_blob=True)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))


#: The test files that drive Chromium, in two work units of about equal length. A unit runs its files one after
#: another on one worker, which starts the app's server and Chromium once for them (a file on its own started both,
#: and Chromium again after every file of tests without it). The browser tests wait on the server about half of
#: their time: two units on two of the three workers, beside a third running the other files, use that time.
BROWSER_UNITS = {
    "browser tests 1": ("tests/ui/test_browser.py", "tests/ui/test_browser_newcomer.py",
                        "tests/ui/test_browser_synthetic.py", "tests/ui/test_browser_release.py",
                        "tests/ui/test_browser_stopped_run.py", "tests/ui/test_browser_swap.py"),
    "browser tests 2": ("tests/ui/test_browser_session.py", "tests/ui/test_upload_privacy.py",
                        "tests/ui/test_page_tables.py", "tests/ui/test_browser_tables_overlay.py",
                        "tests/ui/test_browser_provenance.py", "tests/ui/test_browser_risk_pages.py"),
}
BROWSER_FILES = tuple(f for files in BROWSER_UNITS.values() for f in files)
_UNIT_OF = {f: unit for unit, files in BROWSER_UNITS.items() for f in files}

#: The work units that take longest, longest first (measured with ``-n 3 --dist loadfile -v``): the browser tests,
#: the app's page tests, then the files over about 4 s on a quiet machine. Handed out first, the short files at the
#: end even out the workers' ends.
LONG_FILES = (
    *BROWSER_UNITS, "tests/ui/test_app.py", "tests/test_docstrings.py", "tests/ui/test_page_categorical.py",
    "tests/ui/test_session_data.py", "tests/test_validation_common.py", "tests/ui/test_page_release.py",
    "tests/ui/test_page_databases.py", "tests/test_fuzz_cli.py", "tests/ui/test_page_pattern.py",
    "tests/ui/test_background.py", "tests/tables/test_secondary.py", "tests/release/test_release_report.py",
    "tests/scale/test_scale_protect.py", "tests/maps/test_table_maps.py", "tests/release/test_release_apply.py",
    "tests/cli/test_release.py", "tests/maps/test_categorical_measures.py", "tests/ui/test_serve.py",
    "tests/test_fuzz_outputs.py", "tests/ui/test_apply_decided.py", "tests/ui/test_session_resume.py",
    "tests/test_fuzz_files.py",
)


@pytest.hookimpl(optionalhook=True, tryfirst=True)
def pytest_xdist_make_scheduler(config, log):
    """With ``--dist loadfile``: the browser files as two units, the long units first, then the others.

    pytest-xdist hands out the files with the most tests first, so the long files of a few browser tests came
    last, one worker running them while the other, done, waited.
    """
    if config.getoption("dist") != "loadfile":
        return None
    from xdist.scheduler import LoadFileScheduling

    class LongFilesFirst(LoadFileScheduling):
        _ordered = False

        def _split_scope(self, nodeid: str) -> str:
            scope = super()._split_scope(nodeid)
            return _UNIT_OF.get(scope, scope)

        def _assign_work_unit(self, node) -> None:
            if not self._ordered:
                self._ordered = True
                for scope in reversed(LONG_FILES):
                    if scope in self.workqueue:
                        self.workqueue.move_to_end(scope, last=False)
            super()._assign_work_unit(node)

    return LongFilesFirst(config, log)
