"""A session survives a reload: its state is kept in the server's memory under a random key in the page's address.

A reload (F5) starts a new Streamlit session, whose ``st.session_state`` is
empty. Each session gets an unguessable key (:func:`secrets.token_urlsafe`,
32 bytes) put in its address as ``?session=KEY``; at the end of every run the
state worth restoring (:data:`KEPT`: the session's data, its chosen columns,
a page's second file, the kept maps, the release plan and the remembered
widget values) is noted in :data:`STORE`, a dictionary of this server process,
by reference (nothing is copied or serialised, and nothing is ever written to
disk, the browser's included). A new session whose address carries a known key
takes that state over and says so; an unknown key is said to be unknown, and
why (expired, evicted, or the server restarted), instead of silently showing
the bundled example.

Bounds: a closed session's state is dropped :data:`LIFETIME` seconds after its
last run (30 minutes), and at most :data:`MAX_CLOSED` closed sessions holding at
most :data:`MAX_BYTES` of tables and arrays together are kept (the least recently
used dropped first). A session still open is never dropped: its memory is its own.

The key is a bearer secret: whoever has the address can open the session until
it is dropped. It is never logged (the server runs without an access log, and
this module logs nothing), but it is in the browser's history with the address.

While a plan or a kept map exists the page asks before it is left or reloaded
(:func:`unload_guard`).
"""

from __future__ import annotations

import copy
import dataclasses
import hashlib
import secrets
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
import streamlit as st
from streamlit.runtime.scriptrunner import get_script_run_ctx

from dashboard import files, forms, release_plan, risk_bound, state
from dashboard.markdown import plain

#: The address's query parameter that carries the key.
PARAM = "session"
#: Seconds a closed session's state is kept after its last run.
LIFETIME = 30 * 60
#: At most this many closed sessions are kept ...
MAX_CLOSED = 16
#: ... holding at most this many bytes of tables and arrays together (the oldest dropped first).
MAX_BYTES = 1 << 30
#: The session-state entries restored after a reload.
KEPT = (state.DATA, state.SELECTION, state.REFUSED, "rumap_default_tried", files.KEPT_FILES, files.SOURCE_WIDGETS,
        state.ANALYSES, state.CURRENT, "rumap_name_hints", release_plan.PLAN, release_plan.HISTORY, state.STORE,
        risk_bound.BOUNDS, risk_bound.SYNCED, forms.PREFILLED, "rumap_empirical_prefilled_for")
#: Session-state keys: this session's key, and the notice shown on arrival (its text, the page it is shown on).
KEY, NOTICE = "rumap_resume_key", "rumap_resume_notice"
#: How many dropped keys are remembered (by digest) to say why they can no longer be restored.
GONE_KEPT = 1000
#: The element that carries the unload guard, hidden.
GUARD = "rumap_unload_guard"


def _clock() -> float:
    return time.monotonic()


@dataclass
class Entry:
    """A session's state in the store: its values, the Streamlit session that holds it, when it was last used."""

    values: dict
    session_id: str
    used: float
    size: int | None = field(default=None)  # measured once the session is closed


#: Key -> the state of its session (a dictionary of this process: nothing of it is ever written anywhere).
STORE: OrderedDict[str, Entry] = OrderedDict()
#: Digest of a dropped key -> why it was dropped.
GONE: OrderedDict[str, str] = OrderedDict()
_LOCK = threading.Lock()
_SWEEPER: list[threading.Thread] = []


def _digest(key: str) -> str:
    return hashlib.sha256(key.encode()).hexdigest()


def _open(session_id: str) -> bool:
    """Whether the Streamlit session is still open (connected to a browser)."""
    from streamlit.runtime import Runtime

    return Runtime.exists() and Runtime.instance().is_active_session(session_id) is True  # not a test's mock


def _copy(values: dict) -> dict:
    """The values with their lists and dictionaries copied (one level): two sessions never share a container."""
    return {k: copy.copy(v) if isinstance(v, list | dict) else v for k, v in values.items()}


def _size(value, depth: int = 0) -> int:
    """The bytes of the tables and arrays in ``value`` (its dataclasses, lists and dictionaries, 6 levels deep)."""
    if isinstance(value, pd.DataFrame | pd.Series):
        return int(np.sum(value.memory_usage(index=True, deep=True)))
    if isinstance(value, np.ndarray):
        return int(value.nbytes)
    if depth >= 6:
        return 0
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        parts = [getattr(value, f.name, None) for f in dataclasses.fields(value)]
    elif isinstance(value, dict):
        parts = list(value.values())
    elif isinstance(value, list | tuple):
        parts = list(value)
    else:
        return 0
    return sum(_size(part, depth + 1) for part in parts)


def _drop(key: str, why: str) -> None:
    STORE.pop(key, None)
    GONE[_digest(key)] = why
    while len(GONE) > GONE_KEPT:
        GONE.popitem(last=False)


def prune(now: float | None = None) -> None:
    """Drop the closed sessions' states past :data:`LIFETIME`, then the oldest beyond the bounds."""
    now = _clock() if now is None else now
    with _LOCK:
        closed = []
        for key, entry in list(STORE.items()):
            if _open(entry.session_id):
                entry.used = now
            elif now - entry.used > LIFETIME:
                _drop(key, "expired")
            else:
                closed.append((entry.used, key, entry))
        closed.sort(key=lambda item: item[0])
        for _, _, entry in closed:
            if entry.size is None:
                entry.size = _size(entry.values)
        total = sum(entry.size for _, _, entry in closed)
        while closed and (len(closed) > MAX_CLOSED or total > MAX_BYTES):
            _, key, entry = closed.pop(0)
            total -= entry.size
            _drop(key, "evicted")


