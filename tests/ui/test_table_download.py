"""The protected table's download on the Tables page (dashboard/table_download.py), run headless with AppTest."""

from __future__ import annotations

from cli_helpers import ROOT
from streamlit.testing.v1 import AppTest
from ui_helpers import open_tab, shown

PAGE = str(ROOT / "pages" / "tables.py")


def test_suppressed_cells_marked_as_chosen():
    at = AppTest.from_file(PAGE, default_timeout=300)
    at.run()
    open_tab(at, "From microdata")
    mark = at.radio(key="micro_mark")
    assert mark.options == ["blank", "x", "a code"] and mark.value == "x"
    assert any(b.proto.label == "Protected table (CSV)" for b in at.get("download_button"))
    mark.set_value("a code").run()
    assert at.text_input(key="micro_code").value == ".."
    assert [shown(e.value) for e in at.error] == []
    at.text_input(key="micro_code").set_value("0").run()  # the table publishes zeros: a reader could not tell
    assert any("also a published value" in shown(e.value) for e in at.error)
    at.text_input(key="micro_code").set_value("C").run()
    assert [shown(e.value) for e in at.error] == []
    at.radio(key="micro_mark").set_value("blank").run()
    assert not at.exception and [shown(e.value) for e in at.error] == []
