"""Synthetic data in a real browser: a cart map on the Empirical page beside a microaggregation map, both kept and
overlaid on Compare on the common measures, the cart map applied and its synthetic file downloaded from Release.

One browser page serves the module, in its own context on the run's server and Chromium (``app_server``,
``chromium``); the bundled income data (177 records), few grid values and replicates keep it short. The
screenshots are saved under ``artifacts/screenshots/``.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
from browser_helpers import choose, nav_link, open_app, wait_idle

from rumap.io.data import BUNDLED_DATA, read_table

pytestmark = [pytest.mark.browser, pytest.mark.xdist_group("browser_synthetic")]

ROOT = Path(__file__).resolve().parents[2]
SHOTS = ROOT / "artifacts" / "screenshots"
TIMEOUT_MS = 120_000
INCOME = BUNDLED_DATA["income (synthetic, Table 1)"]
CHART = '[data-testid="stPlotlyChart"] .js-plotly-plot .scatterlayer .trace path'


def _idle(pg) -> None:
    wait_idle(pg, TIMEOUT_MS)


def _open(pg, title: str) -> None:
    nav_link(pg, title).click()
    _idle(pg)


def _choose(pg, label: str, option: str) -> None:
    choose(pg, label, option, TIMEOUT_MS)


def _fill(pg, label: str, value: str) -> None:
    box = pg.get_by_test_id("stSidebar").get_by_role("spinbutton", name=label, exact=True)
    box.fill(value)
    box.press("Enter")
    _idle(pg)


def _run_and_keep(pg, name: str) -> None:
    pg.get_by_role("button", name="Run simulation").click()
    _idle(pg)
    pg.wait_for_selector(CHART, state="attached")
    box = pg.get_by_role("textbox", name="Name for this map")
    box.fill(name)
    box.press("Enter")
    _idle(pg)
    pg.get_by_role("button", name="Keep this map").click()
    pg.get_by_text(f"Kept “{name}”").wait_for()
    _idle(pg)


def test_a_cart_map_beside_microaggregation_applied_and_released(app_server, chromium, tmp_path):
    SHOTS.mkdir(parents=True, exist_ok=True)
    context, pg = open_app(chromium, app_server, TIMEOUT_MS, viewport={"width": 1400, "height": 1000},
                           accept_downloads=True)
    try:
        main = pg.get_by_test_id("stMain")
        _open(pg, "Empirical map")
        _choose(pg, "Method", "microaggregation")
        _fill(pg, "replicates M", "5")
        _run_and_keep(pg, "micro map")

        _choose(pg, "Method", "cart")
        _choose(pg, "Risk of the synthetic data", "linkage")
        _fill(pg, "replicates (random splits)", "5")
        _run_and_keep(pg, "cart map")
        assert "Kept maps: micro map; cart map" in main.inner_text()
        pg.screenshot(path=str(SHOTS / "synthetic_empirical.png"), full_page=True)
        combobox = main.get_by_test_id("stSelectbox").filter(has_text="Release at").get_by_role("combobox")
        assert combobox.input_value().endswith("(recommended)"), combobox.input_value()
        main.get_by_role("button", name="Apply", exact=True).click()
        _idle(pg)
        main.get_by_text("Release plan: 1 step(s)").wait_for()

        _open(pg, "Compare")
        pg.wait_for_selector(CHART, state="attached")
        measure = pg.locator('[data-testid="stSelectbox"]').filter(has_text="Risk and utility measures").inner_html()
        assert "share of records re-identified" in measure
        legend = pg.locator('[data-testid="stPlotlyChart"] .legend').first.text_content()
        assert "cart map" in legend and "micro map" in legend, legend
        pg.screenshot(path=str(SHOTS / "synthetic_compare.png"))

        _open(pg, "Release")
        main.get_by_text("Each step beside its map").wait_for()
        assert main.get_by_text("Step 1: synthesize (").count() == 1
        pg.screenshot(path=str(SHOTS / "synthetic_release.png"), full_page=True)
        with pg.expect_download() as info:
            main.get_by_role("button", name="Protected file (csv)").click()
        info.value.save_as(tmp_path / "income_synthetic.csv")
        released, original = pd.read_csv(tmp_path / "income_synthetic.csv"), read_table(INCOME)
        assert list(released.columns) == ["income"] and len(released) == len(original)
        assert not released["income"].equals(original["income"])
        assert "Traceback" not in pg.content()
    finally:
        context.close()

