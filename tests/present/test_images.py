"""Figure images: one warm engine, each figure drawn once per request, keyed by the figure's digest."""

from __future__ import annotations

import plotly.graph_objects as go

from rumap.present.images import figure_images, image_digest, render_count, warm_image_engine


def test_digest_follows_the_figure_and_the_format():
    a = go.Figure(go.Scatter(x=[1, 2], y=[3, 4]))
    b = go.Figure(go.Scatter(x=[1, 2], y=[3, 5]))
    assert image_digest(a) == image_digest(go.Figure(go.Scatter(x=[1, 2], y=[3, 4])))
    assert len({image_digest(a), image_digest(b), image_digest(a, "svg")}) == 3


def test_several_figures_in_one_call_through_the_warm_engine():
    assert warm_image_engine() and warm_image_engine()  # started once, then returns at once
    figs = [go.Figure(go.Scatter(x=[0, i], y=[1, 2])) for i in range(1, 4)]
    before = render_count()
    pngs = figure_images(figs, "png")
    assert render_count() == before + 3
    assert all(p[:8] == b"\x89PNG\r\n\x1a\n" for p in pngs)
    assert len(set(pngs)) == 3
    (svg,) = figure_images(figs[:1], "svg")
    assert svg.lstrip().startswith(b"<svg")
