"""The two risk pages in headless Chromium (opened by their address in the app): they render their results and react to a widget."""

from __future__ import annotations

import pytest

pytestmark = [pytest.mark.browser]


@pytest.fixture()
def page(chromium):
    context = chromium.new_context()  # a new session for each test
    yield context.new_page()
    context.close()


def test_identity_page_in_a_browser(app_server, page):
    from playwright.sync_api import expect

    page.goto(f"{app_server}/identity")
    expect(page.get_by_text("sample uniques")).to_be_visible(timeout=90_000)
    expect(page.get_by_text("840", exact=True)).to_be_visible()
    expect(page.locator(".js-plotly-plot").first).to_be_visible(timeout=60_000)
    assert "Traceback" not in page.content()


def test_risk_measures_page_in_a_browser(app_server, page):
    from playwright.sync_api import expect

    page.goto(f"{app_server}/risk_measures")
    expect(page.get_by_text("linked correctly", exact=True)).to_be_visible(timeout=90_000)
    expect(page.get_by_text("original values inside their interval")).to_be_visible()
    tables = page.locator('[data-testid="stDataFrame"]')
    expect(tables).to_have_count(1)
    page.get_by_text("probabilistic", exact=True).click()
    expect(tables).to_have_count(2, timeout=60_000)  # the m and u probabilities appear
    assert "Traceback" not in page.content()
