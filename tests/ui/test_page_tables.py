"""The tables page (pages/tables.py) run headless with streamlit's AppTest."""

from __future__ import annotations

import pytest
from cli_helpers import ROOT
from streamlit.testing.v1 import AppTest
from ui_helpers import open_tab, shown

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
    titles = [tab.label for tab in page.tabs]
    assert len(titles) == 10
    assert "cells sensitive" in _markdown_with(page, "cells sensitive")  # the first tab, open at the start
    assert not any(m.label == "r (Lemma 1)" for m in page.metric)  # a closed tab is not drawn
    for title in titles:  # each tab, opened, runs without an exception or an error box
        open_tab(page, title)
        assert [shown(e.value) for e in page.error] == [], title
        if title == "Dominance flaw":
            assert _metric(page, "r (Lemma 1)") == "0.900010"  # Example 2: n = 1, k = 0.369, N = 3
            assert _metric(page, "tail of X_ns (not sensitive)") == "0.298896"
        if title == "Suppressed cells":
            assert _metric(page, "largest cell risk") == "0.1154"  # Table 1: 1/log2 407


def test_flaw_sliders_change_the_construction(page):
    open_tab(page, "Dominance flaw")
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

    # a file of its own: the reproduce panel shows the code generated from the rule the page ran on it
    from dashboard.widgets import REPRODUCE_KEY
    from rumap.present.reproduce import to_command, to_python
    from rumap.specs.tables import RuleSpec

    page.session_state[f"{REPRODUCE_KEY}_tables_rules"] = True
    text = b"cell,amount\nA,59\nA,40\nA,1\nB,5\nB,5\nB,5\n"
    page.file_uploader(key="rules_upload").set_value(("c.csv", text, "text/csv")).run()
    assert "1 of 2 cells sensitive" in _markdown_with(page, "cells sensitive")
    spec = RuleSpec("p-percent", {"p": 10.0}, "c.csv", "cell", "amount")
    assert [c.value for c in page.code] == [to_command(spec), to_python(spec)]


def test_a_dp_release_states_its_privacy_in_words(page):
    open_tab(page, "Differential privacy")
    page.selectbox(key="dp_mechanism").set_value("gaussian")
    page.toggle(key="dp_run").set_value(True).run()
    assert not page.exception and [shown(e.value) for e in page.error] == []
    assert any("zero-concentrated" in shown(i.value) and "1 in a million" in shown(i.value) for i in page.info)
    assert any("probability of any published result by at most a factor of 2.7" in shown(i.value)
               for i in page.info)  # epsilon = 1 at delta = 1e-6
    assert _metric(page, "cells") and _metric(page, "small cells recovered (1-3 records)").endswith("%")


def test_insider_contribution_changes_the_range(page):
    open_tab(page, "Suppressed cells")
    page.number_input(key="insider_own").set_value(300.0).run()
    assert "0 .. 106" in _markdown_with(page, "for the insider")
    page.number_input(key="insider_own").set_value(100.0).run()
    assert "0 .. 306" in _markdown_with(page, "for the insider")


def test_releasing_more_projections_raises_risk(page):
    open_tab(page, "Linked tables")
    risks = [m.value for m in page.metric if m.label == "mean cell risk"]
    page.multiselect(key="linked_released").set_value(["AS"]).run()
    fewer = [m.value for m in page.metric if m.label == "mean cell risk"]
    assert not page.exception and risks[-1] != fewer[-1]
    assert float(fewer[-1]) < float(risks[-1])


def _suppression_frame(at):
    """The audit table of the microdata tab: the suppressed cells with their status and interval."""
    return next(d.value for d in at.dataframe if "status" in getattr(d.value, "columns", []))


def test_microdata_table_is_protected_and_audited(page):
    open_tab(page, "From microdata")
    from rumap.io.data import BUNDLED_DATA, read_table
    from rumap.tables.microdata import table_from_microdata
    from rumap.tables.secondary import suppress_secondary

    assert "7** of 48 cells sensitive" in _markdown_with(page, "cells sensitive under")
    assert _metric(page, "primary cells") == "7"
    audit = _suppression_frame(page)
    table = table_from_microdata(read_table(BUNDLED_DATA["persons (synthetic, categorical keys)"]), "region",
                                 "marital", response="income")
    direct = suppress_secondary(table.published(), table.primary("p-percent", p=10), protection=10.0,
                                frequencies=table.frequencies())
    assert _metric(page, "secondary cells") == str(len(direct.secondary))
    assert sorted(zip(audit["row"], audit["column"], strict=True)) == sorted([*direct.primary, *direct.secondary])
    assert set(audit["status"]) == {"primary", "secondary"}
    assert (audit["min"] <= audit["value"]).all() and (audit["value"] <= audit["max"]).all()

    # the reproduce panel shows the Python generated from the protection the page ran, and why there is no command
    from dashboard.code import bundled_path
    from dashboard.widgets import REPRODUCE_KEY
    from rumap.present.reproduce import to_python
    from rumap.specs.table_protection import TableProtectionSpec

    page.session_state[f"{REPRODUCE_KEY}_tables_micro_protection"] = True
    page.run()
    spec = TableProtectionSpec(bundled_path("persons (synthetic, categorical keys)"), "region", "marital",
                               response="income", rule="p-percent", rule_parameters={"p": 10.0})
    assert to_python(spec) in [c.value for c in page.code]
    assert "No command line: the command line protects a table file, not microdata" in [shown(c.value) for c in page.caption]


