"""Our middleware goes in front of Streamlit's, once, in the order of MIDDLEWARE."""

from __future__ import annotations

from dashboard.middleware import MIDDLEWARE, install
from dashboard.page_requests import PageRequests
from dashboard.static_cache import StaticCache


def test_install_puts_ours_in_front_of_streamlits_middleware_once():
    from streamlit.web.server.starlette import starlette_app

    original = starlette_app.create_streamlit_middleware
    try:
        streamlits = [m.cls for m in original()]
        assert install() and install()
        classes = [m.cls for m in starlette_app.create_streamlit_middleware()]
        assert classes == [StaticCache, PageRequests, *streamlits]
        assert tuple(classes[:len(MIDDLEWARE)]) == MIDDLEWARE
    finally:
        starlette_app.create_streamlit_middleware = original
