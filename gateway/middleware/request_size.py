"""Refuses requests larger than their limits before anything reads, routes or parses them.

The path and query string are bounded (413 would say "body": these are 400 with `info.field`), and the
body: /www/zugferd carries base64 PDFs (GATEWAY_MAX_BODY_BYTES), every other route JSON
(GATEWAY_MAX_JSON_BYTES); over the limit is 413, checked on the declared length and while streaming.
"""

from __future__ import annotations

from starlette.datastructures import Headers
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from gateway.errors import send_error
from rest_compat.errors import ApiError

LARGE_BODY_PATHS = ("/www/zugferd",)


class BodyTooLarge(Exception):
    pass


class RequestSizeMiddleware:
    def __init__(
        self, app: ASGIApp, *, max_body_bytes: int, max_json_bytes: int, max_path_bytes: int, max_query_bytes: int
    ) -> None:
        self.app = app
        self.max_body_bytes = max_body_bytes
        self.max_json_bytes = max_json_bytes
        self.max_path_bytes = max_path_bytes
        self.max_query_bytes = max_query_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        refused = self._refused_request_line(scope)
        if refused is not None:
            await send_error(refused, scope, send)
            return
        limit = self.max_body_bytes if scope["path"] in LARGE_BODY_PATHS else self.max_json_bytes
        declared = Headers(scope=scope).get("content-length", "")
        if declared.isascii() and declared.isdigit() and int(declared) > limit:
            await send_error(_too_large(limit), scope, send)
            return
        received = 0

        async def counting_receive() -> Message:
            nonlocal received
            message = await receive()
            received += len(message.get("body", b""))
            if received > limit:
                raise BodyTooLarge
            return message

        try:
            await self.app(scope, counting_receive, send)
        except BodyTooLarge:
            await send_error(_too_large(limit), scope, send)

    def _refused_request_line(self, scope: Scope) -> ApiError | None:
        path: bytes = scope.get("raw_path") or scope["path"].encode()
        if len(path) > self.max_path_bytes:
            return ApiError.invalid(
                f"the path is longer than {self.max_path_bytes} bytes", field="path", limit=self.max_path_bytes
            )
        if len(scope.get("query_string", b"")) > self.max_query_bytes:
            return ApiError.invalid(
                f"the query string is longer than {self.max_query_bytes} bytes",
                field="query",
                limit=self.max_query_bytes,
            )
        return None


def _too_large(limit: int) -> ApiError:
    return ApiError("payload_too_large", f"the request body is larger than {limit} bytes", {"limit": limit})
