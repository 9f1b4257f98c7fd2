"""End to end in a real browser: Debian's Chromium driven by Playwright against ``streamlit run app.py``.

One server and one browser page serve the whole module; the tests run in
order, as a user would: upload a CSV, draw an analytic and an empirical map,
keep them, download the HTML report; a bad file shows its error message. A
screenshot of each page is saved under ``artifacts/screenshots/``.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from browser_helpers import POLL_MS, nav_link, open_app, wait_idle

pytestmark = [pytest.mark.browser, pytest.mark.xdist_group("browser")]  # one server, steps in order

ROOT = Path(__file__).resolve().parents[2]
SHOTS = ROOT / "artifacts" / "screenshots"
TIMEOUT_MS = 60_000
UPLOADED: dict[str, np.ndarray] = {}  # what test_upload_a_csv sent, for the report's privacy check
REQUESTS: list[str] = []  # every URL the browser asked for, for the no-request-leaves-the-machine check


@pytest.fixture(scope="module")
def page(app_server, chromium):
    SHOTS.mkdir(parents=True, exist_ok=True)
    context, pg = open_app(chromium, app_server, TIMEOUT_MS, on_request=lambda request: REQUESTS.append(request.url),
                           viewport={"width": 1400, "height": 1000}, accept_downloads=True)
    yield pg
    context.close()


def _idle(pg) -> None:
    """Wait until the app has finished running its script."""
    wait_idle(pg, TIMEOUT_MS)


def _open(pg, title: str) -> None:
    """Go to a page through the sidebar (a new URL would start a new session)."""
    nav_link(pg, title).click()
    _idle(pg)


def _shot(pg, name: str) -> None:
    """Screenshot of the page scrolled to its top (Streamlit scrolls inside its own containers)."""
    pg.evaluate("() => document.querySelectorAll('*').forEach(el => { if (el.scrollTop > 0) el.scrollTop = 0; })")
    pg.mouse.move(0, 0)
    pg.wait_for_timeout(300)
    pg.screenshot(path=str(SHOTS / f"{name}.png"))


def _wait_for_plot(pg) -> None:
    pg.wait_for_selector('[data-testid="stPlotlyChart"] .js-plotly-plot .scatterlayer .trace path', state="attached")


def _main(pg):
    return pg.get_by_test_id("stMain")


def test_home_page(page):
    from rumap.present.examples import EXAMPLES

    page.get_by_text("R-U confidentiality maps", exact=True).first.wait_for()
    curves = page.locator(".rumap-home-map svg polyline")
    curves.first.wait_for(state="attached")
    names = [curves.nth(i).get_attribute("data-name") for i in range(curves.count())]
    assert names == ["record", "population"]  # the home map's two knowledge states, as a still picture
    for example in EXAMPLES.values():
        assert page.get_by_role("button", name=f"Load {example.figures}").is_visible()
    # the figures' script is loaded by a hidden figure: drawn (so the script ran) but never shown
    from dashboard.widgets import PRELOAD_KEY

    hidden = page.locator(f".st-key-{PRELOAD_KEY}")
    hidden.locator(".js-plotly-plot .scatterlayer .trace path").first.wait_for(state="attached")
    assert not hidden.is_visible() and page.locator('[data-testid="stPlotlyChart"]:visible').count() == 0
    _shot(page, "home")


def test_every_page_is_listed_in_the_navigation(page):
    import ast

    tree = ast.parse((ROOT / "app.py").read_text(encoding="utf-8"))
    pages = next(ast.literal_eval(node.value) for node in tree.body if isinstance(node, ast.AnnAssign | ast.Assign)
                 and "PAGES" in ast.unparse(node.targets[0] if isinstance(node, ast.Assign) else node.target))
    assert len(pages) == len(list((ROOT / "pages").glob("*.py")))  # every page file, none left out
    _open(page, "Analytic map")  # a page with widgets in the sidebar below the navigation
    nav = page.get_by_test_id("stSidebarNav")
    for _path, title, _icon in pages:
        assert nav.get_by_text(title, exact=True).is_visible(), title
    more = page.get_by_test_id("stSidebarNavViewButton")
    assert not (more.count() and "more" in more.inner_text())  # nothing folded under "View N more"
    _open(page, "Home")


def test_the_running_icon_is_hidden(page):
    # the app's style rule is on the page: Streamlit's cycling running icon would redraw the tab 5 times a second
    display = page.evaluate("""() => {
        const probe = document.createElement('div');
        probe.dataset.testid = 'stStatusWidgetRunningIcon';
        document.body.append(probe);
        const display = getComputedStyle(probe).display;
        probe.remove();
        return display;
    }""")
    assert display == "none"


def test_upload_a_csv(page):
    _open(page, "Data")
    page.get_by_text("Upload a file", exact=True).click()
    _idle(page)
    rng = np.random.default_rng(2001)
    income = np.round(np.exp(rng.normal(9.7, 0.6, size=177)), 2)
    UPLOADED["income"] = income
    regions = ["north", "south", "east", "west"]
    content = ("income,region\n" + "\n".join(f"{v},{regions[i % 4]}" for i, v in enumerate(income))).encode()
    page.locator('[data-testid="stFileUploaderDropzoneInput"]').set_input_files(
        files=[{"name": "incomes.csv", "mimeType": "text/csv", "buffer": content}])
    _idle(page)
    page.get_by_text("Using income (n = 177)").wait_for()
    assert page.get_by_text("Summary (as Table 1 of Duncan et al. 2001)").is_visible()
    _shot(page, "data")


def test_draw_an_analytic_map(page):
    _open(page, "Analytic map")
    _wait_for_plot(page)
    page.get_by_text("Formulas of the selected states").wait_for()
    traces = page.locator('[data-testid="stPlotlyChart"] .scatterlayer .trace').count()
    assert traces >= 4
    text = _main(page).inner_text()
    assert "n = 177" in text or "incomes.csv" in page.content()
    page.get_by_role("button", name="Keep this map").click()
    _idle(page)
    _shot(page, "analytic")


def test_the_reproduce_panel_draws_its_code_when_opened(page):
    # the Analytic page is open (previous test): no code block until the panel is opened, then the command
    assert page.locator('[data-testid="stCode"]').count() == 0
    page.get_by_text("Reproduce this map: command line and Python").click()
    code = _main(page).get_by_test_id("stCode").first
    code.wait_for()
    assert "python -m rumap analytic" in code.inner_text()
    page.get_by_text("Reproduce this map: command line and Python").click()  # closed again: the code goes
    page.wait_for_function("() => !document.querySelector('[data-testid=\"stCode\"]')", polling=POLL_MS)


def test_draw_an_empirical_map(page):
    _open(page, "Empirical map")
    page.get_by_role("button", name="Run simulation").click()
    _idle(page)
    _wait_for_plot(page)
    assert page.get_by_text("In plain language").is_visible()
    page.get_by_role("button", name="Keep this map").click()
    _idle(page)
    _shot(page, "empirical")


def test_compare_pareto_presentation_pages(page):
    for title, name in [("Compare", "compare"), ("Pareto", "pareto"), ("Presentation", "presentation")]:
        _open(page, title)
        _wait_for_plot(page)
        _shot(page, name)


def test_download_the_html_report(page, tmp_path):
    _open(page, "Report")
    with page.expect_download() as info:
        page.get_by_role("button", name="HTML report").click()
    path = tmp_path / "report.html"
    info.value.save_as(path)
    html = path.read_text(encoding="utf-8")
    assert html.startswith("<!DOCTYPE html>") and "Plotly.newPlot" in html
    assert "python -m rumap analytic" in html and "incomes.csv" in html
    assert "a snooper who can link the target to its masked record" in html
    assert '"format": "rumap-config/1"' in html
    # the data stay out of the report unless asked: no values, no summary table
    assert "<h2>Data</h2>" not in html
    for value in (UPLOADED["income"].max(), UPLOADED["income"].min(), UPLOADED["income"][0]):
        assert repr(float(value)) not in html
    _shot(page, "report")


def test_a_bad_file_shows_the_error_message(page):
    _open(page, "Data")
    page.locator('[data-testid="stFileUploaderDropzoneInput"]').set_input_files(
        files=[{"name": "notes.xyz", "mimeType": "application/octet-stream", "buffer": b"hello"}])
    _idle(page)
    error = page.get_by_test_id("stAlertContentError").get_by_text("notes.xyz: unknown file format '.xyz'")
    error.wait_for()
    page.get_by_text("Still showing incomes.csv [income], n = 177: the new file notes.xyz was refused because").wait_for()
    assert "Traceback" not in _main(page).inner_text()
    _shot(page, "data_error")


HOSTILE_COLUMN = "![c](http://127.0.0.1:9/c.png)"


def test_every_page_loads_without_a_request_leaving_the_machine(page, app_server):
    # names that would fetch an image or make a link if rendered as Markdown show as plain text
    _open(page, "Data")
    rows = "\n".join(f"{1000 + 37 * i % 911},{i % 7}" for i in range(120))
    content = f'"{HOSTILE_COLUMN}",[x](http://127.0.0.1:9/)\n{rows}'.encode()
    page.locator('[data-testid="stFileUploaderDropzoneInput"]').set_input_files(
        files=[{"name": "![f](http:127.0.0.1:9).csv", "mimeType": "text/csv", "buffer": content}])
    _idle(page)
    page.get_by_text(f"Using {HOSTILE_COLUMN} (n = 120)").wait_for()
    assert page.locator('[data-testid="stMain"] img[src*="127.0.0.1:9"]').count() == 0
    titles = page.get_by_test_id("stSidebarNav").locator("a").all_inner_texts()
    assert len(titles) >= 10
    for title in titles:  # the icon's ligature name, then the title
        _open(page, title.strip().splitlines()[-1].strip())
    page.reload()
    _idle(page)
    assert len(REQUESTS) > 20  # the recorder saw the pages load
    elsewhere = sorted({url for url in REQUESTS
                        if not url.startswith((app_server + "/", "data:", "blob:", "about:"))})
    assert not elsewhere, f"requests to other hosts: {elsewhere}"
