"""AppTest runs the app as the server does: every run executes ``app.py``, which hands over to the page.

AppTest forgets after each run that the app chose its pages with ``st.navigation``; an
app beside a ``pages`` folder then has its later runs execute the chosen page's file
alone (Streamlit's first multipage scheme), skipping ``app.py``. The server keeps
that choice once made, so here too a new session's pages manager is told at once.

The browser tests share one server of ``app.py`` and one Chromium for the whole run
(:func:`app_server`, :func:`chromium`); each module opens its own browser context.
"""

from __future__ import annotations

import functools

import pytest
from browser_helpers import SharedChromium, start_streamlit, stop_streamlit
from streamlit.components.v2 import manifest_scanner
from streamlit.runtime.pages_manager import PagesManager


@functools.cache
def _installed_component_manifests() -> tuple:
    return tuple(_SCAN_COMPONENT_MANIFESTS())


def _scan_once(max_workers: int | None = None) -> list:
    """Streamlit's scan of the installed packages for components, done once per test process.

    Every new ``AppTest`` scans the metadata of every installed distribution (about 0.3 s of processor
    each, more than most page runs); the packages do not change during a run.
    """
    return list(_installed_component_manifests())


_SCAN_COMPONENT_MANIFESTS = manifest_scanner.scan_component_manifests
manifest_scanner.scan_component_manifests = _scan_once


@pytest.fixture(autouse=True)
def app_runs_every_time(monkeypatch):
    original = PagesManager.__init__

    def init(self, *args, **kwargs) -> None:
        original(self, *args, **kwargs)
        PagesManager.uses_pages_directory = False  # the app calls st.navigation

    monkeypatch.setattr(PagesManager, "__init__", init)


#: The browser tests' one Chromium (see :func:`chromium`).
_CHROMIUM = SharedChromium()


@pytest.fixture(scope="session")
def app_server():
    """The URL of ``app.py`` served as ``make run`` serves it, once for every browser test of the run.

    Each test module opens its own browser context on it: a new session, with its own cookies and state.
    """
    proc, url = start_streamlit("app.py")
    yield url
    stop_streamlit(proc)


@pytest.fixture(scope="session")
def chromium() -> SharedChromium:
    """The run's one headless Chromium (``chromium.browser``); a module opens its own context on it."""
    yield _CHROMIUM
    _CHROMIUM.stop()


def pytest_runtest_setup(item) -> None:
    """Stop the shared Chromium before a test that does not use it.

    Its driver keeps an event loop running in this thread: a test starting its own Playwright
    driver, or calling ``asyncio.run``, fails while it runs. The next test that uses it starts it again.
    """
    if _CHROMIUM.running and "chromium" not in item.fixturenames:
        _CHROMIUM.stop()
