"""In Chromium: the Data page's fields keep what the user chose after a refused upload stopped the page before them.

The refused file ends the run (``st.stop()``) above the columns and the missing-values choice; the browser
removes those fields while the server keeps their values. Drawn again, they must show those values, not
their own defaults (an empty column choice, "refuse"), which the browser would send back with the next click
(``dashboard/widget_memory.py``; ``tests/ui/test_stopped_run.py`` has the same in AppTest, for every kind).
"""

from __future__ import annotations

import pytest
from browser_helpers import nav_link, open_app, wait_idle

pytestmark = [pytest.mark.browser, pytest.mark.xdist_group("browser_stopped_run")]

TIMEOUT_MS = 60_000


@pytest.fixture(scope="module")
def page(app_server, chromium):
    context, pg = open_app(chromium, app_server, TIMEOUT_MS, viewport={"width": 1400, "height": 1000})
    yield pg
    context.close()


def _click(pg, locator) -> None:
    locator.click()
    wait_idle(pg, TIMEOUT_MS)


def _columns(pg) -> str | None:
    field = pg.get_by_test_id("stMultiSelect").filter(has_text="Numeric column(s) to mask")
    return field.inner_text().replace("Numeric column(s) to mask", "").strip() if field.count() else None


def _missing(pg):
    return pg.get_by_test_id("stRadio").filter(has_text="Rows with missing values")


def test_a_refused_upload_leaves_the_columns_and_the_missing_values_choice_as_chosen(page):
    _click(page, nav_link(page, "Data"))
    _click(page, _missing(page).get_by_text("drop those rows", exact=True))
    chosen = _columns(page)
    assert chosen  # the bundled data set's first column
    _click(page, page.get_by_text("Upload a file", exact=True))
    page.get_by_test_id("stFileUploaderDropzoneInput").set_input_files(
        files=[{"name": "broken.parquet", "mimeType": "application/octet-stream", "buffer": b"not a parquet file"}])
    wait_idle(page, TIMEOUT_MS)
    page.get_by_text("was refused").wait_for()
    assert _columns(page) is None  # the page stopped above the fields
    _click(page, page.get_by_text("Bundled data set", exact=True))
    assert _columns(page) == chosen
    assert _missing(page).locator("label:has(input:checked)").inner_text() == "drop those rows"