def _sweep() -> None:
    """Prune once a minute, so a closed session's state goes on time also when no other session runs."""
    while True:
        time.sleep(60)
        prune()


def save() -> None:
    """Note this session's state worth restoring under its key (at the end of every run)."""
    ctx = get_script_run_ctx()
    if ctx is None:
        return
    # read without a yield point: after st.stop() every st.session_state access raises StopException again
    session = ctx.session_state.filtered_state
    key = session.get(KEY)
    if key is None:
        return
    values = _copy({k: session[k] for k in KEPT if k in session})
    with _LOCK:
        STORE[key] = Entry(values, ctx.session_id, _clock())
        STORE.move_to_end(key)
        if not _SWEEPER:
            _SWEEPER.append(threading.Thread(target=_sweep, name="rumap-resume-sweep", daemon=True))
            _SWEEPER[0].start()
    prune()


def _minutes() -> str:
    return f"{LIFETIME // 60} minutes"


def _why(key: str) -> str:
    why = GONE.get(_digest(key))
    if why == "expired":
        return f"it expired: a closed session is kept for {_minutes()} after its last use"
    if why == "evicted":
        return (f"the server needed the memory for newer sessions (it keeps at most {MAX_CLOSED} closed sessions, "
                f"{MAX_BYTES // 2**20} MB of data together)")
    return "this server does not know its key: it has been restarted since, or the address is not one it gave out"


def restored_summary(values: dict) -> str:
    """What a restored session holds, in words (Markdown showing names as plain text): data, kept maps, plan."""
    data = values.get(state.DATA)
    parts = [f"data {plain(data.name)}" if data is not None else "no data"]
    kept = len(values.get(state.ANALYSES, []))
    parts.append(f"{kept} kept map{'s' if kept != 1 else ''}")
    plan = len(values.get(release_plan.PLAN, []))
    if plan:
        parts.append(f"a release plan of {plan} step{'s' if plan != 1 else ''}")
    return ", ".join(parts)


def begin() -> bool:
    """Give the session its key (in the address) and, on its first run, restore what the address's key names.

    Call before anything reads the session's state; the notice it leaves is drawn by :func:`show_notice`.

    Returns
    -------
    bool
        Whether this is the session's first run.
    """
    key = st.session_state.get(KEY)
    first = key is None
    if first:
        key = _arrive(st.query_params.get(PARAM))
        st.session_state[KEY] = key
    if st.query_params.get(PARAM) != key:  # a new session, or a change of page that left the address without it
        st.query_params[PARAM] = key
    return first


def _arrive(asked: str | None) -> str:
    """The key of a new session: the one asked for if its state is kept (which is restored), else a new one."""
    if not asked:
        return secrets.token_urlsafe(32)
    prune()
    with _LOCK:
        entry = STORE.get(asked)
        values = _copy(entry.values) if entry is not None else None
        shared = entry is not None and _open(entry.session_id)  # the address opened in a second tab
    if values is None:
        st.session_state[NOTICE] = ("warning", f"Your earlier session could not be restored: {_why(asked)}. "
                                    "Showing the bundled example data; upload your file again.")
        return secrets.token_urlsafe(32)
    st.session_state.update(values)
    st.session_state[NOTICE] = ("info", f"Restored your session: {restored_summary(values)}. It is kept in this "
                                f"server's memory only, for {_minutes()} after its last use; the address holds its "
                                "key, so share it with no one.")
    return secrets.token_urlsafe(32) if shared else asked


def show_notice(page: str) -> None:
    """Draw the notice of the session's arrival (restored, or why not) while it stays on the page it arrived on.

    Parameters
    ----------
    page : str
        The page drawn in this run (its URL path).
    """
    notice = st.session_state.get(NOTICE)
    if notice is None:
        return
    if len(notice) == 2:  # the first run: the notice belongs to this page
        notice = st.session_state[NOTICE] = (*notice, page)
    kind, text, shown_on = notice
    if shown_on != page:
        st.session_state.pop(NOTICE, None)
        return
    (st.info if kind == "info" else st.warning)(text)


def unsaved() -> bool:
    """Whether leaving the page would leave work behind: a release plan or a kept map."""
    return bool(st.session_state.get(release_plan.PLAN) or st.session_state.get(state.ANALYSES))


#: Registered once per browser page: asks before leaving while the guard element says "on".
_GUARD_SCRIPT = """<span data-rumap-guard="{flag}"></span><script>
if (!window.rumapGuard) {{
  window.rumapGuard = true;
  window.addEventListener("beforeunload", (event) => {{
    if (document.querySelector('[data-rumap-guard="on"]')) {{ event.preventDefault(); event.returnValue = ""; }}
  }});
}}
</script>"""


def unload_guard():
    """A hidden element whose script asks the browser to confirm leaving while :func:`unsaved`; returns its slot.

    Fill it again with :func:`set_guard` after the page has run (a map kept or a step planned in this run).
    """
    st.html(f"<style>.st-key-{GUARD} {{display: none;}}</style>")
    with st.container(key=GUARD):
        slot = st.empty()
    set_guard(slot)
    return slot


def set_guard(slot) -> None:
    """Say in ``slot`` whether leaving is to be confirmed now."""
    slot.html(_GUARD_SCRIPT.format(flag="on" if unsaved() else "off"), unsafe_allow_javascript=True)
