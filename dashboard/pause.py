"""Page loads first: the map workers pause while a page is loaded, within a bound that keeps the maps going.

The workers already run at the lowest scheduling priority, yet on a small virtual
machine a worker busy on one core still slowed the other core's work: with one
idle-priority process spinning, pages took 1.5-2 times as long to load (a
fresh browser's home page 3.0-3.7 s instead of 1.9-2.2 s, the server's run of a page up to 2.5 s instead of
0.3 s). Priorities share a core; they do not keep a busy neighbour from slowing it.
So when a page is requested or starts running, the workers that are computing a map are
stopped (``SIGSTOP``) for :data:`PAUSE` seconds, time for the page's run and its
drawing in the browser, and then continued (``SIGCONT``).

Maps still go on: a pause lasts at most :data:`MAX_PAUSE` seconds however many
pages start meanwhile, and the workers then run at least :data:`MIN_RUN`
seconds before the next pause (a page that starts within those gets its pause
when they are over), so a map computes at a quarter of its speed or more even
while pages load without a break. A worker that is not computing a
map is never paused: a map submitted by the page that started is taken at once
by a free worker.

This module imports no Streamlit.
"""

from __future__ import annotations

import math
import os
import signal
import threading
import time
from collections.abc import Callable, Iterable

#: Seconds the busy workers pause after a page starts running.
PAUSE = 2.0
#: Seconds a pause lasts at most, however many pages start during it.
MAX_PAUSE = 3.0
#: Seconds the workers run, at least, between two pauses.
MIN_RUN = 1.0


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
    pause, max_pause, min_run : float
        See :data:`PAUSE`, :data:`MAX_PAUSE`, :data:`MIN_RUN`.
    """

    def __init__(self, busy: Callable[[], Iterable[int]],
                 signal_pids: Callable[[Iterable[int], int], None] = send_signal,
                 clock: Callable[[], float] = time.monotonic, pause: float = PAUSE, max_pause: float = MAX_PAUSE,
                 min_run: float = MIN_RUN) -> None:
        self._busy = busy
        self._signal = signal_pids
        self._clock = clock
        self._pause, self._max_pause, self._min_run = pause, max_pause, min_run
        self._lock = threading.Lock()
        self._stopped: frozenset[int] = frozenset()
        self._since = -math.inf  # when the current pause began
        self._until = -math.inf  # when it ends
        self._wanted = -math.inf  # until when the pages that started want the workers paused
        self._resumed = -math.inf  # when the last pause ended
        self._wake = threading.Event()
        self._thread: threading.Thread | None = None

    @property
    def paused(self) -> frozenset[int]:
        """The process ids stopped now."""
        return self._stopped

    def page_started(self) -> None:
        """A page has started running: pause the busy workers for :data:`PAUSE` seconds, or as soon as allowed.

        During a pause, the pause lasts longer (up to :data:`MAX_PAUSE` in all);
        within :data:`MIN_RUN` seconds of the last pause, the next one starts when those are over.
        """
        with self._lock:
            now = self._clock()
            self._wanted = max(self._wanted, now + self._pause)
            if self._stopped:
                self._until = min(self._wanted, self._since + self._max_pause)
                return
            self._start_if_allowed(now)
        self._ensure_thread()
        self._wake.set()

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
        if self._wanted <= now:
            return math.inf
        allowed = self._resumed + self._min_run
        if now < allowed:
            return allowed - now
        pids = frozenset(self._busy())
        if not pids:
            self._wanted = -math.inf
            return math.inf
        self._signal(pids, signal.SIGSTOP)
        self._stopped, self._since = pids, now
        self._until = min(self._wanted, now + self._max_pause)
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
