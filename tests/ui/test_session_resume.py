"""A reload restores the session from the server's memory, under the key in its address (dashboard/resume.py).

Each ``AppTest`` is a new session, as a reload is: one that carries the first's
``?session=`` key gets its data, kept maps, plan and settings back; one whose key
expired, was evicted or is unknown says so instead of silently showing the example.
"""

from __future__ import annotations

import io
from pathlib import Path

import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest
from ui_helpers import shown

from dashboard import release_plan, resume
from dashboard.markdown import plain
from dashboard.state import ANALYSES, DATA, LoadedData
from rumap.io.data import BUNDLED_DATA
from rumap.release.plan import Step

ROOT = Path(__file__).resolve().parents[2]
APP = str(ROOT / "app.py")
#: A file name that Markdown would draw as an image fetched from elsewhere.
NAME = "![f](http:127.0.0.1:9).csv"
SURVEY = BUNDLED_DATA["survey (synthetic, households and weights)"].read_bytes()


@pytest.fixture(autouse=True)
def empty_store():
    resume.STORE.clear()
    resume.GONE.clear()
    yield
    resume.STORE.clear()
    resume.GONE.clear()


def _run(at: AppTest) -> AppTest:
    return _ok(at.run())


def _ok(at: AppTest) -> AppTest:
    assert not at.exception, [e.value for e in at.exception]
    assert not at.error, [shown(e.value) for e in at.error]
    return at


def _reload(key: str) -> AppTest:
    """A new session whose address carries ``key`` (what a reload of the first session's page is)."""
    at = AppTest.from_file(APP, default_timeout=180)
    at.query_params[resume.PARAM] = key
    return _run(at)


def _goto(at: AppTest, page: str) -> AppTest:
    at.switch_page(f"pages/{page}.py")
    return _run(at)


def _guard(at: AppTest) -> str:
    (body,) = [e.proto.body for e in at.get("html") if "data-rumap-guard" in e.proto.body]
    return body.split('data-rumap-guard="')[1].split('"')[0]


def _notices(at: AppTest) -> str:
    return " ".join(shown(e.value) for e in [*at.info, *at.warning])


def test_a_reload_restores_the_upload_kept_maps_plan_and_settings():
    at = _run(AppTest.from_file(APP, default_timeout=180))
    key = at.query_params[resume.PARAM]
    assert len(key) >= 40 and not _notices(at)
    at.session_state[DATA] = LoadedData("upload", "mine.csv", pd.read_csv(io.BytesIO(SURVEY)), "digest")
    _goto(at, "analytic")
    assert _guard(at) == "off"
    at.session_state[release_plan.PLAN] = [Step("rankswap", {"swap_percent": 5.0}, columns=["income"], seed=2)]
    _ok(at.number_input(key="an_sigma2").set_value(2.5).run())
    at.text_input(key="analytic_name").set_value("my map")
    _ok(at.button(key="analytic_keep").click().run())
    assert _guard(at) == "on"  # the browser asks before the page is left

    again = _reload(key)
    assert again.session_state[DATA].name == "mine.csv"
    assert [a.name for a in again.session_state[ANALYSES]] == ["my map"]
    assert [s.method for s in again.session_state[release_plan.PLAN]] == ["rankswap"]
    assert again.session_state[release_plan.PLAN] is not at.session_state[release_plan.PLAN]  # no shared list
    assert again.query_params[resume.PARAM] == key  # the same address goes on working
    assert ("Restored your session: data mine.csv, 1 kept map, a release plan of 1 step. It is kept in this "
            "server's memory only, for 30 minutes after its last use") in _notices(again)
    assert _guard(again) == "on"
    _goto(again, "analytic")
    assert again.number_input(key="an_sigma2").value == 2.5
    assert "Restored" not in _notices(again)  # said once, on arrival


def _closed_session(key: str, used: float) -> None:
    """A closed session's state in the store, as its last run left it: an upload."""
    data = LoadedData("upload", NAME, pd.DataFrame({"income": [1.0, 2.0]}), "digest")
    resume.STORE[key] = resume.Entry({DATA: data, ANALYSES: []}, "a closed session", used)


@pytest.mark.parametrize(("why", "said"), [
    ("expired", "it expired: a closed session is kept for 30 minutes after its last use"),
    ("evicted", "the server needed the memory for newer sessions (it keeps at most 1 closed sessions"),
    ("unknown", "this server does not know its key: it has been restarted since"),
    ("kept", None),
])
def test_a_session_that_cannot_be_restored_says_why_on_arrival(monkeypatch, why, said):
    now = resume._clock()
    _closed_session("mine", now - 60)
    monkeypatch.setattr(resume, "MAX_CLOSED", 1)
    if why == "expired":
        monkeypatch.setattr(resume, "_clock", lambda: now + resume.LIFETIME)
    elif why == "evicted":
        _closed_session("newer", now - 30)
    again = _reload("an-address-this-server-never-gave-out" if why == "unknown" else "mine")
    if said is None:
        assert again.session_state[DATA].name == NAME
        (notice,) = [i.value for i in again.info if "Restored" in i.value]
        assert f"Restored your session: data {plain(NAME)}, 0 kept maps." in notice  # the name as plain text
        return
    assert f"Your earlier session could not be restored: {said}" in _notices(again)
    assert "Showing the bundled example data; upload your file again." in _notices(again)
    assert again.session_state[DATA].kind == "bundled"
    assert again.query_params[resume.PARAM] not in ("mine", "")  # a new key for the new session


def test_an_address_opened_while_its_session_is_open_gets_a_copy_under_a_new_key(monkeypatch):
    _closed_session("mine", resume._clock())
    monkeypatch.setattr(resume, "_open", lambda session_id: True)  # the first tab is still open
    again = _reload("mine")
    assert "Restored your session" in _notices(again)
    assert again.query_params[resume.PARAM] != "mine" and "mine" in resume.STORE  # each tab goes on with its own


def test_the_closed_sessions_kept_are_bounded_in_number_and_bytes_the_oldest_dropped_first(monkeypatch):
    frame = pd.DataFrame({"x": range(1000)})  # 8,000 bytes of values
    for i, used in enumerate([3.0, 1.0, 2.0, 4.0]):
        data = LoadedData("upload", f"f{i}.csv", frame, str(i))
        resume.STORE[f"k{i}"] = resume.Entry({DATA: data}, "closed", used)
    monkeypatch.setattr(resume, "MAX_BYTES", 3 * resume._size(frame))
    resume.prune(now=5.0)
    assert list(resume.STORE) == ["k0", "k2", "k3"]  # the least recently used went first
    monkeypatch.setattr(resume, "MAX_CLOSED", 1)
    resume.prune(now=5.0)
    assert list(resume.STORE) == ["k3"]
    resume.prune(now=4.0 + resume.LIFETIME + 0.5)
    assert not resume.STORE and resume.GONE[resume._digest("k3")] == "expired"


def test_a_run_that_stops_early_is_saved_too():
    at = _run(AppTest.from_file(APP, default_timeout=180))
    key = at.query_params[resume.PARAM]
    _goto(at, "analytic")
    at.session_state[release_plan.PLAN] = [Step("rankswap", {"swap_percent": 5.0}, columns=["income"], seed=2)]
    at.multiselect(key="an_states").set_value([]).run()  # the page stops early (st.stop) after the plan was made
    assert not at.exception and at.info
    again = _reload(key)
    assert [s.method for s in again.session_state[release_plan.PLAN]] == ["rankswap"]
