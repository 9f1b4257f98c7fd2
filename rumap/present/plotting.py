"""Plotly figure builders for R-U maps.

They take results (:class:`rumap.result.RUMap`, :class:`rumap.maps.optimum.Optimum`)
and never recompute them. Utility goes on the horizontal axis, risk on the
vertical one, as in Duncan, Keller-McNulty & Stokes (2001).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go

from rumap._validation import Boolean, InstanceOf, Interval, validate_params
from rumap.present.numbers import format_number
from rumap.result import RUMap

__all__ = ["ru_map_figure", "PARAMETER_SYMBOLS", "PALETTE", "curve_color_name"]

PARAMETER_SYMBOLS = {"lambda2": "λ²", "lambda2_frac": "λ²/S²", "k": "k", "swap_percent": "p%"}

#: The curves' colours in drawing order, with the word a text uses for each (one place for both).
PALETTE: list[tuple[str, str]] = [("blue", "#1f77b4"), ("red", "#d62728"), ("green", "#2ca02c"),
                                  ("purple", "#9467bd"), ("orange", "#ff7f0e"), ("brown", "#8c564b"),
                                  ("pink", "#e377c2"), ("cyan", "#17becf"), ("grey", "#7f7f7f"), ("olive", "#bcbd22")]
_COLORS = [hex_ for _word, hex_ in PALETTE]


@validate_params({"index": Interval("int", 0, None, "left", "a curve's position (0-based)")},
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
        Infinite risks (record knowledge at ``lambda2 = 0``) are left out of the
        curve.
    """
    fig = go.Figure()
    for i, ru in enumerate(maps):
        color = _COLORS[i % len(_COLORS)]
        symbol = PARAMETER_SYMBOLS.get(ru.parameter, ru.parameter)
        finite = np.isfinite(ru.risk) & np.isfinite(ru.utility)
        if log_y:
            finite &= ru.risk > 0
        x, y, v = ru.utility[finite], ru.risk[finite], ru.values[finite]
        name = ru.label
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
            x=x, y=y, mode="lines", name=name, legendgroup=name, line={"color": color, "width": 2.5},
            customdata=custom, hovertemplate=hover))
        idx = _marker_indices(v, labelled_markers)
        if idx.size:
            fig.add_trace(go.Scatter(
                x=x[idx], y=y[idx], mode="markers+text", legendgroup=name, showlegend=False,
                marker={"color": color, "size": 8}, text=[f"{symbol}={format_number(val)}" for val in v[idx]],
                textposition="top right", textfont={"size": max(font_size - 3, 9), "color": color},
                customdata=custom[idx], hovertemplate=hover, name=f"{name} markers"))
    if max_risk is not None:
        fig.add_hline(y=max_risk, line={"dash": "dash", "color": "black"})
        # an annotation's y on a log axis is log10 of the value (add_hline's own annotation gets this wrong
        # and stretches the axis to 10 ** max_risk)
        label_y = math.log10(max_risk) if log_y and max_risk > 0 else max_risk
        fig.add_annotation(x=0, xref="paper", y=label_y, yref="y", text=f"maximum tolerable risk {format_number(max_risk)}",
                           showarrow=False, xanchor="left", yanchor="bottom")
    for opt in optima or []:
        if not getattr(opt, "reachable", False) or not math.isfinite(opt.utility):
            continue
        fig.add_trace(go.Scatter(
            x=[opt.utility], y=[opt.risk], mode="markers+text", name=f"optimum ({opt.state})",
            marker={"symbol": "star", "size": 16, "color": "gold", "line": {"color": "black", "width": 1}},
            text=[f"λ²={format_number(opt.lambda2)}"], textposition="bottom right",
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
    return fig
