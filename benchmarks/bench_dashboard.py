"""Timings of the dashboard in a real browser, and of the computations behind it.

    .venv/bin/python benchmarks/bench_dashboard.py            # browser timings, then the computations
    .venv/bin/python benchmarks/bench_dashboard.py --browser  # browser timings only
    .venv/bin/python benchmarks/bench_dashboard.py --sessions 8

The browser part starts the dashboard as ``make run`` does and drives Debian's
Chromium through Playwright (as the browser tests do). A run counts as done when
the server's "script finished" message reaches the browser and the page's figure
is drawn. Page loads are timed by two clocks: the page's own (:data:`PAGE_CLOCK`:
from the mouse press on the link as the page received it, or the navigation's
start, until the frames after "script finished" was handled and after the figure
was attached are painted: what the user waits for), and this script's (from the
call that presses the mouse or opens the address until Playwright has seen both,
through its driver process: the harness's own latency adds up to 0.6 s). Each
slowest load says how much of its harness time came before the press reached the
page and after the page's end. It prints:

- first page: a fresh browser context opening the home page until its map (a still SVG picture) is drawn
  (the very first one after the server starts, then the median of 3 more); timed from ``goto``, once the
  context's new window has been set up (:data:`WINDOW_SETTLE_MS`);
- page switch: a click in the navigation until the new page has finished (median of 6), each
  click 1 s after the previous page was drawn (a user's glance; meanwhile the home page has the
  browser load the interactive figures' script, :func:`dashboard.widgets.preload_interactive_figures`);
- analytic redraw: on the Analytic page with a 1,001-point grid, a new R_max typed in and
  Enter pressed, until the map is drawn again with the new bound (median of 7);
- MDAV map: the Empirical page's microaggregation map of n = 20,000 records, k = 2..10,
  from pressing "Run simulation" until the map is drawn;
- under load: N sessions each running that MDAV map while a further fresh session opens
  pages; the slowest and median page load (first page and page switches) while they run
  (from when every busy session shows its progress bar until all maps are drawn).
  The N sessions' own tabs run in the same browser as the measured one (``--busy-browser
  same``, the default), or in a second browser at the lowest CPU priority (``low``), as
  the other users' browsers would run on their own machines, not on the server's cores.
"""

from __future__ import annotations

import argparse
import base64
import contextlib
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import NamedTuple

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

TIMEOUT_MS = 180_000
#: A drawn interactive figure of the page (not the hidden one of :func:`dashboard.widgets.preload_interactive_figures`).
PLOT = ('[data-testid="stPlotlyChart"]:not(.st-key-rumap_plotly_preload *) .js-plotly-plot .scatterlayer .trace path')
HOME = ".rumap-home-map svg polyline"
BIG_N = 20_000


class Runs:
    """Counts the server's "script finished" messages a page receives (its reruns that ran to the end)."""

    def __init__(self, page) -> None:
        from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

        self.finished = 0
        self._msg = ForwardMsg
        page.on("websocket", lambda ws: ws.on("framereceived", self._frame))

    def _frame(self, payload) -> None:
        if isinstance(payload, (bytes, bytearray)):
            try:
                msg = self._msg.FromString(bytes(payload))
            except Exception:  # a frame that is not a ForwardMsg
                return
            if msg.WhichOneof("type") == "script_finished":
                self.finished += 1


def _wait_finished(page, runs: Runs, before: int, timeout: float = TIMEOUT_MS / 1000) -> None:
    deadline = time.monotonic() + timeout
    while runs.finished <= before:
        if time.monotonic() > deadline:
            raise TimeoutError("the page did not finish its run")
        page.wait_for_timeout(5)


