"""The results the dashboard computed, kept so that a page drawn again does not compute them again.

Results on uploaded data stay in the session's cache (``st.session_state``, this browser session's memory
only); those of specifications without uploaded data go to a cache shared by the sessions. A page's own
computation on a table (categorical keys, a table's protection) is kept by :func:`frame_cached`.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any, TypeVar

import numpy as np
import pandas as pd
import streamlit as st

from rumap.fingerprint import BoundedCache, cache_key, frame_digest
from rumap.specs import Analysis

__all__ = ["CACHE", "FIGURES", "cache", "shared_cache", "is_cached", "run_cached", "keep_result", "shared_figures",
           "figure_cached", "digest_cached", "frame_cached"]

T = TypeVar("T")

CACHE = "rumap_cache"


def cache() -> BoundedCache:
    """The session's cache of computed analyses.

    Returns
    -------
    BoundedCache
        The session's cache of results.
    """
    return st.session_state.setdefault(CACHE, BoundedCache(max_entries=24))


_SHARED_LOCK = threading.Lock()


@st.cache_resource
def shared_cache() -> BoundedCache:
    """The results of specifications that use no uploaded data (the home map, the worked examples), for every session.

    Returns
    -------
    BoundedCache
    """
    return BoundedCache(max_entries=64)


def _cache_for(spec) -> BoundedCache:
    """The shared cache for a specification without uploaded data, else the session's own (uploads stay in it)."""
    source = getattr(spec, "data", None)
    drawn_from_data = bool(getattr(spec, "from_data", ()))  # a setting taken from the session's data stays in it
    shared = (source is None and not drawn_from_data) or (source is not None and source.kind == "bundled")
    return shared_cache() if shared else cache()


def _key(spec) -> str:
    return cache_key(spec.data.digest if getattr(spec, "data", None) is not None else None, spec.to_dict())


def is_cached(spec) -> bool:
    """Whether the result of ``spec`` is at hand (drawn without running it again).

    Parameters
    ----------
    spec : AnalyticSpec or EmpiricalSpec

    Returns
    -------
    bool
    """
    return _key(spec) in _cache_for(spec)


def run_cached(spec, data: np.ndarray | None, progress: Callable[[float | None], None] | None = None,
               in_pool: bool = False, compute: Callable[[], Analysis] | None = None) -> Analysis:
    """Run a specification, reusing the result for the same data digest and configuration.

    Results on uploaded data are kept in the session's cache only; those of
    specifications without uploaded data in a cache shared by the sessions.

    Parameters
    ----------
    spec : AnalyticSpec or EmpiricalSpec
    data : ndarray, optional
        The data the specification was made for.
    progress : callable, optional
        Called with the fraction done (``None`` while a pool run waits for a worker).
    in_pool : bool
        Run in a worker process (:func:`dashboard.background.run_in_pool`), for long runs: the server
        keeps drawing the other sessions' pages meanwhile.
    compute : callable, optional
        Gives the result instead of running ``spec`` (one computed already).

    Returns
    -------
    Analysis
    """
    if compute is None and in_pool:
        from dashboard.background import run_in_pool

        def compute() -> Analysis:
            return run_in_pool(spec, data, progress)
    elif compute is None:
        def compute() -> Analysis:
            return spec.run(data, progress=None if progress is None else (lambda f: progress(f)))
    store = _cache_for(spec)
    if store is cache():
        return store.get_or_compute(_key(spec), compute)
    key = _key(spec)  # the shared cache: other sessions' threads use it too
    with _SHARED_LOCK:
        if key in store:
            return store.get_or_compute(key, compute)
    result = compute()  # outside the lock: a long run must not hold up the other sessions
    with _SHARED_LOCK:
        return store.get_or_compute(key, lambda: result)


def keep_result(spec, analysis: Analysis) -> None:
    """Keep the result of ``spec`` computed elsewhere (a run that outlived its page) where :func:`run_cached` finds it.

    Parameters
    ----------
    spec : AnalyticSpec or EmpiricalSpec
    analysis : Analysis
    """
    run_cached(spec, None, compute=lambda: analysis)


#: Session-state key of the session's cache of drawn figures.
FIGURES = "rumap_figures"


@st.cache_resource
def shared_figures() -> BoundedCache:
    """The figures of specifications that use no uploaded data, for every session.

    Returns
    -------
    BoundedCache
    """
    return BoundedCache(max_entries=16)


def figure_cached(spec, build: Callable[[], object]):
    """The figure of ``spec``'s result, built once: a Plotly figure takes 0.1-0.3 s of the server's time to build.

    Kept as the result is (:func:`run_cached`): in a cache shared by the sessions for a
    specification without uploaded data, else in the session's own. Streamlit copies the
    figure it draws; the cached one is not changed.

    Parameters
    ----------
    spec : AnalyticSpec or EmpiricalSpec
    build : callable
        Builds the figure of the result of ``spec``.

    Returns
    -------
    plotly.graph_objects.Figure
    """
    if _cache_for(spec) is cache():
        return st.session_state.setdefault(FIGURES, BoundedCache(max_entries=8)).get_or_compute(_key(spec), build)
    with _SHARED_LOCK:
        return shared_figures().get_or_compute(_key(spec), build)


def digest_cached(digest: str, page: str, what: str, settings: dict[str, Any], compute: Callable[[], T]) -> T:
    """``compute()`` once per session for the data named by ``digest`` and these settings (the session's bounded cache).

    Parameters
    ----------
    digest : str
        Names the data the computation reads: a digest of its values, or of what identifies a file.
    page, what, settings, compute
        As :func:`frame_cached` takes them.

    Returns
    -------
    object
    """
    return cache().get_or_compute(cache_key(digest, {"page": page, "what": what, **settings}), compute)


def frame_cached(frame: pd.DataFrame, page: str, what: str, settings: dict[str, Any], compute: Callable[[], T]) -> T:
    """``compute()`` once per session for these data and settings (the session's bounded cache).

    Keyed on every value of the table (:func:`rumap.fingerprint.frame_digest`), the page, what is
    computed and its settings.

    Parameters
    ----------
    frame : DataFrame
        The data the computation reads.
    page : str
        The page that computes it.
    what : str
        What is computed.
    settings : dict
        Every setting the result depends on.
    compute : callable
        Gives the result.

    Returns
    -------
    object
        ``compute()``'s result, computed now or kept from before.
    """
    return digest_cached(frame_digest(frame), page, what, settings, compute)
