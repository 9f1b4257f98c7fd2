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


def _ink_margins(png: bytes) -> tuple[int, int, int, int]:
    """White pixels between the drawing and each edge: left, right, top, bottom."""
    import io

    import numpy as np
    from PIL import Image

    image = Image.open(io.BytesIO(png)).convert("RGBA")
    pixels = np.asarray(Image.alpha_composite(Image.new("RGBA", image.size, "white"), image).convert("L"))
    ink = pixels < 250
    rows, cols = np.flatnonzero(ink.any(axis=1)), np.flatnonzero(ink.any(axis=0))
    return int(cols[0]), int(pixels.shape[1] - 1 - cols[-1]), int(rows[0]), int(pixels.shape[0] - 1 - rows[-1])


def test_exported_images_keep_the_axis_titles_inside_the_picture():
    from rumap.present.examples import small_analysis
    from rumap.present.figures import analysis_figure, presentation_figure
    from rumap.result import RUMap

    long = RUMap(parameter="k", values=[1, 2, 3], risk=[1e-3, 0.2, 0.5], utility=[0.1, 0.5, 0.9],
                 utility_label="U = 1 / E(Ybar - xbar)^2, the information the released mean keeps about the "
                               "original one (Duncan et al., Eq 6)",
                 risk_label="R = 1 / E(the snooper's squared error on the target record), largest of the states")
    figs = [presentation_figure(long, None, title="A committee's slide"),
            presentation_figure(long, None, title="A committee's slide", log_x=True),
            analysis_figure(small_analysis(), title="report")]
    margins = [_ink_margins(png) for png in figure_images(figs, "png")]
    assert all(min(m) >= 4 for m in margins), margins  # nothing drawn against an edge: nothing cut