#: Run in every document of a measured context before the page's own scripts: the page's own clock of a load. It
#: keeps when the user's last mouse press reached the page (the event's time stamp, so time the event waited for a
#: busy page counts), when each small message from the server (such as "script finished") was handled
#: and when the next frame was painted after it, and when the element watched for was first painted (the animation
#: frame after it was attached). A load ends at the later of the two paints. A fresh
#: document watches for the home page's map from its start (time 0 of its clock: the start of the navigation).
PAGE_CLOCK = """(() => {
  const clock = window.__rumapClock = {input: null, messages: [], selector: %s, seen: null};
  addEventListener('mousedown', (e) => { clock.input = e.timeStamp; }, true);
  const Native = window.WebSocket;
  window.WebSocket = class extends Native {
    constructor(...args) {
      super(...args);
      this.addEventListener('message', (e) => {
        if (e.data instanceof ArrayBuffer && e.data.byteLength <= 128) {
          const kept = [performance.now(), btoa(String.fromCharCode(...new Uint8Array(e.data))), null];
          clock.messages.push(kept);
          requestAnimationFrame(() => { kept[2] = performance.now(); });
        }
      });
    }
  };
  const look = () => {
    if (clock.selector && clock.seen === null && document.querySelector(clock.selector)) {
      clock.seen = -1;
      requestAnimationFrame(() => { clock.seen = performance.now(); });
    }
  };
  new MutationObserver(look).observe(document, {subtree: true, childList: true});
  clock.watch = (selector) => { clock.selector = selector; clock.seen = null; clock.input = null; look(); };
})();"""


class PageLoad(NamedTuple):
    """One page load: seconds as the page's own clock saw it (:data:`PAGE_CLOCK`), and as this script saw it.

    ``to_input``: seconds from this script's call until the click reached the page (0 for a navigation);
    ``to_notice``: from the page's end of the load until this script had seen it (both on the wall clock);
    ``started``, ``ended``: the load in the page, on the wall clock (``time.time()``).
    """

    in_page: float
    harness: float
    to_input: float
    to_notice: float
    started: float
    ended: float


def _page_times(page, first: int, from_input: bool, watched: bool) -> tuple[float, float]:
    """Wall-clock times of the input (or the navigation's start) and of the load's end in the page.

    The end: the frame painted after "script finished" was handled and, where ``watched``, the figure painted.
    """
    from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

    # the frames that end the load may still be coming when this script has seen the load
    page.wait_for_function("(watched) => { const c = window.__rumapClock; "
                           "return c.messages.every((m) => m[2] !== null) && (!watched || c.seen > 0); }",
                           arg=watched, polling="raf", timeout=TIMEOUT_MS)
    clock = page.evaluate("(first) => { const c = window.__rumapClock; return {input: c.input, seen: c.seen, "
                          "messages: c.messages.slice(first), origin: performance.timeOrigin}; }", first)
    start = clock["input"] if from_input else 0.0
    finished = [painted for t, data, painted in clock["messages"] if start is not None and t >= start
                and ForwardMsg.FromString(base64.b64decode(data)).WhichOneof("type") == "script_finished"]
    if start is None or not finished:
        raise RuntimeError(f"the page's clock missed the load: {clock}")
    end = max(finished[0], clock["seen"]) if watched else finished[0]
    return (clock["origin"] + start) / 1000, (clock["origin"] + end) / 1000


def _timed(page, runs: Runs, action, plot: bool | str = True) -> float:
    """Seconds from ``action()`` until the run it starts has finished and the figure is drawn, as this script saw it.

    ``plot``: wait for the interactive figure (True), for nothing (False), for this selector, or
    until this callable returns.
    """
    before = runs.finished
    start = time.perf_counter()
    action()
    _wait_finished(page, runs, before)
    if callable(plot):
        plot()
    elif plot:
        page.wait_for_selector(PLOT if plot is True else plot, state="attached", timeout=TIMEOUT_MS)
    return time.perf_counter() - start


