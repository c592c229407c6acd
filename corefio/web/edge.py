"""The HTTP edge: what every request passes before the application sees it.

:class:`Edge` (ASGI middleware):

* ``Host`` must be one of the allowed names (DNS rebinding: a page of another site whose
  name was pointed at 127.0.0.1 sends its own name): 400 otherwise;
* a POST (any method but GET, HEAD, OPTIONS) whose ``Origin`` (else ``Referer``) names
  another host than the request's own, or ``Origin: null``, or ``Sec-Fetch-Site:
  cross-site``, is refused 403: a browser always sends ``Origin`` with a form POST, so
  another site's page cannot post to the evaluator, while scripts (curl, httpx), which
  send neither header, keep working;
* the request body must stay under the upload limit (413 as soon as it is exceeded,
  while it streams in) and arrive within ``body_timeout`` seconds, with no gap over
  :data:`BODY_GAP` seconds (408 otherwise): a slow client cannot hold a connection;
* every answer carries :data:`SECURITY_HEADERS` (``Referrer-Policy: same-origin``, not
  ``no-referrer``: under ``no-referrer`` browsers send ``Origin: null`` with the
  page's own form POSTs, which the check above must refuse).

:func:`protocol` gives uvicorn an HTTP protocol (h11) that

* closes a connection whose request line and headers have not arrived within
  ``header_timeout`` seconds (uvicorn itself only times out idle keep-alive connections);
* lets one client address hold at most :data:`MAX_PER_CLIENT` connections: a new
  connection past that closes the client's own connection that has waited longest
  without a request in progress (an idle keep-alive connection, or one still sending
  its headers), or, when each of them has a request at work, is itself closed at once.
  So one client cannot take the server's connections (uvicorn answers 503 to everyone
  once ``limit_concurrency`` connections are open, idle or half-sent ones included),
  and its own new requests still get through its slow ones;
* when the server is full, makes room for a new connection the same way, closing the
  connection of any client that has waited longest without a request in progress.

A request being read or answered is never cut to make room.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any, Callable
from urllib.parse import urlsplit

#: the longest pause between two pieces of a request body
BODY_GAP = 10.0
#: connections one client address may hold at once: half of the server's 256
#: (``corefio.web.MAX_CONNECTIONS``), so one client cannot take them all and a team's
#: scripts are not cut short (behind a reverse proxy the proxy is that client)
MAX_PER_CLIENT = 128
CSP = ("default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; object-src 'none'; "
       "base-uri 'none'; form-action 'self'; frame-ancestors 'none'")
SECURITY_HEADERS = {
    "content-security-policy": CSP,
    "x-frame-options": "DENY",
    "x-content-type-options": "nosniff",
    "referrer-policy": "same-origin",
}
SAFE_METHODS = ("GET", "HEAD", "OPTIONS")
DEFAULT_HOSTS = ("localhost", "127.0.0.1", "[::1]", "::1")


def host_name(value: str) -> str:
    """The host of a ``Host`` header or URL netloc, lower-cased, without the port."""
    value = value.strip().lower()
    if value.startswith("["):
        return value[: value.find("]") + 1] if "]" in value else value
    return value.rsplit(":", 1)[0] if value.count(":") == 1 else value


def allowed_hosts(bound: str, extra: tuple[str, ...] | list[str] = ()) -> frozenset[str]:
    """The default names (the bound address, localhost, 127.0.0.1, [::1]) and ``extra``."""
    names = set(DEFAULT_HOSTS)
    for name in (bound, *extra):
        if not name or name in ("0.0.0.0", "::"):
            continue
        name = name.strip().lower()
        names.add(f"[{name}]" if ":" in name and not name.startswith("[") else host_name(name))
    return frozenset(names)


class Refusal(Exception):
    """Raised inside ``receive`` to stop reading a request body."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


Render = Callable[[str, int, str], Any]


