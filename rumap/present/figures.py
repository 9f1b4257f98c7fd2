"""Figures of analyses for the dashboard and the report, built on :func:`rumap.present.plotting.ru_map_figure`.

They take :class:`rumap.specs.Analysis` results and never recompute them.
"""

from __future__ import annotations

import math
import textwrap
from collections.abc import Sequence
from dataclasses import replace

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from rumap._validation import Boolean, InstanceOf, StrOptions, validate_params
from rumap.errors import InputError
from rumap.maps.pareto import GridChoice
from rumap.maps.utility import higher_is_better
from rumap.present.examples import small_analysis
from rumap.present.numbers import format_number
from rumap.present.plotting import (
    AT_FLOOR,
    PALETTE,
    PARAMETER_SYMBOLS,
    ZERO_RISK,
    arrange_labels,
    axis_floor,
    bound_line,
    fit_axis_titles,
    log_ticks,
    ru_map_figure,
    set_ranges,
)
from rumap.result import RUMap
from rumap.specs import Analysis

__all__ = ["UTILITY_SCALES", "utility_on_scale", "analysis_figure", "comparison_figure", "presentation_figure", "pareto_figure", "PLOTLY_CONFIG"]

#: Plotly options: the toolbar's camera button saves the figure as SVG (vector) in the browser.
PLOTLY_CONFIG = {"displaylogo": False, "toImageButtonOptions": {"format": "svg", "filename": "ru_map"}}


def _curve_color(index: int) -> str:
    return PALETTE[index % len(PALETTE)][1]


#: How Compare draws utility, with the axis title of each: as computed, or on one scale for curves whose
#: utilities differ by orders of magnitude (one would squash the others).
UTILITY_SCALES: dict[str, str] = {
    "as computed": "",
    "efficiency": "efficiency (share of the unmasked data's utility kept, at most 1)",
    "normalised": "U / the curve's largest U",
}


@validate_params({"maps": InstanceOf((list, tuple), "a list or tuple of RUMap"), "scale": StrOptions(tuple(UTILITY_SCALES))},
                 example=lambda: {"maps": list(small_analysis().maps), "scale": "normalised"})
def utility_on_scale(maps: Sequence[RUMap], scale: str = "as computed") -> list[RUMap]:
    """The maps with their utility on one scale, for curves whose utilities are not comparable as computed.

    Parameters
    ----------
    maps : sequence of RUMap
    scale : str
        A key of :data:`UTILITY_SCALES`: ``"efficiency"`` (the map's efficiency, the share of the unmasked
        data's utility kept, as in Duncan et al. 2001, Section 4) or ``"normalised"`` (1 at the curve's best
        U in its measure's direction: U over the largest U, or the smallest U over U).

    Returns
    -------
    list of RUMap

    Raises
    ------
    InputError
        If ``scale`` is ``"efficiency"`` and a map has no efficiency.

    Examples
    --------
    >>> from rumap.present.figures import utility_on_scale
    >>> from rumap.result import RUMap
    >>> m = RUMap(parameter="k", values=[1, 2], risk=[2.0, 1.0], utility=[400.0, 100.0])
    >>> utility_on_scale([m], "normalised")[0].utility.tolist()
    [1.0, 0.25]
    """
    if scale == "as computed":
        return list(maps)
    out = []
    for m in maps:
        label = UTILITY_SCALES[scale]
        if scale == "efficiency":
            if m.efficiency is None:
                raise InputError(f"{m.label} has no efficiency: choose the normalised utility")
            utility = np.asarray(m.efficiency, dtype=float)
        else:  # 1 at the curve's best utility, in its measure's direction
            finite = m.utility[np.isfinite(m.utility)]
            higher = higher_is_better(m)
            best = (float(finite.max()) if higher else float(finite.min())) if finite.size else math.nan
            if not best > 0:
                raise InputError(f"{m.label} has no positive utility to normalise by")
            utility = m.utility / best if higher else best / m.utility
            label = label if higher else "the curve's smallest U / U (lower U is better)"
        out.append(replace(m, utility=utility, utility_label=label))
    return out


def _readable_axes(fig: go.Figure) -> go.Figure:
    """Exponents as 1e-06 rather than SI prefixes (a utility of 1μ reads as a unit); log axes labelled in full;
    axis titles wrapped inside the margins."""
    fig.update_xaxes(exponentformat="e")
    fig.update_yaxes(exponentformat="e")
    for axis, update, coordinate in (("xaxis", fig.update_xaxes, "x"), ("yaxis", fig.update_yaxes, "y")):
        layout = getattr(fig.layout, axis)
        if layout.type != "log" or layout.tickmode == "array":
            continue
        if layout.range is not None:
            update(**log_ticks(tuple(layout.range)))
            continue
        values = np.concatenate([np.asarray(getattr(t, coordinate), dtype=float).ravel() for t in fig.data
                                 if getattr(t, coordinate, None) is not None] or [np.array([])])
        values = values[np.isfinite(values) & (values > 0)]
        if values.size:
            update(**log_ticks((math.log10(values.min()), math.log10(values.max()))))
    return fit_axis_titles(fig)


