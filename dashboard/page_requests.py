"""A browser asking for the app's page counts as a page starting: the map workers pause from then on.

A fresh browser spends its first second or more fetching and compiling the
app's scripts before its session runs the page; :func:`dashboard.background.page_started`,
called by each run of the page, would come only after that. :class:`PageRequests`
(an ASGI middleware in front of Streamlit's own) calls :func:`dashboard.background.page_requested`
already when the page's HTML is requested. :func:`dashboard.middleware.install` adds it to the server that
``python -m dashboard.serve`` starts.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import PurePosixPath

from dashboard.background import page_requested

#: Path prefixes of the server's own routes (scripts, styles, health, the session's socket), not pages.
NOT_PAGES = ("/_stcore/", "/static/", "/component/", "/media/", "/app/static/")


def is_page_request(scope: dict) -> bool:
    """Whether an ASGI request asks for the app's page (its HTML), not for a file or the server's routes.

    Parameters
    ----------
    scope : dict
        The ASGI connection scope.

    Returns
    -------
    bool

    Examples
    --------
    >>> is_page_request({"type": "http", "method": "GET", "path": "/"})
    True
    >>> is_page_request({"type": "http", "method": "GET", "path": "/static/js/index.js"})
    False
    """
    path = scope.get("path", "")
    return (scope.get("type") == "http" and scope.get("method") == "GET" and not path.startswith(NOT_PAGES)
            and not PurePosixPath(path).suffix)


class PageRequests:
    """ASGI middleware: call ``on_page`` (:func:`~dashboard.background.page_requested`) for each page request.

    Parameters
    ----------
    app : ASGI application
    on_page : callable
    """

    def __init__(self, app, on_page: Callable[[], None] = page_requested) -> None:
        self.app = app
        self.on_page = on_page

    async def __call__(self, scope, receive, send) -> None:
        if is_page_request(scope):
            self.on_page()
        await self.app(scope, receive, send)
