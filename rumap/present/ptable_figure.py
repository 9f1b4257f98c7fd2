"""The perturbation table of the cell key method as a picture: the distribution of v for each original count i."""

from __future__ import annotations

import plotly.graph_objects as go

from rumap._validation import InstanceOf, validate_params
from rumap.tables.ptable import PTable, create_ptable

__all__ = ["ptable_figure"]


@validate_params({"ptable": InstanceOf(PTable, "a PTable (see rumap.tables.ptable.create_ptable)")},
                 example=lambda: {"ptable": create_ptable(3, 1.08, 1)})
def ptable_figure(ptable: PTable) -> go.Figure:
    """A heat map of p(v | i): one row per original count class i (the last for every count from it on).

    Parameters
    ----------
    ptable : PTable

    Returns
    -------
    plotly.graph_objects.Figure
    """
    rows = ptable.rows
    classes = sorted(rows["i"].unique())
    last = classes[-1]
    labels = [f"i = {i:g}" if i < last else f"i >= {i:g}" for i in classes]
    vs = sorted(rows["v"].unique())
    grid = rows.pivot_table(index="i", columns="v", values="p", aggfunc="sum").reindex(index=classes, columns=vs)
    fig = go.Figure(go.Heatmap(z=grid.to_numpy(), x=[f"{v:g}" for v in vs], y=labels, colorscale="Blues",
                               zmin=0.0, zmax=1.0, colorbar={"title": "p"},
                               text=[[("" if p != p else f"{p:.3f}") for p in row] for row in grid.to_numpy()],
                               texttemplate="%{text}", hovertemplate="%{y}, v = %{x}: p = %{z:.6f}<extra></extra>"))
    fig.update_layout(title="Perturbation table: the distribution of v for each original count i",
                      xaxis_title="perturbation v", yaxis_title="original count", template="plotly_white",
                      yaxis={"autorange": "reversed"}, margin={"l": 80, "r": 20, "t": 60, "b": 50})
    return fig
