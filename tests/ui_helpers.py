"""Shared by the dashboard tests: the text a Markdown element shows."""

from __future__ import annotations

import re


def shown(markdown: str) -> str:
    """The text Markdown with backslash escapes shows (user-supplied names are escaped by ``dashboard.markdown``)."""
    return re.sub(r"\\(.)", r"\1", markdown)
