"""In a real browser: every map page names the data or the worked example it draws.

A refused upload leaves the earlier data, and the Data, Analytic and Empirical
pages say which data are still shown and why the new file was refused; after a
worked example is loaded, the Analytic page names the example's setting, not
the earlier data.
"""

from __future__ import annotations

import pytest
from browser_helpers import nav_link, open_app, wait_idle

pytestmark = [pytest.mark.browser, pytest.mark.xdist_group("browser_provenance")]

TIMEOUT_MS = 60_000


@pytest.fixture(scope="module")
def page(app_server, chromium):
    context, pg = open_app(chromium, app_server, TIMEOUT_MS, viewport={"width": 1400, "height": 1000})
    yield pg
    context.close()


def _idle(pg) -> None:
    """Wait until the app has finished running its script."""
    wait_idle(pg, TIMEOUT_MS)


def _open(pg, title: str) -> None:
    nav_link(pg, title).click()
    _idle(pg)


def _upload(pg, name: str, content: bytes) -> None:
    pg.locator('[data-testid="stFileUploaderDropzoneInput"]').set_input_files(
        files=[{"name": name, "mimeType": "text/csv", "buffer": content}])
    _idle(pg)


def test_a_refused_upload_leaves_the_earlier_data_named_as_such(page):
    _open(page, "Data")
    page.get_by_text("Upload a file", exact=True).click()
    _idle(page)
    rows = "\n".join(f"{1000 + 37 * i % 900}" for i in range(80))
    _upload(page, "survey.csv", f"income\n{rows}".encode())
    page.get_by_text("Using income (n = 80)").wait_for()
    _upload(page, "names.csv", b"name\nann\nbob\n")
    still = "Still showing survey.csv [income], n = 80: the new file names.csv was refused because"
    page.get_by_text(still).first.wait_for()
    assert "no numeric column" in page.get_by_test_id("stMain").inner_text()
    _open(page, "Analytic map")
    page.get_by_text("Drawn for the data survey.csv [income], n = 80").wait_for()
    page.get_by_text(still).wait_for()
    _open(page, "Empirical map")
    page.get_by_text("Data: survey.csv [income], n = 80.").wait_for()
    page.get_by_text(still).wait_for()


def test_a_worked_example_names_its_setting_not_the_earlier_data(page):
    _open(page, "Home")
    page.get_by_role("button", name="Load Figure 3").click()
    _idle(page)
    page.get_by_text("Drawn for the worked example “Figure 3: adding the 99th percentile”: n = 200, σ² = 1, μ = 0; "
                     "no data set is used.").wait_for()
    main = page.get_by_test_id("stMain").inner_text()
    sidebar = page.get_by_test_id("stSidebar").inner_text()
    assert "survey.csv" not in main and "Prefilled" not in main + sidebar
    assert page.get_by_role("spinbutton", name="n (records)").input_value() == "200"
