"""Plotly figure builders for R-U maps.

They take results (:class:`rumap.result.RUMap`, :class:`rumap.maps.optimum.Optimum`)
and never recompute them. Utility goes on the horizontal axis, risk on the
vertical one, as in Duncan, Keller-McNulty & Stokes (2001).
"""

from __future__ import annotations

import math
import textwrap
from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go

from rumap._validation import Boolean, InstanceOf, assumes_valid, validate_params
from rumap.maps.methods import PARAMETER_SYMBOLS  # the masking methods' records: one symbol per grid parameter
from rumap.present.labels import (
    GLYPH_WIDTH,
    LINE_HEIGHT,
    label_box,
    line_segments,
    place_callout,
    place_labels,
    plot_area,
)
from rumap.present.numbers import EXACT_DISCLOSURE, format_number, format_numbers
from rumap.result import RUMap

__all__ = ["ru_map_figure", "PARAMETER_SYMBOLS", "PALETTE", "curve_color_name", "arrange_labels", "set_ranges",
           "bound_line", "log_ticks", "fit_axis_titles", "ZERO_RISK", "zero_risk_note", "axis_floor"]


#: The curves' colours in drawing order, with the word a text uses for each (one place for both).
PALETTE: list[tuple[str, str]] = [("blue", "#1f77b4"), ("red", "#d62728"), ("green", "#2ca02c"),
                                  ("purple", "#9467bd"), ("orange", "#ff7f0e"), ("brown", "#8c564b"),
                                  ("pink", "#e377c2"), ("cyan", "#17becf"), ("grey", "#7f7f7f"), ("olive", "#bcbd22")]
_COLORS = [hex_ for _word, hex_ in PALETTE]


@validate_params({"index": "position"},
                 example=lambda: {"index": 0})
def curve_color_name(index: int) -> str:
    """The colour word of the curve drawn ``index``-th (0-based) by :func:`ru_map_figure`.

    Parameters
    ----------
    index : int

    Returns
    -------
    str

    Examples
    --------
    >>> curve_color_name(0), curve_color_name(1)
    ('blue', 'red')
    """
    return PALETTE[index % len(PALETTE)][0]


def _marker_indices(values: np.ndarray, count: int) -> np.ndarray:
    if values.size <= count:
        return np.arange(values.size)
    return np.unique(np.linspace(0, values.size - 1, count).round().astype(int))


@validate_params({"maps": InstanceOf((list, tuple), "a list or tuple of RUMap"), "log_x": Boolean(), "log_y": Boolean(),
                  "max_risk": [None, "max_risk"], "bands": Boolean()},
                 example=lambda: {"maps": [RUMap(parameter="lambda2", values=[0.1, 1.0], risk=[10.0, 1.0], utility=[9.0, 5.0])]})
