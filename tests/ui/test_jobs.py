"""A simulation outlives its page (dashboard/jobs.py): started in one run of the app, taken in a later one, or cancelled."""

from __future__ import annotations

import time

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from dashboard import background
from rumap.errors import InputError
from rumap.specs import DataSource, EmpiricalSpec


def _spec(x: np.ndarray, replicates: int = 20, chunk_size: int | None = None) -> EmpiricalSpec:
    config = {"method": "noise", "values": [0.1, 0.5, 1.0], "targets": ["max"], "knowledge": ["index"],
              "replicates": replicates, "seed": 7, **({"chunk_size": chunk_size} if chunk_size else {})}
    return EmpiricalSpec(simulation=config, data=DataSource.of("upload", "x.csv", ["x"], x), max_risk=1.0)


def _script() -> None:
    """A page that starts its run when asked, and follows it only when asked (else it is "left")."""
    import streamlit as st

    from dashboard import jobs, state

    spec, x = st.session_state["test_spec"], st.session_state["test_x"]
    if st.session_state.get("test_start"):
        st.session_state["test_start"] = False
        jobs.start("empirical", spec, x)
    if st.session_state.get("test_cancel"):
        st.session_state["test_cancel"] = False
        st.write(f"cancelled: {jobs.cancel('empirical')}")
    st.write(f"running: {jobs.running('empirical') is not None}")
    if st.session_state.get("test_follow"):
        seen = st.session_state.setdefault("test_seen", [])
        analysis = jobs.follow("empirical", lambda fraction, seconds: seen.append(fraction))
        st.write(f"followed: {analysis is not None}; cached: {state.is_cached(spec)}")
        st.session_state["test_result"] = analysis


def _texts(at: AppTest) -> list[str]:
    return [m.value for m in at.markdown]


@pytest.fixture()
def x() -> np.ndarray:
    return np.random.default_rng(3).normal(10.0, 2.0, size=(300, 1))


def test_a_run_left_by_its_page_is_there_when_the_page_returns(x):
    spec = _spec(x)
    at = AppTest.from_function(_script, default_timeout=120)
    at.session_state["test_spec"], at.session_state["test_x"] = spec, x
    at.session_state["test_start"] = True
    at.run()  # the page starts the run and is left at once: nothing waits for it
    assert "running: True" in _texts(at)
    job = at.session_state["rumap_jobs"]["empirical"]
    job.run.future.result(timeout=120)  # meanwhile the worker finishes it
    at.session_state["test_follow"] = True
    at.run()  # the page is drawn again
    assert not at.exception, [e.value for e in at.exception]
    assert "followed: True; cached: True" in _texts(at)
    here = spec.run(x)
    result = at.session_state["test_result"]
    for a, b in zip(result.maps, here.maps, strict=True):
        np.testing.assert_array_equal(a.risk, b.risk)
    np.testing.assert_array_equal(result.common.utility, here.common.utility)
    at.run()
    assert "running: False" in _texts(at)  # taken once


def test_a_cancelled_run_stops_and_is_forgotten(x):
    big = np.random.default_rng(4).normal(10.0, 2.0, size=(3000, 1))
    spec = _spec(big, replicates=400, chunk_size=1)  # a progress report per replicate: it stops at the next one
    at = AppTest.from_function(_script, default_timeout=120)
    at.session_state["test_spec"], at.session_state["test_x"] = spec, big
    at.session_state["test_start"] = True
    at.run()
    job = at.session_state["rumap_jobs"]["empirical"]
    deadline = time.monotonic() + 120
    while background.progress_of(job.run) is None and time.monotonic() < deadline:  # until it is computing
        time.sleep(0.05)
    at.session_state["test_cancel"] = True
    at.run()
    assert "cancelled: True" in _texts(at) and "running: False" in _texts(at)
    with pytest.raises((background.RunCancelled, Exception)) as caught:
        job.run.future.result(timeout=120)
    assert type(caught.value).__name__ in ("RunCancelled", "CancelledError")


def test_a_new_run_for_other_settings_replaces_the_old_one(x):
    from dashboard import jobs

    at = AppTest.from_function(_script, default_timeout=120)
    at.session_state["test_spec"], at.session_state["test_x"] = _spec(x), x
    at.session_state["test_start"] = True
    at.run()
    first = at.session_state["rumap_jobs"]["empirical"]
    assert isinstance(first, jobs.Job) and first.is_for(_spec(x)) and not first.is_for(_spec(x, replicates=21))
    at.session_state["test_spec"] = _spec(x, replicates=21)
    at.session_state["test_start"] = True
    at.session_state["test_follow"] = True
    at.run()
    assert "followed: True; cached: True" in _texts(at)
    assert at.session_state["test_result"].spec.simulation.replicates == 21


def test_a_refused_run_raises_its_error_and_never_shows_waiting(x):
    bad = x.copy()
    bad[5, 0] = np.nan  # the worker refuses the data
    at = AppTest.from_function(_script, default_timeout=120)
    at.session_state["test_spec"], at.session_state["test_x"] = _spec(bad), bad
    at.session_state["test_start"] = True
    at.run()
    job = at.session_state["rumap_jobs"]["empirical"]
    with pytest.raises(InputError):
        job.run.future.result(timeout=120)
    at.session_state["test_follow"] = True
    at.run()
    assert at.exception  # the page's errors_shown turns it into an error box
    assert at.session_state["test_seen"] == []  # no "waiting for a free worker" for a run already refused
    assert "empirical" not in at.session_state["rumap_jobs"]  # and it is forgotten
