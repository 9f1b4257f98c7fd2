"""AppTest runs the app as the server does: every run executes ``app.py``, which hands over to the page.

AppTest forgets after each run that the app chose its pages with ``st.navigation``; an
app beside a ``pages`` folder then has its later runs execute the chosen page's file
alone (Streamlit's first multipage scheme), skipping ``app.py``. The server keeps
that choice once made, so here too a new session's pages manager is told at once.
"""

from __future__ import annotations

import pytest
from streamlit.runtime.pages_manager import PagesManager


@pytest.fixture(autouse=True)
def app_runs_every_time(monkeypatch):
    original = PagesManager.__init__

    def init(self, *args, **kwargs) -> None:
        original(self, *args, **kwargs)
        PagesManager.uses_pages_directory = False  # the app calls st.navigation

    monkeypatch.setattr(PagesManager, "__init__", init)
