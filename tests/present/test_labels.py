"""Figure labels: inside the plot area and clear of each other, on every worked example's figure."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from rumap.maps.pareto import best_under_risk
from rumap.present.examples import EXAMPLES, example_specs
from rumap.present.figures import analysis_figure, comparison_figure, presentation_figure
from rumap.present.labels import PlotArea, place_labels, plot_area

FONT_WIDTH, FONT_HEIGHT, GAP = 0.62, 1.3, 5.0


def _boxes(fig) -> list[tuple[str, tuple[float, float, float, float]]]:
    """Every shown label's box in pixels of the plot area, computed from the figure's spec alone."""
    spec = fig.to_plotly_json()
    layout = spec["layout"]
    area = plot_area(fig)
    (x0, x1), (y0, y1) = layout["xaxis"]["range"], layout["yaxis"]["range"]
    log_x, log_y = layout["xaxis"].get("type") == "log", layout["yaxis"].get("type") == "log"
    out = []
    for trace in fig.data:
        if trace.mode != "markers+text":
            continue
        size = trace.textfont.size or layout["font"]["size"]
        positions = trace.textposition
        positions = [positions] * len(trace.text) if isinstance(positions, str) else positions
        for x, y, text, where in zip(trace.x, trace.y, trace.text, positions, strict=True):
            if not text:
                continue
            px = ((math.log10(x) if log_x else x) - x0) / (x1 - x0) * area.width
            py = ((math.log10(y) if log_y else y) - y0) / (y1 - y0) * area.height
            w, h = FONT_WIDTH * size * len(text), FONT_HEIGHT * size
            vertical, _, horizontal = where.partition(" ")
            left = {"right": px + GAP, "left": px - GAP - w, "center": px - w / 2}[horizontal]
            bottom = {"top": py + GAP, "bottom": py - GAP - h, "middle": py - h / 2}[vertical]
            out.append((text, (left, bottom, left + w, bottom + h)))
    return out


def _check(fig, at_least: int) -> None:
    area = plot_area(fig)
    boxes = _boxes(fig)
    assert len(boxes) >= at_least, [t for t, _ in boxes]
    for text, (left, bottom, right, top) in boxes:
        assert left >= -1e-9 and bottom >= -1e-9 and right <= area.width + 1e-9 and top <= area.height + 1e-9, text
    for (ta, a), (tb, b) in itertools.combinations(boxes, 2):
        assert not (a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]), (ta, tb)


@pytest.fixture(scope="module")
def analyses():
    return {key: [spec.run().renamed(name) for name, spec in example_specs(key)] for key in EXAMPLES}


@pytest.mark.parametrize("key", list(EXAMPLES))
def test_every_worked_example_keeps_its_labels_inside_and_apart(analyses, key):
    for analysis in analyses[key]:
        fig = analysis_figure(analysis, title=analysis.name)
        _check(fig, at_least=3)
        stars = [t for t in fig.data if (t.name or "").startswith("optimum")]
        assert all(t.text[0] for t in stars)  # an optimum's λ² is never the label left out
        for curve in range(len(analysis.maps)):
            choice = best_under_risk([analysis.maps[curve]], analysis.max_risk)
            _check(presentation_figure(analysis.maps[curve], choice, title=analysis.name,
                                       log_x=analysis.spec.log_x, log_y=analysis.spec.log_y), at_least=2)
    maps = [m for a in analyses[key] for m in a.maps]
    names = [f"{a.name}: {m.label}" for a in analyses[key] for m in a.maps]
    choice = best_under_risk(maps, analyses[key][0].max_risk, labels=names)
    _check(comparison_figure(maps, names, max_risk=analyses[key][0].max_risk, choice=choice), at_least=3)


def test_a_stars_label_is_not_repeated_by_its_curves_marker(analyses):
    (analysis,) = analyses["figure-2"]
    fig = analysis_figure(analysis, title=analysis.name)
    said = [(float(x), float(y), text) for t in fig.data if t.mode == "markers+text"
            for x, y, text in zip(t.x, t.y, t.text, strict=True) if text]
    assert len(said) == len(set(said))
    assert (200.0, pytest.approx(0.995, abs=1e-3), "λ²=0") in [(x, y, t) for x, y, t in said]


def test_labels_at_the_right_edge_turn_left_and_crowded_ones_are_left_out():
    area = PlotArea(width=300, height=200, x_range=(0, 10), y_range=(0, 10))
    assert place_labels(area, [(9.9, 5)], ["λ²/S²=0.05"]) == ["top left"]
    crowded = place_labels(area, [(5, 5)] * 12, [f"λ²={i}" for i in range(12)])
    assert crowded[:8] == ["top right", "top left", "bottom right", "bottom left", "middle right", "middle left",
                           "top center", "bottom center"][:8] or None in crowded
    assert crowded.count(None) >= 4  # eight positions at most around one point


def test_figure_5_right_edge_labels_are_not_cut():
    """The issue's case: λ²/S²=0.05 sits at the largest utility, at the right edge; it reads in full."""
    (name, spec), = example_specs("figure-5")
    fig = analysis_figure(spec.run(), title=name)
    area = plot_area(fig)
    for text, box in _boxes(fig):
        assert box[2] <= area.width, text
    right_edge = [t for t in fig.data if t.mode == "markers+text" and len(t.x) and max(t.x) == np.max(
        [max(u.x) for u in fig.data if u.mode == "lines"])]
    assert right_edge and all(p.endswith("left") or not txt for t in right_edge
                              for p, txt in zip(t.textposition, t.text, strict=True)
                              if txt.startswith("λ²/S²=0.05"))
