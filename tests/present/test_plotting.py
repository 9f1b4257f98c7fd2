"""Plotly figure builders take results and draw them as they are."""

from __future__ import annotations

import math

import numpy as np
import pytest

from rumap.maps.analytic import analytic_map
from rumap.maps.optimum import max_tolerable_risk
from rumap.maps.setting import AnalyticSetting
from rumap.present.plotting import AT_FLOOR, AT_TOP, ZERO_RISK, ru_map_figure, set_ranges, zero_risk_note
from rumap.result import RUMap

PAPER = AnalyticSetting(n=200, sigma2=1.0)


def test_axes_curves_markers_and_optimum():
    maps = analytic_map(["record", "population"], np.linspace(0, 1, 21), PAPER)
    opt = max_tolerable_risk("record", PAPER, 5.0)
    fig = ru_map_figure(maps, max_risk=5.0, optima=[opt], log_y=True)
    lines = [t for t in fig.data if t.mode == "lines"]
    assert [t.name for t in lines] == ["record", "population"]
    # U on x, R on y; the infinite risk at lambda2 = 0 is left out
    np.testing.assert_allclose(lines[0].x, maps[0].utility[1:])
    np.testing.assert_allclose(lines[0].y, maps[0].risk[1:])
    assert "λ²" in lines[0].hovertemplate
    markers = [t for t in fig.data if t.mode == "markers+text" and t.name.endswith("markers")]
    assert markers and all(text.startswith("λ²=") for text in markers[0].text)
    stars = [t for t in fig.data if t.name == "optimum (record)"]
    assert stars and stars[0].x[0] == opt.utility and stars[0].y[0] == opt.risk
    assert fig.layout.yaxis.type == "log"
    assert any(shape.y0 == 5.0 for shape in fig.layout.shapes)
    assert fig.layout.xaxis.title.text == maps[0].utility_label


def test_standard_error_bands():
    m = RUMap(parameter="k", values=[3, 4, 5], risk=[3.0, 2.0, 1.0], utility=[1.0, 0.8, 0.6],
              risk_se=[0.1, 0.1, 0.1], method="microaggregation", knowledge="index", target="max")
    fig = ru_map_figure([m])
    band = [t for t in fig.data if t.fill == "toself"]
    assert len(band) == 1
    assert max(band[0].y) == 3.0 + 1.96 * 0.1
    assert fig.data[1].name == "microaggregation / index / max"


def test_optimum_stars_take_their_curves_colour():
    maps = analytic_map(["record", "percentile"], np.linspace(0, 3, 31), PAPER)
    optima = [max_tolerable_risk(s, PAPER, 5.0) for s in ("record", "percentile")]
    fig = ru_map_figure(maps, max_risk=5.0, optima=optima, log_y=True)
    line_colors = {t.name: t.line.color for t in fig.data if t.mode == "lines"}
    stars = {t.name: t.marker.color for t in fig.data if (t.name or "").startswith("optimum")}
    assert stars == {f"optimum ({s})": line_colors[s] for s in ("record", "percentile") if f"optimum ({s})" in stars}
    assert len(set(stars.values())) == len(stars) >= 1


def test_a_curve_that_coincides_with_another_is_dashed_and_named():
    a = RUMap(parameter="k", values=[3, 4, 5], risk=[3.0, 2.0, 1.0], utility=[1.0, 0.8, 0.6], knowledge="index")
    b = RUMap(parameter="k", values=[3, 4, 5], risk=[3.0, 2.0, 1.0], utility=[1.0, 0.8, 0.6], knowledge="position")
    c = RUMap(parameter="k", values=[3, 4, 5], risk=[4.0, 2.0, 1.0], utility=[1.0, 0.8, 0.6], knowledge="other")
    lines = [t for t in ru_map_figure([a, b, c]).data if t.mode == "lines"]
    assert [t.line.dash for t in lines] == ["solid", "dash", "solid"]
    assert lines[1].name == "position (coincides with index)"
    tiny = [RUMap(parameter="k", values=[3, 4], risk=[r * 1e-9, 1e-9], utility=[1e-7, 2e-7], knowledge=k)
            for r, k in ((3.0, "index"), (5.0, "position"))]  # risks far apart, both below numpy's atol
    assert [t.line.dash for t in ru_map_figure(tiny).data if t.mode == "lines"] == ["solid", "solid"]


def test_log_axes_label_one_value_a_decade_when_wide():
    wide = RUMap(parameter="k", values=[1, 2, 3], risk=[1e-2, 1.0, 1e3], utility=[3.0, 2.0, 1.0])
    narrow = RUMap(parameter="k", values=[1, 2, 3], risk=[2.0, 3.0, 5.0], utility=[3.0, 2.0, 1.0])
    assert ru_map_figure([wide], log_y=True).layout.yaxis.dtick == 1
    axis = ru_map_figure([narrow], log_y=True).layout.yaxis
    assert list(axis.ticktext) == ["2", "5"] and list(axis.tickvals) == [2.0, 5.0]