def test_microdata_rule_and_rounding_and_map(page):
    open_tab(page, "From microdata")
    page.selectbox(key="micro_rule").set_value("threshold").run()
    page.number_input(key="micro_threshold_threshold").set_value(10).run()
    assert not page.exception and [shown(e.value) for e in page.error] == []
    assert "15** of 48 cells sensitive under the threshold rule" in _markdown_with(page, "cells sensitive under")
    page.checkbox(key="micro_round").check().run()
    deviation = float(_metric(page, "largest deviation").replace(",", ""))
    assert 0 < deviation < page.number_input(key="micro_base").value  # controlled rounding moves less than b
    page.checkbox(key="micro_draw_map").check().run()
    assert not page.exception and [shown(e.value) for e in page.error] == []
    curve = next(d.value for d in page.dataframe if "P" in getattr(d.value, "columns", []))
    assert curve["P"].tolist() == [5.0, 10.0, 20.0, 40.0]
    assert curve["utility"].is_monotonic_decreasing  # more protection, more of the total suppressed
    page.button(key="tables_micro_keep").click().run()
    assert not page.exception
    assert any("Kept maps" in shown(c.value) for c in page.caption)


def test_the_map_checks_the_chosen_protection_and_says_when_it_is_infeasible(page):
    open_tab(page, "From microdata")
    page.checkbox(key="micro_draw_map").check().run()
    assert not page.exception and [shown(e.value) for e in page.error] == []
    curve = next(d.value for d in page.dataframe if "P" in getattr(d.value, "columns", []))
    assert curve.loc[curve["P"] == 10.0, "risk"].tolist() == [0.0]  # P = 10 asked, P = 10 given: none exposed
    assert any("Meets the requirement" in shown(m.value) and "10%" in shown(m.value) for m in page.success)
    page.number_input(key="micro_protection").set_value(100.0).run()
    assert not page.exception and [shown(e.value) for e in page.error] == []
    assert any("Infeasible on this grid: no value of P (5, 10, 20, 40)" in shown(w.value) for w in page.warning)
    assert not any("Meets the requirement" in shown(m.value) for m in page.success)


def test_the_rounding_base_starts_from_the_table_s_scale(page):
    open_tab(page, "From microdata")
    from rumap.io.data import BUNDLED_DATA, read_table
    from rumap.maps.tables import default_rounding_base
    from rumap.tables.microdata import table_from_microdata

    frame = read_table(BUNDLED_DATA["persons (synthetic, categorical keys)"])
    page.checkbox(key="micro_round").check().run()
    sums = table_from_microdata(frame, "region", "marital", response="income").published()
    assert page.number_input(key="micro_base").value == default_rounding_base(sums) == 10000.0
    page.selectbox(key="micro_response").set_value("(counts: a frequency table)").run()
    counts = table_from_microdata(frame, "region", "marital").published()
    assert page.number_input(key="micro_base").value == default_rounding_base(counts) == 3.0
    assert not page.exception and [shown(e.value) for e in page.error] == []


def test_the_rounding_map_s_largest_base_follows_the_table(page):
    open_tab(page, "Rounding R-U map")
    from rumap.maps.tables import default_rounding_base
    from rumap.tables.published import paper_table1_completed
    from rumap.tables.table_files import published_table_from_frame

    assert page.slider(key="rounding_max_base").value == 10 * default_rounding_base(paper_table1_completed()) == 100
    cells = [[2_410_000, 1_870_000, 3_020_000], [960_000, 4_400_000, 2_750_000]]
    rows = [f"r{i},{','.join(map(str, row))},{sum(row)}" for i, row in enumerate(cells, start=1)]
    totals = [sum(col) for col in zip(*cells, strict=True)]
    text = "\n".join(["region,a,b,c,Total", *rows, f"Total,{','.join(map(str, totals))},{sum(totals)}"])
    page.file_uploader(key="rounding_upload").set_value(("big.csv", text.encode(), "text/csv")).run()
    assert not page.exception and [shown(e.value) for e in page.error] == []
    import io

    import pandas as pd

    table = published_table_from_frame(pd.read_csv(io.StringIO(text)), source="big.csv")
    assert page.slider(key="rounding_max_base").value == 10 * default_rounding_base(table) == 1_000_000
    assert page.slider(key="rounding_max_base").max == 100_000_000


