"""Render the README's images with Debian's Chromium: the analytic map and screenshots of the dashboard.

    .venv/bin/python scripts/docs_images.py              # all
    .venv/bin/python scripts/docs_images.py --map-only   # docs/analytic_map.png only
    .venv/bin/python scripts/docs_images.py --walkthrough # the README's walkthrough (docs/walkthrough/) only

The map is drawn by Plotly in the browser (``Plotly.toImage``), so no image
engine is needed on the server. The screenshots drive ``streamlit run app.py``
through the paper's worked examples.
"""

from __future__ import annotations

import argparse
import base64
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from rumap.present.figures import analysis_figure  # noqa: E402
from rumap.specs import AnalyticSpec  # noqa: E402

DOCS = ROOT / "docs"
CHROMIUM = "/usr/bin/chromium"
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync"]


def analytic_map_png(browser) -> bytes:
    """The paper's Figure 4 setting: n = 200, sigma^2 = 1, four knowledge states, R_max = 5."""
    spec = AnalyticSpec(n=200, sigma2=1.0, p=0.99, states=("record", "population", "percentile", "maximum"),
                        lambda2_start=0.0, lambda2_stop=1.0, lambda2_num=201, max_risk=5.0, log_y=True)
    fig = analysis_figure(spec.run(), title="Analytic R-U map, n = 200, σ² = 1, maximum tolerable risk 5")
    fig.update_yaxes(range=[-0.3, 2.2])  # log10 of R from 0.5 to 160
    page = browser.new_page()
    page.set_content(fig.to_html(full_html=True, include_plotlyjs=True, div_id="map"))
    page.wait_for_function("() => window.Plotly && document.querySelector('#map .main-svg')")
    url = page.evaluate("() => Plotly.toImage(document.getElementById('map'), "
                        "{format: 'png', width: 1000, height: 620, scale: 2})")
    page.close()
    return base64.b64decode(url.split(",", 1)[1])


def _idle(pg) -> None:
    pg.wait_for_selector('[data-testid="stApp"]')
    pg.get_by_test_id("stSidebarNav").get_by_text("Home", exact=True).wait_for()  # st.navigation has run
    pg.wait_for_timeout(500)
    pg.wait_for_function('() => !document.querySelector(\'[data-testid="stStatusWidget"]\')', timeout=120_000)
    pg.wait_for_timeout(800)


def _shot(pg, name: str) -> None:
    pg.evaluate("() => document.querySelectorAll('*').forEach(el => { if (el.scrollTop > 0) el.scrollTop = 0; })")
    pg.mouse.move(0, 0)
    pg.wait_for_timeout(400)
    (DOCS / "screenshots").mkdir(parents=True, exist_ok=True)
    pg.screenshot(path=str(DOCS / "screenshots" / f"{name}.png"))
    print(f"docs/screenshots/{name}.png")


def _nav(pg, title: str) -> None:
    sys.path.insert(0, str(ROOT / "tests"))
    from browser_helpers import nav_link

    nav_link(pg, title).click()
    _idle(pg)


@contextmanager
def _running_app(browser) -> Iterator:
    """The dashboard started as ``make run`` starts it, and a page open on its home page."""
    sys.path.insert(0, str(ROOT / "tests"))
    from browser_helpers import start_streamlit, stop_streamlit

    proc, url = start_streamlit("app.py")
    try:
        pg = browser.new_page(viewport={"width": 1400, "height": 900})
        pg.set_default_timeout(120_000)
        pg.goto(url)
        _idle(pg)
        yield pg
    finally:
        stop_streamlit(proc)


