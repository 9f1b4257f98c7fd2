"""Where the text labels of a figure go: inside the plot area, never on top of each other.

A label's box is estimated from its font size and length (an average glyph is
:data:`GLYPH_WIDTH` times the font size wide, a line :data:`LINE_HEIGHT` times
it high) in the pixels of the figure's layout size. Labels are placed one after
another, most important first; each takes the first text position around its
point whose box stays inside the plot area and clear of the boxes placed before
it, and a label with no such position is left out (its point stays drawn).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from rumap._validation import InstanceOf, assumes_valid, validate_params

__all__ = ["GLYPH_WIDTH", "LINE_HEIGHT", "TEXT_POSITIONS", "PlotArea", "label_box", "place_labels", "plot_area"]

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


@validate_params({"area": InstanceOf(PlotArea), "points": InstanceOf((list, tuple, np.ndarray), "(x, y) points"),
                  "texts": InstanceOf((list, tuple), "a list of strings")},
                 example=lambda: {"area": PlotArea(600, 400, (0, 10), (0, 10)), "points": [(1, 1)], "texts": ["a"]})
def place_labels(area: PlotArea, points: Sequence[tuple[float, float]], texts: Sequence[str], font_size: float = 11,
                 taken: Sequence[tuple[float, float, float, float]] = ()) -> list[str | None]:
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
        if math.isfinite(px) and math.isfinite(py):
            for position in TEXT_POSITIONS:
                box = label_box(px, py, text, font_size, position)
                inside = box[0] >= 0 and box[1] >= 0 and box[2] <= area.width and box[3] <= area.height
                if inside and not any(_overlap(box, other) for other in boxes):
                    where = position
                    boxes.append(box)
                    break
        chosen.append(where)
    return chosen


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