@pytest.mark.parametrize(("low", "high"), [(0.15, 0.9), (0.011, 0.6), (5.6, 7.1), (0.3004, 0.3009), (2e-5, 8e-5)])
def test_log_axes_label_each_tick_with_the_number_it_marks(low, high):
    m = RUMap(parameter="k", values=[1, 2, 3], risk=[low, (low + high) / 2, high], utility=[3.0, 2.0, 1.0])
    axis = ru_map_figure([m], log_y=True).layout.yaxis
    assert len(axis.tickvals) >= 2
    lo, hi = (10**v for v in axis.range)
    for value, text in zip(axis.tickvals, axis.ticktext, strict=True):
        assert lo <= value <= hi and float(text) == pytest.approx(value, rel=5e-3)  # 0.2 reads "0.2", never "2"
    if low < 0.2 < 0.5 < high:
        assert {"0.2", "0.5"} <= set(axis.ticktext)


def test_pareto_and_comparison_log_axes_read_in_full():
    import pandas as pd

    from rumap.present.figures import pareto_figure

    points = pd.DataFrame({"map": ["a", "a"], "parameter": ["k", "k"], "value": [1.0, 2.0],
                           "utility": [0.3, 0.9], "risk": [0.2, 0.6]})
    fig = pareto_figure(points, points, log_x=True, log_y=True)
    assert "0.2" in fig.layout.yaxis.ticktext and "0.5" in fig.layout.yaxis.ticktext
    assert "0.3" in fig.layout.xaxis.ticktext or "0.5" in fig.layout.xaxis.ticktext


@pytest.mark.parametrize("log_y", [True, False])
def test_exact_disclosures_are_drawn_at_the_top_of_the_risk_axis(log_y):
    """k = 7 and 8 recover the target exactly: triangles at the top, "exact disclosure" on hover, no 1e32 axis."""
    m = RUMap(parameter="k", values=[2, 3, 5, 7, 8], risk=[9.0, 3.0, 1.0, math.inf, math.inf],
              utility=[5.0, 4.0, 3.0, 2.0, 1.0], method="microaggregation", knowledge="index", target="p99")
    fig = ru_map_figure([m], log_y=log_y)
    (top,) = [t for t in fig.data if isinstance(t.meta, dict) and t.meta.get(AT_TOP)]
    low, high = fig.layout.yaxis.range
    assert list(top.x) == [2.0, 1.0]
    assert np.allclose(top.y, 10**high if log_y else high) and top.cliponaxis is False
    assert "exact disclosure" in top.hovertemplate
    assert (high < math.log10(9.0) + 1) if log_y else (high < 10)  # the axis spans the finite risks only
    again = set_ranges(fig)  # placing them again keeps them at the top, the range unchanged
    assert list(again.layout.yaxis.range) == [low, high]


@pytest.mark.parametrize("log_y", [True, False])
def test_a_risk_of_0_is_drawn_at_the_floor_of_a_log_axis_and_said_so(log_y):
    """k = 10 suppresses every risky value (R = 0): a log axis has no 0, so it sits at the floor, labelled."""
    m = RUMap(parameter="k", values=[2, 5, 10], risk=[0.2, 0.01, 0.0], utility=[0.9, 0.6, 0.3],
              method="suppress", knowledge="key", target="keys")
    fig = ru_map_figure([m], log_y=log_y)
    floors = [t for t in fig.data if isinstance(t.meta, dict) and t.meta.get(AT_FLOOR)]
    note = zero_risk_note(fig)
    if not log_y:  # drawn on the curve at 0, nothing to say
        assert not floors and not note and 0.0 in list(fig.data[0].y)
        return
    (floor,) = floors
    low, _ = fig.layout.yaxis.range
    assert list(floor.x) == [0.3] and np.allclose(floor.y, 10**low) and floor.cliponaxis is False
    assert low < math.log10(0.01) and ZERO_RISK in floor.hovertemplate and list(floor.text) == ["k=10, R=0"]
    assert floor.marker.symbol == "triangle-down-open"
    assert note.startswith("A log axis has no 0: 1 point of risk 0 is drawn at the bottom")
    assert list(set_ranges(fig).layout.yaxis.range)[0] == low  # placing them again keeps the floor
    only_zero = ru_map_figure([RUMap(parameter="k", values=[9], risk=[0.0], utility=[0.1])], log_y=True)
    (alone,) = [t for t in only_zero.data if isinstance(t.meta, dict) and t.meta.get(AT_FLOOR)]
    assert np.allclose(alone.y, 10 ** only_zero.layout.yaxis.range[0])  # every risk 0: still at the floor
