"""The two risk pages in headless Chromium: they render their results and react to a widget."""

from __future__ import annotations

import pytest
from browser_helpers import launch_chromium, start_streamlit, stop_streamlit

pytestmark = [pytest.mark.browser]


@pytest.fixture()
def serve():
    processes = []

    def start(page: str) -> str:
        proc, url = start_streamlit(page)
        processes.append(proc)
        return url

    yield start
    for proc in processes:
        stop_streamlit(proc)


def test_identity_page_in_a_browser(serve):
    from playwright.sync_api import expect, sync_playwright

    url = serve("pages/identity.py")
    with sync_playwright() as p:
        browser = launch_chromium(p)
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
        browser = launch_chromium(p)
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
