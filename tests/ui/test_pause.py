"""Map workers pause while a page loads (until DRAW after its run), within MAX_PAUSE, and run MIN_RUN between pauses."""

from __future__ import annotations

import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pytest

from dashboard import background
from dashboard.pause import DRAW, MAX_PAUSE, MIN_RUN, PAUSE, WorkerPause


class Clock:
    def __init__(self) -> None:
        self.now = 50.0

    def __call__(self) -> float:
        return self.now


class Signals:
    def __init__(self) -> None:
        self.sent: list[tuple[frozenset[int], int]] = []

    def __call__(self, pids, sig: int) -> None:
        self.sent.append((frozenset(pids), sig))


def _pause(busy=(11, 12)):
    clock, signals = Clock(), Signals()
    pause = WorkerPause(busy=lambda: busy, signal_pids=signals, clock=clock)
    pause._ensure_thread = lambda: None  # the test ticks the clock itself
    return pause, clock, signals


def test_a_page_start_stops_the_busy_workers_for_pause_seconds():
    pause, clock, signals = _pause()
    pause.page_started()
    assert signals.sent == [(frozenset({11, 12}), signal.SIGSTOP)] and pause.paused == {11, 12}
    clock.now += PAUSE - 0.01
    assert pause.tick() == pytest.approx(0.01)
    clock.now += 0.01
    assert pause.tick() == float("inf")
    assert signals.sent[-1] == (frozenset({11, 12}), signal.SIGCONT) and not pause.paused


def test_pages_without_a_break_keep_the_maps_going():
    pause, clock, signals = _pause()
    stopped = 0.0
    for _ in range(200):  # a page starts every 0.25 s for 50 s
        pause.page_started()
        clock.now += 0.25
        was_paused = bool(pause.paused)
        pause.tick()
        stopped += 0.25 if was_paused else 0.0
    kinds = [sig for _, sig in signals.sent]
    assert kinds[::2] == [signal.SIGSTOP] * len(kinds[::2]) and kinds[1::2] == [signal.SIGCONT] * len(kinds[1::2])
    assert stopped / 50.0 <= MAX_PAUSE / (MAX_PAUSE + MIN_RUN) + 0.01  # the maps run MIN_RUN of every MAX_PAUSE + MIN_RUN s or more
    assert stopped / 50.0 >= 0.5  # and the pages mostly load with the workers paused


def test_a_page_starting_soon_after_a_pause_gets_its_pause_when_the_workers_have_run_min_run():
    pause, clock, signals = _pause()
    pause.page_started()
    clock.now += PAUSE
    pause.tick()  # the first pause ends
    clock.now += MIN_RUN / 2
    pause.page_started()  # too soon: nothing yet
    assert [sig for _, sig in signals.sent] == [signal.SIGSTOP, signal.SIGCONT]
    assert pause.tick() == pytest.approx(MIN_RUN / 2)
    clock.now += MIN_RUN / 2
    assert pause.tick() == pytest.approx(PAUSE - MIN_RUN / 2)  # paused until PAUSE after that page started
    assert signals.sent[-1][1] == signal.SIGSTOP
    clock.now += PAUSE - MIN_RUN / 2
    assert pause.tick() == float("inf") and signals.sent[-1][1] == signal.SIGCONT


def test_a_finished_run_ends_the_pause_draw_seconds_later():
    pause, clock, signals = _pause()
    page = pause.page_started()
    clock.now += 0.3
    pause.page_finished(page)  # the run took 0.3 s; the browser draws it meanwhile
    assert pause.tick() == pytest.approx(DRAW)
    clock.now += DRAW
    assert pause.tick() == float("inf") and signals.sent[-1][1] == signal.SIGCONT
    assert clock.now - 50.0 == pytest.approx(0.3 + DRAW) and 0.3 + DRAW < PAUSE


def test_a_finished_run_does_not_end_the_pause_another_page_wants():
    pause, clock, signals = _pause()
    first = pause.page_started()
    clock.now += 0.2
    pause.page_started()  # a second page, still running
    clock.now += 0.1
    pause.page_finished(first)
    assert pause.tick() == pytest.approx(PAUSE - 0.1)  # until PAUSE after the second page started
    assert pause.paused == {11, 12}


def test_a_run_that_sends_something_slow_to_draw_keeps_the_pause_that_long():
    pause, clock, signals = _pause()
    page = pause.page_started()
    pause.drawing_takes(page, 2.0)
    pause.drawing_takes(page, 1.5)  # the longest counts
    clock.now += 0.2
    pause.page_finished(page)
    assert pause.tick() == pytest.approx(min(2.0, MAX_PAUSE - 0.2))
    pause.drawing_takes(page, 9.0)  # finished: nothing changes
    assert pause._draws == {}


def test_drawing_takes_reaches_the_page_of_the_run_in_this_thread(monkeypatch):
    told: list = []
    monkeypatch.setattr(background, "_BUSY", {4242: 0})
    monkeypatch.setattr(background._PAUSE, "page_started", lambda: 17)
    monkeypatch.setattr(background._PAUSE, "drawing_takes", lambda page, seconds: told.append((page, seconds)))
    assert background.page_started() == 17
    background.drawing_takes(2.0)
    other = threading.Thread(target=background.drawing_takes, args=(3.0,))  # another run's thread: no page
    other.start()
    other.join()
    assert told == [(17, 2.0)]


