"""uvicorn's httptools protocol, made to hold up against real clients and hostile connections.

- A request that asks for a protocol upgrade the server does not do is served as HTTP/1.1, body
  included. Java's stock HttpClient offers HTTP/2 on plain http (`Connection: Upgrade, HTTP2-Settings`,
  `Upgrade: h2c`); llhttp then ends the message right after its headers (the rest would be the new
  protocol), so uvicorn handed the app an empty body. RFC 9110 (7.8) lets a server ignore Upgrade.
  A WebSocket upgrade is left to uvicorn as before.
- A connection must send a request head within the header timeout (after connecting or after its last
  answer), each part of a body within the body timeout, and the body at an average of at least the body's
  minimum rate once it has had BODY_RATE_GRACE seconds: a silent or trickling client is answered 408 (or,
  before it sent anything, simply closed) instead of holding a connection forever. A head larger than
  the head limit is answered 431 before it is all read (httptools itself has no limit on header fields).
- At the worker's connection limit a new connection takes the place of an idle one (connected or kept
  alive, no request under way), which is closed; only when every connection is busy is the new one
  answered 503 and closed at once. Thousands of idle connections cannot starve the requests that come.
- At the server's stop, an event stream under way (gateway/open_ended.py) is cut instead of waited for:
  it would never end by itself, and the server waits for every answer under way before it exits.
- The server's own refusals (a malformed request line, a bad Content-Length, raw non-ASCII in the path)
  carry the JSON error body every other answer has.
"""

from __future__ import annotations

import asyncio
from asyncio import TimerHandle
from functools import cache
from typing import Any

import httptools
from uvicorn.protocols.http.httptools_impl import STATUS_LINE, HttpToolsProtocol

from gateway.open_ended import is_open_ended
from gateway.settings import ServerLimits
from rest_compat.responses import JSON_CONTENT_TYPE, encode_json

# A request head that frames what follows on the wire (the upgrade request's body) for a fresh parser.
_CONTINUATION = b"PUT / HTTP/1.1\r\n%s\r\n"
# Seconds a body may take before its average rate is held to the minimum (a slow start is no attack).
BODY_RATE_GRACE = 5.0
_FIELD_FRAMING = 4  # ": " and CRLF around each header field, counted as part of the head


class _Refused(Exception):
    """Raised from a parser callback after the connection was answered: the parser stops feeding."""


@cache
def server_limits() -> ServerLimits:
    """Read once per worker process, from the same GATEWAY_* variables as the rest of the settings."""
    return ServerLimits.from_env()


