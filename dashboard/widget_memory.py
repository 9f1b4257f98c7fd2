"""What the session's widgets hold, kept across pages: Streamlit forgets the widgets of a page not shown.

The values live in ``st.session_state`` (this browser session's memory only).
"""

from __future__ import annotations

import streamlit as st

__all__ = ["STORE", "init_widget", "keep_shown", "remember", "set_widgets"]

#: Session-state key of the widgets' remembered values.
STORE = "rumap_widgets"


def init_widget(key: str, default) -> None:
    """Give a widget its remembered value (or ``default``) before it is drawn, and send it to the browser.

    Streamlit forgets the state of widgets on pages that are not shown; the
    values are kept in a separate store so they survive a change of page.

    The value is written into the session's state on every run, also when it is
    already there: only a value written so reaches the browser with the widget.
    A run that stops early (``st.stop()``, an error) before drawing a widget
    leaves its value on the server, but the browser removes the widget; drawn
    again, it would show the widget's own default (an empty multiselect, an
    unticked box) and send that back with the next click.

    Parameters
    ----------
    key : str
    default
        The value before the user sets one.

    Examples
    --------
    >>> init_widget("em_targets", ["max", "p99"])  # doctest: +SKIP
    """
    keep_shown(key, st.session_state.setdefault(STORE, {}).get(key, default))


def keep_shown(key: str, default) -> None:
    """Write a widget's value (or ``default``) before it is drawn, so that the browser shows it (see :func:`init_widget`).

    For a widget whose value is forgotten when its page is left, drawn below a point where a run can
    stop; draw it without ``value`` or ``index`` (the value comes from the session).

    Parameters
    ----------
    key : str
    default
        The value before the user sets one.

    Examples
    --------
    >>> keep_shown("report_include_data", False)  # doctest: +SKIP
    """
    st.session_state[key] = st.session_state[key] if key in st.session_state else default


def remember(*keys: str) -> None:
    """Save the widgets' current values so they survive a change of page."""
    store = st.session_state.setdefault(STORE, {})
    for key in keys:
        if key in st.session_state:
            store[key] = st.session_state[key]


def set_widgets(values: dict) -> None:
    """Set widgets' values (e.g. from an example) for the next time their page is drawn.

    Parameters
    ----------
    values : dict
        Widget key -> value.
    """
    store = st.session_state.setdefault(STORE, {})
    for key, value in values.items():
        store[key] = value
        st.session_state.pop(key, None)