def _watch(page, selector: str | None) -> int:
    """Have the page's clock watch for ``selector`` from now on; returns how many messages it has kept so far.

    Called before the pause that precedes a click: a call into a busy page waits for it, so one just
    before the click would hold the click back until the page is free, and its wait would not be counted.
    """
    return page.evaluate("(selector) => { const c = window.__rumapClock; c.watch(selector); "
                         "return c.messages.length; }", selector)


def _load(page, runs: Runs, action, selector: str | None, first: int | None = None) -> PageLoad:
    """Time a page load by both clocks: ``action`` clicks a link (``first``: what :func:`_watch` returned before)
    or, with ``first`` not given, opens the address in a fresh page.

    ``selector``: the element whose painting ends the load (``None``: the run's end alone).
    """
    navigation = first is None
    called = time.time()
    harness = _timed(page, runs, action, plot=selector or False)
    noticed = time.time()
    start, end = _page_times(page, first or 0, from_input=not navigation, watched=selector is not None)
    return PageLoad(end - start, harness, 0.0 if navigation else start - called, noticed - end, start, end)


#: Milliseconds a new browser context is left alone before it is used. Each new context of headless
#: Chromium is a new browser window, whose set-up (its views, the address bar's popup page) kept about
#: 1.7 of the 2 cores busy for 0.8-1.0 s after ``new_page`` returned (measured from /proc/stat): work a
#: user's browser did when its window opened, not when the address is typed in.
WINDOW_SETTLE_MS = 1500


def new_page(browser):
    """A page in a new browser context (a fresh cache), its window set up (:data:`WINDOW_SETTLE_MS`)."""
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    context.add_init_script(PAGE_CLOCK % json.dumps(HOME))
    page = context.new_page()
    page.set_default_timeout(TIMEOUT_MS)
    page.wait_for_timeout(WINDOW_SETTLE_MS)
    return page, Runs(page)


def first_page(browser, url: str) -> PageLoad:
    page, runs = new_page(browser)
    load = _load(page, runs, lambda: page.goto(url), HOME)
    page.context.close()
    return load


def _nav(page, title: str) -> None:
    from browser_helpers import nav_link

    nav_link(page, title).click()


#: Milliseconds between a page being drawn and the next click, as a user at least glances at a page.
READING_PAUSE_MS = 1000


def page_switches(page, runs: Runs, titles: list[str]) -> list[PageLoad]:
    """Page switches, each from the click on the link (found beforehand, as a user sees it first).

    Each click comes :data:`READING_PAUSE_MS` after the previous page was drawn.
    """
    from browser_helpers import nav_link

    wait = {"Home": HOME, "Analytic map": PLOT}
    loads = []
    for title in titles:
        link = nav_link(page, title)
        link.wait_for()
        box = link.bounding_box()
        first = _watch(page, wait.get(title))
        page.wait_for_timeout(READING_PAUSE_MS)
        # the mouse pressed where the link is, at once, as a user clicks: a click that waited for the page to be
        # ready (Playwright's checks before a locator's click) would leave a busy page's delay out of its clock
        click = lambda box=box: page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)  # noqa: E731
        loads.append(_load(page, runs, click, wait.get(title), first))
    return loads


def _enter(page, runs: Runs, label: str, value: str, plot=True) -> float:
    """Type ``value`` into a number field, then time from pressing Enter until the run is done."""
    field = page.get_by_role("spinbutton", name=label, exact=True)
    field.fill(value)
    return _timed(page, runs, lambda: field.press("Enter"), plot=plot)


#: True once the drawn map's risk bound (a horizontal line) is at the given R_max.
BOUND_DRAWN = """(value) => {
    const figure = document.querySelector('[data-testid="stPlotlyChart"] .js-plotly-plot');
    return Boolean(figure && figure._fullLayout
                   && figure._fullLayout.shapes.some((s) => Math.abs(s.y0 - value) <= 1e-9 * value));
}"""


