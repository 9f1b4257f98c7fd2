"""Long runs that outlive their page: a simulation goes on when the user changes page, and its map is there on return.

A page starts a run with :func:`start`: it goes to a worker process
(:func:`dashboard.background.submit`) and is remembered in the session's state
(memory only), one per page. While the page is shown, :func:`follow` waits for
it and draws its progress; a click or a change of page ends that wait, not the
run. Drawn again, the page follows the same run, or takes its finished result
into the session's cache. :func:`cancel` stops it.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from concurrent.futures import CancelledError, wait
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from typing import Any

import numpy as np
import streamlit as st

from dashboard import background, state
from rumap.fingerprint import config_digest
from rumap.specs import Analysis

#: Session-state key: page -> its :class:`Job`.
JOBS = "rumap_jobs"


@dataclass(frozen=True)
class Job:
    """A page's run in the pool: what it computes, on which data, and since when (``time.monotonic``)."""

    page: str
    spec: Any
    data: np.ndarray | None
    run: background.PoolRun
    started: float

    def is_for(self, spec) -> bool:
        """Whether this run computes ``spec``.

        Parameters
        ----------
        spec : AnalyticSpec or EmpiricalSpec

        Returns
        -------
        bool
        """
        return config_digest(self.spec.to_dict()) == config_digest(spec.to_dict())


def running(page: str) -> Job | None:
    """The page's run that has not been taken yet (finished or not).

    Parameters
    ----------
    page : str

    Returns
    -------
    Job or None
    """
    return st.session_state.get(JOBS, {}).get(page)


def start(page: str, spec, data: np.ndarray | None) -> Job:
    """Start ``spec.run(data)`` in a worker for ``page``; a run the page had going for other settings is cancelled.

    Parameters
    ----------
    page : str
    spec : AnalyticSpec or EmpiricalSpec
    data : ndarray or None

    Returns
    -------
    Job
    """
    earlier = running(page)
    if earlier is not None:
        if earlier.is_for(spec):
            return earlier
        cancel(page)
    job = Job(page, spec, data, background.submit(spec, data), time.monotonic())
    st.session_state.setdefault(JOBS, {})[page] = job
    return job


def cancel(page: str) -> bool:
    """Cancel the page's run; returns whether there was one.

    Parameters
    ----------
    page : str

    Returns
    -------
    bool
    """
    job = st.session_state.get(JOBS, {}).pop(page, None)
    if job is None:
        return False
    background.cancel(job.run)
    return True


def follow(page: str, show: Callable[[float | None, float], None]) -> Analysis | None:
    """Wait for the page's run, showing its progress; its result is kept in the session's cache and returned.

    A click or a change of page interrupts the wait (at a look at the session's
    state) and leaves the run going.

    Parameters
    ----------
    page : str
    show : callable
        ``show(fraction, seconds)``: the fraction done (``None`` while the run waits
        for a free worker) and the seconds since it started.

    Returns
    -------
    Analysis or None
        ``None`` without a run, or for a run cancelled meanwhile.
    """
    job = running(page)
    if job is None:
        return None
    while not job.run.future.done():  # a run refused at once never shows "waiting for a worker"
        show(background.progress_of(job.run), time.monotonic() - job.started)
        if wait([job.run.future], timeout=background.POLL).done:
            break
        if running(page) is not job:  # a look at the session's state: where a click or a new page stops the wait
            return None
    st.session_state.get(JOBS, {}).pop(page, None)
    background.forget(job.run)
    try:
        analysis = job.run.future.result()
    except (CancelledError, background.RunCancelled):
        return None
    except BrokenProcessPool:  # a worker died (e.g. out of memory): run it here, as run_in_pool does
        background.discard_pool()
        analysis = job.spec.run(job.data)
    state.keep_result(job.spec, analysis)
    return analysis


def show_running(shown: str) -> None:
    """A line in the sidebar for each page whose run goes on while another page is shown.

    Parameters
    ----------
    shown : str
        The page being drawn (its own run is drawn by the page).
    """
    for page, job in st.session_state.get(JOBS, {}).items():
        if page == shown:
            continue
        fraction = background.progress_of(job.run)
        done = "finished: its map is ready" if job.run.future.done() else \
            ("waiting for a free worker" if fraction is None else f"{fraction:.0%} done")
        st.sidebar.caption(f"The {page} page's simulation runs on ({done}); open that page to see its map.")
