"""The shared page pattern on the Identity, Risk measures and Tables pages (driven from app.py with AppTest).

Each page shows bad input in the shared error box, offers a reproduce panel whose
Python gives the numbers on the page (run here), and keeps its R-U maps for the
Compare, Pareto and Report pages.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest
from ui_helpers import open_reproduce_panels, open_tab, shown

ROOT = Path(__file__).resolve().parents[2]
APP = str(ROOT / "app.py")


def _goto(page: str) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=180)
    at.run()
    at.switch_page(f"pages/{page}.py").run()
    assert not at.exception, [e.value for e in at.exception]
    assert not [shown(e.value) for e in at.error]
    return at


def _metric(at: AppTest, label: str) -> str:
    return next(m.value for m in at.metric if m.label == label)


def _run_python(code: str, monkeypatch) -> dict:
    """Run a reproduce panel's Python from the project's root (where bundled data are named) and return its names."""
    monkeypatch.chdir(ROOT)
    namespace: dict = {"print": lambda *args, **kwargs: None}
    exec(compile(code, "<reproduce panel>", "exec"), namespace)
    return namespace


def _code_with(at: AppTest, fragment: str) -> str:
    return next(c.value for c in open_reproduce_panels(at).code if fragment in c.value)


def _figures(at: AppTest) -> list[dict]:
    return [json.loads(el.proto.spec) for el in at.get("plotly_chart")]


def test_identity_reproduce_panel_gives_the_page_numbers(monkeypatch):
    at = _goto("identity")
    at.number_input(key="identity_a").set_value(1000.0).run()
    command = _code_with(at, "python -m rumap risk identity")
    assert command == ("python -m rumap risk identity --data data/persons.csv --keys age,sex,marital,region "
                       "--N 100000 --a 1000 --max-risk 0.01 --estimator ml --json")
    names = _run_python(_code_with(at, "identity_risk_from_data("), monkeypatch)
    assert f"{names['result'].risk:.4g}" == _metric(at, "identification risk R")
    assert f"{names['result'].sample_uniques:,}" == _metric(at, "sample uniques")
    recoded = _run_python(_code_with(at, "recoding_map("), monkeypatch)["result"]
    page_table = at.dataframe[-1].value
    assert list(recoded.risk) == pytest.approx(list(page_table["risk"]), rel=1e-12)


def test_identity_bad_widths_show_the_shared_error_box_and_keep_the_rest():
    at = _goto("identity")
    at.text_input(key="identity_widths").set_value("5, ten").run()
    assert not at.exception
    assert [shown(e.value) for e in at.error] == ["band widths must be numbers separated by commas, got '5, ten'"]
    assert _metric(at, "records n") == "2,000"  # the estimate and the other tab still show
    assert at.button(key="identity_subsampling_keep") is not None


def test_identity_maps_kept_appear_on_compare_pareto_and_report():
    at = _goto("identity")
    at.text_input(key="identity_subsampling_name").set_value("subsample").run()
    at.button(key="identity_subsampling_keep").click().run()
    at.text_input(key="identity_recoding_name").set_value("recode").run()
    at.button(key="identity_recoding_keep").click().run()
    from dashboard.state import ANALYSES

    assert [a.name for a in at.session_state[ANALYSES]] == ["subsample", "recode"]
    at.switch_page("pages/compare.py").run()
    assert not at.exception and not [shown(e.value) for e in at.error]
    (fig,) = _figures(at)
    assert {t["name"] for t in fig["data"] if t.get("mode") == "lines"} >= {"subsample"}
    at.switch_page("pages/pareto.py").run()
    assert not at.exception and not [shown(e.value) for e in at.error]
    at.switch_page("pages/report.py").run()
    assert not at.exception and not [shown(e.value) for e in at.error]
    labels = [b.proto.label for b in at.get("download_button")]
    assert labels == ["Curves (CSV)", "Curves (JSON)"]
    assert any("subsample; recode" in shown(c.value) for c in at.caption)
    at.switch_page("pages/presentation.py").run()
    assert not at.exception and not [shown(e.value) for e in at.error]
    assert len(_figures(at)) == 1


def test_risk_measures_reproduce_panel_and_commands(monkeypatch):
    at = _goto("risk_measures")
    commands = _code_with(at, "python -m rumap risk linkage").splitlines()
    assert commands[0].startswith("python -m rumap risk linkage --original data/persons.csv --masked masked.csv "
                                  "--keys ")
    assert commands[0].endswith("--method distance --aggregation sum_of_squares --json")
    assert commands[1].endswith("--p 10 --method rank --json")
    try:
        names = _run_python(_code_with(at, "distance_linkage("), monkeypatch)
    finally:
        (ROOT / "masked.csv").unlink(missing_ok=True)  # written by the panel's Python for the command line
    assert f"{names['linked'].linked_correctly:.1%}" == _metric(at, "linked correctly")
    assert f"{names['intervals'].risk:.1%}" == _metric(at, "original values inside their interval")


def test_risk_measures_shared_error_box_and_table_bounds():
    at = _goto("risk_measures")
    at.radio(key="risk_method").set_value("probabilistic").run()
    tolerance = at.number_input(key="risk_tolerance")
    assert tolerance.min == 0.0  # PARAMETERS["tolerance"]: >= 0
    assert "probabilistic_linkage(" in _code_with(at, "linked =")
    at.radio(key="risk_source").set_value("upload two files").run()
    original = b"x,y\n" + b"\n".join(f"{i},{i * 2}".encode() for i in range(10))
    masked = b"x,y\n" + b"\n".join(f"{i},{i * 2}".encode() for i in range(9))
    at.file_uploader(key="risk_original").set_value(("o.csv", original, "text/csv"))
    at.file_uploader(key="risk_masked").set_value(("m.csv", masked, "text/csv")).run()
    assert not at.exception
    assert [shown(e.value) for e in at.error] == ["the original has 10 rows but the masked file has 9"]


def test_tables_reproduce_panels_and_the_flaw_command(monkeypatch):
    at = open_tab(_goto("tables"), "Dominance flaw")
    assert _code_with(at, "dominance-flaw") == "python -m rumap table dominance-flaw --n 1 --k 0.369 --cells 3 --json"
    flaw = _run_python(_code_with(at, "dominance_flaw("), monkeypatch)["flaw"]
    assert f"{flaw.r:.6f}" == _metric(at, "r (Lemma 1)")
    slider = at.slider(key="flaw_k")
    assert slider.min == 0.05 and slider.max == 0.99
    open_tab(at, "Suppressed cells")
    bounds = _run_python(_code_with(at, "suppression_bounds(table)"), monkeypatch)["bounds"]
    assert f"{bounds.max_risk:.4g}" == _metric(at, "largest cell risk")
    open_tab(at, "Rounding R-U map")
    maps = _run_python(_code_with(at, "rounding_ru_map("), monkeypatch)["maps"]
    rounding = next(d.value for d in at.dataframe if "largest risk" in d.value.columns)
    assert len(maps[0].values) == len(rounding) and list(rounding["b"]) == list(maps[0].values)


def test_tables_error_box_stays_in_its_tab_and_the_rounding_map_is_kept():
    at = open_tab(_goto("tables"), "Dominance flaw")
    at.slider(key="flaw_k").set_value(0.2).run()
    assert not at.exception
    (error,) = [shown(e.value) for e in at.error]
    assert "must exceed n/N" in error
    open_tab(at, "Suppressed cells")
    assert _metric(at, "largest cell risk") == "0.1154"  # the other tabs still work
    open_tab(at, "Rounding R-U map")
    at.text_input(key="tables_rounding_name").set_value("rounding").run()
    at.button(key="tables_rounding_keep").click().run()
    from dashboard.state import ANALYSES

    (kept,) = at.session_state[ANALYSES]
    assert kept.name == "rounding" and [m.target for m in kept.maps] == ["max", "mean"]
    at.switch_page("pages/compare.py").run()
    assert not at.exception and not [shown(e.value) for e in at.error]
    assert len(_figures(at)) == 1


def test_widget_bounds_come_from_the_constraint_table():
    import math

    from dashboard.widgets import bounds, slider

    assert bounds("risk_bound") == {"min_value": math.nextafter(0.0, 1.0), "max_value": math.nextafter(1.0, 0.0)}
    assert bounds("N", low=2000) == {"min_value": 2000.0}  # a page narrows the table's N >= 1 to N >= n
    assert bounds("dominance_k", 0.05, 1.5) == {"min_value": 0.05, "max_value": 1.0}  # never beyond the table
    assert bounds("investigators") == {"min_value": 1}
    with pytest.raises(ValueError, match="outside the values allowed for rule_percent"):
        slider("rule_percent", "p", "p", 10.0, low=200.0)  # a page narrows the entry's range, never beyond it
    with pytest.raises(ValueError, match="no slider range"):
        slider("risk_bound", "R", "R", 0.5)


def test_inputs_survive_a_change_of_page():
    at = _goto("identity")
    at.number_input(key="identity_a").set_value(1234.0).run()
    at.switch_page("pages/home.py").run()
    at.switch_page("pages/identity.py").run()
    assert at.number_input(key="identity_a").value == 1234.0
    at.switch_page("pages/empirical.py").run()
    at.number_input(key="em_replicates").set_value(33).run()
    at.switch_page("pages/home.py").run()
    at.switch_page("pages/empirical.py").run()
    assert at.number_input(key="em_replicates").value == 33
