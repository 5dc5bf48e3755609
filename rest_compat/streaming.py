"""A list answered in parts: `{"data": [...], "links": [...]}` sent as its parts are read.

A whole catalogue built as one body held the event loop for the whole of it (30 s at 200,000 articles, every
other request of the worker waiting) and some eight times the body's size in memory (2.5 GB). Sent in parts,
it holds the memory of a part, the loop serves other requests between parts, and the first bytes leave
at once. The bytes are those of the body made at once: each part is the items' JSON between the brackets
(responses.py, pure ASCII), and parts are joined with commas.

The status goes out with the first part, which is read before it, so that what fails early (bad
parameters, an unknown customer, a database that is away) is answered with its status as before. A part
that fails later cannot change the status: the answer is cut off without the last chunk of the chunked
encoding and the connection is closed, which every HTTP client reports as an error, not as a complete
body; the log says why. A client that goes away stops the reading of the remaining parts.

HTTP/1.0 has no chunked encoding (RFC 9112 6.1), and uvicorn would send it anyway: a request in HTTP/1.0
(nginx's `proxy_http_version` default, older clients) gets the parts gathered into one body with its
Content-Length, read part by part all the same, and a part that fails is answered with its error status.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Sequence
from typing import Any

from starlette.responses import StreamingResponse
from starlette.types import Receive, Scope, Send

from rest_compat.responses import JSON_CONTENT_TYPE, encode_json

log = logging.getLogger("gateway")
# Set in the request's state when its answer was cut off: its status says 200, so the metrics count it apart.
CUT_OFF = "answer_cut_off"


class PartsResponse(StreamingResponse):
    """A body sent as `parts` yields it, cut off when a part fails (above); `parts` yields its first part
    only once what must be known before the status is (the status goes out with it)."""

    def __init__(self, parts: AsyncIterator[bytes], media_type: str) -> None:
        self.state: dict[str, Any] = {}  # the request's (scope["state"]), once it is answered
        self.parts = parts
        super().__init__(self.parts, media_type=media_type, headers={"Cache-Control": "no-store"})

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope.get("http_version") != "1.0":
            self.state = scope.setdefault("state", {})
            await super().__call__(scope, receive, send)
            return
        body = b"".join([chunk async for chunk in self.parts])
        self.headers["Content-Length"] = str(len(body))
        await send({"type": "http.response.start", "status": self.status_code, "headers": self.raw_headers})
        await send({"type": "http.response.body", "body": body})

    async def stream_response(self, send: Send) -> None:
        await send({"type": "http.response.start", "status": self.status_code, "headers": self.raw_headers})
        sent = 0
        while True:
            try:
                chunk = await anext(self.parts)
            except StopAsyncIteration:
                break
            except Exception as error:  # a part's reading, not the sending: a client gone is no cut-off
                self._cut_off(sent, error)
                return  # without the last message: the server closes the connection, the answer incomplete
            await send({"type": "http.response.body", "body": chunk, "more_body": True})
            sent += len(chunk)
        await send({"type": "http.response.body", "body": b"", "more_body": False})

    def _cut_off(self, sent: int, error: Exception) -> None:
        self.state[CUT_OFF] = True
        request = self.state.get("request_id", "-")
        reason = str(error) or type(error).__name__
        log.warning("a list answered in parts was cut off after %d bytes [request %s]: %s", sent, request, reason)


class JsonListResponse(PartsResponse):
    def __init__(self, first: Sequence[Any], rest: AsyncIterator[Sequence[Any]], links: Any) -> None:
        super().__init__(_body(first, rest, links), JSON_CONTENT_TYPE)


async def _body(first: Sequence[Any], rest: AsyncIterator[Sequence[Any]], links: Any) -> AsyncIterator[bytes]:
    opened = b'{"data":[' + _items(first)
    separator = b"," if first else b""
    yield opened
    async for part in rest:
        if part:
            yield separator + _items(part)
            separator = b","
    yield b'],"links":' + encode_json(links) + b"}"


def _items(items: Sequence[Any]) -> bytes:
    """The items' JSON without the list's brackets."""
    return encode_json(items)[1:-1]
