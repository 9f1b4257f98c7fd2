"""Figures of analyses: the bound's label on log axes, comparison, presentation and Pareto figures."""

from __future__ import annotations

import math

import numpy as np

from rumap.maps.pareto import best_under_risk, map_points, pareto_frontier
from rumap.present.figures import analysis_figure, comparison_figure, pareto_figure, presentation_figure
from rumap.present.statements import map_choice
from rumap.specs import AnalyticSpec

PAPER = AnalyticSpec(n=200, sigma2=1.0, states=("record", "population"), max_risk=5.0, lambda2_num=101)


def test_bound_label_sits_on_the_line_of_a_log_axis():
    fig = analysis_figure(PAPER.run())
    label = [a for a in fig.layout.annotations if a.text.startswith("maximum tolerable risk")][0]
    assert label.y == math.log10(5.0)  # on a log axis annotations are placed by log10(value)
    linear = analysis_figure(AnalyticSpec(**{**PAPER.__dict__, "log_y": False}).run())
    assert [a.y for a in linear.layout.annotations if a.text.startswith("maximum")] == [5.0]
    assert fig.layout.xaxis.exponentformat == "e"


def test_comparison_figure_names_curves_and_marks_the_choice():
    a, b = PAPER.run().maps
    choice = best_under_risk([a, b], 5.0, labels=["first", "second"])
    fig = comparison_figure([a, b], ["first", "second"], max_risk=5.0, choice=choice)
    assert [t.name for t in fig.data if t.mode == "lines"] == ["first", "second"]
    star = [t for t in fig.data if t.name == "most utility under the bound"][0]
    assert (star.x[0], star.y[0]) == (choice.utility, choice.risk)


def test_presentation_figure_is_large_and_annotates_the_choice():
    analysis = PAPER.run()
    choice = map_choice(analysis, 0)
    fig = presentation_figure(analysis.maps[0], choice, title="Record knowledge")
    assert fig.layout.font.size == 24 and fig.layout.showlegend is False
    note = fig.layout.annotations[-1]
    assert note.text.startswith("<b>chosen: λ² = 0.2</b>") and note.y == math.log10(choice.risk)


def test_pareto_figure_draws_points_and_frontier():
    maps = list(PAPER.run().maps)
    points = map_points(maps).to_frame()
    frontier = pareto_frontier(maps)
    fig = pareto_figure(points, frontier)
    grey = [t for t in fig.data if t.name == "all points"][0]
    assert len(grey.x) == np.isfinite(points["risk"]).sum()
    line = [t for t in fig.data if t.name == "frontier"][0]
    assert list(line.x) == list(frontier["utility"][np.isfinite(frontier["risk"])])


def test_utility_on_one_scale_for_curves_far_apart():
    import pytest

    from rumap.errors import InputError
    from rumap.present.figures import utility_on_scale
    from rumap.result import RUMap

    small = RUMap(parameter="k", values=[1, 2], risk=[2.0, 1.0], utility=[4e-7, 1e-7], efficiency=[1.0, 0.25])
    large = RUMap(parameter="k", values=[1, 2], risk=[2.0, 1.0], utility=[200.0, 150.0])
    normalised = utility_on_scale([small, large], "normalised")
    assert [m.utility.tolist() for m in normalised] == [[1.0, 0.25], [1.0, 0.75]]
    assert normalised[0].utility_label == "U / the curve's largest U"
    assert utility_on_scale([small], "efficiency")[0].utility.tolist() == [1.0, 0.25]
    with pytest.raises(InputError, match="has no efficiency"):
        utility_on_scale([large], "efficiency")
    assert utility_on_scale([small, large])[1] is large


def test_normalised_utility_is_one_at_the_best_value_in_the_measures_direction(monkeypatch):
    from dataclasses import replace as replace_record

    from rumap.maps import utility
    from rumap.present.figures import utility_on_scale
    from rumap.result import RUMap

    monkeypatch.setitem(utility.UTILITIES, "loss", replace_record(utility.UTILITIES["sse"], higher_is_better=False))
    loss = RUMap(parameter="k", values=[1, 2], risk=[2.0, 1.0], utility=[0.2, 0.8], config={"utility": "loss"})
    assert utility_on_scale([loss], "normalised")[0].utility.tolist() == [1.0, 0.25]


def test_a_choice_of_risk_0_is_starred_at_the_floor_of_compare_and_pareto():
    """The strongest suppression has R = 0 and is the only value under the bound: its star is drawn, at the floor."""
    from rumap.present.plotting import AT_FLOOR, ZERO_RISK
    from rumap.result import RUMap

    m = RUMap(parameter="k", values=[2, 5, 10], risk=[0.2, 0.01, 0.0], utility=[0.9, 0.6, 0.3])
    choice = best_under_risk([m], 0.001, labels=["suppression"])
    assert (choice.reachable, choice.risk) == (True, 0.0)
    fig = comparison_figure([m], ["suppression"], max_risk=0.001, choice=choice)
    floor = 10 ** fig.layout.yaxis.range[0]
    star = next(t for t in fig.data if t.name == "most utility under the bound")
    (zero,) = [t for t in fig.data if isinstance(t.meta, dict) and t.meta.get(AT_FLOOR)]
    assert np.allclose([star.y[0], *zero.y], floor) and ZERO_RISK in star.hovertext[0]
    assert "k=10, R=0" in [*star.text, *(a.text for a in fig.layout.annotations)]  # beside it or in a callout
    pareto = pareto_figure(map_points([m]).to_frame(), pareto_frontier([m]), max_risk=0.001, choice=choice)
    (zero,) = [t for t in pareto.data if isinstance(t.meta, dict) and t.meta.get(AT_FLOOR)]
    star = next(t for t in pareto.data if t.name == "most utility under the bound")
    floor = 10 ** pareto.layout.yaxis.range[0]
    assert list(zero.x) == [0.3] and np.allclose([star.y[0], *zero.y], floor) and ZERO_RISK in zero.hovertemplate
    presented = presentation_figure(m, choice, title="suppression")
    chosen = next(t for t in presented.data if t.name == "chosen")
    assert np.allclose(chosen.y, 10 ** presented.layout.yaxis.range[0])
