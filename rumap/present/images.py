"""Static images (PNG, SVG) of figures through one long-lived kaleido process.

Starting kaleido's Chromium and loading plotly.js into it takes several
seconds; each figure after that takes well under one. The engine is started
once per process (:func:`warm_image_engine`, which also renders a tiny figure
so plotly.js is loaded) and reused by every export. Images are keyed by the
digest of the figure's JSON and the export settings (:func:`image_digest`), so
a caller can keep them and never render the same figure twice.
"""

from __future__ import annotations

import hashlib
import threading
import warnings
from collections.abc import Sequence

import plotly.graph_objects as go

from rumap._validation import InstanceOf, StrOptions, assumes_valid, validate_params

__all__ = ["IMAGE_SIZE", "image_digest", "warm_image_engine", "figure_images", "render_count"]

#: Width, height (CSS pixels) and scale of exported images, by format.
IMAGE_SIZE: dict[str, tuple[int, int, float]] = {"png": (1000, 650, 2.0), "svg": (1000, 650, 1.0)}

_ENGINE_LOCK = threading.Lock()
_engine = {"started": False, "failed": False, "renders": 0}


def _render(fig: go.Figure, fmt: str, width: int, height: int, scale: float) -> bytes:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # plotly passes its kaleido options, which the server ignores
        return fig.to_image(format=fmt, width=width, height=height, scale=scale)


@validate_params({"fig": InstanceOf(go.Figure, "a plotly Figure"), "fmt": StrOptions(tuple(IMAGE_SIZE))},
                 example=lambda: {"fig": go.Figure(), "fmt": "png"})
def image_digest(fig: go.Figure, fmt: str = "png") -> str:
    """SHA-256 of the figure's JSON and the export format and size: equal digests give equal images.

    Parameters
    ----------
    fig : plotly.graph_objects.Figure
    fmt : {"png", "svg"}

    Returns
    -------
    str
        64 hexadecimal digits.

    Examples
    --------
    >>> import plotly.graph_objects as go
    >>> from rumap.present.images import image_digest
    >>> a = go.Figure(go.Scatter(x=[1, 2], y=[3, 4]))
    >>> image_digest(a) == image_digest(go.Figure(go.Scatter(x=[1, 2], y=[3, 4])))
    True
    >>> image_digest(a) == image_digest(a, "svg")
    False
    """
    width, height, scale = IMAGE_SIZE[fmt]
    text = f"{fmt}:{width}x{height}@{scale}:" + fig.to_json()
    return hashlib.sha256(text.encode()).hexdigest()


@assumes_valid
def warm_image_engine() -> bool:
    """Start the kaleido process once for this Python process and load plotly.js into it.

    Later calls return at once. Without kaleido or a Chromium for it, nothing
    starts and the images are ``None``.

    Parameters
    ----------
    None

    Returns
    -------
    bool
        Whether an image engine is running.
    """
    with _ENGINE_LOCK:
        if _engine["started"] or _engine["failed"]:
            return bool(_engine["started"])
        try:
            import kaleido

            kaleido.start_sync_server(silence_warnings=True)
            _render(go.Figure(go.Scatter(x=[0], y=[0])), "png", 10, 10, 1.0)
        except Exception:  # no kaleido, or no browser for it: not tried again in this process
            _engine["failed"] = True
            return False
        _engine["started"] = True
        return True


@assumes_valid
def figure_images(figs: Sequence[go.Figure], fmt: str = "png") -> list[bytes | None]:
    """The figures as PNG or SVG bytes, rendered one after another by the warm engine.

    Parameters
    ----------
    figs : sequence of plotly.graph_objects.Figure
    fmt : {"png", "svg"}

    Returns
    -------
    list of bytes or None
        ``None`` for every figure where no image engine is available.
    """
    if not warm_image_engine():
        return [None] * len(figs)
    width, height, scale = IMAGE_SIZE[fmt]
    images: list[bytes | None] = []
    with _ENGINE_LOCK:  # one engine, one figure at a time: its answers come back in order
        for fig in figs:
            try:
                images.append(_render(fig, fmt, width, height, scale))
            except Exception:  # a figure the engine cannot draw: the toolbar's camera still exports it
                images.append(None)
            _engine["renders"] += 1
    return images


@assumes_valid
def render_count() -> int:
    """How many figures this process has rendered to images (the engine's own warm-up not counted).

    Parameters
    ----------
    None

    Returns
    -------
    int
    """
    return int(_engine["renders"])
