"""The tables page (pages/tables.py) run headless with streamlit's AppTest."""

from __future__ import annotations

import pytest
from cli_helpers import ROOT
from streamlit.testing.v1 import AppTest
from ui_helpers import shown

PAGE = str(ROOT / "pages" / "tables.py")


@pytest.fixture
def page():
    """A fresh run of the page for each test (tests change its widgets)."""
    at = AppTest.from_file(PAGE, default_timeout=180)
    at.run()
    return at


def _metric(at, label: str) -> str:
    return next(m.value for m in at.metric if m.label == label)


def _markdown_with(at, fragment: str) -> str:
    return next(shown(m.value) for m in at.markdown if fragment in m.value)


def test_runs_without_exception_or_error(page):
    assert not page.exception
    assert [shown(e.value) for e in page.error] == []
    assert len(page.tabs) == 6
    assert _metric(page, "r (Lemma 1)") == "0.900010"  # Example 2: n = 1, k = 0.369, N = 3
    assert _metric(page, "tail of X_ns (not sensitive)") == "0.298896"
    assert _metric(page, "largest cell risk") == "0.1154"  # Table 1: 1/log2 407
    assert "cells sensitive" in _markdown_with(page, "cells sensitive")


def test_flaw_sliders_change_the_construction(page):
    page.slider(key="flaw_n").set_value(2)
    page.slider(key="flaw_cells").set_value(10)
    page.slider(key="flaw_k").set_value(0.7).run()
    assert not page.exception and [shown(e.value) for e in page.error] == []
    assert _metric(page, "r (Lemma 1)") != "0.900010"
    assert any("Theorem 1 holds for N = 10" in shown(w.value) for w in page.warning)
    # an impossible combination is an error box, not a traceback
    page.slider(key="flaw_n").set_value(1)
    page.slider(key="flaw_cells").set_value(3)
    page.slider(key="flaw_k").set_value(0.2).run()
    assert not page.exception
    assert any("must exceed n/N" in shown(e.value) for e in page.error)
    page.slider(key="flaw_k").set_value(0.369).run()
    assert [shown(e.value) for e in page.error] == []


def test_rule_choice_changes_sensitive_cells(page):
    before = _markdown_with(page, "cells sensitive")
    page.selectbox(key="rule").set_value("p-percent").run()
    after = _markdown_with(page, "cells sensitive")
    assert before != after and "A" in after


def test_insider_contribution_changes_the_range(page):
    page.number_input(key="insider_own").set_value(300.0).run()
    assert "0 .. 106" in _markdown_with(page, "for the insider")
    page.number_input(key="insider_own").set_value(100.0).run()
    assert "0 .. 306" in _markdown_with(page, "for the insider")


def test_releasing_more_projections_raises_risk(page):
    risks = [m.value for m in page.metric if m.label == "mean cell risk"]
    page.multiselect(key="linked_released").set_value(["AS"]).run()
    fewer = [m.value for m in page.metric if m.label == "mean cell risk"]
    assert not page.exception and risks[-1] != fewer[-1]
    assert float(fewer[-1]) < float(risks[-1])