def _wrap(title: str | None, width: int = 60) -> str | None:
    return None if title is None else "<br>".join(textwrap.wrap(title, width)) or title


def _pareto_example() -> dict:
    from rumap.maps.pareto import map_points, pareto_frontier

    maps = list(small_analysis().maps)
    return {"points": map_points(maps).to_frame(), "frontier": pareto_frontier(maps)}


@validate_params({"analysis": InstanceOf(Analysis)}, example=lambda: {"analysis": small_analysis()})
def analysis_figure(analysis: Analysis, *, title: str | None = None, font_size: int = 14) -> go.Figure:
    """The maps of one analysis, with its maximum tolerable risk and optima.

    Parameters
    ----------
    analysis : Analysis
    title : str, optional
        Default: the analysis's name.
    font_size : int

    Returns
    -------
    plotly.graph_objects.Figure
    """
    spec = analysis.spec
    fig = _readable_axes(ru_map_figure(list(analysis.maps), log_x=spec.log_x, log_y=spec.log_y,
                                       max_risk=spec.max_risk, optima=list(analysis.optima), title=_wrap(title, 90),
                                       font_size=font_size))
    if title is not None:  # the legend goes to the right, clear of the title
        fig.update_layout(legend={"orientation": "v", "x": 1.02, "y": 1, "xanchor": "left", "yanchor": "top"},
                          margin={"r": 20, "t": 80})
    return arrange_labels(fig)


@validate_params({"maps": InstanceOf((list, tuple), "a list or tuple of RUMap"), "names": InstanceOf((list, tuple), "a list or tuple of names"), "log_x": Boolean(),
                  "log_y": Boolean(), "max_risk": [None, "max_risk"]},
                 example=lambda: {"maps": list(small_analysis().maps), "names": ["a", "b"]})
def comparison_figure(maps: Sequence[RUMap], names: Sequence[str], *, log_x: bool = False, log_y: bool = True,
                      max_risk: float | None = None, choice: GridChoice | None = None) -> go.Figure:
    """Maps from several analyses on one set of axes, each named ``analysis: curve``.

    ``choice`` (from :func:`rumap.maps.pareto.best_under_risk`) is marked with a star.

    Parameters
    ----------
    maps : sequence of RUMap
    names : sequence of str
        The analysis each map comes from.
    log_x, log_y : bool
        Logarithmic axes.
    max_risk : float, optional
        Drawn as a horizontal line.
    choice : GridChoice, optional

    Returns
    -------
    plotly.graph_objects.Figure
    """
    named = [replace(m, method=name, knowledge="", target="") for m, name in zip(maps, names, strict=True)]
    fig = _readable_axes(ru_map_figure(named, log_x=log_x, log_y=log_y, max_risk=max_risk))
    _star(fig, choice, _curve_color(max(choice.map_index, 0)) if choice is not None else "gold")
    return arrange_labels(fig)


def _star(fig: go.Figure, choice: GridChoice | None, color: str) -> None:
    """The recommended point as a star with its value beside it (the map's name on hover)."""
    if choice is None or not choice.reachable:
        return
    symbol = PARAMETER_SYMBOLS.get(choice.parameter, choice.parameter)
    y, zero = _risk_drawn(fig, choice.risk)
    fig.add_trace(go.Scatter(
        x=[choice.utility], y=[y], mode="markers+text", name="most utility under the bound",
        marker={"symbol": "star", "size": 18, "color": color, "line": {"color": "black", "width": 1}},
        text=[f"{symbol}={format_number(choice.value)}" + (", R=0" if zero else "")], textposition="bottom right",
        cliponaxis=not zero,
        hovertext=[f"{choice.map}: {symbol}={format_number(choice.value)}" + (f", {ZERO_RISK}" if zero else "")],
        hoverinfo="text", meta={"label_priority": 0}))


def _risk_drawn(fig: go.Figure, risk: float) -> tuple[float, bool]:
    """Where a marked point's risk is drawn, and whether it is a risk of 0 drawn at a log axis's floor."""
    floor = axis_floor(fig)
    return (floor, True) if risk == 0 and floor is not None else (risk, False)


@validate_params({"m": InstanceOf(RUMap), "choice": [None, InstanceOf(GridChoice)], "title": InstanceOf(str),
                  "log_x": Boolean(), "log_y": Boolean()},
                 example=lambda: {"m": small_analysis().maps[0], "choice": None, "title": "record"})