def ru_map_figure(
    maps: Sequence[RUMap],
    *,
    log_x: bool = False,
    log_y: bool = False,
    max_risk: float | None = None,
    optima: Sequence | None = None,
    labelled_markers: int = 5,
    bands: bool = True,
    title: str | None = None,
    font_size: int = 14,
) -> go.Figure:
    """An R-U confidentiality map: U on the horizontal axis, R on the vertical one.

    Parameters
    ----------
    maps : sequence of RUMap
        One curve per map.
    log_x, log_y : bool
        Logarithmic axes.
    max_risk : float, optional
        Draws the maximum tolerable risk as a horizontal line.
    optima : sequence of Optimum, optional
        Marks each reachable optimum with a star.
    labelled_markers : int, default 5
        How many parameter values to label along each curve.
    bands : bool, default True
        Draw 95% bands (R +- 1.96 SE) where the map has standard errors.
    title : str, optional
    font_size : int, default 14
        Base font size (larger for presentation mode).

    Returns
    -------
    plotly.graph_objects.Figure
        Infinite risks (an exact disclosure: the snooper's error is 0, e.g. record
        knowledge at ``lambda2 = 0``) are left out of the curve and drawn as
        triangles at the top of the risk axis, "exact disclosure" on hover. On a
        log risk axis, which has no 0, risks of 0 are left out of the curve and
        drawn as open triangles pointing down at the bottom of the axis, labelled
        with their value and "R=0", :data:`ZERO_RISK` on hover (:func:`zero_risk_note` says so in words).
    """
    fig = go.Figure()
    colors = {}
    for i, ru in enumerate(maps):
        color = _COLORS[i % len(_COLORS)]
        colors.setdefault(ru.label, color)
        symbol = PARAMETER_SYMBOLS.get(ru.parameter, ru.parameter)
        finite = np.isfinite(ru.risk) & np.isfinite(ru.utility)
        if log_y:
            finite &= ru.risk > 0
        x, y, v = ru.utility[finite], ru.risk[finite], ru.values[finite]
        name = ru.label
        twin = _coincides_with(ru, maps[:i])
        dash = "solid"
        if twin is not None:  # drawn dashed over the curve it hides, and named as such
            name = f"{ru.label} (coincides with {maps[twin].label})"
            dash = _DASHES[sum(_coincides_with(m, maps[:j]) is not None for j, m in enumerate(maps[:i])) % len(_DASHES)]
        if bands and ru.risk_se is not None and x.size:
            se = ru.risk_se[finite]
            upper = y + 1.96 * se
            lower = np.maximum(y - 1.96 * se, y * 1e-3 if log_y else -np.inf)
            fig.add_trace(go.Scatter(
                x=np.concatenate([x, x[::-1]]), y=np.concatenate([upper, lower[::-1]]),
                fill="toself", fillcolor=color, opacity=0.15, line={"width": 0},
                hoverinfo="skip", showlegend=False, legendgroup=name, name=f"{name} 95% band"))
        custom = np.column_stack([v, ru.efficiency[finite]]) if ru.efficiency is not None else v[:, None]
        hover = (f"{symbol} = %{{customdata[0]:.4g}}<br>U = %{{x:.4g}}<br>R = %{{y:.4g}}"
                 + ("<br>efficiency = %{customdata[1]:.1%}" if ru.efficiency is not None else "")
                 + f"<extra>{name}</extra>")
        fig.add_trace(go.Scatter(
            x=x, y=y, mode="lines", name=name, legendgroup=name, line={"color": color, "width": 2.5, "dash": dash},
            customdata=custom, hovertemplate=hover))
        exact = np.isposinf(ru.risk) & np.isfinite(ru.utility)
        if exact.any():
            _add_off_axis(fig, ru, exact, name, symbol, color, AT_TOP, font_size)
        zero = (ru.risk == 0) & np.isfinite(ru.utility)
        if log_y and zero.any():
            _add_off_axis(fig, ru, zero, name, symbol, color, AT_FLOOR, font_size)
        idx = _marker_indices(v, labelled_markers)
        if idx.size:
            fig.add_trace(go.Scatter(
                x=x[idx], y=y[idx], mode="markers+text", legendgroup=name, showlegend=False,
                marker={"color": color, "size": 8}, text=[f"{symbol}={format_number(val)}" for val in v[idx]],
                textposition="top right", meta={"label_priority": 1}, textfont={"size": max(font_size - 3, 9), "color": color},
                customdata=custom[idx], hovertemplate=hover, name=f"{name} markers"))
    if max_risk is not None:
        bound_line(fig, max_risk, log_y)
    for opt in optima or []:
        if not getattr(opt, "reachable", False) or not math.isfinite(opt.utility):
            continue
        fig.add_trace(go.Scatter(
            x=[opt.utility], y=[opt.risk], mode="markers+text", name=f"optimum ({opt.state})",
            marker={"symbol": "star", "size": 16, "color": colors.get(opt.state, "gold"),
                    "line": {"color": "black", "width": 1}},
            text=[f"λ²={format_number(opt.lambda2)}"], textposition="bottom right", meta={"label_priority": 0},
            textfont={"size": max(font_size - 3, 9), "color": colors.get(opt.state, "black")},
            hovertemplate=(f"optimum for {opt.state}<br>λ² = {opt.lambda2:.4g}<br>U = {opt.utility:.4g}"
                           f"<br>R = {opt.risk:.4g}<br>efficiency = {opt.efficiency:.1%}<extra></extra>")))
    first = maps[0] if maps else None
    fig.update_layout(
        title=title,
        xaxis_title=first.utility_label if first else "U",
        yaxis_title=first.risk_label if first else "R",
        template="plotly_white",
        font={"size": font_size},
        legend={"orientation": "h", "yanchor": "bottom", "y": 1.02, "xanchor": "left", "x": 0},
        margin={"l": 60, "r": 20, "t": 60 if title is None else 90, "b": 60},
        hovermode="closest",
    )
    if log_x:
        fig.update_xaxes(type="log")
    if log_y:
        fig.update_yaxes(type="log")
    set_ranges(fig, max_risk=max_risk)
    fit_axis_titles(fig)
    return arrange_labels(fig)


