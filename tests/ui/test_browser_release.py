"""From map to release in a real browser: draw the empirical map, change its bound and draw it again, Apply the
recommended point without touching the selector, then download from Release.

The downloaded protected file and plan are checked against the command line: the
plan, given to ``python -m rumap release`` with the same data, gives the same bytes;
the plan uploaded again on the page gives them too. A screenshot of the Release
page is saved under ``artifacts/screenshots/``.
"""

from __future__ import annotations

import io
import json
from pathlib import Path

import pandas as pd
import pytest
from browser_helpers import nav_link, open_app, wait_idle
from cli_helpers import run_cli

from rumap.io.data import BUNDLED_DATA, read_table

pytestmark = [pytest.mark.browser, pytest.mark.xdist_group("browser_release")]

ROOT = Path(__file__).resolve().parents[2]
SHOTS = ROOT / "artifacts" / "screenshots"
TIMEOUT_MS = 120_000
INCOME = BUNDLED_DATA["income (synthetic, Table 1)"]


def _open(pg, title: str) -> None:
    nav_link(pg, title).click()
    wait_idle(pg, TIMEOUT_MS)


def _download(pg, name: str, path: Path) -> bytes:
    with pg.expect_download() as info:
        pg.get_by_test_id("stMain").get_by_role("button", name=name).click()
    info.value.save_as(path)
    return path.read_bytes()


def test_apply_the_recommended_point_and_download_the_release(app_server, chromium, tmp_path):
    SHOTS.mkdir(parents=True, exist_ok=True)
    context, pg = open_app(chromium, app_server, TIMEOUT_MS, viewport={"width": 1400, "height": 1000},
                           accept_downloads=True)
    try:
        main = pg.get_by_test_id("stMain")
        _open(pg, "Empirical map")
        pg.get_by_role("button", name="Run simulation").click()
        wait_idle(pg, TIMEOUT_MS)
        pg.wait_for_selector('[data-testid="stPlotlyChart"] .js-plotly-plot .scatterlayer .trace path',
                             state="attached")
        apply_box = main.get_by_test_id("stSelectbox").filter(has_text="Release at")
        combobox = apply_box.get_by_role("combobox", name="Release at λ²/S²")
        first = combobox.input_value()
        assert first == "0.3 (recommended)", first
        # the user changes the bound and draws the map again, then presses Apply without touching the selector
        bound = pg.get_by_test_id("stSidebar").get_by_role(
            "spinbutton", name="Tolerable average error of the snooper (data units)")
        bound.fill("6000")
        bound.press("Enter")
        wait_idle(pg, TIMEOUT_MS)
        pg.get_by_role("button", name="Run simulation").click()
        wait_idle(pg, TIMEOUT_MS)
        main.get_by_text("The settings changed").wait_for(state="detached")  # the map of the new bound is drawn
        apply_box.scroll_into_view_if_needed()
        pg.screenshot(path=str(SHOTS / "empirical_apply.png"))
        chosen = combobox.input_value()
        assert chosen == "0.4 (recommended)", chosen
        main.get_by_role("button", name="Apply", exact=True).click()
        wait_idle(pg, TIMEOUT_MS)
        main.get_by_text("Release plan: 1 step(s)").wait_for()

        _open(pg, "Release")
        main.get_by_text("Risk and utility after each step").wait_for()
        pg.evaluate("() => document.querySelectorAll('*').forEach(el => { if (el.scrollTop > 0) el.scrollTop = 0; })")
        pg.screenshot(path=str(SHOTS / "release.png"), full_page=True)
        assert main.get_by_text("Step 1: noise (").count() == 1

        released = _download(pg, "Protected file (csv)", tmp_path / "income_protected.csv")
        plan_text = _download(pg, "Plan (JSON)", tmp_path / "release_plan.json").decode("utf-8")
        report = json.loads(_download(pg, "Report (JSON)", tmp_path / "release_report.json"))
        plan = json.loads(plan_text)
        ((step,),) = [plan["steps"]]
        recommended = float(chosen.split()[0])
        assert step["method"] == "noise" and step["columns"] == ["income"]
        assert step["parameters"]["lambda2_frac"] == pytest.approx(recommended, rel=1e-3)
        assert (step["origin"]["choice"], step["origin"]["recommended"]) == ("recommended", pytest.approx(0.4))
        decision = report["steps"][0]["decision"]
        assert decision["binding"]["target"] in ("max", "p99") and decision["max_risk"] == pytest.approx(6000**-2)
        assert {c["measure"] for c in report["steps"][0]["checks"]} >= {"snooper max/index", "snooper p99/index"}
        assert report["rows"] == len(read_table(INCOME)) and "linkage" in report["numeric"]

        (tmp_path / "cli").mkdir()
        proc = run_cli("release", "--data", INCOME, "--plan", tmp_path / "release_plan.json", "--out",
                       tmp_path / "cli" / "income_protected.csv", "--no-prediction")
        assert proc.returncode == 0, proc.stderr
        assert released == (tmp_path / "cli" / "income_protected.csv").read_bytes()
        back, original = pd.read_csv(io.BytesIO(released)), read_table(INCOME)
        assert list(back.columns) == list(original.columns) and len(back) == len(original)
        assert not back["income"].equals(original["income"])  # masked

        # the plan uploaded again replaces the steps and gives the same file
        pg.get_by_test_id("stSidebar").locator('[data-testid="stFileUploaderDropzoneInput"]').set_input_files(
            files=[{"name": "release_plan.json", "mimeType": "application/json", "buffer": plan_text.encode()}])
        wait_idle(pg, TIMEOUT_MS)
        main.get_by_text("Risk and utility after each step").wait_for()
        assert _download(pg, "Protected file (csv)", tmp_path / "again.csv") == released
        assert "Traceback" not in pg.content()
    finally:
        context.close()
