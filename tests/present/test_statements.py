"""Plain-language statements carry the paper's numbers."""

from __future__ import annotations

import math

import numpy as np
import pytest

from rumap.maps.analytic import STATES
from rumap.maps.optimum import max_tolerable_risk
from rumap.maps.setting import AnalyticSetting
from rumap.present.statements import (
    crossing_lines,
    describe_optimum,
    knowledge_phrase,
    map_choice,
    one_sentence,
    recommendation,
    recommendation_sentence,
    summary_lines,
)
from rumap.result import RUMap
from rumap.specs import Analysis, AnalyticSpec, DataSource, EmpiricalSpec

PAPER = AnalyticSpec(n=200, sigma2=1.0, states=("record", "population", "percentile"), max_risk=5.0)


def test_paper_sentences():
    analysis = PAPER.run()
    lines = summary_lines(analysis)
    assert lines.pop(0).startswith("Recommendation: λ² = 0.304.")  # first the recommendation, then one line per map
    # every line at the one recommended value (the 99th percentile needs it), never a curve's own best alone
    assert lines[0] == ("With λ² = 0.304, a snooper who can link the target to its masked record has risk 3.29 "
                        "(mean squared error 0.304), at most the tolerable 5, and the data keep utility 153 "
                        "(77% efficiency).")
    assert lines[1].startswith("With λ² = 0.304, a snooper who knows only that the target is from the "
                               "population has risk 0.99")
    assert "99th percentile" in lines[2] and lines[2].startswith("With λ² = 0.304,") and "risk 5 " in lines[2]
    record = AnalyticSpec(n=200, sigma2=1.0, states=("record", "population"), max_risk=5.0).run()
    assert summary_lines(record)[1].startswith("With λ² = 0.2, a snooper who can link the target to its masked "
                                               "record has risk 5 (mean squared error 0.2)")  # the paper's Figure 2
    none = summary_lines(AnalyticSpec(**{**PAPER.__dict__, "states": ("record", "population"), "max_risk": 0.9}).run())
    assert none[0].startswith("Recommendation: none on this grid")  # then each curve where it alone meets R_max
    assert none[1].startswith("With λ² = 1.11, a snooper who can link") and none[2].startswith("No λ² on this map")
    assert any("cross at λ² = 0.085" in line for line in lines)


def test_choice_with_another_bound_uses_the_grid():
    analysis = PAPER.run()
    exact = map_choice(analysis, 0)
    assert exact.value == 0.2
    grid = map_choice(analysis, 0, max_risk=2.0)
    assert grid.value == 0.5 and grid.risk == 2.0
    unreachable = map_choice(analysis, 1, max_risk=1e-6)
    assert not unreachable.reachable
    assert one_sentence(analysis.maps[1], unreachable).startswith("No λ² on this map brings the risk")
    no_bound = Analysis(spec=AnalyticSpec(n=200, sigma2=1.0, states=("record",)), maps=analysis.maps[:1])
    assert map_choice(no_bound, 0) is None
    assert "falls as λ² grows" in one_sentence(analysis.maps[0], None)


def test_empirical_phrases():
    m = RUMap(parameter="lambda2_frac", values=[0.05, 0.1, 0.2], risk=[9e-8, 5e-8, 3e-8],
              utility=[9.5e-7, 9e-7, 8e-7], efficiency=[0.95, 0.9, 0.8], method="noise", knowledge="position",
              target="p99", risk_label="R = 1 / snooper's MSE (Eq 12)")
    assert knowledge_phrase(m) == "who knows the target is the 99th percentile and takes the masked value in that position"
    spec = EmpiricalSpec(simulation={"method": "noise", "values": [0.2]}, data=DataSource.of("bundled", "income", ["income"],
                                                                            np.arange(3.0)), max_risk=4e-8)
    analysis = Analysis(spec=spec, maps=(m,))
    sentence = one_sentence(m, map_choice(analysis, 0))
    assert sentence == ("With λ²/S² = 0.2, a snooper who knows the target is the 99th percentile and takes the "
                        "masked value in that position has risk 3e-08 (mean squared error 3.33e+07), at most the "
                        "tolerable 4e-08, and the data keep utility 8e-07 (80% efficiency).")
    index = RUMap(parameter="k", values=[3], risk=[1.0], utility=[1.0], method="microaggregation",
                  knowledge="index", target="max")
    assert knowledge_phrase(index) == "who can link the largest value to its masked record"


