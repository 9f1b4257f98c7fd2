"""Where the text labels of a figure go: inside the plot area, never on top of each other.

A label's box is estimated from its font size and length (an average glyph is
:data:`GLYPH_WIDTH` times the font size wide, a line :data:`LINE_HEIGHT` times
it high) in the pixels of the figure's layout size. Labels are placed one after
another, most important first; each takes the first text position around its
point whose box stays inside the plot area, clear of the boxes placed before it
and clear of the figure's drawn lines (a label on a curve hides the curve and is
hard to read). A label with no such position is left out: its point stays drawn
and its value shows on hover, which reads better than text over a line.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from rumap._validation import InstanceOf, assumes_valid, validate_params

__all__ = ["GLYPH_WIDTH", "LINE_HEIGHT", "TEXT_POSITIONS", "PlotArea", "label_box", "place_labels", "plot_area",
           "crosses_lines", "line_segments", "place_callout", "CALLOUT_DISTANCES"]

#: Average glyph width and line height as multiples of the font size (sans-serif, with a margin).
GLYPH_WIDTH = 0.62
LINE_HEIGHT = 1.3
#: Gap between a point and its label, in pixels (about a marker's radius).
GAP = 5.0
#: Plotly's text positions, in the order they are tried: (horizontal, vertical) direction from the point.
TEXT_POSITIONS: dict[str, tuple[int, int]] = {
    "top right": (1, 1), "top left": (-1, 1), "bottom right": (1, -1), "bottom left": (-1, -1),
    "middle right": (1, 0), "middle left": (-1, 0), "top center": (0, 1), "bottom center": (0, -1),
}


@dataclass(frozen=True)
class PlotArea:
    """The plot area of a figure in pixels, and its axes' ranges (log10 of the values on log axes).

    Attributes
    ----------
    width, height : float
        The plot area's size in pixels (the figure's size less its margins).
    x_range, y_range : tuple of float
    log_x, log_y : bool
    """

    width: float
    height: float
    x_range: tuple[float, float]
    y_range: tuple[float, float]
    log_x: bool = False
    log_y: bool = False

    def to_pixels(self, x: float, y: float) -> tuple[float, float]:
        """A data point in pixels from the plot area's lower left corner (y upwards)."""
        if self.log_x:
            x = math.log10(x) if x > 0 else -math.inf
        if self.log_y:
            y = math.log10(y) if y > 0 else -math.inf
        (x0, x1), (y0, y1) = self.x_range, self.y_range
        return (x - x0) / (x1 - x0) * self.width, (y - y0) / (y1 - y0) * self.height


@assumes_valid
def label_box(px: float, py: float, text: str, font_size: float, position: str) -> tuple[float, float, float, float]:
    """The box (left, bottom, right, top) in pixels of ``text`` placed at ``position`` around the point.

    Parameters
    ----------
    px, py : float
        The point in pixels (y upwards).
    text : str
    font_size : float
    position : str
        A key of :data:`TEXT_POSITIONS`.

    Returns
    -------
    tuple of float
    """
    width = GLYPH_WIDTH * font_size * len(text)
    height = LINE_HEIGHT * font_size
    dx, dy = TEXT_POSITIONS[position]
    left = px + GAP if dx > 0 else px - GAP - width if dx < 0 else px - width / 2
    bottom = py + GAP if dy > 0 else py - GAP - height if dy < 0 else py - height / 2
    return left, bottom, left + width, bottom + height


def _overlap(a: tuple[float, float, float, float], b: tuple[float, float, float, float]) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


@assumes_valid
def crosses_lines(box: tuple[float, float, float, float], segments: np.ndarray) -> bool:
    """Whether any line segment passes through the inside of ``box`` (Liang-Barsky clipping, all at once).

    Parameters
    ----------
    box : (left, bottom, right, top)
        In pixels.
    segments : ndarray, shape (m, 4)
        Segments ``(x0, y0, x1, y1)`` in pixels, finite.

    Returns
    -------
    bool
        False for a segment that only touches the box's edge.

    Examples
    --------
    >>> import numpy as np
    >>> from rumap.present.labels import crosses_lines
    >>> diagonal, beside = np.array([[0.0, 0.0, 10.0, 10.0]]), np.array([[20.0, 0.0, 20.0, 10.0]])
    >>> crosses_lines((4, 4, 6, 6), diagonal), crosses_lines((4, 4, 6, 6), beside)
    (True, False)
    """
    return bool(_crossing(box, segments).any())


