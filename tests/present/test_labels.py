"""Figure labels: inside the plot area and clear of each other, on every worked example's figure."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rumap.maps.pareto import best_under_risk
from rumap.present.examples import EXAMPLES, example_specs
from rumap.present.figures import analysis_figure, comparison_figure, presentation_figure
from rumap.present.labels import PlotArea, crosses_lines, label_box, line_segments, place_labels, plot_area
from rumap.present.plotting import CALLOUT, arrange_labels

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
    for ann in layout.get("annotations", []):  # a star's label joined to it by a line: its box centred at (ax, ay)
        if ann.get("name") != CALLOUT:
            continue
        size = ann["font"]["size"]
        w, h = FONT_WIDTH * size * len(ann["text"]), FONT_HEIGHT * size
        cx = (ann["x"] - x0) / (x1 - x0) * area.width + ann["ax"]
        cy = (ann["y"] - y0) / (y1 - y0) * area.height - ann["ay"]
        out.append((ann["text"], (cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2)))
    return out


def _star_labels(fig) -> list[str]:
    """The labels of the figure's stars, shown beside them or as callouts."""
    beside = [t.text[0] for t in fig.data if (t.name or "").startswith(("optimum", "most utility")) and t.text[0]]
    return beside + [a.text for a in fig.layout.annotations if a.name == CALLOUT]


def _line_points(fig, per_segment: int = 64) -> np.ndarray:
    """Points along every drawn line of the figure (curves, the risk bound) in pixels, densely sampled."""
    area = plot_area(fig)
    layout = fig.to_plotly_json()["layout"]
    (x0, x1), (y0, y1) = layout["xaxis"]["range"], layout["yaxis"]["range"]
    log_x, log_y = layout["xaxis"].get("type") == "log", layout["yaxis"].get("type") == "log"

    def px(x, y):
        x = math.log10(x) if log_x else x
        y = math.log10(y) if log_y else y
        return (x - x0) / (x1 - x0) * area.width, (y - y0) / (y1 - y0) * area.height

    lines = [list(zip(t.x, t.y, strict=True)) for t in fig.data
             if "lines" in (t.mode or "") and t.fill in (None, "none") and (t.line.width or 1) > 0]
    lines += [[(10 ** x0 if log_x else x0, s.y0), (10 ** x1 if log_x else x1, s.y0)]
              for s in fig.layout.shapes if s.type == "line" and s.y0 == s.y1]
    out = []
    t = np.linspace(0.0, 1.0, per_segment)[:, None]
    for line in lines:
        drawn = [px(x, y) for x, y in line if x is not None and y is not None and (not log_x or x > 0)
                 and (not log_y or y > 0)]
        for a, b in itertools.pairwise(drawn):
            out.append(np.array(a) + t * (np.array(b) - np.array(a)))
    return np.vstack(out) if out else np.empty((0, 2))


def _check(fig, at_least: int) -> None:
    area = plot_area(fig)
    boxes = _boxes(fig)
    assert len(boxes) >= at_least, [t for t, _ in boxes]
    for text, (left, bottom, right, top) in boxes:
        assert left >= -1e-9 and bottom >= -1e-9 and right <= area.width + 1e-9 and top <= area.height + 1e-9, text
    for (ta, a), (tb, b) in itertools.combinations(boxes, 2):
        assert not (a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]), (ta, tb)
    points = _line_points(fig)
    for text, (left, bottom, right, top) in boxes:  # no label on a drawn line (1 px inside the box's edge)
        on = (points[:, 0] > left + 1) & (points[:, 0] < right - 1) & (points[:, 1] > bottom + 1) & \
             (points[:, 1] < top - 1)
        assert not on.any(), text


@pytest.fixture(scope="module")
def analyses():
    return {key: [spec.run().renamed(name) for name, spec in example_specs(key)] for key in EXAMPLES}


@pytest.mark.parametrize("key", list(EXAMPLES))
def test_every_worked_example_keeps_its_labels_inside_and_apart(analyses, key):
    for analysis in analyses[key]:
        fig = analysis_figure(analysis, title=analysis.name)
        _check(fig, at_least=3)
        stars = [t for t in fig.data if (t.name or "").startswith("optimum")]
        assert sorted(_star_labels(fig)) == sorted(t.meta["labels"][0] for t in stars)  # never left out
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


def test_a_label_that_would_sit_on_its_curve_moves_off_it():
    # A steep curve leaves its point towards the upper right: the first position tried (top right) lies on it.
    area = PlotArea(width=400, height=300, x_range=(0, 4), y_range=(0, 100))
    curve = line_segments(area, [([1, 2, 3], [10, 20, 95])])
    point, text = [(2.0, 20.0)], ["λ²=0.5"]
    (old,) = place_labels(area, point, text)  # without the lines, as labels were placed before
    assert old == "top right" and crosses_lines(label_box(*area.to_pixels(2, 20), text[0], 11, old), curve)
    (new,) = place_labels(area, point, text, lines=curve)
    assert new is not None and not crosses_lines(label_box(*area.to_pixels(2, 20), text[0], 11, new), curve)
    # horizontal lines through the rows of boxes above, beside and below the point (it is at 60 px)
    rows = np.array([[0.0, y, 400.0, y] for y in (48.0, 60.0, 72.0)])
    (boxed_in,) = place_labels(area, point, text, lines=np.vstack([curve, rows]))
    assert boxed_in is None  # every position crosses a line: left out, its value on hover


@settings(max_examples=200, deadline=None)
@given(box=st.tuples(st.integers(0, 50), st.integers(0, 50), st.integers(1, 30), st.integers(1, 30)),
       segment=st.lists(st.integers(-20, 100), min_size=4, max_size=4))
def test_crosses_lines_agrees_with_points_along_the_segment(box, segment):
    left, bottom, width, height = box
    rect = (left, bottom, left + width, bottom + height)
    x0, y0, x1, y1 = segment
    t = np.linspace(0, 1, 4001)
    xs, ys = x0 + t * (x1 - x0), y0 + t * (y1 - y0)
    deep = ((xs > rect[0] + 0.5) & (xs < rect[2] - 0.5) & (ys > rect[1] + 0.5) & (ys < rect[3] - 0.5)).any()
    touching = ((xs >= rect[0]) & (xs <= rect[2]) & (ys >= rect[1]) & (ys <= rect[3])).any()
    found = crosses_lines(rect, np.array([segment], dtype=float))
    assert (not deep or found) and (not found or touching)


def test_a_star_with_no_free_place_beside_it_gets_a_callout_off_the_lines(analyses):
    (analysis,) = analyses["figure-4"]
    fig = analysis_figure(analysis, title=analysis.name)
    callouts = [a for a in fig.layout.annotations if a.name == CALLOUT]
    assert callouts and all(a.showarrow for a in callouts)
    again = arrange_labels(fig)  # placed again (after a layout change): the callouts are not repeated
    assert len([a for a in again.layout.annotations if a.name == CALLOUT]) == len(callouts)