def presentation_figure(m: RUMap, choice: GridChoice | None, *, title: str, log_x: bool = False,
                        log_y: bool = True, font_size: int = 24) -> go.Figure:
    """One map in large type with the chosen parameter annotated, for committees.

    Parameters
    ----------
    m : RUMap
    choice : GridChoice or None
        The chosen parameter, annotated.
    title : str
    log_x, log_y : bool
        Logarithmic axes.
    font_size : int

    Returns
    -------
    plotly.graph_objects.Figure
    """
    fig = _readable_axes(ru_map_figure([m], log_x=log_x, log_y=log_y,
                                       max_risk=None if choice is None else choice.max_risk,
                                       title=_wrap(title, 55), font_size=font_size, labelled_markers=4))
    if choice is not None and choice.reachable and math.isfinite(choice.utility) and math.isfinite(choice.risk):
        symbol = PARAMETER_SYMBOLS.get(m.parameter, m.parameter)
        y, zero = _risk_drawn(fig, choice.risk)
        fig.add_trace(go.Scatter(x=[choice.utility], y=[y], mode="markers", name="chosen", cliponaxis=not zero,
                                 marker={"symbol": "star", "size": 26, "color": "gold",
                                         "line": {"color": "black", "width": 2}}, showlegend=False))
        fig.add_annotation(
            x=math.log10(choice.utility) if log_x else choice.utility,
            y=math.log10(y) if log_y and y > 0 else y,
            text=f"<b>chosen: {symbol} = {choice.value:.3g}</b><br>R = {choice.risk:.3g}, U = {choice.utility:.3g}",
            showarrow=True, arrowhead=2, arrowsize=1.5, ax=-120, ay=-80, font={"size": font_size},
            bgcolor="rgba(255,255,255,0.85)", bordercolor="black")
    fig.update_layout(height=680, showlegend=False, margin={"t": 150})
    return arrange_labels(fig)


@validate_params({"points": InstanceOf(pd.DataFrame), "frontier": InstanceOf(pd.DataFrame), "log_x": Boolean(),
                  "log_y": Boolean(), "max_risk": [None, "max_risk"], "choice": [None, InstanceOf(GridChoice)]},
                 example=_pareto_example)
def pareto_figure(points: pd.DataFrame, frontier: pd.DataFrame, *, log_x: bool = False,
                  log_y: bool = True, risk_label: str = "R", utility_label: str = "U",
                  max_risk: float | None = None, choice: GridChoice | None = None) -> go.Figure:
    """Every point (grey) and the Pareto frontier (a step line, with each point's map and parameter).

    Parameters
    ----------
    points, frontier : pandas.DataFrame
        Every (U, R) point and the frontier (:func:`rumap.maps.pareto.pareto_frontier`).
    log_x, log_y : bool
        Logarithmic axes.
    risk_label, utility_label : str
        Axis titles.
    max_risk : float, optional
        The maximum tolerable risk, drawn as a dashed line.
    choice : GridChoice, optional
        The recommended point, marked with a star (as on Compare).

    Returns
    -------
    plotly.graph_objects.Figure
    """
    fig = go.Figure()
    shown = points[np.isfinite(points["risk"]) & np.isfinite(points["utility"])]
    fig.add_trace(go.Scatter(x=shown["utility"], y=shown["risk"], mode="markers", name="all points",
                             marker={"color": "lightgrey", "size": 6},
                             text=[f"{a}: {p}={v:.3g}" for a, p, v in zip(shown["map"], shown["parameter"],
                                                                         shown["value"], strict=True)],
                             hovertemplate="%{text}<br>U = %{x:.4g}<br>R = %{y:.4g}<extra></extra>"))
    front = frontier[np.isfinite(frontier["risk"]) & np.isfinite(frontier["utility"])]
    for name, group in front.groupby("map", sort=False):
        fig.add_trace(go.Scatter(
            x=group["utility"], y=group["risk"], mode="markers", name=f"frontier: {name}", marker={"size": 9},
            text=[f"{name}: {p}={v:.3g}" for p, v in zip(group["parameter"], group["value"], strict=True)],
            hovertemplate="%{text}<br>U = %{x:.4g}<br>R = %{y:.4g}<extra>frontier</extra>"))
    fig.add_trace(go.Scatter(x=front["utility"], y=front["risk"], mode="lines", name="frontier",
                             line={"shape": "hv", "color": "black", "width": 1.5}, hoverinfo="skip"))
    if max_risk is not None:
        bound_line(fig, max_risk, log_y)
    fig.update_layout(template="plotly_white", xaxis_title=utility_label, yaxis_title=risk_label,
                      legend={"orientation": "h", "yanchor": "bottom", "y": 1.02, "x": 0})
    zero = shown[shown["risk"] == 0] if log_y else shown.iloc[:0]
    if not zero.empty:  # a log axis has no 0: the points of risk 0 at its floor
        fig.add_trace(go.Scatter(
            x=zero["utility"], y=np.ones(len(zero)), mode="markers", name="risk 0", cliponaxis=False,
            meta={AT_FLOOR: True}, marker={"symbol": "triangle-down-open", "size": 12, "line": {"width": 2},
                                           "color": "black"},
            text=[f"{m}: {p}={v:.3g}" for m, p, v in zip(zero["map"], zero["parameter"], zero["value"], strict=True)],
            hovertemplate=f"%{{text}}<br>U = %{{x:.4g}}<br>{ZERO_RISK}<extra></extra>"))
    if log_x:
        fig.update_xaxes(type="log")
    if log_y:
        fig.update_yaxes(type="log")
    if not zero.empty:
        set_ranges(fig, max_risk=max_risk)  # explicit ranges, which place the points of risk 0
    _star(fig, choice, "gold")  # at the floor too when its risk is 0
    return _readable_axes(fig)
