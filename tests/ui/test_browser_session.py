"""A new user's path in a real browser: one upload, used across pages; a simulation left running; two methods compared.

Upload a survey once on the Data page; the Categorical and Tables pages use it
without a second upload; a simulation started on the Empirical page goes on
while the user is on another page and its map is there on return; a noise map
and a microaggregation map, kept, overlay on Compare on the common measures;
a reload asks first, then brings the upload and the kept maps back.
One browser page serves the module, in its own context on the run's server
and Chromium (``app_server``, ``chromium``); the steps run in order.
"""

from __future__ import annotations

import io
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from browser_helpers import choose, nav_link, open_app, wait_idle

from rumap.io.data import BUNDLED_DATA

pytestmark = [pytest.mark.browser, pytest.mark.xdist_group("browser_session")]

ROOT = Path(__file__).resolve().parents[2]
SHOTS = ROOT / "artifacts" / "screenshots"
TIMEOUT_MS = 120_000
SURVEY = pd.read_csv(BUNDLED_DATA["survey (synthetic, households and weights)"])
ROWS = len(SURVEY)
#: Enough replicates for the run to outlast a visit to another page.
REPLICATES = 3000


def _survey_file() -> bytes:
    frame = SURVEY[["age_band", "sex", "region", "marital", "occupation", "weight", "hh"]].copy()
    frame.insert(0, "income", np.round(np.exp(np.random.default_rng(30).normal(10.0, 0.6, size=ROWS)), 2))
    return frame.to_csv(index=False).encode()


@pytest.fixture(scope="module")
def page(app_server, chromium):
    SHOTS.mkdir(parents=True, exist_ok=True)
    context, pg = open_app(chromium, app_server, TIMEOUT_MS, viewport={"width": 1400, "height": 1000})
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


def _choose(pg, label: str, option: str) -> None:
    choose(pg, label, option, TIMEOUT_MS)


def _fill(pg, label: str, value: str) -> None:
    box = pg.get_by_role("spinbutton", name=label)
    box.fill(value)
    box.press("Enter")
    _idle(pg)


def _keep(pg, name: str) -> None:
    box = pg.get_by_role("textbox", name="Name for this map")
    box.fill(name)
    box.press("Enter")
    _idle(pg)
    pg.get_by_role("button", name="Keep this map").click()
    pg.get_by_text(f"Kept “{name}”").wait_for()
    _idle(pg)


def test_upload_once_on_the_data_page(page):
    _open(page, "Data")
    page.get_by_text("Upload a file", exact=True).click()
    _idle(page)
    page.locator('[data-testid="stFileUploaderDropzoneInput"]').set_input_files(
        files=[{"name": "my_survey.csv", "mimeType": "text/csv", "buffer": _survey_file()}])
    _idle(page)
    page.get_by_text(f"Using income (n = {ROWS})").wait_for()
    page.screenshot(path=str(SHOTS / "session_data_upload.png"), full_page=True)


def test_the_categorical_page_uses_it_without_a_second_upload(page):
    _open(page, "Categorical keys")
    main = _main(page)
    main.get_by_text(f"Data: my_survey.csv, n = {ROWS:,} (the session's data, as on every page).").wait_for()
    records = page.get_by_test_id("stMetric").filter(has_text="records").first.inner_text()
    assert f"{ROWS:,}" in records
    assert page.get_by_label("the session's data: my_survey.csv").is_checked()
    page.screenshot(path=str(SHOTS / "session_data_categorical.png"), full_page=True)


def test_the_tables_page_builds_its_table_from_it(page):
    _open(page, "Tables")
    page.get_by_role("tab", name="From microdata").click()
    _idle(page)
    main = _main(page)
    main.get_by_role("tabpanel", name="From microdata").get_by_text(
        f"Microdata: my_survey.csv, n = {ROWS:,} (the session's data, as on every page).").wait_for()
    text = main.inner_text()
    assert re.search(r"\d+ of \d+ cells sensitive under the p-percent rule", text), text[-2000:]
    page.screenshot(path=str(SHOTS / "session_data_tables.png"), full_page=True)


def test_a_simulation_goes_on_while_the_user_is_elsewhere(page):
    _open(page, "Empirical map")
    _main(page).get_by_text(f"Data: my_survey.csv [income], n = {ROWS}").wait_for()
    _fill(page, "replicates M", str(REPLICATES))
    page.get_by_role("button", name="Run simulation").click()
    page.get_by_role("button", name="Cancel the simulation").wait_for()
    page.get_by_text("Simulating", exact=False).first.wait_for()
    page.screenshot(path=str(SHOTS / "session_simulation_running.png"))
    nav_link(page, "Data").click()  # leave while it runs
    page.get_by_text("The empirical page's simulation runs on").wait_for()
    page.screenshot(path=str(SHOTS / "session_simulation_elsewhere.png"))
    _idle(page)
    _open(page, "Empirical map")
    page.wait_for_selector('[data-testid="stPlotlyChart"] .js-plotly-plot .scatterlayer .trace path', state="attached")
    _idle(page)
    assert page.get_by_role("button", name="Cancel the simulation").count() == 0
    assert "The settings changed" not in _main(page).inner_text()
    page.screenshot(path=str(SHOTS / "session_simulation_back.png"), full_page=True)
    _keep(page, "noise map")