class HttpProtocol(HttpToolsProtocol):
    _reading_body_after_upgrade = False  # feeding a fresh parser the body of an upgrade request

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.limits = server_limits()
        self._deadline: TimerHandle | None = None
        self._head_begun = False
        self._head_bytes = 0  # of the request head being read
        self._body_began = 0.0  # loop time at the end of the head
        self._body_bytes = 0

    # Connections and deadlines

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        if len(self.connections) > self.limits.max_connections and not self._close_an_idle_connection():
            self._refuse(503, "unavailable", "the server has too many connections; try again shortly")
            return
        self._expect(self.limits.header_timeout)

    def _close_an_idle_connection(self) -> bool:
        for connection in self.connections:
            if connection is not self and isinstance(connection, HttpProtocol) and connection.idle:
                connection.transport.close()
                return True
        return False

    @property
    def idle(self) -> bool:
        """No request under way: connected or kept alive, and silent."""
        if self.transport.is_closing() or self._head_begun:
            return False
        return self.cycle is None or self.cycle.response_complete

    def shutdown(self) -> None:
        """At the server's stop, an open-ended answer (an event stream) is cut: it would never end by itself,
        and the server waits for every answer under way. Its client resumes elsewhere from its last cursor."""
        cycle = self.cycle
        if cycle is not None and not cycle.response_complete and is_open_ended(cycle.scope.get("state", {})):
            self.transport.abort()  # what the socket took is sent; what waits behind a full one is dropped
            return
        super().shutdown()

    def connection_lost(self, exc: Exception | None) -> None:
        self._expect(None)
        super().connection_lost(exc)

    def _expect(self, seconds: float | None) -> None:
        """(Re)arms the one deadline a connection has: for a head or for the rest of a body."""
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None
        if seconds is not None:
            self._deadline = self.loop.call_later(seconds, self._deadline_passed)

    def _deadline_passed(self) -> None:
        self._deadline = None
        if self.transport.is_closing():
            return
        cycle = self.cycle
        if cycle is not None and not cycle.response_complete and self._head_begun is False:
            self._body_refused("the request body did not arrive in time")
        elif self._head_begun:
            self._refuse(408, "request_timeout", "the request head did not arrive in time")
        elif cycle is None or cycle.response_complete:
            self.transport.close()  # connected (or kept alive) and silent: nothing to answer

    def _body_refused(self, description: str) -> None:
        """The head arrived; the body did not come on (in time, or fast enough). The app, if it waits on
        it, sees a disconnect."""
        cycle = self.cycle
        assert cycle is not None
        if not cycle.response_started:
            self._refuse(408, "request_timeout", description)
        else:
            self.transport.close()
        cycle.disconnected = True
        cycle.message_event.set()

    def _refuse(self, status: int, code: str, description: str) -> None:
        body = encode_json({"success": False, "error": code, "error_description": description, "info": {}})
        head = [STATUS_LINE[status]]
        for name, value in self.server_state.default_headers:
            head += [name, b": ", value, b"\r\n"]
        head += [
            b"content-type: " + JSON_CONTENT_TYPE.encode() + b"\r\n",
            b"content-length: " + str(len(body)).encode() + b"\r\n",
            b"cache-control: no-store\r\n",
            b"connection: close\r\n\r\n",
        ]
        self.transport.write(b"".join(head) + body)
        self.transport.close()

    def send_400_response(self, msg: str) -> None:
        # uvicorn's answer to what its parser refuses: the same words, in the contract's error body.
        self._refuse(400, "invalid_request", msg)

    # Parsing

    def data_received(self, data: bytes) -> None:
        # uvicorn's own, but for an upgrade it does not do: that request goes on as HTTP/1.1.
        self._unset_keepalive_if_required()
        try:
            self.parser.feed_data(data)
        except httptools.HttpParserError:
            if self.transport.is_closing():
                return  # refused by a callback (_Refused), or the connection went while it spoke
            self.logger.warning("Invalid HTTP request received.")
            self.send_400_response("Invalid HTTP request received.")
        except httptools.HttpParserUpgrade as upgrade:
            if self._should_upgrade():
                self.handle_websocket_upgrade()
            else:
                self._read_on_as_http1(data[upgrade.args[0] :])

    def _read_on_as_http1(self, rest: bytes) -> None:
        self.parser = httptools.HttpRequestParser(self)
        self.parser.set_dangerous_leniencies(lenient_data_after_close=True)
        self._reading_body_after_upgrade = True
        self.parser.feed_data(_CONTINUATION % self._framing())
        if rest:
            self.data_received(rest)

    def _framing(self) -> bytes:
        """The upgrade request's own body framing: chunked, a length, or no body."""
        for name, value in self.headers:
            if name == b"transfer-encoding" and b"chunked" in value.lower():
                return b"transfer-encoding: chunked\r\n"
        for name, value in self.headers:
            if name == b"content-length" and value.strip().isdigit():
                return b"content-length: " + value.strip() + b"\r\n"
        return b"content-length: 0\r\n"

    # Parser callbacks. The continuation's own head is not a request: it leaves the scope alone.

    def on_message_begin(self) -> None:
        if not self._reading_body_after_upgrade:
            self._head_begun = True
            self._head_bytes = 0
            self._expect(self.limits.header_timeout)
            super().on_message_begin()

    def on_url(self, url: bytes) -> None:
        if not self._reading_body_after_upgrade:
            self._count_head(len(url))
            super().on_url(url)

    def on_header(self, name: bytes, value: bytes) -> None:
        if not self._reading_body_after_upgrade:
            self._count_head(len(name) + len(value) + _FIELD_FRAMING)
            super().on_header(name, value)

    def _count_head(self, size: int) -> None:
        # Parts of one field may come in several callbacks: each part is counted once.
        self._head_bytes += size
        if self._head_bytes > self.limits.max_head_bytes:
            self._refuse(
                431,
                "invalid_request",
                f"the request head is larger than {self.limits.max_head_bytes} bytes (request line and header fields)",
            )
            raise _Refused

    def on_headers_complete(self) -> None:
        if not self._reading_body_after_upgrade:
            self._head_begun = False
            self._body_began, self._body_bytes = self.loop.time(), 0
            self._expect(self.limits.body_timeout)  # until the message is complete
            super().on_headers_complete()

    def on_body(self, body: bytes) -> None:
        self._body_bytes += len(body)
        taken = self.loop.time() - self._body_began
        if taken > BODY_RATE_GRACE and self._body_bytes < taken * self.limits.body_min_rate:
            self._body_refused("the request body arrives too slowly")
            raise _Refused
        self._expect(self.limits.body_timeout)
        super().on_body(body)

    def on_message_complete(self) -> None:
        if self._ends_at_upgrade():
            return  # llhttp ends an upgrade request at its headers; its body is still to come
        self._reading_body_after_upgrade = False
        self._expect(None)  # the app's work is bounded by the request timeout, not here
        super().on_message_complete()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        if not self.transport.is_closing() and not self.pipeline:
            self._expect(self.limits.header_timeout)  # the next head (uvicorn's keep-alive closes idle ones)

    def _ends_at_upgrade(self) -> bool:
        return not self._reading_body_after_upgrade and self.parser.should_upgrade() and not self._should_upgrade()