#: The size (CSS pixels) of the exported images (see :data:`rumap.present.images.IMAGE_SIZE`) titles are fitted to.
FIT_SIZE = (1000, 650)


@validate_params({"fig": InstanceOf(go.Figure, "a plotly Figure")},
                 example=lambda: {"fig": go.Figure(layout={"xaxis_title": "U " * 80})})
def fit_axis_titles(fig: go.Figure, width: int = FIT_SIZE[0], height: int = FIT_SIZE[1]) -> go.Figure:
    """Wrap long axis titles and widen the margins to hold them and the tick labels, so no export cuts them.

    Parameters
    ----------
    fig : plotly.graph_objects.Figure
    width, height : int
        The picture's size in CSS pixels.

    Returns
    -------
    plotly.graph_objects.Figure
        The same figure.

    Examples
    --------
    >>> import plotly.graph_objects as go
    >>> from rumap.present.plotting import fit_axis_titles
    >>> fig = fit_axis_titles(go.Figure(layout={"xaxis_title": "U = " + "the share of the total kept " * 6,
    ...                                         "font": {"size": 24}}))
    >>> fig.layout.xaxis.title.text.count("<br>"), fig.layout.margin.b >= 3 * 1.3 * 24
    (2, True)
    """
    size = float(fig.layout.font.size or 12)
    line, char = 1.3 * size, 0.55 * size

    def wrapped(text: str | None, room: float) -> tuple[str | None, int]:
        if not text:
            return text, 0
        if "<br>" not in text:
            text = "<br>".join(textwrap.wrap(text, max(20, int(room / char)))) or text
        return text, text.count("<br>") + 1

    x_title, x_lines = wrapped(fig.layout.xaxis.title.text, 0.85 * width)
    y_title, y_lines = wrapped(fig.layout.yaxis.title.text, 0.75 * height)
    ticks = fig.layout.yaxis.ticktext
    tick_chars = max((len(str(t)) for t in ticks), default=6) if ticks else 6
    margin = fig.layout.margin
    fig.update_layout(xaxis_title_text=x_title, yaxis_title_text=y_title,
                      margin={"b": max(int(margin.b if margin.b is not None else 60), int(line * (1 + x_lines) + 20)),
                              "l": max(int(margin.l if margin.l is not None else 60),
                                       int(char * tick_chars + line * y_lines + 24)),
                              "r": max(int(margin.r if margin.r is not None else 20), int(2 * char))})
    fig.update_xaxes(automargin=True)
    fig.update_yaxes(automargin=True)
    return fig


_DASHES = ["dash", "dot", "dashdot", "longdash"]
#: The meta flag of the traces drawn at the top of the risk axis (infinite risks): :func:`set_ranges` places them.
AT_TOP = "rumap_at_top"
#: The meta flag of the traces drawn at the bottom of a log risk axis (risks of 0): :func:`set_ranges` places them.
AT_FLOOR = "rumap_at_floor"
#: The hover text of a risk of 0 on a log risk axis.
ZERO_RISK = "risk 0 (drawn at the axis floor)"
#: How each kind of point off the axis is drawn: its marker, what its hover says of its risk, its name, its label.
_OFF_AXIS = {
    AT_TOP: ({"symbol": "triangle-up", "size": 11, "line": {"color": "black", "width": 1}},
             f"R = +∞: {EXACT_DISCLOSURE} (the snooper's error is 0)", EXACT_DISCLOSURE, ""),
    AT_FLOOR: ({"symbol": "triangle-down-open", "size": 12, "line": {"width": 2}}, ZERO_RISK, "risk 0", "R=0"),
}


