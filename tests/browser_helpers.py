"""Shared by the browser tests: a ``streamlit run`` server on localhost and Debian's headless Chromium."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
CHROMIUM = Path("/usr/bin/chromium")
# Without the networking flags Chromium's background connections are refused by the closed network.
CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update", "--disable-sync"]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_streamlit(script: str, timeout: float = 60, wrapper: list[str] | None = None,
                    ) -> tuple[subprocess.Popen, str]:
    """Start the dashboard on a free local port; returns the process and its URL once healthy.

    ``app.py`` starts as ``make run`` starts it (``python -m dashboard.serve``); another script (a page
    run alone) through ``streamlit run``. ``wrapper`` goes in front of the command (e.g. ``strace``).
    """
    port = _free_port()
    launch = ["-m", "dashboard.serve"] if script == "app.py" else ["-m", "streamlit", "run", script]
    proc = subprocess.Popen(
        [*(wrapper or []), sys.executable, *launch, "--server.headless", "true", "--server.port", str(port),
         "--server.address", "127.0.0.1", "--browser.gatherUsageStats", "false"],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env={**os.environ, "PYTHONUNBUFFERED": "1"},
        start_new_session=True)  # its own process group: stopping it stops a wrapper's children too
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + timeout
    while True:
        try:
            with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as response:
                if response.status == 200:
                    return proc, url
        except OSError:
            pass
        if proc.poll() is not None or time.monotonic() > deadline:
            proc.kill()
            pytest.fail(f"streamlit did not start for {script}: "
                        + proc.stdout.read().decode(errors="replace")[-2000:])
        time.sleep(0.3)


def stop_streamlit(proc: subprocess.Popen) -> None:
    """Stop a server started by :func:`start_streamlit`, with every process of its group.

    A wrapper such as strace detaches and leaves the server running when it
    alone is terminated, so the whole process group is signalled: SIGTERM, then
    SIGKILL for whatever is left after 10 s.
    """
    for sig in (signal.SIGTERM, signal.SIGKILL):
        try:
            os.killpg(proc.pid, sig)
        except ProcessLookupError:
            break
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            proc.poll()  # reap the group's leader
            try:
                os.killpg(proc.pid, 0)
            except ProcessLookupError:
                break
            time.sleep(0.1)
        else:
            continue
        break
    if proc.stdout is not None:
        proc.stdout.close()


def launch_chromium(playwright):
    """Debian's Chromium, headless, through Playwright (its own browser download does not work here)."""
    if not CHROMIUM.exists():
        pytest.fail(f"{CHROMIUM} is missing: `make test` installs it (apt-get install chromium)")
    return playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_FLAGS, headless=True)


def nav_link(pg, title: str):
    """The sidebar's link to a page; with many pages Streamlit folds the last ones under "View N more"."""
    nav = pg.get_by_test_id("stSidebarNav")
    link = nav.get_by_text(title, exact=True)
    if not link.count():
        more = pg.get_by_test_id("stSidebarNavViewButton")
        if more.count() and "more" in more.inner_text():
            more.click()
    return link


class SharedChromium:
    """One Playwright driver and one headless Chromium for many test modules, started on first use.

    Playwright's synchronous API keeps an event loop running in the thread while its driver runs:
    ``with sync_playwright()`` or ``asyncio.run`` elsewhere fails meanwhile. :meth:`stop` closes it
    (the next use starts it again), so such a test can run in between.
    """

    def __init__(self) -> None:
        self._playwright = None
        self._browser = None

    @property
    def browser(self):
        """The running Chromium (started now if it is not)."""
        if self._browser is None:
            from playwright.sync_api import sync_playwright

            self._playwright = sync_playwright().start()
            try:
                self._browser = launch_chromium(self._playwright)
            except BaseException:
                self.stop()
                raise
        return self._browser

    def new_context(self, **options):
        """A new browser context on the running Chromium, asking pages for reduced motion unless told otherwise.

        Streamlit then leaves out its animations (the running indicator, elements fading while a run is under
        way), which Chromium otherwise draws 60 frames a second while a test waits: about a tenth of the
        browser tests' processor time.
        """
        return self.browser.new_context(**{"reduced_motion": "reduce", **options})

    @property
    def running(self) -> bool:
        return self._playwright is not None

    def stop(self) -> None:
        """Close the browser and stop the driver (nothing to do if they are not running)."""
        browser, playwright = self._browser, self._playwright
        self._browser = self._playwright = None
        try:
            if browser is not None:
                browser.close()
        finally:
            if playwright is not None:
                playwright.stop()