def test_microdata_counts_layers_and_bad_choices(page):
    open_tab(page, "From microdata")
    page.selectbox(key="micro_response").set_value("(counts: a frequency table)").run()
    page.selectbox(key="micro_layers").set_value("sex").run()
    page.selectbox(key="micro_layer").set_value("female").run()
    assert not page.exception and [shown(e.value) for e in page.error] == []
    assert "(layer female)" in _markdown_with(page, "cells sensitive under")
    page.selectbox(key="micro_rows").set_value("income").run()  # 736 codes: a table, but a large one
    assert not page.exception


@pytest.mark.browser
def test_microdata_section_in_a_browser(app_server, chromium):
    from playwright.sync_api import expect

    context = chromium.new_context(viewport={"width": 1400, "height": 1000})
    try:
        pg = context.new_page()
        pg.goto(f"{app_server}/tables")
        pg.get_by_role("tab", name="From microdata").click(timeout=90_000)
        main = pg.get_by_test_id("stMain")
        expect(main.get_by_text("cells sensitive under the p-percent rule")).to_be_visible(timeout=120_000)
        expect(main.get_by_text("Audit interval of each suppressed cell")).to_be_visible(timeout=120_000)
        expect(main.get_by_text("Red: primary; amber: secondary")).to_be_visible()
        pg.get_by_text("draw the R-U map (one protection per value)").click()
        plots = main.locator(".js-plotly-plot:visible")
        expect(plots).to_have_count(1, timeout=120_000)  # the table's R-U map, the only plot of the tab
        keep = main.locator("button:visible", has_text="Keep this map")
        expect(keep).to_have_count(1, timeout=60_000)
        keep.click()
        expect(main.get_by_text("Kept maps:").locator("visible=true")).to_have_count(1, timeout=60_000)
        assert "Traceback" not in pg.content()
    finally:
        context.close()


def test_hierarchical_tables_protect_every_level_and_show_a_subtotal(page):
    open_tab(page, "Hierarchical tables")
    assert not any(m.label == "cells" for m in page.metric)  # nothing computed until asked
    page.toggle(key="nd_run").set_value(True).run()
    assert _metric(page, "cells") == "65"  # 12 regions + total by 4 marital states + total, flat
    page.selectbox(key="nd_source_region").set_value("code prefixes").run()
    assert page.text_input(key="nd_lengths_region").value == "2,3"  # R0 > R01 ... from the codes' lengths
    assert not page.exception and [shown(e.value) for e in page.error] == []
    assert _metric(page, "cells") == "75"  # R0 and R1 added: 15 region labels x 5
    frames = [f.value for f in page.dataframe]
    audit = next(f for f in frames if "required_min" in f.columns)
    assert audit["protected"].all() and len(audit) == int(_metric(page, "primary cells"))
    assert (audit["min"] <= audit["required_min"] + 1e-6).all() and (audit["max"] >= audit["required_max"] - 1e-6).all()
    page.selectbox(key="nd_view_region").set_value("R1").run()
    assert not page.exception
    view = next(f.value for f in page.dataframe if getattr(f.value, "index", None) is not None
                and list(f.value.index)[:1] == ["R1"])
    assert list(view.index) == ["R1", "R10", "R11", "R12"]
    assert list(view.columns) == ["Total", "divorced", "married", "single", "widowed"]
    assert view.iloc[0].tolist() == pytest.approx(view.iloc[1:].sum().tolist())  # R1 = R10 + R11 + R12
    assert any(d.label == "Protected table (CSV, suppressed cells empty)" for d in page.get("download_button"))

    # a magnitude table's dominance rule; the reproduce panel gives the command of a prefix hierarchy
    from dashboard.widgets import REPRODUCE_KEY

    page.session_state[f"{REPRODUCE_KEY}_tables_nd"] = True
    page.selectbox(key="nd_rule").set_value("dominance").run()
    assert not page.exception and [shown(e.value) for e in page.error] == []
    command = page.code[0].value
    assert "--hierarchy region=prefixes:2,3" in command and "--rule dominance --n 1 --k 0.8" in command
    assert "mask = table.primary_mask('dominance', n=1, k=0.8)" in page.code[1].value


def test_cell_key_method_publishes_a_perturbed_table_and_says_it_is_not_additive(page):
    open_tab(page, "Cell key method")
    page.toggle(key="ckm_run").set_value(True).run()
    published = _markdown_with(page, "Published table")
    assert "65 cells over region x marital" in published and "totals differ from the sum of their children" in published
    page.number_input(key="ckm_v").set_value(3.0)
    page.number_input(key="ckm_js").set_value(3).run()
    assert any("no distribution of the perturbation" in shown(e.value) for e in page.error)
