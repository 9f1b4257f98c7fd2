"""Streamlit's build files from memory: the same answers as Streamlit's own static route, nothing else served."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

import pytest

from dashboard.static_cache import StaticCache, asset_paths

#: Headers that differ from one answer to the next (added by the HTTP server, not the application).
VOLATILE = {b"date", b"server"}


async def request(app, path: str, method: str = "GET", headers: list | None = None) -> tuple[int, dict, bytes]:
    """One request through an ASGI application: (status, headers, body)."""
    sent: list[dict] = []
    scope = {"type": "http", "method": method, "path": path, "raw_path": path.encode(), "root_path": "",
             "query_string": b"", "headers": headers or [], "http_version": "1.1", "scheme": "http",
             "server": ("127.0.0.1", 8501), "client": ("127.0.0.1", 5000)}

    asked = []

    async def receive():  # the request once, then nothing until the response is done (Starlette listens)
        if not asked:
            asked.append(True)
            return {"type": "http.request", "body": b"", "more_body": False}
        await asyncio.Event().wait()

    async def send(message):
        sent.append(message)

    await app(scope, receive, send)
    start = next(m for m in sent if m["type"] == "http.response.start")
    body = b"".join(m.get("body", b"") for m in sent if m["type"] == "http.response.body")
    return start["status"], {k: v for k, v in start.get("headers", []) if k not in VOLATILE}, body


def call(app, path: str, method: str = "GET", headers: list | None = None) -> tuple[int, dict, bytes]:
    """:func:`request` in an event loop of its own."""
    return asyncio.run(request(app, path, method, headers))


class Passed:
    """A stand-in for Streamlit: records what reaches it."""

    def __init__(self) -> None:
        self.paths: list[str] = []

    async def __call__(self, scope, receive, send) -> None:
        self.paths.append(scope["path"])
        await send({"type": "http.response.start", "status": 299, "headers": []})
        await send({"type": "http.response.body", "body": b"streamlit"})


@pytest.fixture
def static_dir(tmp_path) -> Path:
    (tmp_path / "static" / "js").mkdir(parents=True)
    (tmp_path / "static" / "js" / "index.ab12.js").write_text("export const a = 1;\n")
    (tmp_path / "static" / "media").mkdir()
    (tmp_path / "static" / "media" / "font.cd34.woff2").write_bytes(bytes(range(256)))
    (tmp_path / "index.html").write_text("<html></html>")
    (tmp_path / "secret.txt").write_text("not an asset")
    return tmp_path


def test_asset_paths_are_the_files_of_the_build_folder_only(static_dir):
    os.symlink(static_dir / "secret.txt", static_dir / "static" / "js" / "link.js")
    assert sorted(asset_paths(static_dir)) == ["/static/js/index.ab12.js", "/static/media/font.cd34.woff2"]
    assert asset_paths(static_dir / "nothing") == {}


def test_assets_are_answered_from_memory_and_everything_else_goes_on(static_dir):
    streamlit = Passed()
    cache = StaticCache(streamlit, static_dir=static_dir, base_url="")
    status, headers, body = call(cache, "/static/js/index.ab12.js")
    assert (status, body) == (200, b"export const a = 1;\n")
    assert headers[b"cache-control"] == b"public, immutable, max-age=31536000"
    assert headers[b"content-length"] == b"20" and headers[b"etag"].startswith(b'"')
    assert call(cache, "/static/media/font.cd34.woff2")[2] == bytes(range(256))
    assert streamlit.paths == []
    for path in ["/", "/index.html", "/secret.txt", "/static/js/other.js", "/static/../secret.txt",
                 "/static/js/../../secret.txt", "/static/js", "/_stcore/health", "/static/js/index.ab12.js/"]:
        assert call(cache, path) == (299, {}, b"streamlit"), path
    assert len(streamlit.paths) == 9


def test_head_has_the_headers_without_the_body(static_dir):
    cache = StaticCache(Passed(), static_dir=static_dir, base_url="")
    status, headers, body = call(cache, "/static/js/index.ab12.js", method="HEAD")
    assert (status, body, headers[b"content-length"]) == (200, b"", b"20")


@pytest.mark.parametrize("header", [b"range", b"if-none-match", b"if-modified-since", b"if-range"])
def test_ranges_and_checks_of_a_cached_copy_are_streamlits(static_dir, header):
    streamlit = Passed()
    cache = StaticCache(streamlit, static_dir=static_dir, base_url="")
    assert call(cache, "/static/js/index.ab12.js", headers=[(header, b"x")])[0] == 299
    assert call(cache, "/static/js/index.ab12.js", method="POST")[0] == 299
    assert len(streamlit.paths) == 2


def test_the_base_url_path_comes_first(static_dir):
    streamlit = Passed()
    cache = StaticCache(streamlit, static_dir=static_dir, base_url="/tools/rumap/")
    assert call(cache, "/tools/rumap/static/js/index.ab12.js")[0] == 200
    assert call(cache, "/static/js/index.ab12.js")[0] == 299


def test_a_file_gone_since_the_start_goes_to_streamlit(static_dir):
    cache = StaticCache(Passed(), static_dir=static_dir, base_url="")
    cache._paths()
    (static_dir / "static" / "js" / "index.ab12.js").unlink()
    assert call(cache, "/static/js/index.ab12.js")[0] == 299


def test_the_answers_are_streamlits_own_for_every_file_of_its_build():
    """Status, headers and body equal what Streamlit's static route sends, for each of its files."""
    from streamlit import file_util
    from streamlit.web.server.starlette.starlette_static_routes import create_streamlit_static_handler

    static = file_util.get_static_dir()
    streamlit = create_streamlit_static_handler(directory=static, base_url=None)
    cache = StaticCache(Passed(), static_dir=static, base_url="")
    paths = sorted(asset_paths(static))
    assert len(paths) > 100 and "/static/js/" in paths[len(paths) // 2][:11]

    async def both() -> list[tuple]:  # one event loop: Streamlit's route reads files on its worker threads
        return [(path, await request(cache, path), await request(streamlit, path)) for path in paths]

    for path, ours, theirs in asyncio.run(both()):
        assert ours == theirs, path
        assert ours[0] == 200
