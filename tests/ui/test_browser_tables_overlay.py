"""One table, three protections, one plane, in a real browser.

On the Tables page (bundled persons data, region x marital counts): the cell key method publishes the
table (its non-additivity stated) and its map over V is kept; the DP noise map over epsilon and the map of
cell suppression of the same table over the threshold rule's n are kept. Compare overlays the three on the measures
every protection of a count table shares, says so in words, and its numbers are read back and checked.
One browser page serves the module, in its own context on the run's server and Chromium.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from browser_helpers import nav_link, open_app, wait_idle

pytestmark = [pytest.mark.browser, pytest.mark.xdist_group("browser_tables_overlay")]

ROOT = Path(__file__).resolve().parents[2]
SHOTS = ROOT / "artifacts" / "screenshots"
TIMEOUT_MS = 120_000
SUPPRESSION = "cell suppression over n, persons.csv: region x marital"
CKM = "cell key method over V, persons.csv: region x marital"
DP = "DP noise over epsilon, persons.csv: region x marital"


@pytest.fixture(scope="module")
def page(app_server, chromium):
    SHOTS.mkdir(parents=True, exist_ok=True)
    context, pg = open_app(chromium, app_server, TIMEOUT_MS, viewport={"width": 1400, "height": 1000})
    yield pg
    context.close()


def _idle(pg) -> None:
    wait_idle(pg, TIMEOUT_MS)


def _tab(pg, name: str):
    pg.get_by_role("tab", name=name).click()  # a run draws the open tab
    _idle(pg)
    return pg.get_by_test_id("stMain").get_by_role("tabpanel", name=name)


def _switch(pg, panel, label: str) -> None:
    panel.get_by_text(label, exact=True).click()
    _idle(pg)


def _keep(pg, panel, name: str, which: int = 0) -> None:
    panel.get_by_role("button", name="Keep this map").nth(which).click()
    pg.get_by_text(f"Kept “{name}”").first.wait_for()
    _idle(pg)


def test_the_tables_page_keeps_three_maps_of_one_table(page):
    nav_link(page, "Tables").click()
    _idle(page)
    ckm = _tab(page, "Cell key method")
    _switch(page, ckm, "publish the table by the cell key method")
    published = ckm.get_by_test_id("stMarkdownContainer").filter(has_text="Published table").first.inner_text()
    found = re.search(r"\((\d+) cells over region x marital\): (\d+) of (\d+) totals differ from the sum of their "
                      r"children, by (\d+) at most", published)
    assert found, published
    cells, differ, totals, largest = (int(g) for g in found.groups())
    assert cells == 13 * 5 and totals == 13 + 5 and 0 < differ <= totals  # an equation per row and per column
    assert 0 < largest <= 3 * 13  # each of a total's children moves by D = 3 at most, and the total itself
    _switch(page, ckm, "R-U map over the variance V")
    ckm.get_by_text("draws of the record keys per V").scroll_into_view_if_needed()
    page.screenshot(path=str(SHOTS / "tables_overlay_ckm.png"))
    _keep(page, ckm, CKM)

    dp = _tab(page, "Differential privacy")
    _switch(page, dp, "release the table")
    _switch(page, dp, "R-U map over epsilon")
    _switch(page, dp, "beside cell suppression (threshold rule, protection 10%)")
    dp.get_by_text("The suppression map").scroll_into_view_if_needed()
    page.screenshot(path=str(SHOTS / "tables_overlay_dp.png"))
    _keep(page, dp, DP)
    _keep(page, dp, SUPPRESSION, 1)
    kept = dp.get_by_text("Kept maps:").last.inner_text()
    assert all(name in kept for name in (SUPPRESSION, CKM, DP)), kept


def test_compare_overlays_them_on_their_shared_measures(page):
    nav_link(page, "Compare").click()
    _idle(page)
    page.wait_for_selector('[data-testid="stPlotlyChart"] .js-plotly-plot .scatterlayer .trace path', state="attached",
                           timeout=30_000)
    main = page.get_by_test_id("stMain")
    measure = page.locator('[data-testid="stSelectbox"]').filter(has_text="Risk and utility measures").inner_html()
    assert "share of small counts (1 to 3) an intruder recovers exactly" in measure
    legend = page.locator('[data-testid="stPlotlyChart"] .legend').first.text_content()
    assert all(name in legend for name in (SUPPRESSION, CKM, DP)), legend
    text = main.inner_text()
    assert "Not drawn" not in text
    assert "R is the share of the table's small counts" in text  # what is compared, in words
    page.get_by_test_id("stPlotlyChart").first.scroll_into_view_if_needed()
    page.screenshot(path=str(SHOTS / "tables_overlay_compare.png"))
    bound = float(page.get_by_role("spinbutton", name="Tolerable share of small counts recovered exactly")
                  .input_value())
    assert bound == pytest.approx(0.2)
    crossings = {}
    for name in (SUPPRESSION, CKM, DP):  # each curve's line: reached at a value (utility, risk), or its lowest risk
        line = re.search(re.escape(name) + r": (reached at \S+ = ([\d.]+) \(utility ([\d.]+), risk ([\d.e-]+)\)"
                         r"|no \S+ on the grid reaches it \(lowest risk ([\d.e-]+)\))", text)
        assert line, (name, text[-3000:])
        crossings[name] = line.groups()[1:]
    for value, utility, risk, lowest in crossings.values():
        if value is not None:
            assert 0 <= float(risk) <= bound and 0 < float(utility) <= 1
        else:
            assert bound < float(lowest) <= 1
    assert crossings[SUPPRESSION][0] is not None and float(crossings[SUPPRESSION][0]) >= 2  # small cells primaries
    assert crossings[DP][0] is not None and float(crossings[DP][0]) <= 1  # a small epsilon
    page.get_by_text("Where each curve reaches the threshold").scroll_into_view_if_needed()
    page.screenshot(path=str(SHOTS / "tables_overlay_compare_crossings.png"))
