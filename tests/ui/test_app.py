"""Every page of the dashboard, driven through Streamlit's AppTest from app.py.

Each page must run without an exception, and changing its key widgets must
change what it shows (read from the Plotly figure's spec).
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest
from ui_helpers import app_test, goto, open_reproduce_panels, open_tab, plotly_array, shown

from dashboard.widgets import PRELOAD_KEY
from rumap import PARAMETERS
from rumap.fingerprint import bytes_digest

APP = str(Path(__file__).resolve().parents[2] / "app.py")
TIMEOUT = 120


def _app() -> AppTest:
    return app_test(timeout=TIMEOUT)


def _goto(at: AppTest, page: str) -> AppTest:
    return goto(at, page)


def _figures(at: AppTest) -> list[dict]:
    return [json.loads(el.proto.spec) for el in at.get("plotly_chart")]


_array = plotly_array


def _traces(fig: dict, mode: str = "lines") -> dict[str, dict]:
    """Traces of one mode by name, with x and y decoded to lists."""
    return {t["name"]: {**t, "x": _array(t.get("x", [])), "y": _array(t.get("y", []))}
            for t in fig["data"] if t.get("mode") == mode}


def _svg_curves(at: AppTest) -> dict[str, str]:
    """The curves of the pictures drawn as SVG: name -> colour."""
    import re

    bodies = " ".join(m.value for m in at.markdown)
    return dict(re.findall(r'<polyline data-name="([^"]+)" stroke="([^"]+)"', bodies))


def _errors(at: AppTest) -> list[str]:
    return [shown(e.value) for e in at.error]


def _load_frame(at: AppTest, frame: pd.DataFrame, name: str = "upload.csv") -> None:
    from dashboard.state import DATA, SELECTION, LoadedData

    at.session_state[DATA] = LoadedData("upload", name, frame, bytes_digest(frame.to_csv().encode()))
    if SELECTION in at.session_state:
        del at.session_state[SELECTION]


def _example(at: AppTest, key: str, page: str = "analytic") -> None:
    """Click a worked example on Home, then stay on the page it opens.

    AppTest reruns the page last given to ``switch_page``, so the test pins the page the app switched to.
    """
    _goto(at, "home")
    at.button(key=f"example_{key}").click().run()
    assert not at.exception and not _errors(at), _errors(at)
    _goto(at, page)


def _keep(at: AppTest, key: str, name: str) -> None:
    at.text_input(key=f"{key}_name").set_value(name).run()
    at.button(key=f"{key}_keep").click().run()
    assert not at.exception


def test_the_navigation_lists_every_page(monkeypatch):
    import streamlit as st

    original, asked = st.navigation, []

    def navigation(pages, **kwargs):
        asked.append((len(pages), kwargs))
        return original(pages, **kwargs)

    monkeypatch.setattr(st, "navigation", navigation)
    _app()
    (count, kwargs), *_ = asked
    # Streamlit folds the pages past ten under "View N more" unless the menu is expanded
    every_page = len(list((Path(__file__).resolve().parents[2] / "pages").glob("*.py")))
    assert count == every_page and (kwargs.get("expanded") is True or kwargs.get("expanded", 10) >= count)


def test_home_draws_a_map_and_loads_figure_4():
    at = _app()
    assert at.title[0].value == "R-U confidentiality maps"
    # a still picture; the one interactive figure is the hidden one that loads the figures' script meanwhile,
    # sent by the next run of the page (the browser's timer asks for it once the page is drawn)
    assert not at.get("plotly_chart")
    at.run()
    assert [el.proto.id.endswith(f"-{PRELOAD_KEY}_figure") for el in at.get("plotly_chart")] == [True]
    assert set(_svg_curves(at)) == {"record", "population"}
    at.button(key="example_figure-4").click().run()
    assert not at.exception and not _errors(at)
    assert at.title[0].value.startswith("Analytic R-U map")
    assert at.multiselect(key="an_states").value == ["record", "population", "percentile", "maximum"]
    (fig,) = _figures(at)
    assert list(_traces(fig)) == ["record", "population", "percentile", "maximum"]
    star = _traces(fig, "markers+text")["optimum (record)"]
    assert star["x"][0] == pytest.approx(200 / 1.2) and star["y"][0] == pytest.approx(5.0)
    lines = " ".join(shown(m.value) for m in at.markdown)
    assert "Recommendation: λ² = 0.304." in lines  # the 99th percentile needs more noise than record knowledge
    assert "With λ² = 0.304, a snooper who can link" in lines and "With λ² = 0.2," not in lines  # one value
    assert at.text_input(key="analytic_name").value == "Figure 4: adding the maximum"


def test_analytic_page_widgets_change_the_map():
    at = _app()
    _example(at, "figure-2")
    (before,) = _figures(at)
    assert at.text_input(key="analytic_name").value == "Figure 2: record vs population"
    at.number_input(key="an_n").set_value(50).run()
    assert at.text_input(key="analytic_name").value == "analytic, n = 50, σ² = 1: record, population"
    (after,) = _figures(at)
    assert _traces(after)["population"]["y"] != _traces(before)["population"]["y"]
    assert max(_traces(after)["population"]["x"]) == pytest.approx(50.0)
    at.multiselect(key="an_states").select("maximum").run()
    (fig,) = _figures(at)
    assert "maximum" in _traces(fig)
    assert fig["layout"]["yaxis"]["type"] == "log"
    at.checkbox(key="an_log_y").uncheck().run()
    assert _figures(at)[0]["layout"]["yaxis"].get("type") in (None, "linear", "-")
    at.number_input(key="an_max_risk").set_value(2.0).run()
    star = _traces(_figures(at)[0], "markers+text")["optimum (record)"]
    assert star["y"][0] == pytest.approx(2.0)
    # formulas for teaching, and the command and Python call
    assert any(r"\frac{1}{\lambda^2}" in latex.value for latex in at.latex)
    codes = [c.value for c in open_reproduce_panels(at).code]
    assert any(c.startswith("python -m rumap analytic --n 50") for c in codes)
    assert any("analytic_map(" in c for c in codes)


def test_analytic_page_bad_input_shows_an_error_not_a_traceback():
    at = _app()
    _example(at, "figure-2")
    at.number_input(key="an_lam_start").set_value(5.0).run()
    assert not at.exception
    assert any("start <= stop" in e for e in _errors(at))


def test_a_constant_column_is_refused_on_the_data_page():
    at = _app()
    rng = np.random.default_rng(8)
    _load_frame(at, pd.DataFrame({"flat": np.full(40, 7.0), "income": rng.normal(100, 10, 40)}), "flat.csv")
    _goto(at, "data")
    assert at.multiselect(key="data_columns").value == ["flat"]
    assert not at.exception
    assert any("flat.csv: column 'flat' is constant (every value is 7)" in e for e in _errors(at))
    assert not any("went wrong" in e for e in _errors(at))
    assert "rumap_selection" not in at.session_state  # no map page draws from the refused column
    at.multiselect(key="data_columns").set_value(["income"]).run()
    assert not _errors(at) and at.session_state["rumap_selection"].source.columns == ("income",)


def test_data_page_with_a_loaded_frame_and_the_analytic_prefill():
    at = _app()
    rng = np.random.default_rng(5)
    frame = pd.DataFrame({"income": rng.normal(20000, 5000, 150), "age": rng.integers(20, 65, 150).astype(float),
                          "name": [f"p{i}" for i in range(150)]})
    frame.loc[3, "age"] = np.nan
    _load_frame(at, frame)
    _goto(at, "data")
    assert not _errors(at)
    assert at.multiselect(key="data_columns").options == ["income", "age"]
    summary = at.dataframe[-1].value
    assert summary.loc["n", "income"] == 150
    at.multiselect(key="data_columns").select("age").run()
    assert any("column 'age' has 1 missing" in e for e in _errors(at))
    at.radio(key="data_missing").set_value("drop").run()
    assert not _errors(at)
    assert at.dataframe[-1].value.loc["n", "age"] == 149
    _goto(at, "analytic")
    assert at.number_input(key="an_n").value == 149
    assert at.number_input(key="an_sigma2").value == pytest.approx(float(np.var(frame["income"].drop(3), ddof=1)))
    at.multiselect(key="an_states").set_value(["sample", "maximum"]).run()
    assert not at.exception and not _errors(at)
    (fig,) = _figures(at)
    assert set(_traces(fig)) == {"sample", "maximum"}


def test_data_page_names_text_among_numbers_and_does_not_pick_the_identifier():
    at = _app()
    _goto(at, "data")
    at.radio(key="data_source").set_value("Upload a file").run()
    rows = [f"{i + 1},{'unknown' if i == 6 else 20000 + 37 * (i * 7 % 60)},{'mf'[i % 2]}" for i in range(60)]
    content = ("id,income,sex\n" + "\n".join(rows)).encode()
    at.file_uploader(key="data_upload").set_value(("survey.csv", content, "text/csv")).run()
    assert not at.exception
    warnings = [shown(w.value) for w in at.warning]
    assert any("Column income holds numbers and 1 text value" in w and "'unknown' in row 7" in w for w in warnings), \
        warnings
    assert at.multiselect(key="data_columns").options == ["id", "income"]
    assert at.multiselect(key="data_columns").value == ["income"]  # never the identifier by default
    assert any("identifier" in shown(c.value) and "id" in shown(c.value) for c in at.caption)
    assert any("column 'income' has 1 text value(s) among its numbers (e.g. 'unknown' in row 7)" in e
               for e in _errors(at)), _errors(at)
    at.radio(key="data_missing").set_value("drop").run()
    assert not _errors(at)
    assert "Using income (n = 59)" in shown(at.success[0].value)
    at.multiselect(key="data_columns").select("id").run()  # chosen after all: the page says so, not "not chosen"
    assert any("Chosen: id" in shown(w.value) for w in at.warning), [shown(w.value) for w in at.warning]
    assert not any("Not chosen" in shown(c.value) for c in at.caption)
    at = _app()
    _goto(at, "data")
    at.radio(key="data_source").set_value("Upload a file").run()
    only = ("income\n" + "\n".join("unknown" if i == 3 else str(1000 + 7 * i) for i in range(30))).encode()
    at.file_uploader(key="data_upload").set_value(("only.csv", only, "text/csv")).run()
    assert not at.exception and not any("no numeric column" in e for e in _errors(at)), _errors(at)
    assert at.multiselect(key="data_columns").options == ["income"]
    at = _app()
    _load_frame(at, pd.DataFrame({"id": np.arange(1, 41), "case": np.arange(101, 141)}), "ids.csv")
    _goto(at, "data")
    assert at.multiselect(key="data_columns").value == []
    assert any("Choose at least one numeric column" in shown(w.value) for w in at.warning)


def test_data_page_without_numeric_columns():
    at = _app()
    _load_frame(at, pd.DataFrame({"name": ["a", "b", "c"]}), "names.csv")
    _goto(at, "data")
    assert any("names.csv: no numeric column" in e for e in _errors(at))


def _two_kept_maps(at: AppTest) -> None:
    _example(at, "figure-2")
    _keep(at, "analytic", "sigma 1")
    at.number_input(key="an_sigma2").set_value(2.0).run()
    _keep(at, "analytic", "sigma 2")


def test_compare_page_overlays_kept_maps_and_picks_the_best():
    at = _app()
    _goto(at, "compare")
    assert any("No map kept yet" in shown(i.value) for i in at.info)
    _two_kept_maps(at)
    _goto(at, "compare")
    assert not _errors(at)
    (fig,) = _figures(at)
    assert set(_traces(fig)) == {"sigma 1", "sigma 2"}  # worst case over each map's curves
    assert "most utility" in shown(at.success[0].value)
    before = _traces(fig, "markers+text")["most utility under the bound"]["x"][0]
    at.number_input(key="compare_max_risk").set_value(1.0).run()
    after = _traces(_figures(at)[0], "markers+text")["most utility under the bound"]["x"][0]
    assert after < before
    options = at.selectbox(key="compare_knowledge").options  # both maps' names where they meet
    assert "record = index" in options and "population = mean" in options
    at.selectbox(key="compare_knowledge").set_value("population").run()
    assert set(_traces(_figures(at)[0])) == {"sigma 1: population", "sigma 2: population"}


def test_pareto_page_shows_the_frontier():
    at = _app()
    _two_kept_maps(at)
    _goto(at, "pareto")
    assert not _errors(at)
    (fig,) = _figures(at)
    names = {t["name"] for t in fig["data"]}
    assert "all points" in names and "frontier" in names
    frontier = at.dataframe[0].value
    assert set(frontier["map"]) <= {"sigma 1", "sigma 2"} and len(frontier) > 10
    at.selectbox(key="pareto_knowledge").set_value("population").run()
    assert len(at.dataframe[0].value) != len(frontier)


def test_report_page_offers_every_export():
    at = _app()
    _goto(at, "report")
    assert any("No map kept yet" in shown(i.value) for i in at.info)
    _two_kept_maps(at)
    _goto(at, "report")
    assert not _errors(at)
    labels = [b.proto.label for b in at.get("download_button")]
    assert labels == ["HTML report", "Curves (CSV)", "Curves (JSON)", "Configuration (JSON)"]
    config = json.loads(at.code[-1].value)
    assert [a["name"] for a in config["analyses"]] == ["sigma 1", "sigma 2"]
    at.multiselect(key="report_maps").set_value(["sigma 2"]).run()
    assert [a["name"] for a in json.loads(at.code[-1].value)["analyses"]] == ["sigma 2"]
    assert "sigma 2 (PNG)" not in [b.proto.label for b in at.get("download_button")]
    at.button(key="report_make_images").click().run()
    assert not at.exception and not _errors(at)
    labels = [b.proto.label for b in at.get("download_button")]
    assert labels[-1] == "sigma 2 (PNG)"


def test_report_page_makes_each_image_once():
    """Images are made on demand, once per figure: unrelated widgets and reruns draw nothing again."""
    from rumap.present.images import render_count

    at = _app()
    _two_kept_maps(at)
    _goto(at, "report")
    start = render_count()
    assert [b.label for b in at.button if b.key == "report_make_images"] == ["Make 2 PNG file(s)"]
    assert render_count() == start  # nothing drawn before it is asked for
    at.button(key="report_make_images").click().run()
    assert render_count() == start + 2
    assert [b.proto.label for b in at.get("download_button")][-2:] == ["sigma 1 (PNG)", "sigma 2 (PNG)"]
    at.text_input(key="report_title").set_value("Another title").run()
    at.checkbox(key="report_include_summary").check().run()
    at.multiselect(key="report_maps").set_value(["sigma 2"]).run()
    at.multiselect(key="report_maps").set_value(["sigma 1", "sigma 2"]).run()
    assert not at.exception and not _errors(at)
    assert render_count() == start + 2
    assert not [b for b in at.button if b.key == "report_make_images"]
    at.radio(key="report_image_format").set_value("SVG").run()
    at.button(key="report_make_images").click().run()
    assert render_count() == start + 4
    assert [b.proto.label for b in at.get("download_button")][-2:] == ["sigma 1 (SVG)", "sigma 2 (SVG)"]


def test_presentation_page_one_slide_per_map_or_per_curve():
    at = _app()
    _example(at, "figure-2")
    _keep(at, "analytic", "Figure 2")
    _goto(at, "presentation")
    assert not _errors(at)
    (fig,) = _figures(at)  # one slide for the kept map, with both its curves
    assert fig["layout"]["font"]["size"] >= 20
    assert set(_traces(fig)) == {"record", "population"}
    statement = [shown(m.value) for m in at.markdown if "rumap-statement" in m.value][0]
    assert "rumap-statement'>Recommendation: λ² = 0.2." in statement
    assert at.button(key="present_next").disabled  # one kept map, one slide
    words = next(shown(m.value) for m in at.markdown if m.value.startswith("**The words on this slide**"))
    for word in ("snooper", "record = index", "population = mean", "utility (U = n / (σ² + λ²))"):
        assert f"**{word}**:" in words, words  # every word the slide uses, explained for a committee
    at.checkbox(key="present_per_curve").check().run()
    (fig,) = _figures(at)
    assert "chosen: λ² = 0.2" in fig["layout"]["annotations"][-1]["text"]
    statement = [shown(m.value) for m in at.markdown if "rumap-statement" in m.value][0]
    assert "a snooper who can link the target to its masked record has risk 5" in statement
    at.button(key="present_next").click().run()
    (fig2,) = _figures(at)
    assert fig2["layout"]["title"]["text"].endswith("population")
    statement = [shown(m.value) for m in at.markdown if "rumap-statement" in m.value][0]
    assert "knows only that the target is from the population" in statement
    assert "With λ² = 0.2, a snooper" in statement  # the map's one recommendation, not this curve's own (no noise)


def test_presentation_starts_from_the_sessions_maximum_tolerable_risk_and_sets_it():
    at = _app()
    _example(at, "figure-2")
    _keep(at, "analytic", "Figure 2")  # kept with R_max = 5
    at.number_input(key="an_max_risk").set_value(2.0).run()  # the session's R_max changes afterwards
    _goto(at, "presentation")
    assert not _errors(at)
    assert at.number_input(key="present_max_risk").value == pytest.approx(2.0)
    statement = [shown(m.value) for m in at.markdown if "rumap-statement" in m.value][0]
    assert "Recommendation: λ² = 0.2." not in statement  # the bound of 5 would give λ² = 0.2
    at.number_input(key="present_max_risk").set_value(5.0).run()
    assert "Recommendation: λ² = 0.2." in [shown(m.value) for m in at.markdown if "rumap-statement" in m.value][0]
    # the bound of this measure and units (1 / MSE of the setting sigma2 = 1), as on other pages
    assert at.session_state["rumap_bounds"]["R = 1 / snooper's MSE | σ² = 1"] == pytest.approx(5.0)
    _goto(at, "compare")
    assert at.number_input(key="compare_max_risk").value == pytest.approx(5.0)


def test_plain_language_leads_with_the_recommendation_and_folds_the_crossings():
    at = _app()
    _example(at, "figure-4")
    heading = [i for i, m in enumerate(at.markdown) if "Recommendation" in m.value]
    assert heading and shown(at.markdown[heading[0]].value).startswith("**Recommendation: λ² = ")
    crossings = [e for e in at.expander if e.label.startswith("Where the curves cross")]
    assert len(crossings) == 1 and "switches estimator" in shown(crossings[0].markdown[0].value)


def test_the_dashboard_cannot_exceed_the_work_budget():
    import time

    at = _app()
    _goto(at, "empirical")
    at.number_input(key="em_replicates").set_value(10_000_000).run()
    start = time.perf_counter()
    at.button(key="em_run").click().run()
    assert time.perf_counter() - start < 20
    assert not at.exception and not _figures(at)
    assert any("over the work limit of 2e+09" in e for e in _errors(at))


def test_noise_is_not_truncated_unless_asked_as_on_the_command_line():
    at = _app()  # the bundled income data: every value >= 0
    _goto(at, "empirical")
    assert at.checkbox(key="em_trunc_on").value is False
    assert not any(n.key == "em_trunc" for n in at.number_input)
    at.checkbox(key="em_trunc_on").check()
    at.checkbox(key="em_unequal_on").check().run()  # the options' inputs read their entries of the table
    (bound,) = [n for n in at.number_input if n.key == "em_trunc"]  # truncate_below: the entry truncation
    assert (bound.min, bound.max) == (-1e150, 1e150) and bound.help == PARAMETERS["truncation"].description
    (threshold,) = [n for n in at.number_input if n.key == "em_unequal_above"]  # unequal_above: unequal_threshold
    assert not at.exception and threshold.help == PARAMETERS["unequal_threshold"].description
    at.checkbox(key="em_trunc_on").uncheck()
    at.checkbox(key="em_unequal_on").uncheck()
    at.number_input(key="em_replicates").set_value(10).run()
    at.button(key="em_run").click().run()
    assert not at.exception and not _errors(at)
    commands = [c.value for c in open_reproduce_panels(at).code if c.value.startswith("python -m rumap simulate")]
    assert commands and not any("--truncate-below" in c for c in commands)


def test_empirical_page_runs_the_simulation_and_widgets_change_the_map():
    at = _app()
    _goto(at, "empirical")
    assert not _errors(at)
    assert not _figures(at)
    at.number_input(key="em_replicates").set_value(30).run()
    at.button(key="em_run").click().run()
    assert not at.exception and not _errors(at)
    (fig,) = _figures(at)
    lines = _traces(fig)
    assert set(lines) == {"noise / index / max", "noise / position / max", "noise / index / p99",
                          "noise / position / p99"}
    assert any(t.get("fill") == "toself" for t in fig["data"])  # confidence bands
    assert any(c.value.startswith("python -m rumap simulate --data data/income.csv --column income")
               and c.value.endswith("--max-risk 4e-08 --json") for c in open_reproduce_panels(at).code)  # its bound
    at.multiselect(key="em_targets").set_value(["min"]).run()
    assert any("press “Run simulation”" in shown(i.value) for i in at.info)
    at.button(key="em_run").click().run()
    (fig2,) = _figures(at)
    assert set(_traces(fig2)) == {"noise / index / min", "noise / position / min"}
    at.selectbox(key="em_method").set_value("microaggregation").run()
    at.button(key="em_run").click().run()
    assert not _errors(at), _errors(at)
    (fig3,) = _figures(at)
    # the two states give the same curve here: the second is dashed and says so
    assert set(_traces(fig3)) == {"microaggregation / index / min",
                                  "microaggregation / position / min (coincides with microaggregation / index / min)"}
    assert "k=" in "".join(_traces(fig3, "markers+text")["microaggregation / index / min markers"]["text"])
    _keep(at, "empirical", "micro")
    from dashboard.state import ANALYSES

    assert [a.name for a in at.session_state[ANALYSES]] == ["micro"]


def test_home_figure_7_runs_both_maskings_and_compares_them():
    at = _app()
    _example(at, "figure-7", page="compare")
    (fig,) = _figures(at)
    assert set(_traces(fig)) == {"Figure 7: equal variance", "Figure 7: unequal variance"}
    assert "Figure 7: unequal variance" in shown(at.success[0].value)


def test_home_figure_5_opens_each_curve_with_the_threshold_crossing():
    """Figure 5 draws the maximum and the minimum on their own, not their worst case, and where each crosses."""
    at = _app()
    _example(at, "figure-5", page="compare")
    assert at.selectbox(key="compare_knowledge").value == "each curve on its own"
    assert "noise / position / max (position = percentile / maximum / minimum)" in \
        at.selectbox(key="compare_knowledge").options
    assert at.number_input(key="compare_max_risk").value == pytest.approx(4e-8)
    (fig,) = _figures(at)
    name = "Figure 5: income maximum and minimum"
    assert set(_traces(fig)) == {f"{name}: noise / position / max", f"{name}: noise / position / min"}
    text = " ".join(shown(m.value) for m in at.markdown)
    assert "noise / position / max: reached at λ²/S² = 0.2 (" in text  # by the upper end of its band
    assert not at.success  # 0.2 leaves the minimum unprotected: never recommended beside it
    at.radio(key="compare_decision").set_value("mean").run()
    text = " ".join(shown(m.value) for m in at.markdown)
    assert "noise / position / max: reached at λ²/S² = 0.15 (" in text  # by the mean, as the paper's figure
    assert "noise / position / min: no λ²/S² on the grid reaches it" in text
    assert "tolerable average error of 5e+03" in text
    assert not at.success
    (warning,) = [shown(w.value) for w in at.warning]
    assert "no λ²/S² on this grid protects target min (position knowledge) at R ≤ 4e-08" in warning
    assert "most utility under the bound" not in {t["name"] for t in _figures(at)[0]["data"]}
    at.radio(key="compare_utility_scale").set_value("efficiency").run()
    assert not at.exception and not _errors(at)
    (fig,) = _figures(at)
    assert fig["layout"]["xaxis"]["title"]["text"].startswith("efficiency")
    assert max(max(t["x"]) for t in _traces(fig).values()) == pytest.approx(1.0, abs=0.05)


def test_one_maximum_tolerable_risk_for_the_session():
    """R_max set on one page is the other pages' too, as R and as the tolerable error; the report uses it."""
    at = _app()
    _goto(at, "analytic")
    default = at.number_input(key="an_max_risk").value
    assert default == pytest.approx(4e-8)  # the bundled income data: the paper's $5K
    assert any("a tolerable average error of 5e+03 in data units" in c.value for c in at.sidebar.caption)
    _keep(at, "analytic", "first bound")
    at.number_input(key="an_max_risk").set_value(1e-8).run()
    _keep(at, "analytic", "second bound")
    _goto(at, "empirical")
    assert at.number_input(key="em_error").value == pytest.approx(1e4)
    at.number_input(key="em_error").set_value(2500.0).run()
    _goto(at, "analytic")
    assert at.number_input(key="an_max_risk").value == pytest.approx(1.6e-7)
    _goto(at, "compare")
    assert at.number_input(key="compare_max_risk").value == pytest.approx(1.6e-7)
    _goto(at, "report")
    assert not at.exception and not _errors(at)
    assert at.checkbox(key="report_session_bound").value  # two bounds in one report: the session's by default
    bounds = [a["spec"]["max_risk"] for a in json.loads(at.code[-1].value)["analyses"]]
    assert bounds == [pytest.approx(1.6e-7)] * 2
    at.checkbox(key="report_session_bound").uncheck().run()
    bounds = [a["spec"]["max_risk"] for a in json.loads(at.code[-1].value)["analyses"]]
    assert bounds == [pytest.approx(4e-8), pytest.approx(1e-8)]


