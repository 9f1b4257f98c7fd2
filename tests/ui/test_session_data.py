"""One data set per session: a file uploaded on any page is the session's data on every page (dashboard/files.py)."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest
from ui_helpers import open_tab, shown

from dashboard.files import EXAMPLE, KEPT_FILES, SESSION
from dashboard.markdown import plain
from dashboard.state import DATA, SELECTION
from rumap.io.data import BUNDLED_DATA, numeric_column_names
from rumap.risk.linkage import distance_linkage

ROOT = Path(__file__).resolve().parents[2]
APP = str(ROOT / "app.py")
SURVEY_PATH = BUNDLED_DATA["survey (synthetic, households and weights)"]
PERSONS_PATH = BUNDLED_DATA["persons (synthetic, categorical keys)"]
SURVEY, PERSONS = SURVEY_PATH.read_bytes(), PERSONS_PATH.read_bytes()
ROWS = len(pd.read_csv(SURVEY_PATH))


def _app() -> AppTest:
    at = AppTest.from_file(APP, default_timeout=180)
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def _goto(at: AppTest, page: str) -> AppTest:
    at.switch_page(f"pages/{page}.py").run()
    assert not at.exception, [e.value for e in at.exception]
    assert not at.error, [shown(e.value) for e in at.error]
    return at


def _source_lines(at: AppTest) -> list[str]:
    return [shown(i.value) for i in at.info if "n = " in shown(i.value)]


def _upload_on_data(at: AppTest, name: str = "mine.csv", content: bytes = SURVEY) -> None:
    _goto(at, "data")
    at.radio(key="data_source").set_value("Upload a file").run()
    at.file_uploader(key="data_upload").set_value((name, content, "text/csv")).run()
    assert not at.exception and not at.error, [shown(e.value) for e in at.error]
    assert at.session_state[DATA].name == name


@pytest.mark.parametrize(("page", "tab", "key", "what", "example"), [
    ("categorical", None, "cat", "Data", "survey.csv"), ("identity", None, "identity", "Data", "persons.csv"),
    ("databases", None, "databases", "Data", "persons.csv"),
    ("tables", "From microdata", "micro", "Microdata", "persons.csv")])
def test_a_file_uploaded_on_the_data_page_is_what_the_file_pages_use(page, tab, key, what, example):
    at = _app()
    _upload_on_data(at)
    _goto(at, page)
    if tab is not None:
        open_tab(at, tab)
    assert at.radio(key=f"{key}_source").value == SESSION
    assert f"{what}: mine.csv, n = {ROWS:,} (the session's data, as on every page)." in _source_lines(at)
    at.radio(key=f"{key}_source").set_value(EXAMPLE).run()  # the page's example stays one click away
    assert not at.exception and not at.error
    assert any(line.startswith(f"{what}: {example}") and "this page's own example" in line
               for line in _source_lines(at))


def test_without_an_upload_the_file_pages_start_from_their_example_and_offer_the_bundled_session_data():
    at = _app()
    _goto(at, "categorical")
    assert at.radio(key="cat_source").value == EXAMPLE
    assert at.radio(key="cat_source").options == ["the session's data: " + plain("income (synthetic, Table 1)"),
                                                  "this page's example: survey.csv"]
    assert any(line.startswith("Data: survey.csv") for line in _source_lines(at))


def test_a_file_uploaded_on_the_categorical_page_is_the_session_data_everywhere():
    at = _app()
    _goto(at, "categorical")
    at.file_uploader(key="cat_upload").set_value(("mine.csv", SURVEY, "text/csv")).run()
    assert not at.exception and not at.error
    assert at.radio(key="cat_source").value == SESSION  # the page now uses it
    assert next(m.value for m in at.metric if m.label == "records") == f"{ROWS:,}"
    assert at.session_state[SELECTION].source.name == "mine.csv"  # the map pages' choice too
    open_tab(_goto(at, "tables"), "From microdata")
    assert at.radio(key="micro_source").value == SESSION
    _goto(at, "empirical")
    assert any("Data: mine.csv [hh]" in shown(i.value) for i in at.info)
    _goto(at, "data")
    assert at.radio(key="data_source").value == "Upload a file"
    assert any("In use: mine.csv, uploaded earlier in this session" in shown(c.value) for c in at.caption)
    assert at.session_state[DATA].name == "mine.csv"  # visiting the Data page did not bring the bundled set back


def test_a_file_without_numbers_is_the_session_data_and_the_map_pages_keep_their_choice():
    at = _app()
    _goto(at, "identity")
    keys = b"sex,region\n" + b"\n".join(f"{s},R{r}".encode() for s in ("f", "m") for r in range(40))
    at.file_uploader(key="identity_upload").set_value(("keys.csv", keys, "text/csv")).run()
    assert not at.exception and not at.error, [shown(e.value) for e in at.error]
    assert "Data: keys.csv, n = 80 (the session's data, as on every page)." in _source_lines(at)
    _goto(at, "empirical")
    warnings = " ".join(shown(w.value) for w in at.warning)
    assert "the new file keys.csv for the map pages was refused because it has no numeric column" in warnings


def test_the_masked_file_of_the_linkage_page_is_kept_across_pages():
    at = _app()
    _upload_on_data(at, "persons_mine.csv", PERSONS)
    _goto(at, "risk_measures")
    assert at.radio(key="risk_source").value == "upload two files"
    assert any("Upload the masked version" in shown(i.value) for i in at.info)
    at.file_uploader(key="risk_masked").set_value(("masked_mine.csv", PERSONS, "text/csv")).run()
    assert not at.exception and not at.error
    frame = pd.read_csv(PERSONS_PATH)
    keys = numeric_column_names(frame)
    linked = f"{distance_linkage(frame[keys], frame[keys], keys).linked_correctly:.1%}"  # masked = original
    assert next(m.value for m in at.metric if m.label == "linked correctly") == linked
    _goto(at, "data")
    _goto(at, "risk_measures")  # the uploader is empty again, the file is not forgotten
    assert "masked_mine.csv" in {f.name for _, f in at.session_state[KEPT_FILES].values()}
    assert any("Kept for this session: masked_mine.csv" in shown(c.value) for c in at.caption)
    assert any("Original and masked files: persons_mine.csv and masked_mine.csv" in line
               for line in _source_lines(at))
    assert next(m.value for m in at.metric if m.label == "linked correctly") == linked
    at.button(key="risk_masked_forget").click().run()
    assert any("Upload the masked version" in shown(i.value) for i in at.info)


def test_the_session_data_is_named_in_plain_text_in_each_pages_choice():
    at = _app()
    _upload_on_data(at, "![f](http:127.0.0.1:9).csv")
    _goto(at, "categorical")
    label = at.radio(key="cat_source").options[0]
    assert label.startswith("the session's data: ") and "![f](" not in label  # Markdown would fetch an image
    assert label == "the session's data: " + plain("![f](http:127.0.0.1:9).csv")
