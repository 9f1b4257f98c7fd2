"""Shared by the dashboard tests: the text a Markdown element shows, the reproduce panels opened."""

from __future__ import annotations

import base64
import re

import numpy as np


def plotly_array(value) -> list:
    """A trace's coordinates as a list: Plotly writes numpy arrays as base64 typed arrays."""
    if isinstance(value, dict) and "bdata" in value:
        return np.frombuffer(base64.b64decode(value["bdata"]), dtype=np.dtype(value["dtype"])).tolist()
    return list(value)


def shown(markdown: str) -> str:
    """The text Markdown with backslash escapes shows (user-supplied names are escaped by ``dashboard.markdown``)."""
    return re.sub(r"\\(.)", r"\1", markdown)


def open_reproduce_panels(at):
    """Open every reproduce panel on the page (their code is drawn only while open) and run the page again."""
    from dashboard.widgets import REPRODUCE_KEY

    keys = [panel.key for panel in at.expander if (panel.key or "").startswith(REPRODUCE_KEY)]
    assert keys, "no reproduce panel on this page"
    for key in keys:
        at.session_state[key] = True
    return at.run()


def app_test(timeout: float = 120):
    """A new session of ``app.py`` run once (its home page), without an exception."""
    from pathlib import Path

    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(str(Path(__file__).resolve().parent.parent / "app.py"), default_timeout=timeout)
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def goto(at, page: str):
    """Switch the app to ``pages/{page}.py`` and run it, without an exception."""
    at.switch_page(f"pages/{page}.py").run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def open_tab(at, title: str, key: str = "tables_tab"):
    """Open the tab ``title`` of a page whose tabs draw the open one only (the Tables page's by default), run the page."""
    at.session_state[key] = title
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at
