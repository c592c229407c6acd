"""Hardening at the edges: slow clients (R12), leftovers of killed processes (R15).

Each regression test is named after its reproducer folder in the shared reproducers
(``R12_slowloris_256``, ``R15_kill9_leftovers``), so that a search for the folder's name
finds the test.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from .conftest import REPO


# -- R12: one client holding the server's connections -------------------------------------------
def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _wait_for(port: int, seconds: float = 30) -> None:
    deadline = time.time() + seconds
    while time.time() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return
        except OSError:
            time.sleep(0.1)
    raise AssertionError("the server did not start")


def _half_request(port: int, source: str) -> socket.socket | None:
    """A connection from ``source`` (an address of the loopback network) that sends a
    request line and one header, and then nothing (a slowloris client)."""
    s = socket.socket()
    s.settimeout(2)
    try:
        s.bind((source, 0))
        s.connect(("127.0.0.1", port))
        s.sendall(f"GET / HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n".encode())
        return s
    except OSError:
        s.close()
        return None


def _closed_by_server(s: socket.socket, wait: float) -> bool:
    """True when the server closed ``s`` (end of stream or reset) within ``wait`` s."""
    s.settimeout(wait)
    try:
        return s.recv(1024) == b""
    except socket.timeout:
        return False
    except OSError:
        return True


def _probe(port: int, source: str = "127.0.0.1") -> int | str:
    """The status of ``GET /api/formats`` sent from ``source`` (or what went wrong)."""
    import http.client

    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10, source_address=(source, 0))
    try:
        connection.request("GET", "/api/formats")
        return connection.getresponse().status
    except OSError as exc:
        return type(exc).__name__
    finally:
        connection.close()


def _loopback_aliases_work() -> bool:
    with socket.socket() as s:
        try:
            s.bind(("127.0.0.2", 0))
            return True
        except OSError:
            return False


@pytest.fixture()
def web_server():
    pytest.importorskip("fastapi")
    import uvicorn

    from corefio.web import MAX_CONNECTIONS, create_app, server_config

    port = _free_port()
    server = uvicorn.Server(server_config(create_app(), "127.0.0.1", port, log_level="error"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    try:
        _wait_for(port)
        yield port, MAX_CONNECTIONS
    finally:
        server.should_exit = True
        thread.join(15)


@pytest.mark.skipif(not _loopback_aliases_work(), reason="needs the 127.0.0.0/8 loopback network (Linux)")
def test_R12_slowloris_256_one_client_cannot_stop_the_server(web_server):
    """R12_slowloris_256: 300 half-sent requests from one address made ``corefio serve``
    answer 503 to everyone (uvicorn counts them against its 256 connections). Now one
    address holds at most ``MAX_PER_CLIENT`` connections (a new one closes the client's
    oldest connection without a request at work), and other clients, and the same
    client's own complete requests, are answered throughout."""
    from corefio.web.edge import MAX_PER_CLIENT

    port, limit = web_server
    attack = [s for s in (_half_request(port, "127.0.0.2") for _ in range(limit + 44)) if s]
    try:
        assert len(attack) == limit + 44
        assert [_probe(port) for _ in range(8)] == [200] * 8
        closed = [k for k, s in enumerate(attack) if _closed_by_server(s, 0.02)]
        # the oldest were closed as newer ones came; the newest MAX_PER_CLIENT are held
        # (until the header timeout, which has not passed)
        assert closed == list(range(len(attack) - MAX_PER_CLIENT))
        # the same address's complete requests get through its own slow ones
        assert [_probe(port, "127.0.0.2") for _ in range(8)] == [200] * 8
        # each probe made room by closing one slow connection, unless the one before had
        # closed already (the probes close theirs as soon as they are answered)
        assert MAX_PER_CLIENT - 8 <= sum(not _closed_by_server(s, 0.01) for s in attack) <= MAX_PER_CLIENT - 1
    finally:
        for s in attack:
            s.close()


@pytest.mark.skipif(not _loopback_aliases_work(), reason="needs the 127.0.0.0/8 loopback network (Linux)")
def test_R12_slowloris_256_many_addresses_cannot_fill_the_server(web_server):
    """Slow clients from several addresses, each under the cap, together past the
    server's connection limit: a new connection makes room by closing the one that has
    waited longest without a request, so another client is still answered."""
    from corefio.web.edge import MAX_PER_CLIENT

    port, limit = web_server
    per_address = MAX_PER_CLIENT - 4
    addresses = [f"127.0.0.{3 + k}" for k in range(-(-(limit + 40) // per_address))]
    attack = [s for a in addresses for s in (_half_request(port, a) for _ in range(per_address)) if s]
    try:
        assert len(attack) > limit
        assert [_probe(port) for _ in range(8)] == [200] * 8
        # the oldest half-sent requests made room (the probes' and the newest attackers')
        closed = [k for k, s in enumerate(attack) if _closed_by_server(s, 0.02)]
        assert len(closed) >= len(attack) - limit
        assert closed[: len(attack) - limit] == list(range(len(attack) - limit))
    finally:
        for s in attack:
            s.close()


@pytest.mark.skipif(not _loopback_aliases_work(), reason="needs the 127.0.0.0/8 loopback network (Linux)")
def test_R12_slowloris_256_slow_bodies_are_capped_per_client(web_server):
    """The same with slow bodies (complete headers announcing a body that never comes:
    requests at work, which are never closed to make room): past ``MAX_PER_CLIENT`` the
    client's new connections are closed at once, and other clients are answered."""
    from corefio.web.edge import MAX_PER_CLIENT

    port, _ = web_server
    held, answers = [], []
    try:
        for _ in range(MAX_PER_CLIENT + 6):
            s = socket.socket()
            s.settimeout(10)
            s.bind(("127.0.0.9", 0))
            s.connect(("127.0.0.1", port))
            s.sendall(f"POST /api/validate HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Length: 100000\r\n"
                      "Content-Type: multipart/form-data; boundary=x\r\nExpect: 100-continue\r\n\r\n".encode())
            held.append(s)
            # "100 Continue" once the application waits for the body (a request at work),
            # or the end of the stream when the connection was closed
            try:
                answers.append(s.recv(1024)[:25])
            except OSError:
                answers.append(b"")
        assert answers == [b"HTTP/1.1 100 Continue\r\n\r\n"[:25]] * MAX_PER_CLIENT + [b""] * 6
        assert [_probe(port) for _ in range(4)] == [200] * 4
    finally:
        for s in held:
            s.close()
