"""Decisions on the dashboard: a bound per risk measure and units, the core's recommendation on every page."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from test_app import _app, _errors, _example, _goto, _keep, _load_frame
from ui_helpers import shown


def _statement(at) -> str:
    return [shown(m.value) for m in at.markdown if "rumap-statement" in m.value][0]


def test_compare_reports_the_exact_analytic_optimum():
    """R_max = 0.6 for record knowledge: lambda2 = 1 / 0.6 = 1.667 exactly; the grid's point would be 1.8."""
    at = _app()
    _example(at, "figure-2")
    at.multiselect(key="an_states").set_value(["record"]).run()
    at.number_input(key="an_lam_num").set_value(11).run()
    at.number_input(key="an_max_risk").set_value(0.6).run()
    _keep(at, "analytic", "record only")
    _goto(at, "compare")
    assert not _errors(at), _errors(at)
    text = " ".join(shown(m.value) for m in at.markdown)
    assert "reached at λ² = 1.67 (exact)" in text and "1.8" not in text
    assert "with λ² = 1.67 (risk 0.6, exact)" in shown(at.success[0].value)


def test_a_bound_never_crosses_to_another_data_set():
    """Scores from 1 to 5 keep their own bound after the Figure 7 example sets the incomes' (R_max = 4e-08)."""
    at = _app()
    scores = np.random.default_rng(1).integers(1, 6, size=300).astype(float)
    _load_frame(at, pd.DataFrame({"score": scores}), "scores.csv")
    _goto(at, "data")  # the data set becomes the session's selection
    _goto(at, "analytic")
    expected = 1 / (0.375 * scores.std(ddof=1)) ** 2  # the paper's error as a share of this column's spread
    assert at.number_input(key="an_max_risk").value == pytest.approx(expected, rel=1e-5)
    _example(at, "figure-7", page="compare")
    assert at.number_input(key="compare_max_risk").value == pytest.approx(4e-8)
    _goto(at, "analytic")
    assert not _errors(at), _errors(at)
    assert at.number_input(key="an_max_risk").value == pytest.approx(expected, rel=1e-5)
    statement = " ".join(shown(m.value) for m in at.markdown if "Recommendation" in m.value)
    assert "Recommendation: λ² = " in statement and "e+" not in statement  # never 1.59e11
    _goto(at, "compare")  # the kept income maps keep the incomes' bound
    assert at.number_input(key="compare_max_risk").value == pytest.approx(4e-8)


def test_presentation_gives_no_recommendation_without_a_bound_of_the_maps_measure():
    """A map of another measure never takes the 1 / MSE bound: without its own, no "k = 1"."""
    from dashboard.pagemaps import PageMapSpec, page_analysis
    from dashboard.state import ANALYSES
    from rumap.io.data import BUNDLED_DATA, read_table
    from rumap.maps.categorical import suppression_map

    at = _app()
    _example(at, "figure-2")
    _keep(at, "analytic", "Figure 2")
    frame = read_table(BUNDLED_DATA["survey (synthetic, households and weights)"])
    m = suppression_map(frame, ["region", "sex", "age_band"], [1, 2, 3, 4, 5])
    kept = page_analysis([m], PageMapSpec(page="categorical", label="suppression"))
    at.session_state[ANALYSES] = [*at.session_state[ANALYSES], kept]
    _goto(at, "presentation")
    at.button(key="present_next").click().run()
    assert not _errors(at), _errors(at)
    statement = _statement(at)
    assert "Recommendation" not in statement and "k = 1" not in statement
    assert any("No maximum tolerable risk is set for R = global risk" in c.value for c in at.sidebar.caption)


def test_empirical_recommendation_comes_with_its_uncertainty():
    at = _app()
    _goto(at, "empirical")
    at.number_input(key="em_replicates").set_value(30).run()
    at.button(key="em_run").click().run()
    assert not at.exception and not _errors(at), _errors(at)
    (text,) = [shown(m.value) for m in at.markdown if "Recommendation" in m.value]
    assert text.startswith("**Recommendation: λ²/S² = ")
    assert "chance that its risk exceeds the bound" in text and "smallest safe λ²/S² between" in text


def test_curves_drawn_each_on_their_own_share_one_recommendation():
    """At R_max = 0.3 the 99th percentile is safe from λ² = 2.1, record knowledge nowhere up to 3: no value."""
    from dashboard.decisions import best_choice, map_decisions, unprotected
    from rumap.specs import AnalyticSpec

    analysis = AnalyticSpec(n=200, sigma2=1.0, states=("record", "percentile"), lambda2_num=5).run()
    maps = list(analysis.maps)
    (d,) = map_decisions([analysis, analysis], maps, [0.3, 0.3])
    assert d.curves == (0, 1) and not d.chosen.feasible
    assert analysis.recommendation(0.3, index=1).feasible  # the percentile's curve alone would give a value
    assert not best_choice([d], [float("nan")], maps, ["a: record", "a: percentile"]).reachable
    assert "no λ² on this grid protects against the snooper with record knowledge at R ≤ 0.3, so none is " \
        "recommended" in unprotected(d, maps)
    (safe,) = map_decisions([analysis, analysis], maps, [5.0, 5.0])
    assert safe.chosen.value == pytest.approx(analysis.recommendation(5.0).value)  # as every other page
    assert maps[safe.curve].knowledge == analysis.recommendation(5.0).binding["knowledge"]