def dashboard_screenshots(browser) -> None:
    with _running_app(browser) as pg:
        _shot(pg, "home")
        _nav(pg, "Data")
        _shot(pg, "data")
        _nav(pg, "Home")
        pg.get_by_role("button", name="Load Figure 4").click()
        _idle(pg)
        _shot(pg, "analytic")
        pg.get_by_role("button", name="Keep this map").click()
        _idle(pg)
        _nav(pg, "Empirical map")
        pg.get_by_role("button", name="Run simulation").click()
        _idle(pg)
        _shot(pg, "empirical")
        pg.get_by_role("button", name="Keep this map").click()
        _idle(pg)
        _nav(pg, "Home")
        pg.get_by_role("button", name="Load Figure 7").click()
        _idle(pg)
        _shot(pg, "compare")
        _nav(pg, "Pareto")
        _shot(pg, "pareto")
        _nav(pg, "Report")
        _shot(pg, "report")
        _nav(pg, "Presentation")
        _shot(pg, "presentation")


#: Width in pixels of a walkthrough picture (shrunk from the browser's 1400-pixel window).
WALK_WIDTH = 900


def _step(pg, name: str, locator=None) -> None:
    """A small PNG of the page (or of one part of it) for the README's walkthrough."""
    from io import BytesIO

    from PIL import Image

    pg.mouse.move(0, 0)
    pg.wait_for_timeout(400)
    raw = (locator.screenshot() if locator is not None else pg.screenshot())
    image = Image.open(BytesIO(raw)).convert("RGB")
    if image.width > WALK_WIDTH:
        image = image.resize((WALK_WIDTH, round(image.height * WALK_WIDTH / image.width)), Image.LANCZOS)
    out = DOCS / "walkthrough" / f"{name}.png"
    out.parent.mkdir(parents=True, exist_ok=True)
    image.quantize(colors=128).save(out, optimize=True)
    print(f"docs/walkthrough/{name}.png")


def _scroll_to(pg, text: str) -> None:
    pg.get_by_text(text, exact=True).first.scroll_into_view_if_needed()
    pg.wait_for_timeout(300)


def walkthrough_screenshots(browser) -> None:
    """Explore, present, teach: the steps of each user, from the running app."""
    with _running_app(browser) as pg:
        main = pg.get_by_test_id("stMain")
        # explore: own data, the analytic map drawn for them, a simulation, kept maps side by side
        _nav(pg, "Data")
        _step(pg, "explore_1_data")
        _nav(pg, "Analytic map")
        _step(pg, "explore_2_analytic")
        pg.get_by_role("button", name="Keep this map").click()
        _idle(pg)
        _nav(pg, "Empirical map")
        pg.get_by_role("button", name="Run simulation").click()
        _idle(pg)
        _step(pg, "explore_3_empirical")
        pg.get_by_role("button", name="Keep this map").click()
        _idle(pg)
        # teach: the paper's examples, the formulas and the glossary
        _nav(pg, "Home")
        _scroll_to(pg, "Worked examples from the paper")
        _step(pg, "teach_1_examples")
        pg.get_by_role("button", name="Load Figure 4").click()
        _idle(pg)
        pg.get_by_role("button", name="Keep this map").click()
        _idle(pg)
        _scroll_to(pg, "In plain language")
        _step(pg, "teach_2_plain_language")
        pg.get_by_text("Glossary: the words of both maps").click()
        _idle(pg)
        _scroll_to(pg, "Formulas of the selected states")
        _step(pg, "teach_3_formulas")
        # present: one slide per kept map, then the report to hand out
        _nav(pg, "Presentation")
        _step(pg, "present_1_slide", main)
        _nav(pg, "Report")
        _step(pg, "present_2_report")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--map-only", action="store_true", help="only docs/analytic_map.png")
    parser.add_argument("--walkthrough", action="store_true", help="only the walkthrough (docs/walkthrough/)")
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    DOCS.mkdir(exist_ok=True)
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=FLAGS, headless=True)
        if args.walkthrough:
            walkthrough_screenshots(browser)
            browser.close()
            return 0
        (DOCS / "analytic_map.png").write_bytes(analytic_map_png(browser))
        print("docs/analytic_map.png")
        if not args.map_only:
            dashboard_screenshots(browser)
            walkthrough_screenshots(browser)
        browser.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
