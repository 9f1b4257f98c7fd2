"""The ASGI middleware put in front of Streamlit's own when ``python -m dashboard.serve`` starts the server.

- :class:`dashboard.static_cache.StaticCache`: Streamlit's build files from memory;
- :class:`dashboard.page_requests.PageRequests`: a page request pauses the map workers.
"""

from __future__ import annotations

from collections.abc import Callable

from dashboard.page_requests import PageRequests
from dashboard.patching import wrap_once
from dashboard.static_cache import StaticCache

#: The middleware classes, outermost first.
MIDDLEWARE = (StaticCache, PageRequests)


def install() -> bool:
    """Put :data:`MIDDLEWARE` in front of the middleware of the Streamlit server started next.

    Returns whether it is installed (``False``: this Streamlit builds its server
    another way; the pause then starts with the page's run only, and Streamlit
    serves its files itself).

    Returns
    -------
    bool
    """
    try:
        from starlette.middleware import Middleware
        from streamlit.web.server.starlette import starlette_app
    except ImportError:
        return False

    def in_front(original: Callable[[], list]) -> Callable[[], list]:
        return lambda: [*(Middleware(cls) for cls in MIDDLEWARE), *original()]

    return wrap_once(starlette_app, "create_streamlit_middleware", in_front, "rumap_middleware")