def test_two_methods_overlay_on_compare(page):
    _fill(page, "replicates M", "50")
    _choose(page, "Method", "microaggregation")
    page.get_by_role("button", name="Run simulation").click()
    _idle(page)
    page.get_by_test_id("stPlotlyChart").get_by_text("microaggregation / index / max").first.wait_for()
    _keep(page, "micro map")
    _open(page, "Compare")
    page.wait_for_selector('[data-testid="stPlotlyChart"] .js-plotly-plot .scatterlayer .trace path', state="attached")
    measure = page.locator('[data-testid="stSelectbox"]').filter(has_text="Risk and utility measures").inner_html()
    assert "share of records re-identified" in measure
    legend = page.locator('[data-testid="stPlotlyChart"] .legend').first.text_content()
    assert "noise map" in legend and "micro map" in legend
    text = _main(page).inner_text()
    assert "Not drawn" not in text
    assert "noise map: " in text and "micro map: " in text
    page.screenshot(path=str(SHOTS / "session_compare.png"))
    page.get_by_text("Where each curve reaches the threshold").scroll_into_view_if_needed()
    page.screenshot(path=str(SHOTS / "session_compare_crossings.png"))


def test_two_methods_share_one_pareto_frontier(page):
    _open(page, "Pareto")
    page.wait_for_selector('[data-testid="stPlotlyChart"] .js-plotly-plot .scatterlayer .trace path', state="attached")
    measure = page.locator('[data-testid="stSelectbox"]').filter(has_text="Risk and utility measures").inner_html()
    assert "share of records re-identified" in measure
    assert re.search(r"\d+ frontier point\(s\) of 29", _main(page).inner_text())  # 20 values of λ² and 9 of k
    page.screenshot(path=str(SHOTS / "session_pareto.png"))


def test_a_simulation_can_be_cancelled(page):
    _open(page, "Empirical map")
    _choose(page, "Method", "noise")
    _fill(page, "replicates M", str(REPLICATES + 1))  # settings not run yet
    page.get_by_role("button", name="Run simulation").click()
    page.get_by_role("button", name="Cancel the simulation").click()
    page.get_by_text("Simulation cancelled. The map below is the last one drawn.").wait_for()
    _idle(page)
    assert page.get_by_role("button", name="Cancel the simulation").count() == 0
    assert "runs on" not in page.get_by_test_id("stSidebar").inner_text()
    page.screenshot(path=str(SHOTS / "session_simulation_cancelled.png"))
    _open(page, "Data")
    assert "runs on" not in page.get_by_test_id("stSidebar").inner_text()  # nothing left running


def test_a_reload_asks_first_then_restores_the_upload_and_the_kept_maps(page):
    asked = []
    page.on("dialog", lambda dialog: (asked.append(dialog.type), dialog.accept()))
    page.reload()
    _idle(page)
    assert asked == ["beforeunload"]  # kept maps exist: the browser asked before leaving
    main = _main(page)
    main.get_by_text("Restored your session: data my_survey.csv, 2 kept maps.").wait_for(timeout=15_000)
    main.get_by_text("In use: my_survey.csv, uploaded earlier in this session").wait_for(timeout=5_000)
    page.screenshot(path=str(SHOTS / "session_restored.png"))


def test_a_recoding_then_apply_puts_the_recoding_first_in_the_plan(page):
    """After the reload, on the Categorical page: recode the ages, then Apply the suppression map."""
    _open(page, "Categorical keys")
    side, main = page.get_by_test_id("stSidebar"), _main(page)
    area = side.get_by_role("textbox", name="recode before measuring (VAR: A, B = NEW per line)")
    area.fill("age_band: 0-4, 5-9, 10-14, 15-19 = 0-19\nage_band: 65-69, 70-74, 75-79, 80-84, 85+ = 65+")
    area.press("Control+Enter")
    _idle(page)
    combo = main.get_by_test_id("stSelectbox").filter(has_text="Release at").first.get_by_role("combobox")
    combo.scroll_into_view_if_needed()
    if not combo.input_value():  # no recommended k on this map: the user picks one
        combo.click()
        page.get_by_role("option", name="3", exact=True).click()
        _idle(page)
    main.get_by_role("button", name="Apply", exact=True).first.click()
    _idle(page)
    _open(page, "Release")
    main.get_by_text("Step 2: suppress (k = ").wait_for()
    steps = [t for t in main.get_by_test_id("stMarkdownContainer").all_inner_texts() if t.startswith("Step ")]
    assert steps[0].startswith("Step 1: recode (merge = {age_band: 0-19 ← 0-4, 5-9, 10-14, 15-19; "
                               "65+ ← 65-69 … 85+ (5 values)}"), steps
    assert steps[1].startswith("Step 2: suppress (k = 3)") and steps[1].endswith(
        "on age_band, sex, region, marital, occupation"), steps


def test_a_plan_made_on_one_file_is_flagged_on_the_next_upload(page):
    _open(page, "Data")
    hourly = pd.read_csv(io.BytesIO(_survey_file())).assign(income=lambda d: (d.income / 40).round(2))
    page.locator('[data-testid="stFileUploaderDropzoneInput"]').set_input_files(
        files=[{"name": "hourly.csv", "mimeType": "text/csv", "buffer": hourly.to_csv(index=False).encode()}])
    _idle(page)
    _open(page, "Release")
    main = _main(page)
    main.get_by_text("Steps 1, 2 were decided on a map of other data than this session's hourly.csv").wait_for()
    assert page.get_by_label("Apply this plan to hourly.csv anyway").is_visible()
    assert main.get_by_text("Risk and utility after each step").count() == 0  # nothing released unconfirmed
