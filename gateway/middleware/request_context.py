"""Per request: an id, SQL statistics, the Server-Timing and X-Request-Id headers, the access log,
and the last line of defence that turns an unexpected exception into the 500 error body."""

from __future__ import annotations

import logging
import re
import time
import uuid

from starlette.datastructures import Headers, MutableHeaders
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from datasources.statistics import QueryStats, current_stats
from gateway.errors import internal_error, send_error

access_log = logging.getLogger("gateway.access")
log = logging.getLogger("gateway")

_CLIENT_ID = re.compile(r"[A-Za-z0-9._-]{1,64}")


class RequestContextMiddleware:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        request_id = _request_id(scope)
        scope.setdefault("state", {})["request_id"] = request_id
        stats = QueryStats()
        token = current_stats.set(stats)
        started = time.perf_counter()
        status = 500
        response_started = False

        async def send_with_headers(message: Message) -> None:
            nonlocal status, response_started
            if message["type"] == "http.response.start":
                response_started = True
                status = message["status"]
                headers = MutableHeaders(scope=message)
                headers["X-Request-Id"] = request_id
                headers["Server-Timing"] = server_timing(stats)
            await send(message)

        try:
            await self.app(scope, receive, send_with_headers)
        except Exception:
            log.exception("unhandled error [request %s] %s %s", request_id, scope["method"], _path(scope))
            if response_started:
                raise
            await send_error(internal_error(request_id), scope, send_with_headers)
        finally:
            current_stats.reset(token)
            access_log.info(
                '%s "%s %s" %s %.1fms db=%d [request %s]',
                _client(scope),
                scope["method"],
                _path(scope),
                status,
                (time.perf_counter() - started) * 1000,
                stats.statements,
                request_id,
            )


def server_timing(stats: QueryStats) -> str:
    graphql = f"graphql;dur={stats.graphql_seconds * 1000:.1f}"
    if stats.graphql_paths:  # which executor ran the request's operations: compiled, graphql-core, ...
        graphql += f';desc="{", ".join(stats.graphql_paths)}"'
    return f'db;dur={stats.seconds * 1000:.1f};desc="{stats.statements} queries", {graphql}'


def _request_id(scope: Scope) -> str:
    # A client's own id is kept when it is harmless, so its logs and ours can be joined.
    given = Headers(scope=scope).get("x-request-id", "")
    return given if _CLIENT_ID.fullmatch(given) else uuid.uuid4().hex


def _path(scope: Scope) -> str:
    # The path arrives percent-decoded: escape control characters so one request is one log line.
    path: str = scope["path"]
    return path if path.isprintable() else "".join(c if c.isprintable() else f"\\x{ord(c):02x}" for c in path)


def _client(scope: Scope) -> str:
    client = scope.get("client")
    return client[0] if client else "-"
