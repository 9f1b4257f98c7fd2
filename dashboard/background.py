"""Heavy runs outside the script thread: one process pool shared by every session, with progress.

A long simulation (an empirical map, an MDAV map of many records) run in a
session's script thread holds the interpreter's lock for seconds and stalls
every other session's pages. :func:`run_in_pool` sends the specification and its
data to a worker process instead (through a pipe, never a file) and waits,
sleeping, while reporting the worker's progress; the server's own process stays
free to draw pages. The workers run at the lowest priority there is
(:func:`lower_priority`), so page loads come first on a busy machine, and there
are at most ``cores - 1`` of them (at least one): further runs wait their turn,
shown as queued. While a page loads, the workers computing a map pause briefly
(:mod:`dashboard.pause`; :func:`page_started` and :func:`page_finished` are
called at the start and the end of every run of the app, :func:`page_requested`
on every request for its page, :mod:`dashboard.page_requests`).

This module imports no Streamlit, so the workers start without it.
"""

from __future__ import annotations

import atexit
import itertools
import multiprocessing
import os
import pickle
import sys
import threading
import types
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from contextlib import contextmanager
from dataclasses import dataclass

from dashboard.pause import WorkerPause

#: Worker processes of the pool.
WORKERS = max(1, (os.cpu_count() or 2) - 1)
#: How much lower the workers' scheduling priority is than the server's, where SCHED_IDLE is not available.
NICENESS = 10
#: Seconds between two looks at a run's progress (its end is seen at once).
POLL = 0.5

#: Cancelled jobs the workers look up at each progress report (a ring of the latest ones).
CANCEL_SLOTS = 64

_LOCK = threading.Lock()
_POOL: ProcessPoolExecutor | None = None
_PROGRESS: dict[int, float] = {}
_BUSY: dict[int, int] = {}  # process id of a worker computing a map -> its job
_JOBS = itertools.count()
_QUEUE = None  # in a worker: where it reports progress
_CANCELLED = None  # shared with the workers: the ids of cancelled jobs
_CANCEL_NEXT = itertools.count()


class RunCancelled(Exception):
    """Raised in a worker whose run was cancelled, at its next progress report."""


def _start_worker(queue, cancelled=None) -> None:
    global _QUEUE, _CANCELLED
    _QUEUE, _CANCELLED = queue, cancelled
    lower_priority()


def lower_priority() -> str:
    """Give this process the lowest scheduling priority there is: it runs on cores nothing else wants.

    Linux's ``SCHED_IDLE`` policy (any user may choose it for their own process) lets
    a page load take a core from a long run at once; elsewhere the process is
    reniced by :data:`NICENESS`. Returns which was done: ``"idle"``, ``"nice"`` or
    ``"none"`` (neither is allowed here).

    Returns
    -------
    str
    """
    if hasattr(os, "sched_setscheduler") and hasattr(os, "SCHED_IDLE"):
        try:
            os.sched_setscheduler(0, os.SCHED_IDLE, os.sched_param(0))
            return "idle"
        except OSError:
            pass
    try:
        os.nice(NICENESS)
        return "nice"
    except OSError:  # not allowed here: run at the server's priority
        return "none"


def _report(job: int, fraction: float) -> None:
    """A worker's progress report, where a cancelled run stops."""
    if _CANCELLED is not None and job in _CANCELLED[:]:
        raise RunCancelled(f"run {job} cancelled")
    _QUEUE.put(("progress", job, float(fraction)))


def _run(job: int, spec, data, methods: bytes = b""):
    pid = os.getpid()
    _QUEUE.put(("start", job, pid))
    try:
        if methods:  # the masking methods registered in the server's process, unpickled here
            from rumap.maps.methods import install_methods

            install_methods(pickle.loads(methods))
        return spec.run(data, progress=lambda fraction: _report(job, fraction))
    finally:
        _QUEUE.put(("end", job, pid))


def _listen(queue) -> None:
    while True:
        kind, job, value = queue.get()
        if kind == "start":
            _BUSY[value] = job
            _PROGRESS[job] = 0.0
        elif kind == "end":
            _BUSY.pop(value, None)
        else:
            _PROGRESS[job] = value


_PAUSE = WorkerPause(busy=lambda: list(_BUSY))
_RUN = threading.local()  # the page that the run in this thread started
atexit.register(_PAUSE.resume)


def page_requested() -> None:
    """A page is requested: the workers computing a map pause (:mod:`dashboard.pause`)."""
    if _BUSY:
        _PAUSE.page_requested()


def page_started() -> int | None:
    """A page has started running: the workers computing a map pause until it is drawn (:mod:`dashboard.pause`).

    Returns the page for :func:`page_finished` (``None``: no worker was busy, nothing paused).
    """
    page = _PAUSE.page_started() if _BUSY else None
    _RUN.page = page  # the run's own thread
    return page


def drawing_takes(seconds: float) -> None:
    """The page running in this thread sends what the browser takes ``seconds`` to draw after the run.

    The workers' pause after the run lasts that long (:meth:`dashboard.pause.WorkerPause.drawing_takes`).
    """
    page = getattr(_RUN, "page", None)
    if page is not None:
        _PAUSE.drawing_takes(page, seconds)


def page_finished(page: int | None) -> None:
    """The run of ``page`` (what :func:`page_started` returned) has finished: the pause ends once it is drawn."""
    if page is not None:
        _PAUSE.page_finished(page)