def _crossing(box: tuple[float, float, float, float], segments: np.ndarray) -> np.ndarray:
    """Which segments pass through the inside of ``box`` (see :func:`crosses_lines`)."""
    left, bottom, right, top = box
    x0, y0, x1, y1 = segments.T
    dx, dy = x1 - x0, y1 - y0
    with np.errstate(divide="ignore", invalid="ignore"):
        tx = np.stack([(left - x0) / dx, (right - x0) / dx])
        ty = np.stack([(bottom - y0) / dy, (top - y0) / dy])
    # a segment parallel to an axis: inside the slab strictly (all t), or outside (no t)
    inside_x = (x0 > left) & (x0 < right)
    inside_y = (y0 > bottom) & (y0 < top)
    low_x = np.where(dx == 0, np.where(inside_x, -np.inf, np.inf), tx.min(axis=0))
    high_x = np.where(dx == 0, np.where(inside_x, np.inf, -np.inf), tx.max(axis=0))
    low_y = np.where(dy == 0, np.where(inside_y, -np.inf, np.inf), ty.min(axis=0))
    high_y = np.where(dy == 0, np.where(inside_y, np.inf, -np.inf), ty.max(axis=0))
    enter = np.maximum(np.maximum(low_x, low_y), 0.0)
    leave = np.minimum(np.minimum(high_x, high_y), 1.0)
    return enter < leave


@validate_params({"area": InstanceOf(PlotArea), "points": InstanceOf((list, tuple, np.ndarray), "(x, y) points"),
                  "texts": InstanceOf((list, tuple), "a list of strings")},
                 example=lambda: {"area": PlotArea(600, 400, (0, 10), (0, 10)), "points": [(1, 1)], "texts": ["a"]})
def place_labels(area: PlotArea, points: Sequence[tuple[float, float]], texts: Sequence[str], font_size: float = 11,
                 taken: Sequence[tuple[float, float, float, float]] = (),
                 lines: np.ndarray | None = None, must_show: bool = False) -> list[str | None]:
    """A text position for each label (``None``: left out), most important label first.

    Parameters
    ----------
    area : PlotArea
    points : sequence of (x, y)
        The labelled points in data units.
    texts : sequence of str
    font_size : float, default 11
    taken : sequence of boxes, optional
        Boxes already used (left, bottom, right, top in pixels), e.g. by other labels.
    lines : ndarray, shape (m, 4), optional
        Drawn line segments ``(x0, y0, x1, y1)`` in pixels (:func:`line_segments`) that no label may cross.
    must_show : bool, default False
        For labels that matter more than a clear line (an optimum's value): when every free position
        crosses a line, take the free one that crosses the fewest segments instead of leaving it out.

    Returns
    -------
    list of str or None
        A key of :data:`TEXT_POSITIONS` per label.

    Examples
    --------
    >>> from rumap.present.labels import PlotArea, place_labels
    >>> area = PlotArea(width=300, height=200, x_range=(0, 10), y_range=(0, 10))
    >>> place_labels(area, [(9.9, 5), (9.9, 5), (5, 5)], ["right edge", "right edge", "middle"])
    ['top left', 'bottom left', 'top right']
    """
    boxes = list(taken)
    chosen: list[str | None] = []
    for (x, y), text in zip(points, texts, strict=True):
        px, py = area.to_pixels(float(x), float(y))
        where = None
        fallback: tuple[int, str, tuple[float, float, float, float]] | None = None  # fewest crossings
        if math.isfinite(px) and math.isfinite(py):
            for position in TEXT_POSITIONS:
                box = label_box(px, py, text, font_size, position)
                inside = box[0] >= 0 and box[1] >= 0 and box[2] <= area.width and box[3] <= area.height
                if not inside or any(_overlap(box, other) for other in boxes):
                    continue
                crossed = 0 if lines is None else int(_crossing(box, _near(lines, box)).sum())
                if crossed == 0:
                    where = position
                    boxes.append(box)
                    break
                if must_show and (fallback is None or crossed < fallback[0]):
                    fallback = (crossed, position, box)
        if where is None and fallback is not None:
            where = fallback[1]
            boxes.append(fallback[2])
        chosen.append(where)
    return chosen


def _near(segments: np.ndarray, box: tuple[float, float, float, float]) -> np.ndarray:
    """The segments whose bounding boxes meet ``box`` (the others cannot cross it)."""
    x0, y0, x1, y1 = segments.T
    keep = ((np.minimum(x0, x1) < box[2]) & (np.maximum(x0, x1) > box[0])
            & (np.minimum(y0, y1) < box[3]) & (np.maximum(y0, y1) > box[1]))
    return segments[keep]


@assumes_valid
def line_segments(area: PlotArea, lines: Sequence[tuple[Sequence[float], Sequence[float]]]) -> np.ndarray:
    """The segments of polylines given in data units, in pixels of the plot area, shape (m, 4).

    A point that cannot be drawn (missing, or not positive on a log axis) breaks its line there.

    Parameters
    ----------
    area : PlotArea
    lines : sequence of (xs, ys)
        Each line's points in data units.

    Returns
    -------
    ndarray, shape (m, 4)
        ``(x0, y0, x1, y1)`` per segment.

    Examples
    --------
    >>> from rumap.present.labels import PlotArea, line_segments
    >>> area = PlotArea(100, 100, (0, 10), (0, 10))
    >>> line_segments(area, [([0, 5, 10], [0, 5, None])]).tolist()
    [[0.0, 0.0, 50.0, 50.0]]
    """
    def pixels(values, log: bool, bounds: tuple[float, float], size: float) -> np.ndarray:
        v = np.array([np.nan if value is None else value for value in values], dtype=float)
        if log:
            with np.errstate(divide="ignore", invalid="ignore"):
                v = np.where(v > 0, np.log10(v), np.nan)
        return (v - bounds[0]) / (bounds[1] - bounds[0]) * size

    out = [np.empty((0, 4))]
    for xs, ys in lines:
        px = pixels(xs, area.log_x, area.x_range, area.width)
        py = pixels(ys, area.log_y, area.y_range, area.height)
        pairs = np.column_stack([px[:-1], py[:-1], px[1:], py[1:]])
        out.append(pairs[np.isfinite(pairs).all(axis=1)])
    return np.vstack(out)


