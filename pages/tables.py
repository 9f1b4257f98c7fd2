"""Tables: sensitivity rules, the dominance rule's flaw, a posteriori risk of protected tables, protection.

Runs on its own (``python -m streamlit run pages/tables.py`` from the project's root) or as a page of
``app.py``. Each tab is a module of ``dashboard/``: it reads its settings with small functions that return
plain values, builds the specification it runs, shows the result, and offers the Python (and, where there
is one, the ``python -m rumap`` command) generated from that specification.
"""

from __future__ import annotations

import streamlit as st

from dashboard.table_ckm import ckm_section
from dashboard.table_dp import dp_section
from dashboard.table_flaw import flaw_section
from dashboard.table_hierarchies import hierarchical_section
from dashboard.table_linked import linked_section
from dashboard.table_protection import microdata_section
from dashboard.table_redesign import redesign_section
from dashboard.table_rounding import rounding_section
from dashboard.table_rules import rules_section
from dashboard.table_suppressed import suppression_section
from dashboard.widgets import tabbed_sections

#: The key of the page's tabs (``st.session_state[TAB_KEY]`` is the open tab's title).
TAB_KEY = "tables_tab"

SECTIONS = {
    "Sensitivity rules": rules_section,
    "Dominance flaw": flaw_section,
    "Suppressed cells": suppression_section,
    "Redesign": redesign_section,
    "Linked tables": linked_section,
    "Rounding R-U map": rounding_section,
    "From microdata": microdata_section,
    "Hierarchical tables": hierarchical_section,
    "Differential privacy": dp_section,
    "Cell key method": ckm_section,
}

st.title("Tables: sensitivity rules and a posteriori disclosure risk")
st.caption("Domingo-Ferrer & Torra (2004), Section 3; Domingo-Ferrer, Oganian & Torra, Sections 2-4.")
tabbed_sections(SECTIONS, TAB_KEY)
