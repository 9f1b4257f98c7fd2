"""A still picture of an R-U map as SVG text: for pages that must show a map at once, with no plotting library.

The interactive figures (:mod:`rumap.present.figures`) need Plotly's script in
the browser, a few megabytes to load before anything is drawn; a page whose map
only illustrates (the dashboard's home page) draws this instead. The curves take
the colours of :data:`rumap.present.plotting.PALETTE`, in the same order as the
interactive figures, so text naming a colour holds for both.
"""

from __future__ import annotations

import html
import math

import numpy as np

from rumap._validation import InstanceOf, validate_params
from rumap.present.examples import small_analysis
from rumap.present.numbers import format_number
from rumap.present.plotting import PALETTE
from rumap.specs import Analysis

__all__ = ["map_svg"]

_MARGIN = {"left": 70, "right": 150, "top": 20, "bottom": 55}


def _ticks_linear(low: float, high: float, count: int = 5) -> list[float]:
    raw = (high - low) / max(count, 1)
    step = 10 ** math.floor(math.log10(raw)) if raw > 0 else 1.0
    for factor in (1, 2, 5, 10):
        if raw <= factor * step:
            step *= factor
            break
    start = math.ceil(low / step) * step
    return [start + i * step for i in range(int((high - start) / step + 1e-9) + 1)]


def _star(x: float, y: float, r: float) -> str:
    points = []
    for i in range(10):
        angle = math.pi / 2 + i * math.pi / 5
        radius = r if i % 2 == 0 else r * 0.45
        points.append(f"{x + radius * math.cos(angle):.1f},{y - radius * math.sin(angle):.1f}")
    return " ".join(points)


@validate_params({"analysis": InstanceOf(Analysis), "width": "picture_width",
                  "height": "picture_height"},
                 example=lambda: {"analysis": small_analysis()})
def map_svg(analysis: Analysis, width: int = 640, height: int = 400) -> str:
    """The maps of an analysis as one SVG picture: its curves, legend, maximum tolerable risk and optima.

    The risk axis is logarithmic when the analysis asks for it (``spec.log_y``);
    infinite risks (no masking against record knowledge, Duncan et al. 2001, Eq 4)
    are left out of the curve.

    Parameters
    ----------
    analysis : Analysis
    width, height : int
        The picture's size in pixels (it shrinks to fit a narrower container).

    Returns
    -------
    str
        An ``<svg>`` element; each curve is a ``<polyline>`` with ``data-name`` and its colour.

    Examples
    --------
    >>> from rumap.specs import AnalyticSpec
    >>> from rumap.present.sketch import map_svg
    >>> svg = map_svg(AnalyticSpec(n=200, sigma2=1.0, states=("record", "population"), max_risk=5.0).run())
    >>> svg.startswith("<svg") and 'data-name="record" stroke="#1f77b4"' in svg
    True
    """
    maps = list(analysis.maps)
    log_y = bool(getattr(analysis.spec, "log_y", False))
    max_risk = analysis.max_risk
    finite = [(np.asarray(m.utility, float), np.asarray(m.risk, float)) for m in maps]
    keep = [np.isfinite(u) & np.isfinite(r) & ((r > 0) if log_y else True) for u, r in finite]
    us = np.concatenate([u[k] for (u, _), k in zip(finite, keep, strict=True)] or [np.zeros(1)])
    rs = np.concatenate([r[k] for (_, r), k in zip(finite, keep, strict=True)] or [np.ones(1)])
    if max_risk is not None:
        rs = np.append(rs, max_risk)
    x0, x1 = float(us.min()), float(us.max())
    x0, x1 = (x0 - 1.0, x1 + 1.0) if x0 == x1 else (x0 - 0.03 * (x1 - x0), x1 + 0.03 * (x1 - x0))
    if log_y:
        y0, y1 = math.floor(math.log10(rs.min())), math.ceil(math.log10(rs.max()))
        y1 = y1 if y1 > y0 else y0 + 1
    else:
        y0, y1 = 0.0, float(rs.max()) * 1.05 or 1.0
    left, right = _MARGIN["left"], width - _MARGIN["right"]
    top, bottom = _MARGIN["top"], height - _MARGIN["bottom"]

    def px(u: float) -> float:
        return left + (u - x0) / (x1 - x0) * (right - left)

    def py(r: float) -> float:
        v = math.log10(r) if log_y else r
        return bottom - (v - y0) / (y1 - y0) * (bottom - top)

    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="100%" style="max-width:{width}px;height:auto" '
             f'viewBox="0 0 {width} {height}" font-family="sans-serif" font-size="13" role="img">',
             f'<rect x="{left}" y="{top}" width="{right - left}" height="{bottom - top}" fill="white" '
             'stroke="#444"/>']
    for u in _ticks_linear(x0, x1):
        parts.append(f'<line x1="{px(u):.1f}" y1="{bottom}" x2="{px(u):.1f}" y2="{bottom + 5}" stroke="#444"/>'
                     f'<text x="{px(u):.1f}" y="{bottom + 19}" text-anchor="middle">{format_number(u)}</text>')
    y_ticks = [10.0 ** e for e in range(int(y0), int(y1) + 1)] if log_y else _ticks_linear(y0, y1)
    for r in y_ticks:
        label = f"1e{int(round(math.log10(r)))}" if log_y and not 0.01 <= r <= 1000 else format_number(r)
        parts.append(f'<line x1="{left - 5}" y1="{py(r):.1f}" x2="{right}" y2="{py(r):.1f}" stroke="#e5e5e5"/>'
                     f'<text x="{left - 8}" y="{py(r) + 4:.1f}" text-anchor="end">{label}</text>')
    parts.append(f'<text x="{(left + right) / 2:.0f}" y="{height - 12}" text-anchor="middle">'
                 f'{html.escape(maps[0].utility_label if maps else "U")}</text>')
    parts.append(f'<text transform="translate(16 {(top + bottom) / 2:.0f}) rotate(-90)" text-anchor="middle">'
                 f'{html.escape(maps[0].risk_label if maps else "R")}</text>')
    if max_risk is not None and (not log_y or max_risk > 0):
        parts.append(f'<line x1="{left}" y1="{py(max_risk):.1f}" x2="{right}" y2="{py(max_risk):.1f}" '
                     'stroke="black" stroke-dasharray="6 4" data-name="maximum tolerable risk"/>')
    for i, (m, (u, r), k) in enumerate(zip(maps, finite, keep, strict=True)):
        color = PALETTE[i % len(PALETTE)][1]
        points = " ".join(f"{px(a):.1f},{py(b):.1f}" for a, b in zip(u[k], r[k], strict=True))
        parts.append(f'<polyline data-name="{html.escape(m.label)}" stroke="{color}" points="{points}" '
                     'fill="none" stroke-width="2.5"/>')
        ly = top + 14 + 20 * i
        parts.append(f'<line x1="{right + 12}" y1="{ly - 4}" x2="{right + 36}" y2="{ly - 4}" stroke="{color}" '
                     f'stroke-width="2.5"/><text x="{right + 42}" y="{ly}">{html.escape(m.label)}</text>')
    for opt in analysis.optima:
        if opt.reachable and math.isfinite(opt.utility) and opt.risk > 0 and x0 <= opt.utility <= x1:
            parts.append(f'<polygon data-name="optimum ({html.escape(opt.state)})" '
                         f'points="{_star(px(opt.utility), py(opt.risk), 9)}" fill="gold" stroke="black"/>')
    parts.append("</svg>")
    return "".join(parts)
