"""The Queries & granularity page (pages/databases.py) runs on its own and reacts to its widgets."""

from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest
from ui_helpers import open_reproduce_panels, shown

ROOT = Path(__file__).resolve().parents[2]
PAGE = str(ROOT / "pages" / "databases.py")


def metric(at: AppTest, label: str) -> str:
    return next(m.value for m in at.metric if m.label == label)


def frame_with(at: AppTest, column: str):
    return next(d.value for d in at.dataframe if column in d.value.columns)


@pytest.fixture()
def app() -> AppTest:
    at = AppTest.from_file(PAGE, default_timeout=120).run()
    assert not at.exception, at.exception
    assert not at.error, [shown(e.value) for e in at.error]
    return at


def test_runs_on_the_bundled_example(app):
    answers = frame_with(app, "guarantee")
    assert (answers["low"] <= answers["exact"]).all() and (answers["exact"] <= answers["high"]).all()
    vectors = frame_with(app, "P3")
    assert len(vectors) == 12 and (vectors["p_min"] <= vectors["l"]).all()
    assert len(app.get("plotly_chart")) == 2  # the camouflage and the auditing maps
    assert metric(app, "tables with a hyper-row at or above the threshold").endswith("of 4")


def test_the_auditor_refuses_the_exact_disclosure_and_explains(app):
    log = frame_with(app, "explanation")
    refused = log[~log["answered"]]
    assert list(refused["query"]) == ["SUM:1-2"]
    assert "record 3 = q1 - this query" in refused["explanation"].iloc[0]
    app.text_area(key="databases_audit_queries").set_value("SUM:1-4\nSUM:2-4").run()
    assert not app.exception
    assert metric(app, "queries refused") == "1"


def test_typed_camouflage_queries_and_a_wider_protection(app):
    app.text_area(key="databases_camouflage_queries").set_value("SUM:1-3\nMAX:2").run()
    narrow = frame_with(app, "guarantee")["guarantee"].tolist()
    app.number_input(key="databases_protection").set_value(40.0).run()
    wide = frame_with(app, "guarantee")["guarantee"].tolist()
    assert len(narrow) == 2 and all(w > n for w, n in zip(wide, narrow, strict=True))


def test_a_bad_query_shows_an_error(app):
    app.text_area(key="databases_camouflage_queries").set_value("SUM:1,99").run()
    assert not app.exception
    assert any("record 99" in shown(e.value) for e in app.error)
    app.text_input(key="databases_levels").set_value("5, ten").run()
    assert any("protection levels" in shown(e.value) for e in app.error)


def test_granularity_follows_the_keys_and_threshold(app):
    app.number_input(key="databases_threshold").set_value(100.0).run()
    assert not app.exception
    tables = frame_with(app, "max_index")
    assert set(tables["dimension"]) <= {2, 3} and len(tables) == 4
    assert (tables["safe"] == (tables["max_index"] < 100)).all()
    app.selectbox(key="databases_granularity_table").set_value("sex x region").run()
    rows = frame_with(app, "along")
    assert set(rows["along"]) == {"sex", "region"}
    assert (rows["index"] == 100 * rows["unit_cells"] / rows["cells"]).all()


def test_reproduce_panels_give_the_page_numbers(app, monkeypatch):
    code = next(c.value for c in open_reproduce_panels(app).code if "answer_with_camouflage(values" in c.value)
    monkeypatch.chdir(ROOT)
    names: dict = {"print": lambda *args, **kwargs: None}
    exec(compile(code, "<reproduce panel>", "exec"), names)
    page = frame_with(app, "guarantee")
    assert names["result"].answers.to_frame()["guarantee"].tolist() == pytest.approx(page["guarantee"].tolist())
    commands = [c.value for c in open_reproduce_panels(app).code if c.value.startswith("python -m rumap query")]
    assert len(commands) == 2 and all("--records 12" in c for c in commands)


def test_granularity_types_are_eliminated_added_to_the_plan_and_mapped(app):
    from rumap.tables.granularity import granularity_analysis

    assert len(app.get("plotly_chart")) == 2  # the elimination and its map only when asked for
    app.toggle(key="databases_granularity_eliminate").set_value(True).run()
    assert not app.exception, app.exception
    assert any("**proportional**" in m.value and "\\>\\= 50" in m.value for m in app.markdown)
    moves = frame_with(app, "bits lost")
    assert len(moves) > 0 and set(moves["move"]) <= {"merge", "suppress"}
    assert float(metric(app, "largest index after").rstrip("%")) < 50
    levels = frame_with(app, "records in unit cells")
    assert list(levels["level"]) == [20.0, 40.0, 60.0, 80.0, 100.0] and len(app.get("plotly_chart")) == 3
    next(b for b in app.button if b.key == "databases_granularity_apply").click().run()
    (step,) = app.session_state["rumap_release_plan"]
    assert step.method == "granularity" and step.parameters["level"] == 50.0
    assert list(step.keys) == ["sex", "marital", "region"]
    import pandas as pd

    from rumap.release.apply import apply_step

    released, _ = apply_step(pd.read_csv(ROOT / "data" / "persons.csv"), step)
    assert granularity_analysis(released, list(step.keys), threshold=50.0).safe
