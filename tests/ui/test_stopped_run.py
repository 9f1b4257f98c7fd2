"""A widget drawn again after a run that stopped before it shows its value in the browser, not its own default.

A run ended by ``st.stop()`` (or an error) keeps the state of the widgets it did not draw on the server, while
the browser removes those widgets. Drawn again, a widget starts in the browser from what its element carries:
the value, when the server sends one with it (``set_value``), else the widget's own default (an empty
multiselect, an unticked box), which the browser then sends back with the next click. AppTest keeps the
server's value, so these tests read what the element carries, as the browser does (seen in Chromium on the
Empirical page: "Targets" empty after a refused path on the server, ``dashboard/widget_memory.py``).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest
from ui_helpers import app_test, goto

from dashboard.server_files import ENV

ROOT = Path(__file__).resolve().parents[2]
EMPIRICAL = str(ROOT / "pages" / "empirical.py")


def drawn_anew(widget) -> object:
    """What a browser shows of ``widget`` when it draws it anew: the value sent with it, else its own default."""
    proto = widget.proto
    kind = type(proto).__name__
    if kind == "MultiSelect":
        return list(proto.raw_values) if proto.set_value else [proto.options[i] for i in proto.default]
    if kind in ("Checkbox", "TextInput"):
        return proto.value if proto.set_value else proto.default
    if kind in ("Radio", "Selectbox"):
        return proto.raw_value if proto.set_value else proto.options[proto.default]
    raise AssertionError(f"no model of {kind}")


def on_server(widget) -> object:
    """The widget's value on the server, as the browser writes it (options by their shown names)."""
    kind = type(widget.proto).__name__
    if kind == "MultiSelect":
        return [widget.format_func(v) for v in widget.value]
    if kind in ("Radio", "Selectbox"):
        return widget.format_func(widget.value)
    return widget.value


def widgets(at: AppTest) -> list:
    return [*at.multiselect, *at.checkbox, *at.radio, *at.selectbox, *at.text_input]


def remembered_widgets(stop: bool) -> None:
    """One widget of each kind drawn through the shared helpers; ``stop`` ends the run before them."""
    import streamlit as st

    from dashboard.widgets import multiselect, remembered, selectbox

    if stop:
        st.stop()
    remembered(st.multiselect, "Targets", "targets", ["max", "p99"], options=["max", "min", "p99"],
               accept_new_options=True)
    multiselect("Knowledge", ["index", "position"], "knowledge", ["index"])
    remembered(st.checkbox, "log risk axis", "log_y", True)
    remembered(st.radio, "Risk measure", "risk_kind", "targets", options=["targets", "dataset"])
    selectbox("Utility", ["mean", "variance"], "utility", "mean")
    remembered(st.text_input, "Name", "name", "")


def test_each_kind_of_remembered_widget_shows_its_value_after_a_stopped_run():
    at = AppTest.from_function(remembered_widgets, kwargs={"stop": False}, default_timeout=30).run()
    at.multiselect(key="targets").set_value(["min", "row:3"])
    at.multiselect(key="knowledge").set_value(["position"])
    at.checkbox(key="log_y").uncheck()
    at.radio(key="risk_kind").set_value("dataset")
    at.selectbox(key="utility").set_value("variance")
    at.text_input(key="name").input("mine").run()
    at.kwargs["stop"] = True
    at.run()
    assert not widgets(at)  # the run stopped before them: the browser removes them
    at.kwargs["stop"] = False
    at.run()
    assert not at.exception
    expected = {"targets": ["min", "row:3"], "knowledge": ["position"], "log_y": False, "risk_kind": "dataset",
                "utility": "variance", "name": "mine"}
    assert {w.key: on_server(w) for w in widgets(at)} == expected
    assert {w.key: drawn_anew(w) for w in widgets(at)} == expected


@pytest.fixture()
def server_folder(tmp_path, monkeypatch) -> Path:
    rng = np.random.default_rng(5)
    pd.DataFrame({"income": rng.lognormal(10.0, 0.6, 200)}).to_parquet(tmp_path / "numbers.parquet", index=False)
    monkeypatch.setenv(ENV, str(tmp_path))
    return tmp_path


def test_the_empirical_targets_come_back_after_a_refused_path_on_the_server(server_folder):
    at = AppTest.from_file(EMPIRICAL, default_timeout=60)
    at.session_state["em_server"] = "numbers.parquet"
    at.run()
    at.multiselect(key="em_targets").set_value(["min", "row:3"]).run()
    at.text_input(key="em_server").input("../etc/passwd").run()
    assert at.error and not [w for w in widgets(at) if w.key == "em_targets"]  # refused: the page stopped
    at.text_input(key="em_server").input("numbers.parquet").run()
    assert not at.exception and not at.error
    assert drawn_anew(at.multiselect(key="em_targets")) == ["min", "row:3"]
    drawn = {w.key: (drawn_anew(w), on_server(w)) for w in widgets(at) if w.key != "em_server"}
    assert {key: shown for key, (shown, _) in drawn.items()} == {key: value for key, (_, value) in drawn.items()}


def test_the_report_page_shows_what_it_includes_after_no_map_was_chosen():
    """Its title, inclusion boxes and image format, forgotten when the page is left, stay shown as set."""
    at = goto(app_test(), "home")
    at.button(key="example_figure-2").click().run()
    goto(at, "analytic").button(key="analytic_keep").click().run()
    goto(at, "report")
    at.text_input(key="report_title").input("Our maps")
    at.checkbox(key="report_include_data").check()
    at.radio(key="report_image_format").set_value("SVG").run()
    kept = at.multiselect(key="report_maps").value
    at.multiselect(key="report_maps").set_value([]).run()
    assert at.warning and "report_include_data" not in [c.key for c in at.checkbox]  # the page stopped above
    at.multiselect(key="report_maps").set_value(kept).run()
    assert not at.exception
    shown_now = {w.key: drawn_anew(w) for w in widgets(at)}
    assert {k: shown_now[k] for k in ("report_title", "report_include_data", "report_image_format")} == {
        "report_title": "Our maps", "report_include_data": True, "report_image_format": "SVG"}
    assert shown_now == {w.key: on_server(w) for w in widgets(at)}
