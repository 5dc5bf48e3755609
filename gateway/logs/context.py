"""The request a log line is written for, set by the request context middleware for the request's work:
a line queued meanwhile carries its id (the writer's thread, which formats it later, has no request)."""

from __future__ import annotations

from contextvars import ContextVar

current_request_id: ContextVar[str | None] = ContextVar("current_request_id", default=None)