def test_data_page_upload_and_a_bad_file():
    at = _app()
    _goto(at, "data")
    at.radio(key="data_source").set_value("Upload a file").run()
    content = b"income,region\n" + b"\n".join(f"{1000 + 37 * i % 900},r{i % 3}".encode() for i in range(60))
    at.file_uploader(key="data_upload").set_value(("survey.csv", content, "text/csv")).run()
    assert not at.exception and not _errors(at)
    assert "Using income (n = 60)" in shown(at.success[0].value)
    at.file_uploader(key="data_upload").set_value(("survey.xyz", b"hello", "application/octet-stream")).run()
    assert not at.exception
    assert any("survey.xyz: unknown file format '.xyz'" in e for e in _errors(at))
    at.file_uploader(key="data_upload").set_value(("latin.csv", "x\n1\nMüller\n".encode("latin-1"), "text/csv")).run()
    assert any("latin.csv: the file is not UTF-8 text" in e for e in _errors(at))


def test_report_page_loads_a_configuration_back():
    from rumap.present.report import config_json, report_html
    from rumap.specs import AnalyticSpec

    spec = AnalyticSpec(n=200, sigma2=1.0, states=("record", "maximum"), max_risk=5.0, lambda2_num=41)
    original = spec.run().renamed("from a file")
    at = _app()
    _goto(at, "report")
    for name, content in [("config.json", config_json([original]).encode()),
                          ("report.html", report_html([original]).encode())]:
        at.file_uploader(key="report_config").set_value((name, content, "application/json")).run()
        at.button(key="report_load").click().run()
        assert not at.exception and not _errors(at), _errors(at)
        assert "Reproduced 1 map(s)" in shown(at.success[0].value)
    from dashboard.state import ANALYSES

    (kept,) = at.session_state[ANALYSES]
    assert kept.name == "from a file" and kept.spec == spec
    np.testing.assert_array_equal(kept.maps[1].risk, original.maps[1].risk)
    at.file_uploader(key="report_config").set_value(("bad.json", b"{oops", "application/json")).run()
    at.button(key="report_load").click().run()
    assert any("not valid JSON" in e for e in _errors(at))


