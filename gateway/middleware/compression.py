"""gzip for large answers when the client accepts it: the OpenAPI document (~290 KB), GraphQL introspection,
a full page of articles. Only an answer sent in one piece is compressed: a streamed one (a long article list
sent as it is read) goes out as it is, so its parts reach the client when they are written and a cut-off
stays visible as a cut-off. An answer of a type that is never compressed (an event stream, which may send
nothing for a while after its start) goes out at once, without waiting for its first part."""

from __future__ import annotations

import gzip

from starlette.datastructures import Headers, MutableHeaders
from starlette.types import ASGIApp, Message, Receive, Scope, Send

MINIMUM_BYTES = 16 * 1024  # below this, compressing costs more than it saves on any real network
LEVEL = 1  # JSON shrinks ~8x at level 1 for a fraction of level 6's CPU
NEVER = ("text/event-stream", "image/", "application/pdf")  # a stream, or already compressed


class GZipMiddleware:
    def __init__(self, app: ASGIApp, minimum_bytes: int = MINIMUM_BYTES) -> None:
        self.app = app
        self.minimum_bytes = minimum_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or not accepts_gzip(Headers(scope=scope)):
            await self.app(scope, receive, send)
            return
        start: Message | None = None
        decided = False

        async def respond(message: Message) -> None:
            nonlocal start, decided
            if message["type"] == "http.response.start":
                if not _compressible(Headers(raw=message["headers"])):
                    decided = True
                    await send(message)
                    return
                start = message  # held until the body shows whether it is worth compressing
                return
            if decided or start is None or message["type"] != "http.response.body":
                await send(message)
                return
            decided = True
            body: bytes = message.get("body", b"")
            if message.get("more_body", False) or not self._worth(start, body):
                await send(start)
                await send(message)
                return
            compressed = gzip.compress(body, compresslevel=LEVEL, mtime=0)
            headers = MutableHeaders(raw=list(start["headers"]))
            headers["Content-Encoding"] = "gzip"
            headers["Content-Length"] = str(len(compressed))
            if "accept-encoding" not in headers.get("vary", "").lower():  # a tagged answer names it already
                headers.add_vary_header("Accept-Encoding")
            await send({**start, "headers": headers.raw})
            await send({"type": "http.response.body", "body": compressed})

        await self.app(scope, receive, respond)
        if start is not None and not decided:  # an answer without a body message (none should be)
            await send(start)

    def _worth(self, start: Message, body: bytes) -> bool:
        return len(body) >= self.minimum_bytes and start["status"] not in (204, 304)


def _compressible(headers: Headers) -> bool:
    return "content-encoding" not in headers and not headers.get("content-type", "").lower().startswith(NEVER)


def accepts_gzip(headers: Headers) -> bool:
    """Whether Accept-Encoding lists gzip with a weight above 0 (RFC 9110, 12.5.3)."""
    for entry in headers.get("accept-encoding", "").lower().split(","):
        coding, _, weight = entry.strip().partition(";")
        if coding.strip() in ("gzip", "x-gzip", "*"):
            quality = weight.strip().removeprefix("q=")
            try:
                return not weight or float(quality) > 0
            except ValueError:
                return False
    return False
