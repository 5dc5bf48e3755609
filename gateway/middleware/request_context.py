"""Per request: an id, SQL statistics, the Server-Timing and X-Request-Id headers, the access log,
and the last line of defence that turns an exception into the error body: 503 for a database outage
(logged once per episode by the database's Availability), else the 500 with a logged traceback. Logging
itself never fails nor holds up a request (gateway/logs/: lines are written by a thread of their own, and
dropped and counted when they cannot be)."""

from __future__ import annotations

import logging
import os
import re
import time

from starlette.datastructures import Headers, MutableHeaders
from starlette.requests import ClientDisconnect
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from datasources.availability import RETRY_AFTER, is_outage
from datasources.statistics import QueryStats, current_stats
from gateway.errors import internal_error, send_error
from gateway.logs import current_request_id
from rest_compat.errors import ApiError
from schema.errors import UNAVAILABLE_MESSAGE

access_log = logging.getLogger("gateway.access")
log = logging.getLogger("gateway")

_CLIENT_ID = re.compile(r"[A-Za-z0-9._-]{1,64}")
LOGGED_PATH_LENGTH = 512
ID_BATCH = 256  # request ids made per read of the system's random source
ACCESS_LINE = (
    '%(client)s "%(method)s %(path)s" %(status)s %(duration_ms).1fms db=%(statements)d [request %(request_id)s]'
)
# The client went away before its request was read (or the server answered its stalled body 408): nothing
# reaches it, the server drops what is sent. nginx's "client closed request", for the access log and metrics.
CLIENT_CLOSED_REQUEST = ApiError("client_closed_request", "the client closed the connection")


class RequestContextMiddleware:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        request_id = _request_id(scope)
        stats = QueryStats()
        # The statistics in the request's state too: the metrics middleware, outside this one, reads them.
        scope.setdefault("state", {}).update(request_id=request_id, query_stats=stats)
        token = current_stats.set(stats)
        logged_for = current_request_id.set(request_id)
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
        except ClientDisconnect:
            if not response_started:
                await send_error(CLIENT_CLOSED_REQUEST, scope, send_with_headers)
        except Exception as error:
            if response_started:
                _log_unhandled(error, request_id, scope)
                raise
            await send_error(self._answer(error, request_id, scope), scope, send_with_headers)
        finally:
            current_stats.reset(token)
            current_request_id.reset(logged_for)
            _log_access(scope, request_id, status, time.perf_counter() - started, stats)

    @staticmethod
    def _answer(error: Exception, request_id: str, scope: Scope) -> ApiError:
        if is_outage(error):
            db = scope.get("state", {}).get("db")
            if db is not None:
                db.availability.failed(error)
            return ApiError.unavailable(UNAVAILABLE_MESSAGE, RETRY_AFTER)
        _log_unhandled(error, request_id, scope)
        return internal_error(request_id)


def _log_access(scope: Scope, request_id: str, status: int, seconds: float, stats: QueryStats) -> None:
    # The fields again as the record's own, for the JSON lines (gateway/logs/formats.py).
    fields = {
        "client": _client(scope),
        "method": scope["method"],
        "path": _path(scope),
        "status": status,
        "duration_ms": round(seconds * 1000, 1),
        "statements": stats.statements,
        "request_id": request_id,
    }
    access_log.info(ACCESS_LINE, fields, extra=fields)


def _log_unhandled(error: Exception, request_id: str, scope: Scope) -> None:
    log.error(
        "unhandled error [request %s] %s %s",
        request_id,
        scope["method"],
        _path(scope),
        exc_info=error,
    )


def server_timing(stats: QueryStats) -> str:
    graphql = f"graphql;dur={stats.graphql_seconds * 1000:.1f}"
    if stats.graphql_paths:  # which executor ran the request's operations: compiled, graphql-core, ...
        graphql += f';desc="{", ".join(stats.graphql_paths)}"'
    return f'db;dur={stats.seconds * 1000:.1f};desc="{stats.statements} queries", {graphql}'


def _request_id(scope: Scope) -> str:
    # A client's own id is kept when it is harmless, so its logs and ours can be joined.
    given = Headers(scope=scope).get("x-request-id", "")
    return given if _CLIENT_ID.fullmatch(given) else _random_ids.next()


class _RandomIds:
    """128 random bits per id, as uuid4 (a tenth its cost), from the system's random source read for
    ID_BATCH ids at a time: one system call per batch, not per request."""

    def __init__(self) -> None:
        self._ids: list[str] = []

    def next(self) -> str:
        if not self._ids:
            pool = os.urandom(16 * ID_BATCH).hex()
            self._ids = [pool[start : start + 32] for start in range(0, len(pool), 32)]
        return self._ids.pop()

    def forget(self) -> None:
        self._ids = []


_random_ids = _RandomIds()
os.register_at_fork(after_in_child=_random_ids.forget)  # a forked worker reads ids of its own


def _path(scope: Scope) -> str:
    # The path arrives percent-decoded: escape control characters so one request is one log line, and
    # cut a huge one short (it was refused, but its line is still written).
    path: str = scope["path"]
    if len(path) > LOGGED_PATH_LENGTH:
        path = f"{path[:LOGGED_PATH_LENGTH]}...({len(path)} characters)"
    return path if path.isprintable() else "".join(c if c.isprintable() else f"\\x{ord(c):02x}" for c in path)


def _client(scope: Scope) -> str:
    client = scope.get("client")
    return client[0] if client else "-"
