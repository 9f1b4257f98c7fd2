"""Page loads first: the map workers pause while a page is loaded, within a bound that keeps the maps going.

The workers already run at the lowest scheduling priority, yet on a small virtual
machine a worker busy on one core still slowed the other core's work: with one
idle-priority process spinning, pages took 1.5-2 times as long to load (a
fresh browser's home page 3.0-3.7 s instead of 1.9-2.2 s, the server's run of a page up to 2.5 s instead of
0.3 s). Priorities share a core; they do not keep a busy neighbour from slowing it.
So when a page is requested or starts running, the workers that are computing a map are
stopped (``SIGSTOP``) and later continued (``SIGCONT``): a page that starts wants
them paused for :data:`PAUSE` seconds, and once its run has finished, for
:data:`DRAW` seconds more only, the time the browser takes to draw what the run
sent (a run that sends something slow to draw says how long, :meth:`WorkerPause.drawing_takes`).
The workers run again while the user reads the page.

Maps still go on: a pause lasts at most :data:`MAX_PAUSE` seconds however many
pages start meanwhile, and the workers then run at least :data:`MIN_RUN`
seconds before the next pause (a page that starts within those gets its pause
when they are over), so a map computes at an eleventh of its speed or more even
while pages load without a break. The bound is long enough for a user's usual
sequence (a first page, a glance, another page, a glance: about 5 s of pages
wanting the pause): with a 3-s bound the workers ran again in the middle of the
second page, and a page drawn while they ran took the browser up to twice the
processor time (0.9-1.0 s of the tab's renderer for the Analytic page's first
visit, 1.5-1.8 s with a map running; measured from ``/proc`` during
``benchmarks/bench_dashboard.py --sessions 8``). A worker that is not computing a
map is never paused: a map submitted by the page that started is taken at once
by a free worker.

This module imports no Streamlit.
"""

from __future__ import annotations

import itertools
import math
import os
import signal
import threading
import time
from collections.abc import Callable, Iterable

#: Seconds the busy workers pause after a page is requested or starts running (until its run has finished).
PAUSE = 2.0
#: Seconds the busy workers stay paused after a page's run has finished: the browser draws the page.
DRAW = 1.0
#: Seconds a pause lasts at most, however many pages start during it (a first page and the next one).
MAX_PAUSE = 5.0
#: Seconds the workers run, at least, between two pauses.
MIN_RUN = 0.5


def send_signal(pids: Iterable[int], sig: int) -> None:
    """Send ``sig`` to each process of ``pids`` that still exists."""
    for pid in pids:
        try:
            os.kill(pid, sig)
        except ProcessLookupError:
            pass


