"""Shared test fixtures: paths to the project's and the shared reference data."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import settings

ROOT = Path(__file__).resolve().parent.parent
SHARED_DATA = ROOT.parent / "shared" / "data"


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


#: The test files that take longest, longest first within each group (measured with ``-n 2 --dist loadfile -v``):
#: those over about 7 s on a quiet machine that run in this process, then the browser tests (one Chromium per
#: worker, started once if they run one after another; the Tables page's file last, as it mixes them with tests
#: that stop Chromium). The first ones compile numba's kernels (cached on disk): on a fresh clone the browser
#: tests' server then finds them compiled, rather than compiling them at the lowest priority within a page's
#: timeout, as it did when the browser files came first.
LONG_FILES = (
    "tests/ui/test_app.py", "tests/test_docstrings.py", "tests/test_fuzz_cli.py", "tests/ui/test_page_categorical.py",
    "tests/ui/test_background.py", "tests/ui/test_session_data.py", "tests/release/test_release_report.py",
    "tests/maps/test_table_maps.py", "tests/ui/test_page_release.py", "tests/release/test_release_apply.py",
    "tests/cli/test_release.py", "tests/maps/test_categorical_measures.py", "tests/ui/test_page_pattern.py",
    "tests/ui/test_serve.py", "tests/ui/test_page_databases.py", "tests/test_fuzz_outputs.py",
    "tests/ui/test_apply_decided.py", "tests/ui/test_session_resume.py", "tests/test_fuzz_files.py",
    "tests/ui/test_browser.py", "tests/ui/test_browser_session.py", "tests/ui/test_browser_newcomer.py",
    "tests/ui/test_upload_privacy.py", "tests/ui/test_browser_provenance.py",
    "tests/ui/test_browser_risk_pages.py", "tests/ui/test_browser_release.py", "tests/ui/test_browser_stopped_run.py",
    "tests/ui/test_page_tables.py",
)


@pytest.hookimpl(optionalhook=True, tryfirst=True)
def pytest_xdist_make_scheduler(config, log):
    """With ``--dist loadfile``: the long files first (:data:`LONG_FILES`), then the others as pytest-xdist orders them.

    pytest-xdist hands out the files with the most tests first, so the long files of a few browser tests came
    last, one worker running them while the other, done, waited. Handed out first, the short files at the end
    even out the two workers' ends.
    """
    if config.getoption("dist") != "loadfile":
        return None
    from xdist.scheduler import LoadFileScheduling

    class LongFilesFirst(LoadFileScheduling):
        _ordered = False

        def _assign_work_unit(self, node) -> None:
            if not self._ordered:
                self._ordered = True
                for scope in reversed(LONG_FILES):
                    if scope in self.workqueue:
                        self.workqueue.move_to_end(scope, last=False)
            super()._assign_work_unit(node)

    return LongFilesFirst(config, log)
