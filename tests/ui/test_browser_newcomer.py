"""A newcomer's path in a real browser: a European CSV, two maps under one name, image files, a worked example.

One server and one browser page serve the module (Debian's Chromium through
Playwright, as in test_browser.py); the steps run in order.
"""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np
import pytest
from browser_helpers import nav_link, open_app, wait_idle

pytestmark = [pytest.mark.browser, pytest.mark.xdist_group("browser_newcomer")]

ROOT = Path(__file__).resolve().parents[2]
SHOTS = ROOT / "artifacts" / "screenshots"
TIMEOUT_MS = 90_000


@pytest.fixture(scope="module")
def page(app_server, chromium):
    SHOTS.mkdir(parents=True, exist_ok=True)
    context, pg = open_app(chromium, app_server, TIMEOUT_MS, viewport={"width": 1400, "height": 1000},
                           accept_downloads=True)
    yield pg
    context.close()


def _idle(pg) -> None:
    """Wait until the app has finished running its script."""
    wait_idle(pg, TIMEOUT_MS)


def _open(pg, title: str) -> None:
    nav_link(pg, title).click()
    _idle(pg)


def _main(pg):
    return pg.get_by_test_id("stMain")


def _wait_for_plot(pg) -> None:
    pg.wait_for_selector('[data-testid="stPlotlyChart"] .js-plotly-plot .scatterlayer .trace path', state="attached")


def test_a_european_csv_is_read_as_numbers(page):
    """Semicolons and decimal commas (``income;age`` / ``420,1576;34``): the income column is numeric."""
    _open(page, "Data")
    page.get_by_text("Upload a file", exact=True).click()
    _idle(page)
    rng = np.random.default_rng(11)
    income = np.round(np.exp(rng.normal(6.0, 0.5, size=120)), 4)
    lines = [f"{v:.4f}".replace(".", ",") + f";{20 + i % 50}" for i, v in enumerate(income)]
    content = ("income;age\n" + "\n".join(lines)).encode()
    page.locator('[data-testid="stFileUploaderDropzoneInput"]').set_input_files(
        files=[{"name": "einkommen.csv", "mimeType": "text/csv", "buffer": content}])
    _idle(page)
    page.get_by_text("Using income (n = 120)").wait_for()
    text = _main(page).inner_text()
    assert "no numeric column" not in text and "Traceback" not in text
    page.screenshot(path=str(SHOTS / "newcomer_european_csv.png"))


def test_two_maps_kept_under_one_name_stay_two(page):
    _open(page, "Analytic map")
    _wait_for_plot(page)
    name = page.get_by_role("textbox", name="Name for this map")
    name.fill("Income map")
    name.press("Enter")
    _idle(page)
    page.get_by_role("button", name="Keep this map").click()
    page.get_by_text("1 map(s) kept.").wait_for()
    _idle(page)
    points = page.get_by_role("spinbutton", name="number of λ² values")
    points.fill("201")
    points.press("Enter")
    _idle(page)
    name = page.get_by_role("textbox", name="Name for this map")
    name.fill("Income map")
    name.press("Enter")
    _idle(page)
    page.get_by_role("button", name="Keep this map").click()
    page.get_by_text("Kept “Income map (2)”. 2 map(s) kept.").wait_for()
    _idle(page)
    assert "Kept maps: Income map; Income map (2)" in _main(page).inner_text()


def test_images_are_made_on_demand_and_not_again(page, tmp_path):
    _open(page, "Report")
    assert page.get_by_role("button", name="Income map (2) (PNG)").count() == 0  # nothing drawn unasked
    start = time.perf_counter()
    page.get_by_role("button", name="Make 2 PNG file(s)").click()
    page.get_by_role("button", name="Income map (2) (PNG)").wait_for()
    took = time.perf_counter() - start
    _idle(page)
    assert page.get_by_role("button", name="Make 2 PNG file(s)").count() == 0
    with page.expect_download() as info:
        page.get_by_role("button", name="Income map (2) (PNG)").click()
    path = tmp_path / "map.png"
    info.value.save_as(path)
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    # an unrelated widget: the files stay, nothing asks to be drawn again
    title = page.get_by_role("textbox", name="Title", exact=True)
    title.fill("Committee, 3 March")
    title.press("Enter")
    _idle(page)
    assert page.get_by_role("button", name="Income map (2) (PNG)").is_visible()
    assert page.get_by_role("button", name="Make 2 PNG file(s)").count() == 0
    assert took < 60  # the first export starts the engine; bench_images.py times the warm one
    page.screenshot(path=str(SHOTS / "newcomer_report_images.png"))


def test_figure_5_opens_like_the_papers_figure(page):
    _open(page, "Home")
    page.get_by_role("button", name="Load Figure 5").click()
    _idle(page)
    page.get_by_text("Compare kept maps", exact=True).wait_for()
    _wait_for_plot(page)
    # the page draws its decisions after the plot: wait for their block, then read every line at once
    _main(page).get_by_text("noise / position / min:", exact=False).wait_for()
    _idle(page)
    text = _main(page).inner_text()
    knowledge = page.locator('[data-testid="stSelectbox"]').filter(has_text="Snooper's knowledge")
    assert "each curve on its own" in knowledge.inner_html()  # the mode: every curve, not their worst case
    assert "no λ²/S² on this grid protects target min" in text  # none recommended beside the unprotected minimum
    assert "noise / position / max: reached at λ²/S² = " in text
    assert "noise / position / min: no λ²/S² on the grid reaches it" in text
    legend = page.locator('[data-testid="stPlotlyChart"] .legend').first.text_content()
    assert "max" in legend and "min" in legend
    page.screenshot(path=str(SHOTS / "newcomer_figure_5.png"))
