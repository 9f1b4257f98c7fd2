"""Image files of figures made on demand and kept for the session, keyed by each figure's digest."""

from __future__ import annotations

import threading
from collections.abc import Sequence

import plotly.graph_objects as go
import streamlit as st

from rumap.fingerprint import BoundedCache
from rumap.present.images import figure_images, image_digest, warm_image_engine

IMAGES = "rumap_images"


def image_cache() -> BoundedCache:
    """The session's images by figure digest (PNG and SVG bytes; ``None`` where no engine draws them)."""
    return st.session_state.setdefault(IMAGES, BoundedCache(max_entries=32))


def warm_in_background() -> None:
    """Start the image engine in a background thread, so the first export does not wait for Chromium."""
    threading.Thread(target=warm_image_engine, daemon=True, name="rumap-image-engine").start()


def missing(figs: Sequence[go.Figure], fmt: str) -> list[int]:
    """Positions of the figures whose image in ``fmt`` this session has not made yet."""
    cache = image_cache()
    return [i for i, fig in enumerate(figs) if image_digest(fig, fmt) not in cache]


def make(figs: Sequence[go.Figure], fmt: str) -> None:
    """Render the figures not yet in the session's cache, all in one call to the warm engine."""
    cache = image_cache()
    todo = [figs[i] for i in missing(figs, fmt)]
    if not todo:
        return
    for fig, image in zip(todo, figure_images(todo, fmt), strict=True):
        cache.get_or_compute(image_digest(fig, fmt), lambda image=image: image)


def cached(fig: go.Figure, fmt: str) -> bytes | None:
    """The session's image of the figure, or ``None`` if it was not made (or no engine could make it)."""
    key = image_digest(fig, fmt)
    cache = image_cache()
    return cache.get_or_compute(key, lambda: None) if key in cache else None
