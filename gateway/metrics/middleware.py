"""Observes every HTTP request once it is answered: count, latency, SQL statements, executor paths.

Placed outermost, so that it sees the status RequestContextMiddleware answers an exception with (503 for
a database outage, else 500) and the time of every middleware; it reads the SQL statistics that
middleware keeps for the request (`scope["state"]["query_stats"]`)."""

from __future__ import annotations

import time

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from gateway.metrics.labels import method_label, route_label
from gateway.metrics.registry import Metrics
from rest_compat.streaming import CUT_OFF


class MetricsMiddleware:
    def __init__(self, app: ASGIApp, metrics: Metrics) -> None:
        self.app = app
        self.metrics = metrics

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = time.perf_counter()
        status = 500  # what the server answers when no response was started

        async def send_observed(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
            await send(message)

        try:
            await self.app(scope, receive, send_observed)
        finally:
            state = scope.get("state", {})
            route = route_label(scope)
            self.metrics.observe(
                method_label(scope), route, status, time.perf_counter() - started, state.get("query_stats")
            )
            if state.get(CUT_OFF):
                self.metrics.cut_off.labels(route).inc()
