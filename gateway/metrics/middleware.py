"""Observes every HTTP request once it is answered: count, latency, SQL statements, executor paths.

Placed outermost, so that it sees the status RequestContextMiddleware answers an exception with (503 for
a database outage, else 500) and the time of every middleware; it reads the SQL statistics that
middleware keeps for the request (`scope["state"]["query_stats"]`). An open-ended answer (an event stream,
gateway/open_ended.py) counts the time until it started, not hours in the histogram's top bucket."""

from __future__ import annotations

import time

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from gateway.metrics.labels import method_label, route_label
from gateway.metrics.registry import Metrics
from gateway.open_ended import is_open_ended
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
        answered = started
        status = 500  # what the server answers when no response was started

        async def send_observed(message: Message) -> None:
            nonlocal status, answered
            if message["type"] == "http.response.start":
                status, answered = message["status"], time.perf_counter()
            await send(message)

        try:
            await self.app(scope, receive, send_observed)
        finally:
            state = scope.get("state", {})
            route = route_label(scope)
            ended = answered if is_open_ended(state) else time.perf_counter()
            self.metrics.observe(method_label(scope), route, status, ended - started, state.get("query_stats"))
            if state.get(CUT_OFF):
                self.metrics.cut_off.labels(route).inc()