def analytic_redraws(page, runs: Runs, count: int = 7) -> list[float]:
    _timed(page, runs, lambda: _nav(page, "Analytic map"))
    _enter(page, runs, "number of λ² values", "1001")
    seconds = []
    for i in range(count):
        value = 5 + (i + 1) % 2
        drawn = lambda value=value: page.wait_for_function(BOUND_DRAWN, arg=value, polling="raf",  # noqa: E731
                                                           timeout=TIMEOUT_MS)
        seconds.append(_enter(page, runs, "R_max", f"{value:g}", plot=drawn))
        page.wait_for_timeout(300)  # as a user reads the map before the next change
    return seconds


def big_csv(n: int = BIG_N) -> bytes:
    x = np.random.default_rng(2001).lognormal(10.0, 0.6, size=n)
    return ("income\n" + "\n".join(f"{v:.2f}" for v in x)).encode()


def prepare_mdav(page, runs: Runs, content: bytes) -> None:
    """Upload the big file and set the Empirical page to the MDAV map (not yet run)."""
    _timed(page, runs, lambda: _nav(page, "Data"), plot=False)
    _timed(page, runs, lambda: page.get_by_text("Upload a file", exact=True).click(), plot=False)
    _timed(page, runs, lambda: page.locator('[data-testid="stFileUploaderDropzoneInput"]').set_input_files(
        files=[{"name": "big.csv", "mimeType": "text/csv", "buffer": content}]), plot=False)
    page.get_by_text(f"Using income (n = {BIG_N})").wait_for()
    _timed(page, runs, lambda: _nav(page, "Empirical map"), plot=False)
    page.get_by_test_id("stSidebar").get_by_test_id("stSelectbox").first.click()
    _timed(page, runs, lambda: page.get_by_role("option", name="microaggregation").click(), plot=False)


def run_mdav(page) -> None:
    page.get_by_role("button", name="Run simulation").click()


def median(xs: list[float]) -> float:
    return statistics.median(xs)


def described(loads: list[PageLoad], listed: bool = True) -> str:
    """Median and slowest of page loads by the page's clock (each listed), then as the harness saw them."""
    in_page = [load.in_page for load in loads]
    harness = [load.harness for load in loads]
    each = f" (of {', '.join(f'{s:.2f}' for s in in_page)})" if listed else ""
    slowest = max(loads, key=lambda load: load.harness)
    return (f"median {median(in_page):.2f} s, slowest {max(in_page):.2f} s{each}; "
            f"harness median {median(harness):.2f} s, slowest {slowest.harness:.2f} s (in the page "
            f"{slowest.in_page:.2f} s; {slowest.to_input:.2f} s to the click, {slowest.to_notice:.2f} s to notice)")


def browser_timings(sessions: int, busy_where: str = "same") -> None:
    from browser_helpers import launch_chromium, start_streamlit, stop_streamlit
    from playwright.sync_api import sync_playwright

    proc, url = start_streamlit("app.py", timeout=120)
    try:
        with sync_playwright() as pw:
            browser = launch_chromium(pw)
            cold = first_page(browser, url)
            warm = [first_page(browser, url) for _ in range(3)]
            print(f"first page, fresh browser context: {cold.in_page:.2f} s right after the server starts "
                  f"(harness {cold.harness:.2f} s), then {described(warm)}; target < 2 s")

            page, runs = new_page(browser)
            _timed(page, runs, lambda: page.goto(url), plot=HOME)
            switches = page_switches(page, runs, ["Analytic map", "Home", "Data", "Analytic map", "Compare", "Home"])
            print(f"page switch: {described(switches)}; target < 0.5 s")
            redraws = analytic_redraws(page, runs)
            print(f"analytic redraw, 1,001-point grid: median {median(redraws):.2f} s "
                  f"(of {', '.join(f'{s:.2f}' for s in redraws)}); target < 0.5 s")

            content = big_csv()
            prepare_mdav(page, runs, content)
            seconds = _timed(page, runs, lambda: run_mdav(page))
            print(f"MDAV map, n = {BIG_N:,}, k = 2..10: {seconds:.2f} s from the click until drawn")
            page.context.close()

            if sessions:
                with busy_browser(pw, browser, busy_where) as other:
                    under_load(browser, url, content, sessions, other, proc.pid)
            browser.close()
    finally:
        stop_streamlit(proc)


