"""Streamlit's own scripts, styles and fonts served from memory, in front of the server's middleware.

A fresh browser fetches about 60 of Streamlit's script files before it can show
a page, and more as the page's elements first appear (Plotly's 4.7 MB among
them). The server passes each request through its whole middleware stack (path
checks, session cookie, compression choice, static files with the file's status
and reads on a worker thread): milliseconds of the server's event loop for each
file, while the browser waits with six requests at a time, and while every other
session's messages wait too. These files are the installed Streamlit's build
output, named by their content's hash and sent as immutable; :class:`StaticCache`
answers ``GET`` and ``HEAD`` for exactly those files (nothing else: the list of
paths is read from the package's folder) from memory, with the headers Streamlit
sends (type, length, ``ETag``, ``Last-Modified``, a year's ``Cache-Control``).
A range request, a check of a cached copy (``If-None-Match`` and the like),
another method, or any other path goes on to Streamlit unchanged. Each file is
read on its first request and kept: at most the build folder (about 25 MB).

Measured against ``python -m dashboard.serve`` on two cores, the 62 files of a
fresh page over keep-alive connections: 0.137 s on one connection and 0.125 s
on six, 0.068 s and 0.037 s from memory.
"""

from __future__ import annotations

import os
from pathlib import Path

#: Streamlit's header for its hashed assets (``STATIC_ASSET_CACHE_MAX_AGE_SECONDS``: a year).
CACHE_CONTROL = b"public, immutable, max-age=31536000"
#: The URL folder of Streamlit's build output, below the server's base path.
PREFIX = "/static/"


def asset_paths(static_dir: str | os.PathLike) -> dict[str, Path]:
    """The build output's files by URL path (``/static/js/index.js`` -> its file).

    Only regular files inside ``static_dir/static`` are listed; a symbolic
    link that leads outside the folder is left out.

    Parameters
    ----------
    static_dir : path
        Streamlit's static folder (the one holding ``index.html`` and ``static/``).

    Returns
    -------
    dict of str to Path

    Examples
    --------
    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     (Path(folder) / "static" / "js").mkdir(parents=True)
    ...     _ = (Path(folder) / "static" / "js" / "a.1234.js").write_text("1")
    ...     _ = (Path(folder) / "index.html").write_text("<html>")
    ...     sorted(asset_paths(folder))
    ['/static/js/a.1234.js']
    """
    root = (Path(static_dir) / "static").resolve()
    paths: dict[str, Path] = {}
    if not root.is_dir():
        return paths
    for folder, _, names in os.walk(root):
        for name in names:
            file = (Path(folder) / name).resolve()
            if file.is_file() and file.is_relative_to(root):
                paths[PREFIX + file.relative_to(root).as_posix()] = file
    return paths


def asset_headers(file: Path) -> list[tuple[bytes, bytes]]:
    """The headers Streamlit's static route sends for ``file``: Starlette's file response's, and the year's cache.

    Parameters
    ----------
    file : Path

    Returns
    -------
    list of (bytes, bytes)

    Examples
    --------
    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     file = Path(folder) / "index.ab12.css"
    ...     _ = file.write_text("a {}")
    ...     headers = dict(asset_headers(file))
    >>> headers[b"content-type"], headers[b"content-length"], headers[b"cache-control"]
    (b'text/css; charset=utf-8', b'4', b'public, immutable, max-age=31536000')
    """
    from starlette.responses import FileResponse

    return [*FileResponse(file, stat_result=file.stat()).raw_headers, (b"cache-control", CACHE_CONTROL)]


#: Request headers that make a request Streamlit's to answer (a part of a file, a check of a cached copy).
PASSED_ON = (b"range", b"if-none-match", b"if-modified-since", b"if-range")


class StaticCache:
    """ASGI middleware: answer ``GET``/``HEAD`` of Streamlit's build files from memory.

    Parameters
    ----------
    app : ASGI application
        Streamlit's server application (its middleware and routes).
    static_dir : path, optional
        Streamlit's static folder (default: the installed Streamlit's).
    base_url : str, optional
        The server's base URL path (default: Streamlit's ``server.baseUrlPath``).
    """

    def __init__(self, app, static_dir: str | os.PathLike | None = None, base_url: str | None = None) -> None:
        self.app = app
        self._static_dir = static_dir
        self._base_url = base_url
        self._files: dict[str, Path] | None = None
        self._answers: dict[str, tuple[list[tuple[bytes, bytes]], bytes]] = {}

    def _paths(self) -> dict[str, Path]:
        if self._files is None:
            from streamlit import config, file_util

            static_dir = file_util.get_static_dir() if self._static_dir is None else self._static_dir
            base = (config.get_option("server.baseUrlPath") or "") if self._base_url is None else self._base_url
            base = base.strip("/")
            self._files = {(f"/{base}" if base else "") + path: file for path, file in asset_paths(static_dir).items()}
        return self._files

    def _answer(self, path: str) -> tuple[list[tuple[bytes, bytes]], bytes] | None:
        answer = self._answers.get(path)
        if answer is None:
            file = self._paths().get(path)
            if file is None:
                return None
            try:
                answer = (asset_headers(file), file.read_bytes())
            except OSError:  # gone since the server started: Streamlit answers
                return None
            self._answers[path] = answer
        return answer

    async def __call__(self, scope, receive, send) -> None:
        if (scope["type"] == "http" and scope.get("method") in ("GET", "HEAD")
                and not any(name in PASSED_ON for name, _ in scope.get("headers", ()))):
            answer = self._answer(scope.get("path", ""))
            if answer is not None:
                headers, body = answer
                await send({"type": "http.response.start", "status": 200, "headers": headers})
                await send({"type": "http.response.body", "body": body if scope["method"] == "GET" else b""})
                return
        await self.app(scope, receive, send)