#: The script's state that Streamlit shows on the app's root: ``initial``, ``running``, ``notRunning``...
_SCRIPT_STATE = 'document.querySelector(\'[data-testid="stApp"]\')?.dataset.testScriptState'
#: How long the run an action starts may take to show (the server's answer), when no run has shown yet.
_RUN_START_MS = 400
#: How often a wait looks at the page (ms). Playwright's default looks at every animation frame, which keeps the
#: page drawing 60 frames a second while it waits: about a tenth of a processor for each waiting page.
POLL_MS = 40
#: How long the app must stay idle after a run before the wait ends: a run that starts another
#: (``st.rerun``, a fragment, a rerun requested by a widget drawn in the run) starts within it.
_SETTLE_MS = 150

#: Counts, in ``window.__rumapRuns``, every change of the app's script state to anything but
#: ``notRunning``: a run is seen even when it is over before the test looks (a fast page, a quick widget).
RUN_COUNTER = """
(() => {
  window.__rumapRuns = 0;
  new MutationObserver(records => {
    for (const record of records) {
      if (record.target.dataset && record.target.dataset.testScriptState !== 'notRunning') window.__rumapRuns++;
    }
  }).observe(document, {subtree: true, attributes: true, attributeFilter: ['data-test-script-state']});
})();
"""


def new_context(chromium: SharedChromium, **options):
    """A new browser context (a new session when it opens the app) that counts the app's runs."""
    context = chromium.new_context(**options)
    context.add_init_script(RUN_COUNTER)
    return context


def wait_idle(pg, timeout_ms: float) -> None:
    """Wait until the app has finished running its script (its navigation drawn, not running, no status widget).

    In a context from :func:`new_context` the wait knows whether a run has started since the last wait:
    it waits up to 400 ms for one (an action that starts no run costs that), then until the script is no
    longer running and has stayed so for 150 ms with no new run. Elsewhere it waits up to 400 ms for the
    state to leave ``notRunning``, then until it is back, then 300 ms.
    """
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    pg.wait_for_selector('[data-testid="stApp"]')
    pg.get_by_test_id("stSidebarNav").get_by_text("Home", exact=True).wait_for()  # st.navigation has run
    idle = (f"() => {_SCRIPT_STATE} === 'notRunning'"
            ' && !document.querySelector(\'[data-testid="stStatusWidget"]\')')
    if pg.evaluate("() => window.__rumapRuns") is None:
        try:
            pg.wait_for_function(f"() => {_SCRIPT_STATE} !== 'notRunning'", timeout=_RUN_START_MS, polling=POLL_MS)
        except PlaywrightTimeout:
            pass
        pg.wait_for_function(idle, timeout=timeout_ms, polling=POLL_MS)
        pg.wait_for_timeout(300)
        return
    try:
        pg.wait_for_function("() => window.__rumapRuns > (window.__rumapSeen || 0)", timeout=_RUN_START_MS,
                                 polling=POLL_MS)
    except PlaywrightTimeout:
        pass
    while True:
        pg.wait_for_function(idle, timeout=timeout_ms, polling=POLL_MS)
        runs = pg.evaluate("() => window.__rumapRuns")
        pg.wait_for_timeout(_SETTLE_MS)
        if pg.evaluate(f"() => window.__rumapRuns === {runs} && ({idle})()"):
            break
    pg.evaluate(f"() => {{ window.__rumapSeen = {runs}; }}")


def choose(pg, label: str, option: str, timeout_ms: float) -> None:
    """Pick ``option`` in the selectbox labelled ``label`` (its list opens again if a rerun closed it).

    The list opens in the browser, with no answer from the server to wait for: when it has not opened
    within 2 s the click was lost (the box took the focus only), and when the option cannot be clicked
    within 2 s a rerun closed the list; either way it is opened again.
    """
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    box = pg.locator('[data-testid="stSelectbox"]').filter(has_text=label).first
    for _ in range(5):
        box.click()
        choice = pg.get_by_role("option", name=option, exact=True)
        try:
            choice.wait_for(timeout=2_000)
            choice.click(timeout=2_000)  # a rerun may close the list between the two
        except PlaywrightTimeout:
            pg.keyboard.press("Escape")
            wait_idle(pg, timeout_ms)
            continue
        break
    else:
        raise AssertionError(f"the option {option!r} of {label!r} could not be chosen")
    wait_idle(pg, timeout_ms)


def open_app(chromium: SharedChromium, url: str, timeout_ms: float, on_request=None, **context_options):
    """A new browser context on the app (a new session), its page loaded and idle; returns the context and page.

    ``on_request`` is called with every request of the context; ``context_options`` go to ``new_context``.
    """
    context = new_context(chromium, **context_options)
    if on_request is not None:
        context.on("request", on_request)
    pg = context.new_page()
    pg.set_default_timeout(timeout_ms)
    pg.goto(url)
    wait_idle(pg, timeout_ms)
    return context, pg
