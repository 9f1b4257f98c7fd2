"""Shared test fixtures: paths to the project's and the shared reference data."""

from __future__ import annotations

import fnmatch
import os
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import settings

ROOT = Path(__file__).resolve().parent.parent
SHARED_DATA = ROOT.parent / "shared" / "data"


#: The processes that, as a run on several workers starts, import the packages the tests use: their bytecode is
#: written once, before the workers start, not by each worker, server and subprocess of a fresh virtual environment
#: at once. Two processes share the packages (about 12 s on one processor alone on a fresh clone); the first then
#: compiles the kernels (numba, cached on disk) at normal priority while the workers run. On a fresh clone the
#: kernels were compiled by the dashboard's workers, which warm them up at the lowest priority and got no processor
#: while the tests ran: the browser tests' first map waited for them. The tests that need a kernel first wait for it
#: here, not compile it again (:mod:`rumap._compile`'s lock).
WARM_UP = (
    """
import dask.dataframe, kaleido, pandas, playwright.sync_api, plotly.graph_objects, plotly.io, streamlit
import streamlit.testing.v1, tornado.web
print("imported", flush=True)
import sys
sys.stdin.readline()  # the workers have started: rumap's bytecode is written (by the controller) by now
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
""",
    """
import distributed, hypothesis, markdown_it, numba, openpyxl, opendp.prelude, polars, pyarrow.parquet, pygments
import pyreadstat, scipy.optimize, scipy.sparse, scipy.spatial, scipy.stats, sklearn.linear_model, sklearn.tree
print("imported", flush=True)
""",
)
_WARM_UP: list[subprocess.Popen] = []


def _write_bytecode_ahead(config) -> None:
    """Write the bytecode of the project's modules and the rewritten test files (pytest's own cache) once.

    Each worker otherwise rewrites the assertions of every test file as it collects them, all three at once on a
    fresh clone (about 5 s of processor each); here it is done once, while the packages are imported beside.
    """
    import compileall

    for folder in ("rumap", "dashboard", "pages"):
        compileall.compile_dir(ROOT / folder, quiet=2)
    compileall.compile_file(ROOT / "app.py", quiet=2)
    try:
        from _pytest.assertion import rewrite

        state = config.stash[rewrite.assertstate_key]
    except (ImportError, AttributeError, KeyError):  # another pytest: the workers rewrite the files themselves
        return
    patterns = [*config.getini("python_files"), "conftest.py"]
    for source in sorted((ROOT / "tests").rglob("*.py")):
        if not any(fnmatch.fnmatch(source.name, pattern) for pattern in patterns):
            continue
        cache = rewrite.get_cache_dir(source)
        pyc = cache / (source.name[:-3] + rewrite.PYC_TAIL)
        if not rewrite.try_makedirs(cache) or rewrite._read_pyc(source, pyc, state.trace) is not None:
            continue
        source_hash, code = rewrite._rewrite_test(source, config)
        rewrite._write_pyc(state, code, source_hash, pyc)


def pytest_configure(config) -> None:
    if hasattr(config, "workerinput") or not config.getoption("numprocesses", None) or config.option.collectonly:
        return
    environment = {**os.environ, "PYTHONDONTWRITEBYTECODE": ""}
    for number, script in enumerate(WARM_UP):
        _WARM_UP.append(subprocess.Popen([sys.executable, "-c", script], cwd=ROOT, stdout=subprocess.PIPE,
                                         stdin=subprocess.PIPE if number == 0 else subprocess.DEVNULL,
                                         stderr=subprocess.DEVNULL, text=True, env=environment))
    if not sys.dont_write_bytecode:
        _write_bytecode_ahead(config)
    for process in _WARM_UP:
        process.stdout.readline()  # the imports done (or the process ended)
    try:
        _WARM_UP[0].stdin.write("go\n")
        _WARM_UP[0].stdin.close()
    except OSError:  # it has ended
        pass


def pytest_unconfigure(config) -> None:
    for process in _WARM_UP:
        if process.poll() is None:
            process.terminate()
            process.wait()


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