def test_empirical_page_record_linkage_as_the_risk_measure():
    at = _app()
    _goto(at, "empirical")
    at.number_input(key="em_replicates").set_value(10).run()
    at.radio(key="em_risk_kind").set_value("share of records re-identified or disclosed").run()
    at.multiselect(key="em_measures").set_value(["record-linkage", "interval-disclosure"]).run()
    at.button(key="em_run").click().run()
    assert not at.exception and not _errors(at), _errors(at)
    (fig,) = _figures(at)
    lines = _traces(fig)
    assert set(lines) == {"noise / record-linkage", "noise / interval-disclosure"}
    linked = lines["noise / record-linkage"]["y"]
    assert all(0 <= v <= 1 for v in linked)
    assert linked[-1] < linked[0]  # more noise, fewer records re-identified (curve drawn from small lambda2 up)
    assert any("--risk-measure record-linkage" in c.value for c in open_reproduce_panels(at).code)
    at.multiselect(key="em_measures").set_value([]).run()
    assert not at.exception
    assert any("dataset risk measure" in e for e in _errors(at))


def test_kept_names_stay_unique():
    at = _app()
    _goto(at, "analytic")
    _keep(at, "analytic", "my map")
    _keep(at, "analytic", "my map")  # the same map again: replaced, not doubled
    assert [a.name for a in at.session_state["rumap_analyses"]] == ["my map"]
    at.number_input(key="an_n").set_value(150).run()
    _keep(at, "analytic", "my map")  # another map under a taken name
    at.number_input(key="an_n").set_value(120).run()
    _keep(at, "analytic", "my map")
    assert [a.name for a in at.session_state["rumap_analyses"]] == ["my map", "my map (2)", "my map (3)"]