@contextlib.contextmanager
def busy_browser(playwright, browser, where: str):
    """The browser of the busy sessions: the measured one, or a second one at the lowest CPU priority."""
    if where == "same":
        yield browser
        return
    from browser_helpers import CHROMIUM, CHROMIUM_FLAGS

    with tempfile.TemporaryDirectory() as folder:
        wrapper = Path(folder) / "chromium-idle"
        wrapper.write_text(f'#!/bin/sh\nexec chrt --idle 0 {CHROMIUM} "$@"\n')
        wrapper.chmod(0o755)
        other = playwright.chromium.launch(executable_path=str(wrapper), args=CHROMIUM_FLAGS, headless=True)
        try:
            yield other
        finally:
            other.close()


class WorkerWatch:
    """The processor time of the server's map workers (its spawned processes), sampled every 50 ms from ``/proc``.

    A worker paused while a page loads (:mod:`dashboard.pause`) uses none; :meth:`seconds` tells how much the
    workers computed during a page load.
    """

    def __init__(self, server_pid: int, interval: float = 0.05) -> None:
        import os
        import threading

        self._server, self._interval, self._tick = server_pid, interval, os.sysconf("SC_CLK_TCK")
        self.samples: list[tuple[float, float]] = []  # (wall clock, the workers' processor seconds so far)
        self._done: dict[int, float] = {}  # processor seconds of the workers seen, at their last sample
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._sample, daemon=True)
        self._thread.start()

    def _workers(self) -> list[int]:
        workers = []
        for entry in Path("/proc").iterdir():
            if entry.name.isdigit():
                try:
                    parent = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
                    if parent == self._server and b"spawn_main" in (entry / "cmdline").read_bytes():
                        workers.append(int(entry.name))
                except (OSError, IndexError, ValueError):  # gone meanwhile
                    pass
        return workers

    def _sample(self) -> None:
        workers, found = [], 0.0
        while not self._stop.wait(self._interval):
            now = time.time()
            if now - found > 1.0:  # the pool starts its workers on first use, and again after a failure
                workers, found = self._workers(), now
            for pid in workers:
                try:
                    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
                    self._done[pid] = (int(fields[11]) + int(fields[12])) / self._tick
                except (OSError, IndexError, ValueError):
                    pass
            self.samples.append((now, sum(self._done.values())))

    def seconds(self, start: float, end: float) -> float:
        """The workers' processor seconds between two wall-clock times (to the nearest samples)."""
        at = lambda t: min(self.samples, key=lambda sample: abs(sample[0] - t))[1]  # noqa: E731
        return at(end) - at(start) if self.samples else float("nan")

    def stop(self) -> None:
        self._stop.set()
        self._thread.join()


#: Processor seconds of the map workers during a page load above which the load counts as drawn while they computed.
WORKERS_RAN = 0.05