def test_describe_optimum_paper_figures():
    paper = AnalyticSetting(n=200, sigma2=1.0)
    assert describe_optimum(max_tolerable_risk("record", paper, 5.0)) == (
        "with record knowledge, noise variance 0.2 keeps the snooper's mean squared error at or above 0.2 while the "
        "mean keeps 83% efficiency")
    assert describe_optimum(max_tolerable_risk("population", paper, 5.0)) == (
        "with population knowledge, no noise is needed: the snooper's mean squared error is already at or above 0.2 "
        "and the mean keeps 100% efficiency")
    assert describe_optimum(max_tolerable_risk("record", paper, 5.0, upper=0.1)) == (
        "with record knowledge, no noise variance keeps the snooper's mean squared error at or above 0.2")


def test_every_state_has_its_phrases():
    for name, state in STATES.items():
        opt = max_tolerable_risk(name, AnalyticSetting.from_data(np.linspace(-2, 2, 50), tau=0.3), 0.5)
        assert describe_optimum(opt).startswith(f"with {state.noun}, ")


def test_the_recommendation_protects_against_the_most_demanding_snooper():
    analysis = PAPER.run()
    choice = recommendation(analysis)
    optima = {o.state: o for o in analysis.optima}
    # the same root (Brent's method to 4 eps relative) over the map's range rather than an unbounded one
    assert choice.reachable and choice.value == pytest.approx(max(o.lambda2 for o in optima.values()), rel=1e-12)
    assert choice.map == max(optima.values(), key=lambda o: o.lambda2).state
    # at the recommended value no curve is above the bound (a finer grid, checked point by point)
    fine = AnalyticSpec(n=200, sigma2=1.0, states=PAPER.states, lambda2_start=choice.value,
                        lambda2_stop=choice.value + 1.0, lambda2_num=11).run()
    assert all(m.risk[0] <= 5.0 * (1 + 1e-9) for m in fine.maps)
    assert recommendation_sentence(analysis).startswith(f"Recommendation: λ² = {choice.value:.3g}.")
    assert len(crossing_lines(analysis)) == len(analysis.crossings)


def test_the_recommendation_on_a_grid_is_the_first_point_where_every_curve_is_below():
    values = np.linspace(0.1, 1.0, 10)
    utility = 1 / (1 + values)
    steep = RUMap(parameter="lambda2", values=values, risk=1 / values, utility=utility, knowledge="index")
    flat = RUMap(parameter="lambda2", values=values, risk=3.0 / (0.5 + values), utility=utility,
                 knowledge="position")
    spec = EmpiricalSpec(simulation={"method": "noise", "values": values.tolist(), "targets": ["max"],
                                     "knowledge": ["index", "position"]},
                         data=DataSource("bundled", "x", ("a",), n=10), max_risk=3.0)
    analysis = Analysis(spec=spec, maps=(steep, flat))
    choice = recommendation(analysis)
    worst = np.maximum(steep.risk, flat.risk)
    first = int(np.argmax(worst <= 3.0))
    assert choice.reachable and choice.value == values[first] and choice.map == flat.label
    assert not recommendation(analysis, max_risk=0.1).reachable
    assert recommendation_sentence(analysis, max_risk=0.1).startswith("Recommendation: none on this grid.")


def test_exact_disclosure_in_words_and_in_tables():
    """k = 7 and 8 under MDAV recover the p99 target: the sentence says so, the table reads "exact disclosure"."""
    from rumap.present.numbers import readable_risks
    from rumap.present.statements import exact_disclosure_phrase

    m = RUMap(parameter="k", values=[1, 2, 7, 8], risk=[math.inf, 2.0, math.inf, math.inf], utility=[4.0, 3.0, 2.0, 1.0],
              method="microaggregation", knowledge="index", target="p99")
    assert exact_disclosure_phrase(m) == " At k = 7 and 8 the snooper recovers the target exactly: an exact disclosure."
    assert one_sentence(m, None).endswith("an exact disclosure.")
    assert readable_risks(m.to_frame())["risk"].tolist() == ["exact disclosure", 2.0, "exact disclosure",
                                                               "exact disclosure"]
