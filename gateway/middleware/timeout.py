"""Bounds a request's work: a request that has not started its answer GATEWAY_REQUEST_TIMEOUT seconds
after the last part of its body arrived is cancelled and answered 503 with Retry-After, unless it has
begun a write transaction: a write runs to its end (Database.write), and its outcome is what the client
must hear, above all an order committed (the database's own timeouts bound it). An acknowledged commit is
never answered 503.

Slow clients are the server's business (gateway/server/protocol.py times out slow heads and bodies);
this bounds what the gateway does, e.g. while a database that accepted the connection does not answer.
"""

from __future__ import annotations

import asyncio
import logging

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from datasources.availability import RETRY_AFTER
from datasources.statistics import QueryStats
from gateway.errors import send_error
from rest_compat.errors import ApiError

log = logging.getLogger("gateway")


class RequestTimeoutMiddleware:
    def __init__(self, app: ASGIApp, *, timeout: float) -> None:
        self.app = app
        self.timeout = timeout

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        loop = asyncio.get_running_loop()
        stats: QueryStats | None = scope.get("state", {}).get("query_stats")
        deadline = asyncio.timeout(None)  # fired by `expire`, which knows whether a write has begun
        timer: asyncio.TimerHandle | None = None
        answering = False

        def expire() -> None:
            if not answering and (stats is None or not stats.writes_begun):
                deadline.reschedule(loop.time())  # now: the request is cancelled

        def arm(seconds: float | None) -> None:
            nonlocal timer
            if timer is not None:
                timer.cancel()
            timer = None if seconds is None else loop.call_later(seconds, expire)

        async def timed_receive() -> Message:
            message = await receive()
            if not answering:  # the clock runs from the last part of the body
                arm(self.timeout)
            return message

        async def timed_send(message: Message) -> None:
            nonlocal answering
            if message["type"] == "http.response.start":
                answering = True  # a started answer is not cut off
                arm(None)
                if not deadline.expired():
                    deadline.reschedule(None)  # nor by an expiry `expire` scheduled just before
            await send(message)

        arm(self.timeout)
        try:
            async with deadline:
                await self.app(scope, timed_receive, timed_send)
        except TimeoutError:
            if answering or not deadline.expired():
                raise  # a timeout of the work itself (a statement's): the outage handling answers it
            log.warning("%s %s took longer than %g s; answered 503", scope["method"], scope["path"], self.timeout)
            error = ApiError.unavailable(f"the request took longer than {self.timeout:g} s", RETRY_AFTER)
            await send_error(error, scope, send)
        finally:
            arm(None)
