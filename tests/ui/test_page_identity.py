"""The identity-disclosure page (pages/identity.py) runs on its own and reacts to its widgets."""

from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest
from ui_helpers import shown

PAGE = str(Path(__file__).resolve().parents[2] / "pages" / "identity.py")


def metric(at: AppTest, label: str) -> str:
    return next(m.value for m in at.metric if m.label == label)


@pytest.fixture()
def app() -> AppTest:
    at = AppTest.from_file(PAGE, default_timeout=120).run()
    assert not at.exception, at.exception
    assert not at.error, [shown(e.value) for e in at.error]
    return at


def test_runs_on_the_bundled_example(app):
    assert metric(app, "records n") == "2,000"
    assert int(metric(app, "sample uniques").replace(",", "")) > 0
    assert len(app.get("plotly_chart")) == 2  # the subsampling and the recoding maps


def test_more_acquaintances_raise_the_risk(app):
    before = float(metric(app, "identification risk R"))
    app.number_input(key="identity_a").set_value(3000.0).run()
    after = float(metric(app, "identification risk R"))
    assert after > before


def test_a_coarser_key_has_fewer_sample_uniques(app):
    before = int(metric(app, "sample uniques").replace(",", ""))
    app.multiselect(key="identity_key").unselect("region").run()
    assert not app.exception
    assert int(metric(app, "sample uniques").replace(",", "")) < before


def test_bad_band_widths_show_an_error(app):
    app.text_input(key="identity_widths").set_value("5, ten").run()
    assert not app.exception
    assert any("band widths" in shown(e.value) for e in app.error)
    app.text_input(key="identity_widths").set_value("0, 5").run()
    assert any("widths must be a number > 0" in shown(e.value) for e in app.error)


def test_more_investigators_raise_the_risk(app):
    label = "risk that at least one of them identifies someone"
    one = float(metric(app, label))
    assert one == pytest.approx(float(metric(app, "identification risk R")), rel=1e-3)
    app.number_input(key="identity_investigators").set_value(50).run()
    assert float(metric(app, label)) > one
