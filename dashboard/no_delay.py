"""The server's connections send small writes at once (``TCP_NODELAY``), not after the browser's delayed ACK.

Streamlit's server binds its listening socket itself, as ``socket.socket(family)``;
such a socket's protocol number is 0, and asyncio turns Nagle's algorithm off only on
connections whose protocol number is TCP's. On every connection the browser keeps
open for a second request, a response written in two parts (head, then body) or a
second websocket message waited for the browser's acknowledgement of the first, which
the browser delays by up to 40 ms: about 43 ms for each script a fresh page loads over
a reused connection (measured with curl against ``python -m dashboard.serve``), against
3 ms on a new connection. :func:`install` turns Nagle's algorithm off on the listening
socket, whose accepted connections inherit it (Linux): 2 ms on a reused connection.
"""

from __future__ import annotations

import socket
from collections.abc import Callable

from dashboard.patching import wrap_once


def no_delay(sock: socket.socket) -> socket.socket:
    """Turn off Nagle's algorithm on a TCP socket (a listening socket passes it on to its connections).

    Sockets of other families (a Unix socket) are returned unchanged.

    Parameters
    ----------
    sock : socket.socket

    Returns
    -------
    socket.socket
        ``sock`` itself.

    Examples
    --------
    >>> with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
    ...     no_delay(sock).getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY) != 0
    True
    """
    if sock.family in (socket.AF_INET, socket.AF_INET6) and sock.type == socket.SOCK_STREAM:
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    return sock


def install() -> bool:
    """Have the Streamlit server started next bind a listening socket without Nagle's algorithm.

    Returns
    -------
    bool
        Whether it is installed (``False``: this Streamlit binds its socket another way).
    """
    try:
        from streamlit.web.server.starlette import starlette_server
    except ImportError:
        return False

    def without_delay(original: Callable[..., socket.socket]) -> Callable[..., socket.socket]:
        return lambda *args, **kwargs: no_delay(original(*args, **kwargs))

    return wrap_once(starlette_server, "_bind_socket", without_delay, "rumap_no_delay")
