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


#: The test files that drive Chromium: one work unit, run one after another on one worker, which starts
#: the app's server and Chromium once for all of them (spread over both workers, each started both, and
#: Chromium again after every file of tests without it).
BROWSER_FILES = (
    "tests/ui/test_browser.py", "tests/ui/test_browser_session.py", "tests/ui/test_browser_newcomer.py",
    "tests/ui/test_browser_provenance.py", "tests/ui/test_browser_risk_pages.py", "tests/ui/test_browser_release.py",
    "tests/ui/test_browser_stopped_run.py", "tests/ui/test_upload_privacy.py", "tests/ui/test_page_tables.py",
    "tests/ui/test_browser_synthetic.py", "tests/ui/test_browser_tables_overlay.py", "tests/ui/test_browser_swap.py",
)
BROWSER_UNIT = "browser tests"

#: The work units that take longest, longest first (measured with ``-n 2 --dist loadfile -v``): the app's
#: page tests, the browser tests, then the files over about 4 s on a quiet machine. Handed out first, the
#: short files at the end even out the two workers' ends.
LONG_FILES = (
    "tests/ui/test_app.py", BROWSER_UNIT, "tests/test_docstrings.py", "tests/ui/test_page_categorical.py",
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
    """With ``--dist loadfile``: the browser files as one unit, the long units first, then the others.

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
            return BROWSER_UNIT if scope in BROWSER_FILES else scope

        def _assign_work_unit(self, node) -> None:
            if not self._ordered:
                self._ordered = True
                for scope in reversed(LONG_FILES):
                    if scope in self.workqueue:
                        self.workqueue.move_to_end(scope, last=False)
            super()._assign_work_unit(node)

    return LongFilesFirst(config, log)
