"""rumap dashboard: R-U confidentiality maps in the browser (``make run``).

The entry point: it sets up the session (data in memory only) and hands over
to the page chosen in the navigation. Each page is a file in ``pages/``; adding
a page is one line in :data:`PAGES`.
"""

from __future__ import annotations

from pathlib import Path

import streamlit as st

from dashboard import jobs, resume, state
from dashboard.background import page_finished, page_started, warm_up
from dashboard.uploads import keep_uploads_in_memory
from dashboard.widgets import app_style

keep_uploads_in_memory()  # `make run` does this before the server starts; this covers `streamlit run app.py`
#: The page icon is a local file: a Material or emoji icon would make the browser fetch it from a font host.
ICON = Path(__file__).resolve().parent / "dashboard" / "assets" / "icon.png"
st.set_page_config(page_title="rumap: R-U confidentiality maps", page_icon=str(ICON), layout="wide")

#: (file, title, icon) of every page, in menu order; the first is the home page.
PAGES = [
    ("pages/home.py", "Home", ":material/home:"),
    ("pages/data.py", "Data", ":material/table:"),
    ("pages/analytic.py", "Analytic map", ":material/functions:"),
    ("pages/empirical.py", "Empirical map", ":material/casino:"),
    ("pages/risk_measures.py", "Linkage & interval risk", ":material/link:"),
    ("pages/identity.py", "Identity risk", ":material/fingerprint:"),
    ("pages/categorical.py", "Categorical keys", ":material/category:"),
    ("pages/tables.py", "Tables", ":material/grid_on:"),
    ("pages/databases.py", "Queries & granularity", ":material/query_stats:"),
    ("pages/compare.py", "Compare", ":material/compare:"),
    ("pages/pareto.py", "Pareto", ":material/trending_down:"),
    ("pages/report.py", "Report", ":material/description:"),
    ("pages/release.py", "Release", ":material/publish:"),
    ("pages/presentation.py", "Presentation", ":material/slideshow:"),
]

first_run = resume.begin()  # a reloaded session takes its state back from the server's memory
if state.ensure_default_data() or first_run:  # a new session: have the workers for long runs ready
    warm_up()
page_run = page_started()  # the maps being computed give way while this page runs and is drawn
try:
    app_style()
    # expanded: every page listed (by default the sidebar folds pages past ten under "View N more")
    page = st.navigation([st.Page(path, title=title, icon=icon, default=(i == 0))
                          for i, (path, title, icon) in enumerate(PAGES)], expanded=True)
    jobs.show_running(page.url_path)  # a simulation left running on its page goes on
    resume.show_notice(page.url_path)
    guard = resume.unload_guard()  # the browser asks before leaving while a plan or a kept map exists
    page.run()
    resume.set_guard(guard)  # a map kept or a step planned in this run
finally:  # also when the run stops early or a newer run replaces it
    try:
        resume.save()
    finally:
        page_finished(page_run)