def _add_off_axis(fig: go.Figure, ru: RUMap, off: np.ndarray, name: str, symbol: str, color: str, where: str,
                  font_size: int = 14) -> None:
    """The parameter values whose risk the axis cannot show: at its top (infinite) or its floor (0 on a log axis)."""
    values = ru.values[off]
    custom = np.column_stack([values, ru.efficiency[off]]) if ru.efficiency is not None else values[:, None]
    marker, words, what, label = _OFF_AXIS[where]
    fig.add_trace(go.Scatter(
        x=ru.utility[off], y=np.ones(values.size), mode="markers+text" if label else "markers",
        name=f"{name}: {what}", legendgroup=name, showlegend=False, cliponaxis=False, customdata=custom,
        meta={where: True, "label_priority": 1}, marker={**marker, "color": color},
        text=[f"{symbol}={format_number(v)}, {label}" for v in values] if label else None, textposition="top right",
        textfont={"size": max(font_size - 3, 9), "color": color},
        hovertemplate=(f"{symbol} = %{{customdata[0]:.4g}}<br>U = %{{x:.4g}}<br>{words}"
                       + ("<br>efficiency = %{customdata[1]:.1%}" if ru.efficiency is not None else "")
                       + f"<extra>{name}</extra>")))


def _at_top(trace) -> bool:
    return isinstance(trace.meta, dict) and bool(trace.meta.get(AT_TOP))


def _at_floor(trace) -> bool:
    return isinstance(trace.meta, dict) and bool(trace.meta.get(AT_FLOOR))


@validate_params({"fig": InstanceOf(go.Figure, "a plotly Figure")},
                 example=lambda: {"fig": ru_map_figure([RUMap(parameter="k", values=[2, 3], risk=[0.1, 0.0],
                                                              utility=[2.0, 1.0])], log_y=True)})
def zero_risk_note(fig: go.Figure) -> str:
    """The words under a figure whose log risk axis draws risks of 0 at its floor ("" when it draws none).

    Parameters
    ----------
    fig : plotly.graph_objects.Figure
        From :func:`ru_map_figure` or a figure built on it.

    Returns
    -------
    str

    Examples
    --------
    >>> from rumap.present.plotting import ru_map_figure, zero_risk_note
    >>> from rumap.result import RUMap
    >>> m = RUMap(parameter="k", values=[2, 3], risk=[0.1, 0.0], utility=[2.0, 1.0])
    >>> zero_risk_note(ru_map_figure([m], log_y=True))[:40], zero_risk_note(ru_map_figure([m]))
    ('A log axis has no 0: 1 point of risk 0 i', '')
    """
    count = sum(len(t.x) for t in fig.data if _at_floor(t) and t.x is not None)
    if not count:
        return ""
    return (f"A log axis has no 0: {count} point{'s' if count > 1 else ''} of risk 0 "
            f"{'are' if count > 1 else 'is'} drawn at the bottom of the risk axis as an open triangle pointing down "
            f"(hover: “{ZERO_RISK}”); a linear risk axis shows {'them' if count > 1 else 'it'} at 0.")


@validate_params({"fig": InstanceOf(go.Figure, "a plotly Figure")},
                 example=lambda: {"fig": go.Figure(layout={"yaxis": {"type": "log", "range": [-2, 0]}})})
def axis_floor(fig: go.Figure) -> float | None:
    """The lowest risk a figure's log risk axis shows (where it draws a risk of 0); ``None`` on a linear axis.

    Parameters
    ----------
    fig : plotly.graph_objects.Figure
        With explicit axis ranges (:func:`set_ranges`).

    Returns
    -------
    float or None

    Examples
    --------
    >>> import plotly.graph_objects as go
    >>> from rumap.present.plotting import axis_floor
    >>> axis_floor(go.Figure(layout={"yaxis": {"type": "log", "range": [-2, 0]}}))
    0.01
    """
    axis = fig.layout.yaxis
    if axis.type != "log" or axis.range is None:
        return None
    return float(10 ** axis.range[0])