class Edge:
    """ASGI middleware (see the module doc). ``render(path, status, message)`` makes the
    refusal's response (JSON under ``/api/``, a page elsewhere)."""

    def __init__(self, app, render: Render, hosts: frozenset[str], limit: int, body_timeout: float,
                 megabytes: float) -> None:
        self.app = app
        self.render = render
        self.hosts = hosts
        self.limit = limit
        self.body_timeout = body_timeout
        self.megabytes = megabytes

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        path = scope.get("path", "")

        async def secure_send(message):
            if message["type"] == "http.response.start":
                headers = [(k, v) for k, v in message.get("headers", []) if k.decode("latin-1").lower()
                           not in SECURITY_HEADERS]
                csp = CSP if not path.startswith(("/docs", "/redoc")) else DOCS_CSP
                headers += [(k.encode(), (csp if k == "content-security-policy" else v).encode())
                            for k, v in SECURITY_HEADERS.items()]
                message = {**message, "headers": headers}
            await send(message)

        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers") or []}
        refusal = self.check(scope, headers)
        if refusal:
            return await self.refuse(scope, receive, secure_send, *refusal)
        length = headers.get("content-length")
        if length is not None:
            try:
                size = int(length)
            except ValueError:
                return await self.refuse(scope, receive, secure_send, 400, "the Content-Length header is not a number")
            if size > self.limit:
                return await self.refuse(scope, receive, secure_send, 413, self.too_big)

        seen = 0
        body_done = scope.get("method", "GET") in SAFE_METHODS and length is None
        deadline = time.monotonic() + self.body_timeout
        refused: Refusal | None = None
        started = False

        async def guarded_receive():
            nonlocal seen, body_done, refused
            if body_done:
                return await receive()
            left = deadline - time.monotonic()
            try:
                message = await asyncio.wait_for(receive(), max(0.0, min(BODY_GAP, left)))
            except asyncio.TimeoutError:
                refused = Refusal(408, f"the request body did not arrive in time (at most {self.body_timeout:g} s, "
                                       f"no pause over {BODY_GAP:g} s)")
                raise refused from None
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > self.limit:
                    refused = Refusal(413, self.too_big)
                    raise refused
                if not message.get("more_body", False):
                    body_done = True
            return message

        async def tracking_send(message):
            nonlocal started
            if refused is not None:  # whatever the application answers to a cut-off body, the refusal is sent
                if message["type"] == "http.response.start" and not started:
                    started = True
                    await self.refuse(scope, receive, secure_send, refused.status, refused.message)
                return
            if message["type"] == "http.response.start":
                started = True
            await secure_send(message)

        try:
            await self.app(scope, guarded_receive, tracking_send)
        except Refusal as exc:
            if not started:
                await self.refuse(scope, receive, secure_send, exc.status, exc.message)

    @property
    def too_big(self) -> str:
        return f"the upload is larger than the limit of {self.megabytes:g} MB"

    def check(self, scope, headers: dict[str, str]) -> tuple[int, str] | None:
        host = host_name(headers.get("host", ""))
        if host not in self.hosts:
            return 400, ("this server does not answer to that host name; start it with --allowed-host NAME "
                         "to allow it")
        if scope.get("method", "GET") in SAFE_METHODS:
            return None
        if headers.get("sec-fetch-site", "") == "cross-site":
            return 403, "a request from another site is refused"
        origin = headers.get("origin")
        if origin is None and headers.get("referer"):
            origin = headers["referer"]
        if origin is None:
            return None
        netloc = urlsplit(origin).netloc if origin != "null" else ""
        if not netloc or netloc.lower() != headers.get("host", "").strip().lower():
            return 403, "a request from another site (Origin or Referer of another host) is refused"
        return None

    async def refuse(self, scope, receive, send, status: int, message: str) -> None:
        response = self.render(scope.get("path", ""), status, message)
        response.headers["connection"] = "close"
        await response(scope, receive, send)


