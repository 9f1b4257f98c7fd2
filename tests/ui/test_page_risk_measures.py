"""The record-linkage / interval-disclosure page (pages/risk_measures.py) runs on its own."""

from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest
from ui_helpers import shown

PAGE = str(Path(__file__).resolve().parents[2] / "pages" / "risk_measures.py")


def share(at: AppTest, label: str) -> float:
    return float(next(m.value for m in at.metric if m.label == label).rstrip("%")) / 100


@pytest.fixture()
def app() -> AppTest:
    at = AppTest.from_file(PAGE, default_timeout=120).run()
    assert not at.exception, at.exception
    assert not at.error, [shown(e.value) for e in at.error]
    return at


def test_runs_on_the_example(app):
    assert 0 < share(app, "linked correctly") < 1
    assert 0 < share(app, "original values inside their interval") < 1


def test_more_noise_lowers_both_risks(app):
    linked, inside = share(app, "linked correctly"), share(app, "original values inside their interval")
    app.select_slider(key="risk_noise").set_value(1.0).run()
    assert not app.exception
    assert share(app, "linked correctly") < linked
    assert share(app, "original values inside their interval") < inside
    app.select_slider(key="risk_noise").set_value(0.0).run()
    assert share(app, "original values inside their interval") == 1.0


def test_probabilistic_linkage_shows_m_and_u(app):
    app.radio(key="risk_method").set_value("probabilistic").run()
    assert not app.exception and not app.error
    assert 0 <= share(app, "linked correctly") <= 1
    assert any("m" in df.value.columns for df in app.dataframe)


def test_wider_intervals_hold_more_values(app):
    before = share(app, "original values inside their interval")
    app.slider(key="risk_p").set_value(40.0).run()
    assert share(app, "original values inside their interval") > before