def _coincides_with(m: RUMap, earlier: Sequence[RUMap]) -> int | None:
    """The first earlier curve drawn on the same points (so this one would hide it), if any."""
    for j, other in enumerate(earlier):
        if other.utility.shape == m.utility.shape and np.allclose(other.utility, m.utility, rtol=1e-6, atol=0, equal_nan=True) \
                and np.allclose(other.risk, m.risk, rtol=1e-6, atol=0, equal_nan=True):
            return j
    return None


def _span(values: np.ndarray, log: bool) -> tuple[float, float] | None:
    values = values[np.isfinite(values)]
    if log:
        values = np.log10(values[values > 0])
    if not values.size:
        return None
    lo, hi = float(values.min()), float(values.max())
    pad = 0.06 * (hi - lo) if hi > lo else (0.5 if log else max(abs(lo) * 0.1, 0.5))
    return lo - pad, hi + pad


@validate_params({"fig": InstanceOf(go.Figure, "a plotly Figure"), "max_risk": "max_risk", "log_y": Boolean()},
                 example=lambda: {"fig": go.Figure(go.Scatter(x=[1, 2], y=[3, 4])), "max_risk": 3.5})
def bound_line(fig: go.Figure, max_risk: float, log_y: bool = False) -> go.Figure:
    """Draw the maximum tolerable risk as a dashed horizontal line, labelled at the left.

    Parameters
    ----------
    fig : plotly.graph_objects.Figure
    max_risk : float
    log_y : bool, default False
        Whether the risk axis is logarithmic.

    Returns
    -------
    plotly.graph_objects.Figure
        The same figure.
    """
    fig.add_hline(y=max_risk, line={"dash": "dash", "color": "black"})
    # an annotation's y on a log axis is log10 of the value (add_hline's own annotation gets this wrong
    # and stretches the axis to 10 ** max_risk)
    label_y = math.log10(max_risk) if log_y and max_risk > 0 else max_risk
    fig.add_annotation(x=0, xref="paper", y=label_y, yref="y", text=f"maximum tolerable risk {format_number(max_risk)}",
                       showarrow=False, xanchor="left", yanchor="bottom")
    return fig


@validate_params({"fig": InstanceOf(go.Figure, "a plotly Figure"), "max_risk": [None, "max_risk"]},
                 example=lambda: {"fig": go.Figure(go.Scatter(x=[1, 2], y=[3, 4]))})
def set_ranges(fig: go.Figure, max_risk: float | None = None) -> go.Figure:
    """Give both axes explicit ranges around every trace (and the risk bound), and log axes one label a decade.

    Labels are placed in pixels of the plot area (:func:`arrange_labels`), which needs the ranges known.
    A log axis spanning less than two decades labels 1, 2 and 5 of each decade, a wider one only the powers of
    ten, so its minor labels never crowd.

    Parameters
    ----------
    fig : plotly.graph_objects.Figure
    max_risk : float, optional
        Kept inside the vertical range.

    Returns
    -------
    plotly.graph_objects.Figure
        The same figure.

    Examples
    --------
    >>> import plotly.graph_objects as go
    >>> from rumap.present.plotting import set_ranges
    >>> fig = set_ranges(go.Figure(go.Scatter(x=[0, 10], y=[1, 2])))
    >>> [round(v, 2) for v in fig.layout.xaxis.range]
    [-0.6, 10.6]
    """
    xs = [np.asarray(t.x, dtype=float) for t in fig.data if t.x is not None]
    ys = [np.asarray(t.y, dtype=float) for t in fig.data if t.y is not None and not _at_top(t) and not _at_floor(t)]
    if max_risk is not None:
        ys.append(np.array([max_risk], dtype=float))
    for axis, values, update in (("xaxis", xs, fig.update_xaxes), ("yaxis", ys, fig.update_yaxes)):
        log = getattr(fig.layout, axis).type == "log"
        span = _span(np.concatenate(values), log) if values else None
        if span is None and log and axis == "yaxis" and any(_at_floor(t) for t in fig.data):
            span = (-1.0, 0.0)  # every risk drawn is 0: a decade above the floor where they are drawn
        if span is None:
            continue
        update(range=list(span))
        if log:
            update(**log_ticks(span))
        if axis == "yaxis":  # infinite risks at the top of the axis, risks of 0 at the floor of a log axis
            top = 10 ** span[1] if log else span[1]
            for trace in fig.data:
                if _at_top(trace):
                    trace.y = np.full(len(trace.x), top)
                elif _at_floor(trace):
                    trace.y = np.full(len(trace.x), 10 ** span[0] if log else 0.0)
    return fig


