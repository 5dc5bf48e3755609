"""uvicorn's httptools protocol, serving requests that ask for a protocol it does not speak.

Java's stock HttpClient offers HTTP/2 on plain http with `Connection: Upgrade, HTTP2-Settings` and
`Upgrade: h2c`. llhttp then ends the message right after its headers (the rest would be the new
protocol), so uvicorn handed the app an empty body: POST /www/kunden answered 400. RFC 9110 (7.8) lets
a server ignore Upgrade; here such a request is served as HTTP/1.1, body included, and the connection
stays HTTP/1.1. A WebSocket upgrade is left to uvicorn as before.
"""

from __future__ import annotations

import httptools
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

# A request head that frames what follows on the wire (the upgrade request's body) for a fresh parser.
_CONTINUATION = b"PUT / HTTP/1.1\r\n%s\r\n"


class HttpProtocol(HttpToolsProtocol):
    _reading_body_after_upgrade = False  # feeding a fresh parser the body of an upgrade request

    def data_received(self, data: bytes) -> None:
        # uvicorn's own, but for an upgrade it does not do: that request goes on as HTTP/1.1.
        self._unset_keepalive_if_required()
        try:
            self.parser.feed_data(data)
        except httptools.HttpParserError:
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
            super().on_message_begin()

    def on_url(self, url: bytes) -> None:
        if not self._reading_body_after_upgrade:
            super().on_url(url)

    def on_header(self, name: bytes, value: bytes) -> None:
        if not self._reading_body_after_upgrade:
            super().on_header(name, value)

    def on_headers_complete(self) -> None:
        if not self._reading_body_after_upgrade:
            super().on_headers_complete()

    def on_message_complete(self) -> None:
        if self._ends_at_upgrade():
            return  # llhttp ends an upgrade request at its headers; its body is still to come
        self._reading_body_after_upgrade = False
        super().on_message_complete()

    def _ends_at_upgrade(self) -> bool:
        return not self._reading_body_after_upgrade and self.parser.should_upgrade() and not self._should_upgrade()
