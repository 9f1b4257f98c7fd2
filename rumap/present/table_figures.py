"""Plotly figures for tables: the dominance rule's flaw and the bounds of suppressed cells.

They take results (:class:`rumap.tables.dominance.DominanceFlaw`,
:class:`rumap.tables.dominance.TheoremScan`, :class:`rumap.tables.bounds.TableBounds`)
and never recompute them.
"""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from rumap._validation import InstanceOf, validate_params
from rumap.tables.bounds import TableBounds, paper_table1_bounds
from rumap.tables.dominance import DominanceFlaw, TheoremScan, dominance_flaw, theorem1_scan

__all__ = ["bounds_figure", "constructions_figure", "theorem_figure"]

_NONSENSITIVE, _SENSITIVE = "#2ca02c", "#d62728"


def _layout(fig: go.Figure, title: str, x: str, y: str) -> go.Figure:
    fig.update_layout(title=title, xaxis_title=x, yaxis_title=y, template="plotly_white",
                      legend={"orientation": "h", "yanchor": "bottom", "y": 1.02, "xanchor": "left", "x": 0},
                      margin={"l": 60, "r": 20, "t": 90, "b": 60})
    return fig


@validate_params({"flaw": InstanceOf(DominanceFlaw)}, example=lambda: {"flaw": dominance_flaw(1, 0.369, 3)})
def constructions_figure(flaw: DominanceFlaw) -> go.Figure:
    """Relative contributions of X_ns (Construction 1) and X_s (Construction 2), largest first.

    The coalition (contributions 2..n+1) and the tail (the N - n - 1 smallest)
    are marked, with each cell's tail sum in the legend.

    Parameters
    ----------
    flaw : DominanceFlaw
        Constructions 1 and 2 of the dominance rule's flaw (:func:`rumap.tables.dominance.dominance_flaw`).

    Returns
    -------
    plotly.graph_objects.Figure
    """
    ranks = np.arange(1, flaw.cells + 1)
    fig = go.Figure()
    fig.add_trace(go.Bar(x=ranks, y=flaw.nonsensitive, marker_color=_NONSENSITIVE,
                         name=f"X_ns: not sensitive (tail {flaw.nonsensitive_tail:.4g})"))
    fig.add_trace(go.Bar(x=ranks, y=flaw.sensitive, marker_color=_SENSITIVE,
                         name=f"X_s: sensitive (tail {flaw.sensitive_tail:.4g})"))
    fig.update_layout(barmode="group")
    if flaw.cells > flaw.n + 1:
        fig.add_vrect(x0=flaw.n + 1.5, x1=flaw.cells + 0.5, fillcolor="grey", opacity=0.12, line_width=0,
                      annotation_text="tail", annotation_position="top left")
    fig.add_vrect(x0=1.5, x1=flaw.n + 1.5, fillcolor="#1f77b4", opacity=0.08, line_width=0,
                  annotation_text="coalition", annotation_position="top left")
    return _layout(fig, f"n = {flaw.n}, k = {flaw.k:g}, N = {flaw.cells}, r = {flaw.r:.4g}",
                   "contribution rank i", "share of the cell total x_i / x")


@validate_params({"scan": InstanceOf(TheoremScan)}, example=lambda: {"scan": theorem1_scan(2, 0.7, range(3, 10))})
def theorem_figure(scan: TheoremScan) -> go.Figure:
    """The two tails against N with their limits r(1 - k) and 1 - k (Theorem 1).

    Parameters
    ----------
    scan : TheoremScan
        The tails for a range of N (:func:`rumap.tables.dominance.theorem1_scan`).

    Returns
    -------
    plotly.graph_objects.Figure
    """
    fig = go.Figure()
    fig.add_trace(go.Scatter(x=scan.cells, y=scan.nonsensitive_tail, mode="lines+markers",
                             line={"color": _NONSENSITIVE}, name="X_ns (not sensitive): Eq A.2"))
    fig.add_trace(go.Scatter(x=scan.cells, y=scan.sensitive_tail, mode="lines+markers",
                             line={"color": _SENSITIVE}, name="X_s (sensitive): Eq A.3"))
    fig.add_hline(y=scan.limit_nonsensitive, line={"dash": "dot", "color": _NONSENSITIVE},
                  annotation_text=f"r(1 - k) = {scan.limit_nonsensitive:.4g}", annotation_position="bottom right")
    fig.add_hline(y=scan.limit_sensitive, line={"dash": "dot", "color": _SENSITIVE},
                  annotation_text=f"1 - k = {scan.limit_sensitive:.4g}", annotation_position="top right")
    return _layout(fig, "Theorem 1: gap between the coalition's bound and the largest contribution",
                   "number of contributions N", "tail: sum of the N - n - 1 smallest shares")


@validate_params({"bounds": InstanceOf(TableBounds)}, example=lambda: {"bounds": paper_table1_bounds()})
def bounds_figure(bounds: TableBounds) -> go.Figure:
    """Each unknown cell's feasible range as a horizontal bar, coloured by its risk.

    Parameters
    ----------
    bounds : TableBounds
        LP bounds and risks of the suppressed cells (:func:`rumap.tables.bounds.suppression_bounds`).

    Returns
    -------
    plotly.graph_objects.Figure
    """
    names = [", ".join(label) for label in bounds.labels]
    finite_max = np.where(np.isfinite(bounds.max), bounds.max, np.nan)
    risk = np.where(np.isfinite(bounds.risk), bounds.risk, np.nan)
    fig = go.Figure(go.Bar(
        y=names, x=finite_max - bounds.min, base=bounds.min, orientation="h",
        marker={"color": risk, "colorscale": "Reds", "colorbar": {"title": "risk"}, "cmin": 0},
        customdata=np.column_stack([bounds.values, bounds.risk]) if names else None,
        hovertemplate="%{y}<br>%{base:.6g} .. %{x:.6g} wide<br>m = %{customdata[0]:.6g}"
                      "<br>DR = %{customdata[1]:.4g}<extra></extra>"))
    return _layout(fig, "Feasible range of each unknown cell", "cell value", " / ".join(bounds.axes))