@assumes_valid
def log_ticks(span: tuple[float, float]) -> dict:
    """Ticks of a log axis over ``span`` (log10 of its ends), each labelled with the number it marks.

    Less than two decades: 1, 2 and 5 of each decade, labelled in full (0.2, not Plotly's bare "2");
    more: the powers of ten alone, so labels never crowd.

    Parameters
    ----------
    span : tuple of float
        The axis range as Plotly holds it on a log axis (log10 of the lowest and highest value).

    Returns
    -------
    dict
        Keyword arguments of ``update_xaxes``/``update_yaxes``.

    Examples
    --------
    >>> from rumap.present.plotting import log_ticks
    >>> ticks = log_ticks((-1.0, 0.2))
    >>> ticks["ticktext"]
    ['0.1', '0.2', '0.5', '1']
    >>> log_ticks((-4.0, 1.0))
    {'tickmode': 'linear', 'tick0': 0, 'dtick': 1}
    """
    lo, hi = min(span), max(span)
    if hi - lo >= 2:
        return {"tickmode": "linear", "tick0": 0, "dtick": 1}
    for mantissas in ((1, 2, 5), range(1, 10)):
        values = [m * 10.0**e for e in range(math.floor(lo) - 1, math.ceil(hi) + 1) for m in mantissas]
        shown = [float(f"{v:.3g}") for v in values if lo - 1e-9 <= math.log10(v) <= hi + 1e-9]
        if len(shown) >= 2:
            break
    else:  # less than a step between two digits: the ends and the middle, with the digits that tell them apart
        shown = [10.0**x for x in (lo, (lo + hi) / 2, hi)]
        return {"tickmode": "array", "tickvals": shown, "ticktext": format_numbers(shown)}
    return {"tickmode": "array", "tickvals": shown, "ticktext": [format_number(v) for v in shown]}


#: The name of the annotations that carry a star's label away from the lines, joined to the star by a line.
CALLOUT = "rumap-callout"


def _add_callout(fig: go.Figure, area, point: tuple[float, float], text: str, offset: tuple[float, float],
                 size: float, color) -> None:
    """A star's label at ``offset`` pixels (y upwards) from its point, joined to it by a thin line."""
    x, y = point
    fig.add_annotation(x=math.log10(x) if area.log_x else x, y=math.log10(y) if area.log_y else y, xref="x",
                       yref="y", text=text, showarrow=True, arrowhead=0, arrowwidth=1, standoff=6,
                       arrowcolor=color or "black", ax=offset[0], ay=-offset[1], name=CALLOUT,
                       font={"size": size, "color": color or "black"}, bgcolor="rgba(255,255,255,0.8)")


@validate_params({"fig": InstanceOf(go.Figure, "a plotly Figure")},
                 example=lambda: {"fig": ru_map_figure([RUMap(parameter="k", values=[1, 2], risk=[2.0, 1.0],
                                                                     utility=[2.0, 1.0])])})