#: Distances (pixels) from its point at which a callout's text is tried, nearest first, in 16 directions each.
CALLOUT_DISTANCES = (28.0, 42.0, 60.0, 85.0, 120.0, 170.0)


@assumes_valid
def place_callout(area: PlotArea, point: tuple[float, float], text: str, font_size: float,
                  taken: Sequence[tuple[float, float, float, float]] = (),
                  lines: np.ndarray | None = None) -> tuple[float, float, tuple[float, float, float, float]] | None:
    """Where to put a label that must be shown away from its point, joined to it by a line (a callout).

    The text's box is centred at an offset from the point: the nearest of
    :data:`CALLOUT_DISTANCES` x 16 directions whose box is inside the plot area,
    clear of the boxes taken and of the drawn lines.

    Parameters
    ----------
    area : PlotArea
    point : (x, y)
        In data units.
    text : str
    font_size : float
    taken : sequence of boxes, optional
    lines : ndarray, shape (m, 4), optional
        Drawn segments in pixels (:func:`line_segments`).

    Returns
    -------
    (dx, dy, box) or None
        The offset of the box's centre from the point in pixels (y upwards) and the box; None when no
        offset is free.

    Examples
    --------
    >>> import numpy as np
    >>> from rumap.present.labels import PlotArea, place_callout
    >>> area = PlotArea(300, 200, (0, 10), (0, 10))
    >>> across = np.array([[0.0, 100.0, 300.0, 100.0]])  # a line through the point, left to right
    >>> dx, dy, box = place_callout(area, (5, 5), "λ²=0.2", 11, lines=across)
    >>> bool(box[1] > 100 or box[3] < 100)
    True
    """
    px, py = area.to_pixels(float(point[0]), float(point[1]))
    if not (math.isfinite(px) and math.isfinite(py)):
        return None
    width = GLYPH_WIDTH * font_size * len(text)
    height = LINE_HEIGHT * font_size
    for distance in CALLOUT_DISTANCES:
        for k in range(16):
            angle = math.pi * k / 8
            dx, dy = distance * math.cos(angle), distance * math.sin(angle)
            cx, cy = px + dx, py + dy
            box = (cx - width / 2, cy - height / 2, cx + width / 2, cy + height / 2)
            inside = box[0] >= 0 and box[1] >= 0 and box[2] <= area.width and box[3] <= area.height
            if (inside and not any(_overlap(box, other) for other in taken)
                    and (lines is None or not crosses_lines(box, _near(lines, box)))):
                return dx, dy, box
    return None


#: The size a figure without its own is planned for (Plotly's default; wider screens only add room).
DEFAULT_SIZE = (700.0, 450.0)
#: Room a legend's marker and padding take beside its longest name, in pixels.
LEGEND_PAD = 50.0


@assumes_valid
def plot_area(fig) -> PlotArea:
    """The plot area a figure leaves for its data: its size less the margins and a legend beside it.

    The figure's axes need explicit ranges (:func:`rumap.present.plotting.ru_map_figure` sets them).

    Parameters
    ----------
    fig : plotly.graph_objects.Figure

    Returns
    -------
    PlotArea
    """
    layout = fig.layout
    width = float(layout.width or DEFAULT_SIZE[0])
    height = float(layout.height or DEFAULT_SIZE[1])
    margin = layout.margin
    font = float(layout.font.size or 12)
    names = [t.name for t in fig.data if t.showlegend is not False and t.name]
    legend_width = legend_height = 0.0
    if names and layout.showlegend is not False:
        longest = GLYPH_WIDTH * font * max(len(n) for n in names) + LEGEND_PAD
        if layout.legend.orientation == "v" and (layout.legend.x or 0) >= 1:
            legend_width = longest
        else:
            per_row = max(1, int((width - (margin.l or 0) - (margin.r or 0)) // longest))
            legend_height = math.ceil(len(names) / per_row) * LINE_HEIGHT * font + 10
    return PlotArea(width=width - (margin.l or 0) - (margin.r or 0) - legend_width,
                    height=height - (margin.t or 0) - (margin.b or 0) - legend_height,
                    x_range=tuple(layout.xaxis.range), y_range=tuple(layout.yaxis.range),
                    log_x=layout.xaxis.type == "log", log_y=layout.yaxis.type == "log")