@contextmanager
def _no_main_module() -> Iterator[None]:
    """Start workers without the running page as their main module.

    A spawned process imports the parent's ``__main__`` by path; while a page
    runs, that is the page's script (Streamlit runs it as ``__main__``), which
    must not run again in a worker. A bare stand-in hides it while processes start.
    """
    main = sys.modules.get("__main__")
    sys.modules["__main__"] = types.ModuleType("__main__")
    try:
        yield
    finally:
        if main is not None:
            sys.modules["__main__"] = main


def _submit(function, *args):
    with _LOCK, _no_main_module():  # the pool starts its processes inside submit
        return _pool().submit(function, *args)


def discard_pool() -> None:
    """Shut the pool down (a worker died): the next run starts a new one."""
    global _POOL
    _PAUSE.resume()
    with _LOCK:
        if _POOL is not None:
            _POOL.shutdown(wait=False, cancel_futures=True)
        _POOL = None
    _BUSY.clear()


def _pool() -> ProcessPoolExecutor:
    global _POOL, _CANCELLED
    if _POOL is None:  # called under _LOCK
        context = multiprocessing.get_context("spawn")  # no copy of the server's threads and sessions
        queue = context.Queue()
        _CANCELLED = context.Array("q", [-1] * CANCEL_SLOTS)
        threading.Thread(target=_listen, args=(queue,), daemon=True, name="rumap-progress").start()
        _POOL = ProcessPoolExecutor(max_workers=WORKERS, mp_context=context, initializer=_start_worker,
                                    initargs=(queue, _CANCELLED))
    return _POOL


def _ready() -> bool:
    """Import what a first run would otherwise wait for, and load the compiled kernels (numba) from their cache."""
    import numpy as np

    from rumap.maps.methods import METHODS
    from rumap.maps.selection import MIN_SAMPLED_ROW
    from rumap.maps.simulation import SimulationConfig, simulate

    x = np.linspace(1.0, 2.0, MIN_SAMPLED_ROW)  # long enough for the order statistics' compiled selection
    simulate(x, SimulationConfig(values=(0.1,), targets=("p10",), knowledge=("position",), replicates=2, seed=1))
    for name, method in METHODS.items():  # every method's kernels, on a few records, at its grid's largest value
        simulate(x[:20], SimulationConfig(method=name, values=(method.grids[0].default_grid[1],), targets=("max",),
                                          knowledge=("index",), replicates=1, seed=1))
    return True


def warm_up() -> None:
    """Start the workers now (they import rumap), so the first long run does not wait for them."""
    try:
        for _ in range(WORKERS):
            _submit(_ready)
    except (BrokenProcessPool, OSError, RuntimeError):  # the first run starts them again
        discard_pool()


@dataclass(frozen=True)
class PoolRun:
    """A run sent to the pool: its job number (for progress and cancelling) and its future."""

    job: int
    future: Future


def submit(spec, data) -> PoolRun:
    """Send ``spec.run(data)`` to a worker and return at once; the run goes on whatever the page does.

    The masking methods registered in this process
    (:func:`rumap.maps.methods.registered_methods`) go with it, pickled here and
    installed in the worker before the run, so that a method registered while
    the server runs is known there; a module a record's functions come from
    that the worker cannot import fails the run, not the worker.

    Parameters
    ----------
    spec : EmpiricalSpec or AnalyticSpec
    data : ndarray or None

    Returns
    -------
    PoolRun
    """
    from rumap.maps.methods import registered_methods

    job = next(_JOBS)
    added = registered_methods()  # a worker holds only the methods its imports define
    methods = pickle.dumps(added) if added else b""
    return PoolRun(job, _submit(_run, job, spec, data, methods))


def progress_of(run: PoolRun) -> float | None:
    """The fraction of ``run`` done, ``None`` while it waits for a free worker.

    Parameters
    ----------
    run : PoolRun

    Returns
    -------
    float or None
    """
    return _PROGRESS.get(run.job)


def cancel(run: PoolRun) -> None:
    """Cancel ``run``: a queued run never starts; a running one stops at its next progress report.

    Parameters
    ----------
    run : PoolRun
    """
    if not run.future.cancel() and _CANCELLED is not None:
        _CANCELLED[next(_CANCEL_NEXT) % CANCEL_SLOTS] = run.job
    _PROGRESS.pop(run.job, None)


def forget(run: PoolRun) -> None:
    """Drop what is kept of a finished run's progress.

    Parameters
    ----------
    run : PoolRun
    """
    _PROGRESS.pop(run.job, None)


def run_in_pool(spec, data, progress: Callable[[float | None], None] | None = None):
    """Run ``spec.run(data)`` in a worker process; returns its result (an exception is raised here).

    Parameters
    ----------
    spec : EmpiricalSpec or AnalyticSpec
    data : ndarray or None
    progress : callable, optional
        Called about twice a second with the fraction done, or ``None``
        while the run waits for a free worker.

    Returns
    -------
    Analysis
    """
    run = None
    try:
        run = submit(spec, data)
        while True:
            if progress is not None:
                progress(progress_of(run))
            if wait([run.future], timeout=POLL).done:
                return run.future.result()
    except BrokenProcessPool:  # a worker died (e.g. out of memory): a new pool next time, this run here
        discard_pool()
        return spec.run(data, progress=progress)
    finally:
        if run is not None:
            forget(run)