def arrange_labels(fig: go.Figure) -> go.Figure:
    """Place the parameter labels of a figure's points: inside the plot area, apart, and off the drawn lines.

    Stars' labels come first, then each curve's in drawing order; each label takes the first text position
    around its point that is free (:func:`rumap.present.labels.place_labels`): inside the plot area, clear of
    the labels placed before and of every drawn line (the curves and the risk bound). A label with no such
    position is left out (its point stays, and its value shows on hover), except a star's: the value chosen
    is the figure's message, so it goes further out, joined to the star by a thin line (a callout, see
    :func:`rumap.present.labels.place_callout`), or, with no room for that either, takes the free position
    that crosses the fewest line segments. Call it again after changing the layout.

    Parameters
    ----------
    fig : plotly.graph_objects.Figure
        With explicit axis ranges (:func:`set_ranges`).

    Returns
    -------
    plotly.graph_objects.Figure
        The same figure.

    Examples
    --------
    >>> from rumap.present.plotting import arrange_labels, ru_map_figure
    >>> from rumap.result import RUMap
    >>> m = RUMap(parameter="k", values=[3, 4], risk=[2.0, 1.0], utility=[9.0, 5.0])
    >>> list(arrange_labels(ru_map_figure([m])).data[1].textposition)  # the second one's top right is on the line
    ['bottom right', 'top left']
    """
    if fig.layout.xaxis.range is None or fig.layout.yaxis.range is None:
        return fig
    fig.layout.annotations = [a for a in fig.layout.annotations if a.name != CALLOUT]  # placed again below
    area = plot_area(fig)
    labelled = [t for t in fig.data if t.mode == "markers+text" and t.x is not None]
    labelled.sort(key=lambda t: (t.meta or {}).get("label_priority", 2) if isinstance(t.meta, dict) else 2)
    taken = []
    font = float(fig.layout.font.size or 12)
    for ann in fig.layout.annotations:  # the risk bound's words, at the left edge above its line
        if ann.xref == "paper" and ann.yref == "y" and ann.text:
            y = 10 ** ann.y if area.log_y else ann.y
            _, py = area.to_pixels(area.x_range[0] if not area.log_x else 10 ** area.x_range[0], y)
            taken.append((0.0, py, GLYPH_WIDTH * font * len(ann.text), py + LINE_HEIGHT * font))
    drawn = [(t.x, t.y) for t in fig.data if "lines" in (t.mode or "") and t.x is not None
             and (t.fill in (None, "none")) and (t.line.width is None or t.line.width > 0) and t.visible is not False]
    for shape in fig.layout.shapes:  # horizontal lines across the plot (the risk bound)
        if shape.type == "line" and shape.xref == "x domain" and shape.y0 == shape.y1 and shape.y0 is not None:
            xs = [10 ** v for v in area.x_range] if area.log_x else list(area.x_range)  # a shape's y: data units
            drawn.append((xs, [shape.y0, shape.y0]))
    lines = line_segments(area, drawn)
    said: set[tuple[float, float, str]] = set()  # a star's label is not repeated by its curve's marker
    for trace in labelled:
        meta = dict(trace.meta) if isinstance(trace.meta, dict) else {}
        texts = list(meta.get("labels") or trace.text or [])
        meta["labels"] = texts
        points = [(float(x), float(y)) for x, y in zip(trace.x, trace.y, strict=True)]
        shown = [("" if (x, y, t) in said else t) for (x, y), t in zip(points, texts, strict=True)]
        said.update((x, y, t) for (x, y), t in zip(points, texts, strict=True))
        size = float(trace.textfont.size or font)
        must = meta.get("label_priority") == 0  # a star: its value is the figure's message
        positions: list[str | None] = []
        for (x, y), text in zip(points, shown, strict=True):
            where = place_labels(area, [(x, y)], [text], size, taken=taken, lines=lines)[0] if text else None
            if where is None and text and must:
                callout = place_callout(area, (x, y), text, size, taken=taken, lines=lines)
                if callout is not None:
                    dx, dy, box = callout
                    taken.append(box)
                    _add_callout(fig, area, (x, y), text, (dx, dy), size, trace.textfont.color)
                    positions.append(None)
                    continue
                where = place_labels(area, [(x, y)], [text], size, taken=taken, lines=lines, must_show=True)[0]
            if where is not None:
                taken.append(label_box(*area.to_pixels(x, y), text, size, where))
            positions.append(where)
        trace.update(text=[t if w is not None else "" for t, w in zip(shown, positions, strict=True)],
                     textposition=[w or "top right" for w in positions], meta=meta)
    return fig
