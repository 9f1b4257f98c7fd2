"""Shared by the dashboard tests: the text a Markdown element shows, the reproduce panels opened."""

from __future__ import annotations

import re


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