#: the API documentation pages (FastAPI's Swagger UI and ReDoc) load their scripts and
#: styles from a CDN and start them with an inline script; they show no uploaded content
DOCS_CSP = ("default-src 'self'; script-src 'self' 'unsafe-inline' https://cdn.jsdelivr.net; "
            "style-src 'self' 'unsafe-inline' https://cdn.jsdelivr.net https://fonts.googleapis.com; "
            "img-src 'self' data: https://fastapi.tiangolo.com https://cdn.redoc.ly; "
            "font-src 'self' https://fonts.gstatic.com; worker-src blob:; object-src 'none'; "
            "base-uri 'none'; form-action 'self'; frame-ancestors 'none'")


def protocol(header_timeout: float, per_client: int | None = None) -> type:
    """uvicorn's h11 protocol, closing connections whose headers are too slow, and
    those over ``per_client`` (default :data:`MAX_PER_CLIENT`) from one address (see
    the module doc). Each call gives a class of its own, with its own count per address
    (one per server)."""
    from uvicorn.protocols.http.h11_impl import H11Protocol

    cap = MAX_PER_CLIENT if per_client is None else per_client
    #: the open connections of each client address (only the event loop's thread uses it)
    held: dict[str, set] = {}

    class TimedH11Protocol(H11Protocol):
        _header_timer: asyncio.TimerHandle | None = None
        #: the request cycle that was the latest when the timer was set (None: none yet)
        _armed_after: Any = None
        #: the address this connection is counted under (None: not counted)
        _address: str | None = None
        #: when the connection last started waiting for a request (for making room)
        _since: float = 0.0

        def connection_made(self, transport) -> None:  # type: ignore[override]
            super().connection_made(transport)
            self._since = time.monotonic()
            address = self.client[0] if self.client else None
            if address is not None:
                own = held.setdefault(address, set())
                if len(own) >= cap and not self._make_room(own):
                    transport.close()
                    return
                own.add(self)
                self._address = address
            limit = self.limit_concurrency
            if limit is not None and len(self.connections) >= limit:
                self._make_room(self.connections)
            self._arm()

        def data_received(self, data: bytes) -> None:
            between_requests = self.cycle is None or self.cycle.response_complete
            if between_requests and (self._header_timer is None or self._armed_after is not self.cycle):
                self._arm()
            super().data_received(data)

        def connection_lost(self, exc: Exception | None) -> None:
            self._disarm()
            self._forget()
            super().connection_lost(exc)

        def _forget(self) -> None:
            if self._address is not None:
                own = held.get(self._address)
                if own is not None:
                    own.discard(self)
                    if not own:
                        del held[self._address]
                self._address = None

        def _waiting(self) -> bool:
            """No request of this connection is being read or answered."""
            return (self.cycle is None or self.cycle.response_complete) and not self.transport.is_closing()

        def _make_room(self, among) -> bool:
            """Close the connection of ``among`` (not this one) that has waited longest
            without a request in progress; False when there is none."""
            idle = [c for c in among if c is not self and isinstance(c, TimedH11Protocol) and c._waiting()]
            if not idle:
                return False
            oldest = min(idle, key=lambda c: c._since)
            oldest.transport.close()
            # gone for the counts now (connection_lost follows when the loop gets to it)
            oldest._forget()
            self.connections.discard(oldest)
            return True

        def _disarm(self) -> None:
            if self._header_timer is not None:
                self._header_timer.cancel()
                self._header_timer = None

        def _arm(self) -> None:
            self._disarm()
            self._armed_after = self.cycle
            self._since = time.monotonic()
            self._header_timer = self.loop.call_later(header_timeout, self._expire)

        def _expire(self) -> None:
            self._header_timer = None
            cycle = self.cycle
            waiting = cycle is self._armed_after and (cycle is None or cycle.response_complete)
            if waiting and not self.transport.is_closing():
                self.transport.close()

    return TimedH11Protocol
