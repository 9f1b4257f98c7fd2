"""The two risk pages in headless Chromium: they render their results and react to a widget."""

from __future__ import annotations

import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

pytestmark = [pytest.mark.browser]


def _chromium() -> str:
    path = shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")
    if path is None:
        pytest.fail("no Chromium on this machine: `make test` installs Debian's chromium")
    return path


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture()
def serve():
    processes = []

    def start(page: str) -> str:
        port = _free_port()
        proc = subprocess.Popen([sys.executable, "-m", "streamlit", "run", page, "--server.headless", "true",
                                 "--server.port", str(port), "--browser.gatherUsageStats", "false"],
                                cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        processes.append(proc)
        url = f"http://127.0.0.1:{port}"
        for _ in range(120):
            try:
                urllib.request.urlopen(f"{url}/_stcore/health", timeout=1)
                return url
            except OSError:
                time.sleep(0.5)
        pytest.fail(f"streamlit did not start for {page}")

    yield start
    for proc in processes:
        proc.terminate()
        proc.wait(timeout=30)


def _browser(playwright):
    return playwright.chromium.launch(executable_path=_chromium(), headless=True)


def test_identity_page_in_a_browser(serve):
    from playwright.sync_api import expect, sync_playwright

    url = serve("pages/identity.py")
    with sync_playwright() as p:
        browser = _browser(p)
        page = browser.new_page()
        page.goto(url)
        expect(page.get_by_text("sample uniques")).to_be_visible(timeout=90_000)
        expect(page.get_by_text("840", exact=True)).to_be_visible()
        expect(page.locator(".js-plotly-plot").first).to_be_visible(timeout=60_000)
        assert "Traceback" not in page.content()
        browser.close()


def test_risk_measures_page_in_a_browser(serve):
    from playwright.sync_api import expect, sync_playwright

    url = serve("pages/risk_measures.py")
    with sync_playwright() as p:
        browser = _browser(p)
        page = browser.new_page()
        page.goto(url)
        expect(page.get_by_text("linked correctly", exact=True)).to_be_visible(timeout=90_000)
        expect(page.get_by_text("original values inside their interval")).to_be_visible()
        tables = page.locator('[data-testid="stDataFrame"]')
        expect(tables).to_have_count(1)
        page.get_by_text("probabilistic", exact=True).click()
        expect(tables).to_have_count(2, timeout=60_000)  # the m and u probabilities appear
        assert "Traceback" not in page.content()
        browser.close()