class WorkerPause:
    """Pause the busy workers while pages load, within :data:`MAX_PAUSE` and :data:`MIN_RUN`.

    Parameters
    ----------
    busy : callable
        Returns the process ids of the workers computing a map now.
    signal_pids : callable
        ``signal_pids(pids, sig)`` sends a signal (:func:`send_signal`).
    clock : callable
        Seconds, monotonic.
    pause, draw, max_pause, min_run : float
        See :data:`PAUSE`, :data:`DRAW`, :data:`MAX_PAUSE`, :data:`MIN_RUN`.
    """

    def __init__(self, busy: Callable[[], Iterable[int]],
                 signal_pids: Callable[[Iterable[int], int], None] = send_signal,
                 clock: Callable[[], float] = time.monotonic, pause: float = PAUSE, draw: float = DRAW,
                 max_pause: float = MAX_PAUSE, min_run: float = MIN_RUN) -> None:
        self._busy = busy
        self._signal = signal_pids
        self._clock = clock
        self._pause, self._draw, self._max_pause, self._min_run = pause, draw, max_pause, min_run
        self._lock = threading.Lock()
        self._stopped: frozenset[int] = frozenset()
        self._since = -math.inf  # when the current pause began
        self._until = -math.inf  # when it ends
        self._wants: dict[int, float] = {}  # page -> until when it wants the workers paused
        self._running: set[int] = set()  # the pages started and not finished
        self._draws: dict[int, float] = {}  # page -> seconds its drawing takes, where not DRAW
        self._pages = itertools.count()
        self._resumed = -math.inf  # when the last pause ended
        self._wake = threading.Event()
        self._thread: threading.Thread | None = None

    @property
    def paused(self) -> frozenset[int]:
        """The process ids stopped now."""
        return self._stopped

    def page_requested(self) -> None:
        """A page is requested: pause the busy workers for :data:`PAUSE` seconds (see :meth:`page_started`)."""
        self._wish()

    def page_started(self) -> int:
        """A page has started running: pause the busy workers for :data:`PAUSE` seconds, or until it is drawn.

        During a pause, the pause lasts longer (up to :data:`MAX_PAUSE` in all);
        within :data:`MIN_RUN` seconds of the last pause, the next one starts when those are over.

        Returns
        -------
        int
            The page, for :meth:`page_finished` (which must follow, however the run ends).
        """
        page = self._wish()
        with self._lock:
            self._running.add(page)
        return page

    def drawing_takes(self, page: int, seconds: float) -> None:
        """The run of ``page`` sends what the browser takes ``seconds`` to draw: its pause lasts that long after it.

        Parameters
        ----------
        page : int
            What :meth:`page_started` returned.
        seconds : float
            Used instead of :data:`DRAW` (the longest of several calls counts).
        """
        with self._lock:
            if page in self._running:
                self._draws[page] = max(seconds, self._draws.get(page, seconds))

    def page_finished(self, page: int) -> None:
        """The run of ``page`` has finished: it wants the workers paused :data:`DRAW` seconds more, no longer.

        Parameters
        ----------
        page : int
            What :meth:`page_started` returned.
        """
        with self._lock:
            if page not in self._running:
                return
            self._running.discard(page)
            now = self._clock()
            self._wants[page] = now + self._draws.pop(page, self._draw)
            self._update(now)
        self._ensure_thread()
        self._wake.set()

    def _wish(self) -> int:
        """A page wants the workers paused for :data:`PAUSE` seconds; returns the page."""
        with self._lock:
            now = self._clock()
            page = next(self._pages)
            self._wants[page] = now + self._pause
            self._update(now)
        self._ensure_thread()
        self._wake.set()
        return page

    def _wanted(self, now: float) -> float:
        """Under the lock: until when the pages want the workers paused (the expired wishes are dropped)."""
        self._wants = {page: until for page, until in self._wants.items() if until > now}
        return max(self._wants.values(), default=-math.inf)

    def _update(self, now: float) -> None:
        """Under the lock: the pages' wishes changed; the pause on ends at their new end, or one starts."""
        if self._stopped:
            self._until = min(self._wanted(now), self._since + self._max_pause)
        else:
            self._start_if_allowed(now)

    def tick(self) -> float:
        """Start or end a pause if it is time to; returns the seconds until the next such moment (``inf``: none)."""
        with self._lock:
            now = self._clock()
            if self._stopped:
                if now < self._until:
                    return self._until - now
                self._signal(self._stopped, signal.SIGCONT)
                self._stopped, self._resumed = frozenset(), now
            return self._start_if_allowed(now)

    def _start_if_allowed(self, now: float) -> float:
        """Under the lock, no pause on: pause the busy workers if a page wants it and they have run long enough.

        Returns the seconds until the next moment :meth:`tick` has something to do.
        """
        if self._wanted(now) <= now:
            return math.inf
        allowed = self._resumed + self._min_run
        if now < allowed:
            return allowed - now
        pids = frozenset(self._busy())
        if not pids:
            self._wants.clear()
            return math.inf
        self._signal(pids, signal.SIGSTOP)
        self._stopped, self._since = pids, now
        self._until = min(self._wanted(now), now + self._max_pause)
        return self._until - now

    def resume(self) -> None:
        """Continue every paused worker now (the pool is discarded, or the server stops)."""
        with self._lock:
            if self._stopped:
                self._signal(self._stopped, signal.SIGCONT)
                self._stopped, self._resumed = frozenset(), self._clock()

    def _ensure_thread(self) -> None:
        with self._lock:
            if self._thread is None:
                self._thread = threading.Thread(target=self._loop, daemon=True, name="rumap-worker-pause")
                self._thread.start()

    def _loop(self) -> None:
        while True:
            wait = self.tick()
            self._wake.wait(None if math.isinf(wait) else wait)
            self._wake.clear()