def test_a_long_run_is_drawn_within_max_pause():
    pause, clock, signals = _pause()
    page = pause.page_started()
    clock.now += PAUSE + 0.5  # the pause for this page ended at PAUSE; its run goes on
    pause.tick()
    assert signals.sent[-1][1] == signal.SIGCONT
    clock.now += MIN_RUN
    pause.page_finished(page)  # its end pauses the workers again while it is drawn
    assert signals.sent[-1][1] == signal.SIGSTOP
    assert pause.tick() == pytest.approx(DRAW)
    clock.now += DRAW
    pause.tick()
    assert signals.sent[-1][1] == signal.SIGCONT


def test_a_request_pauses_for_pause_seconds_and_finishing_unknown_pages_changes_nothing():
    pause, clock, signals = _pause()
    pause.page_finished(12345)
    assert signals.sent == []
    pause.page_requested()  # a browser asks for the page; its run, started later, comes as page_started
    assert pause.tick() == pytest.approx(PAUSE)
    clock.now += PAUSE
    pause.tick()
    pause.page_finished(0)  # the request is not a run: nothing to finish
    assert [sig for _, sig in signals.sent] == [signal.SIGSTOP, signal.SIGCONT] and not pause.paused


def test_idle_workers_are_never_stopped():
    pause, clock, signals = _pause(busy=())
    pause.page_started()
    assert signals.sent == [] and not pause.paused


def test_resume_continues_at_once():
    pause, clock, signals = _pause()
    pause.page_started()
    pause.resume()
    assert signals.sent[-1][1] == signal.SIGCONT and not pause.paused
    pause.resume()  # nothing paused: nothing sent
    assert len(signals.sent) == 2


def _state(pid: int) -> str:
    return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]


def _stopped(pid: int, timeout: float = 5.0) -> bool:
    """Whether the process is stopped within ``timeout`` seconds (a signal arrives a moment after it is sent)."""
    deadline = time.monotonic() + timeout
    while _state(pid) != "T":
        if time.monotonic() > deadline:
            return False
        time.sleep(0.01)
    return True


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_a_real_process_is_stopped_and_continued():
    child = subprocess.Popen([sys.executable, "-c", "while True: pass"])
    try:
        pause = WorkerPause(busy=lambda: [child.pid], pause=0.3, max_pause=0.5, min_run=0.1)
        pause.page_started()
        assert _stopped(child.pid)
        time.sleep(0.6)  # the pause thread continues it
        assert _state(child.pid) in {"R", "S"}
    finally:
        child.kill()
        child.wait()


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_the_pool_worker_computing_a_map_pauses_when_a_page_starts():
    from rumap.specs import DataSource, EmpiricalSpec

    x = np.random.default_rng(5).normal(10.0, 2.0, size=(20_000, 1))
    config = {"method": "noise", "values": [0.1, 0.5, 1.0, 2.0], "targets": ["max", "p99"],
              "knowledge": ["index", "position"], "replicates": 800, "seed": 1}
    spec = EmpiricalSpec(simulation=config, data=DataSource.of("upload", "x.csv", ["x"], x), max_risk=1.0)
    result: list = []
    runner = threading.Thread(target=lambda: result.append(background.run_in_pool(spec, x)))
    runner.start()
    deadline = time.monotonic() + 60
    while not background._BUSY and time.monotonic() < deadline:
        time.sleep(0.01)
    (pid,) = background._BUSY
    background.page_started()
    try:
        assert _stopped(pid), background._PAUSE.paused
    finally:
        background._PAUSE.resume()
    assert _state(pid) in {"R", "S", "D"}
    runner.join(120)
    assert result and result[0].maps


def test_every_run_of_the_app_finishes_the_page_it_started(monkeypatch):
    from streamlit.testing.v1 import AppTest

    calls: list = []
    pages = iter(range(100))
    monkeypatch.setattr(background, "page_started", lambda: calls.append(("start", page := next(pages))) or page)
    monkeypatch.setattr(background, "page_finished", lambda page: calls.append(("end", page)))
    at = AppTest.from_file(str(Path(__file__).resolve().parents[2] / "app.py"), default_timeout=120).run()
    at.switch_page("pages/analytic.py").run()
    at.multiselect(key="an_states").set_value([]).run()  # the page stops early (st.stop)
    assert not at.exception and at.info, [e.value for e in at.exception]
    assert calls == [("start", 0), ("end", 0), ("start", 1), ("end", 1), ("start", 2), ("end", 2)]


def test_the_first_hidden_figure_of_a_session_keeps_the_pause_while_the_browser_loads_its_scripts(monkeypatch):
    from streamlit.testing.v1 import AppTest

    from dashboard.widgets import PRELOAD_DRAW, PRELOAD_WAITED

    told: list = []
    monkeypatch.setattr(background, "drawing_takes", told.append)
    at = AppTest.from_file(str(Path(__file__).resolve().parents[2] / "app.py"), default_timeout=120)
    at.session_state[PRELOAD_WAITED] = True  # the home page was drawn before: this run sends the hidden figure
    at.run()
    assert not at.exception and at.get("plotly_chart")
    at.run()  # sent again: the browser has the scripts by now
    assert told == [PRELOAD_DRAW]
