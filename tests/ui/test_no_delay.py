"""The server's listening socket, and so each connection it accepts, sends small writes without Nagle's delay."""

from __future__ import annotations

import socket

from dashboard.no_delay import install, no_delay


def _nodelay(sock: socket.socket) -> bool:
    return sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY) != 0


def test_a_listening_socket_passes_it_on_to_the_connections_it_accepts():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as server:  # protocol 0, as Streamlit binds it
        server.bind(("127.0.0.1", 0))
        server.listen()
        with socket.create_connection(server.getsockname()) as _, server.accept()[0] as before:
            assert not _nodelay(before)  # asyncio sets it only on connections of a socket of protocol TCP
        no_delay(server)
        with socket.create_connection(server.getsockname()) as _, server.accept()[0] as after:
            assert _nodelay(after)


def test_other_sockets_are_left_alone():
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
        assert no_delay(sock) is sock


def test_streamlits_server_binds_its_socket_without_delay():
    from streamlit.web.server.starlette import starlette_server

    original = starlette_server._bind_socket
    try:
        assert install() and install()
        assert starlette_server._bind_socket is not original
        sock = starlette_server._bind_socket("127.0.0.1", 0, 8)
        with sock:
            assert _nodelay(sock)
            sock.setblocking(True)
            with socket.create_connection(sock.getsockname()) as _, sock.accept()[0] as accepted:
                assert _nodelay(accepted)
    finally:
        starlette_server._bind_socket = original
