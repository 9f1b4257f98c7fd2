"""A progress bar that redraws sparingly: each redraw is a message the browser turns into a new page render.

A run reports its progress as often as it has some (a run in the process pool
was looked at ten times a second); redrawn on every report, the bar kept a
browser tab busy for about a quarter of a core while the map was computed
(measured with Chromium's performance metrics), time taken from every other
tab on the same machine. :class:`ThrottledProgress`
shows a new text at once, but a new fraction only once it has moved by a whole
percent and :data:`REDRAW_INTERVAL` seconds have passed since the last redraw.

This module imports no Streamlit: the bar is any object with a
``progress(value, text=...)`` method (``st.progress``'s element).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable

#: Seconds between two redraws of a bar whose text stays the same.
REDRAW_INTERVAL = 0.5


class ThrottledProgress:
    """Redraw ``bar`` when its text changes, or when its whole percent changes at most every ``interval`` s.

    Parameters
    ----------
    bar : object
        Has ``progress(value, text=...)``, as the element ``st.progress`` returns.
    interval : float
        Seconds between two redraws that only move the fraction.
    clock : callable
        Seconds, monotonic (``time.monotonic``).
    """

    def __init__(self, bar, interval: float = REDRAW_INTERVAL, clock: Callable[[], float] = time.monotonic) -> None:
        self._bar = bar
        self._interval = interval
        self._clock = clock
        self._shown: tuple[int, str] | None = None
        self._at = -math.inf

    def update(self, fraction: float, text: str) -> bool:
        """Show ``fraction`` (clipped to [0, 1]) with ``text`` if it is time to; returns whether the bar was redrawn."""
        fraction = min(1.0, max(0.0, float(fraction)))
        shown = (math.floor(fraction * 100), text)
        now = self._clock()
        if shown == self._shown:
            return False
        if self._shown is not None and text == self._shown[1] and now - self._at < self._interval:
            return False
        self._bar.progress(fraction, text=text)
        self._shown, self._at = shown, now
        return True