def test_home_text_names_the_colours_the_chart_draws():
    from rumap.present.plotting import PALETTE

    at = _app()
    colours = _svg_curves(at)
    words = dict(PALETTE)
    text = " ".join(m.value for m in at.markdown)
    for state, phrase in (("record", "masked record ("), ("population", "the population (")):
        word = text.split(phrase, 1)[1].split(")", 1)[0]
        assert words[word] == colours[state], (state, word, colours[state])


def test_the_analytic_page_says_what_it_draws():
    at = _app()
    _goto(at, "analytic")
    assert any(shown(c.value).startswith("Drawn for the data income (synthetic, Table 1) [income], n = 177: n = 177")
               and "(σ² and μ of the data)" in shown(c.value) for c in at.info)
    _example(at, "figure-4")
    infos = [shown(c.value) for c in at.info]
    assert any(c.startswith("Drawn for the worked example “Figure 4: adding the maximum”: n = 200, σ² = 1, μ = 0; "
                            "no data set is used") for c in infos), infos
    assert not any("Prefilled" in c or "income" in c for c in infos + [shown(c.value) for c in at.caption])


def test_a_refused_file_or_column_leaves_the_earlier_selection_named_as_such():
    at = _app()
    _goto(at, "data")
    at.radio(key="data_source").set_value("Upload a file").run()
    content = b"income,age\n" + b"\n".join(f"{1000 + 37 * i % 900},{20 + i % 40}".encode() for i in range(60))
    at.file_uploader(key="data_upload").set_value(("survey.csv", content, "text/csv")).run()
    assert "Using income (n = 60)" in shown(at.success[0].value)
    at.file_uploader(key="data_upload").set_value(("names.csv", b"name\na\nb\n", "text/csv")).run()
    assert any("names.csv: no numeric column" in e for e in _errors(at))
    expected = ("Still showing survey.csv [income], n = 60: the new file names.csv was refused because "
                "names.csv: no numeric column")
    assert any(shown(w.value).startswith(expected) for w in at.warning), [w.value for w in at.warning]
    for page in ("analytic", "empirical"):
        _goto(at, page)
        assert any(shown(w.value).startswith(expected) for w in at.warning), page
    assert at.session_state["rumap_selection"].source.name == "survey.csv"
    # a column refused for its missing values: the earlier column stays, named as such
    _goto(at, "data")
    at.file_uploader(key="data_upload").set_value(("gaps.csv", b"a,b\n1,2\n2,\n3,5\n4,1\n", "text/csv")).run()
    at.multiselect(key="data_columns").set_value(["b"]).run()
    assert any("column 'b' has 1 missing" in e for e in _errors(at))
    assert any(shown(w.value).startswith("Still showing gaps.csv [a], n = 4: b of gaps.csv was refused")
               for w in at.warning), [shown(w.value) for w in at.warning]
    _goto(at, "empirical")
    assert any(shown(i.value) == "Data: gaps.csv [a], n = 4." for i in at.info)


