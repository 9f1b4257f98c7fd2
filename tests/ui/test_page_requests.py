"""A request for the app's page pauses the map workers; files and the server's own routes do not."""

from __future__ import annotations

import asyncio

import pytest

from dashboard.page_requests import PageRequests, is_page_request


@pytest.mark.parametrize(("path", "page"), [
    ("/", True), ("/analytic_map", True), ("/empirical", True),
    ("/static/js/index.DormvYxC.js", False), ("/favicon.png", False), ("/_stcore/health", False),
    ("/_stcore/stream", False), ("/media/abc.png", False), ("/manifest.json", False),
])
def test_page_requests_are_told_from_files(path, page):
    assert is_page_request({"type": "http", "method": "GET", "path": path}) is page


def test_only_http_gets_count():
    assert not is_page_request({"type": "http", "method": "POST", "path": "/"})
    assert not is_page_request({"type": "websocket", "path": "/"})


def test_the_middleware_tells_of_each_page_request_and_passes_every_request_on():
    told, passed = [], []

    async def app(scope, receive, send):
        passed.append(scope["path"])

    middleware = PageRequests(app, on_page=lambda: told.append(1))
    for path in ["/", "/static/js/a.js", "/analytic_map"]:
        asyncio.run(middleware({"type": "http", "method": "GET", "path": path}, None, None))
    assert passed == ["/", "/static/js/a.js", "/analytic_map"] and len(told) == 2