def under_load(browser, url: str, content: bytes, sessions: int, busy_in, server_pid: int) -> None:
    """Page loads in ``browser`` while ``sessions`` tabs of ``busy_in`` each run the MDAV map."""
    busy = [new_page(busy_in) for _ in range(sessions)]
    for page, runs in busy:
        _timed(page, runs, lambda page=page: page.goto(url), plot=HOME)
        prepare_mdav(page, runs, content)
    before = [runs.finished for _, runs in busy]
    workers = WorkerWatch(server_pid)
    start = time.perf_counter()
    for page, _ in busy:
        run_mdav(page)
    for page, _ in busy:  # measured while the maps run: once every busy session shows its progress bar
        page.get_by_test_id("stProgress").first.wait_for(state="attached", timeout=TIMEOUT_MS)
    firsts: list[PageLoad] = []
    switches: list[PageLoad] = []
    while True:
        firsts.append(first_page(browser, url))
        watcher, runs = new_page(browser)
        try:
            _timed(watcher, runs, lambda watcher=watcher: watcher.goto(url), plot=HOME)
            switches.extend(page_switches(watcher, runs, ["Analytic map", "Home"]))
        except Exception:
            watcher.screenshot(path="/tmp/rumap_bench_failure.png")
            print("a page did not load under load: " + watcher.get_by_test_id("stMain").inner_text()[:500])
            raise
        watcher.context.close()
        done = sum(r.finished > b for (_, r), b in zip(busy, before, strict=True))
        if done == sessions:
            break
    for page, _ in busy:
        page.wait_for_selector(PLOT, state="attached", timeout=TIMEOUT_MS)
        page.context.close()
    workers.stop()
    loads = firsts + switches
    computed = [load for load in loads if workers.seconds(load.started, load.ended) > WORKERS_RAN]
    paused = [load for load in loads if load not in computed]
    print(f"under load, {sessions} sessions each running the MDAV map (all done in "
          f"{time.perf_counter() - start:.1f} s): {len(loads)} page loads meanwhile, {described(loads, listed=False)}; "
          f"target < 3 s\n"
          f"  first pages in fresh contexts: {described(firsts)}\n"
          f"  first visits of the Analytic map page: {described(switches[0::2])}\n"
          f"  back to Home: {described(switches[1::2])}\n"
          f"  loads during which the map workers computed (over {WORKERS_RAN} s of processor time): "
          f"{len(computed)}{', ' + described(computed, listed=False) if computed else ''}; the others: "
          f"{described(paused, listed=False) if paused else 'none'}")


def best_of(func, repeat: int = 3) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        func()
        times.append(time.perf_counter() - start)
    return min(times)


def computations() -> None:
    from rumap.fingerprint import array_digest
    from rumap.maps.pareto import pareto_frontier
    from rumap.present.examples import EXAMPLES, example_specs
    from rumap.present.report import config_json, report_html
    from rumap.result import RUMap

    x = np.random.default_rng(0).normal(size=(10_000_000, 1))
    print(f"digest of 10,000,000 values (80 MB): {best_of(lambda: array_digest(x)):.3f} s")

    rng = np.random.default_rng(1)
    maps = [RUMap(parameter="k", values=np.arange(1000), risk=np.sort(rng.random(1000))[::-1],
                  utility=np.sort(rng.random(1000))[::-1], method=f"m{i}") for i in range(20)]
    print(f"Pareto frontier of 20 maps x 1,000 points: {best_of(lambda: pareto_frontier(maps)) * 1e3:.1f} ms")

    start = time.perf_counter()
    analyses = [spec.run().renamed(name) for key in EXAMPLES for name, spec in example_specs(key)]
    print(f"the paper's Figures 2-7 ({len(analyses)} analyses, M = 200): {time.perf_counter() - start:.2f} s")
    html = report_html(analyses)
    seconds = best_of(lambda: report_html(analyses))
    print(f"HTML report of Figures 2-7: {seconds:.2f} s, {len(html) / 1e6:.1f} MB (plotly.js inlined once)")
    print(f"configuration JSON of Figures 2-7: {len(config_json(analyses)) / 1e3:.1f} kB")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--browser", action="store_true", help="browser timings only")
    parser.add_argument("--sessions", type=int, default=8, help="sessions running a map at once (0: skip)")
    parser.add_argument("--busy-browser", choices=["same", "low"], default="same",
                        help="where the busy sessions' tabs run: in the measured browser, or in a second one at "
                             "the lowest CPU priority")
    args = parser.parse_args()
    browser_timings(args.sessions, args.busy_browser)
    if not args.browser:
        computations()


if __name__ == "__main__":
    main()