def test_both_pages_speak_the_glossary_s_words_and_show_the_formulas():
    from rumap.maps.attacks import KNOWLEDGE

    at = _app()
    _goto(at, "empirical")
    assert at.multiselect(key="em_knowledge").format_func("index") == "index = record"
    formulas = [el.value.strip("$\n") for el in at.get("latex")]
    assert KNOWLEDGE["index"].latex in formulas and KNOWLEDGE["position"].latex in formulas
    assert any("**index = record**" in m.value for m in at.markdown)
    _goto(at, "analytic")
    assert at.multiselect(key="an_states").format_func("record") == "record = index (Eq 4)"
    assert any("**percentile = position**" in m.value for m in at.markdown)


def test_pages_with_their_own_file_name_it_at_the_top():
    at = _app()
    for page, start in (("identity", "Data: "), ("categorical", "Data: "),
                        ("risk_measures", "Original and masked files: persons.csv + noise")):
        _goto(at, page)
        infos = [shown(i.value) for i in at.info]
        assert any(i.startswith(start) and "n = " in i for i in infos), (page, infos)


def test_a_kept_table_map_reaches_compare_and_report():
    at = _app()
    open_tab(_goto(at, "tables"), "From microdata")
    at.checkbox(key="micro_draw_map").check().run()
    assert not at.exception and not _errors(at), _errors(at)
    _keep(at, "tables_micro", "table by P")
    _goto(at, "report")
    assert not _errors(at)
    labels = [b.proto.label for b in at.get("download_button")]
    assert labels == ["Curves (CSV)", "Curves (JSON)"]  # a page's map goes in the curves, with its Python
    assert any("table by P" in shown(c.value) for c in at.caption)
    _goto(at, "compare")
    assert not at.exception and not _errors(at), _errors(at)
    assert any("table by P" in t["name"] for fig in _figures(at) for t in fig["data"])


def test_the_analytic_figure_is_built_once_for_a_setting(monkeypatch):
    import rumap.present.figures as figures
    from dashboard import state

    state.shared_figures.clear()
    built: list = []
    original = figures.analysis_figure
    monkeypatch.setattr(figures, "analysis_figure", lambda analysis, **kw: built.append(1) or original(analysis, **kw))
    at = _goto(_app(), "analytic")
    first = _figures(at)
    at.run()
    _goto(at, "home")
    _goto(at, "analytic")
    assert _figures(at) == first and len(built) == 1
    at.number_input(key="an_lam_num").set_value(101).run()
    assert len(built) == 2 and _figures(at) != first
