"""The progress bar redraws on a new text at once, on a new fraction only every REDRAW_INTERVAL seconds."""

from __future__ import annotations

from itertools import pairwise

from hypothesis import given
from hypothesis import strategies as st

from dashboard.progress import REDRAW_INTERVAL, ThrottledProgress


class Bar:
    def __init__(self) -> None:
        self.drawn: list[tuple[float, str]] = []

    def progress(self, value: float, text: str) -> None:
        self.drawn.append((value, text))


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_reports_ten_times_a_second_redraw_twice_a_second():
    bar, clock = Bar(), Clock()
    shown = ThrottledProgress(bar, clock=clock)
    for step in range(40):  # five seconds of reports from the pool, eight a second
        shown.update(step / 40, "Simulating…")
        clock.now += 0.125
    assert len(bar.drawn) == 5 / REDRAW_INTERVAL
    assert bar.drawn[0] == (0.0, "Simulating…")


def test_a_new_text_shows_at_once_and_the_same_value_never_twice():
    bar, clock = Bar(), Clock()
    shown = ThrottledProgress(bar, clock=clock)
    assert shown.update(0.0, "Waiting for a free worker…")
    assert not shown.update(0.0, "Waiting for a free worker…")
    assert shown.update(0.0, "Simulating…")  # same instant, new text
    assert not shown.update(0.004, "Simulating…")  # the same whole percent
    clock.now += 10
    assert not shown.update(0.009, "Simulating…")
    assert shown.update(0.5, "Simulating…")
    assert bar.drawn == [(0.0, "Waiting for a free worker…"), (0.0, "Simulating…"), (0.5, "Simulating…")]


@given(st.lists(st.tuples(st.floats(-1.0, 2.0), st.sampled_from(["a", "b"]), st.floats(0.0, 2.0)), max_size=60))
def test_redraws_stay_in_range_and_apart(reports):
    bar, clock = Bar(), Clock()
    shown = ThrottledProgress(bar, clock=clock)
    times = []
    for fraction, text, wait in reports:
        clock.now += wait
        if shown.update(fraction, text):
            times.append(clock.now)
    assert all(0.0 <= value <= 1.0 for value, _ in bar.drawn)
    for (before, t0), (after, t1) in pairwise(zip(bar.drawn, times, strict=True)):
        assert before != after
        assert after[1] != before[1] or t1 - t0 >= REDRAW_INTERVAL
