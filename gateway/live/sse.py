"""GraphQL over Server-Sent Events at /graphql: the graphql-sse protocol's "distinct connections" mode, one
operation per request. A request that accepts `text/event-stream` (POST with a JSON body, or GET with the
operation in its parameters) is answered 200 with an event stream: an event `next` per execution result,
then `complete`. A query or mutation sends one `next`; a subscription one per event until the client
closes the connection. Errors of the operation (a document that does not validate, a missing scope) come
as a `next` carrying them, as the protocol says; what every /graphql request must pass before (the bearer
token, CORS, body size, rate limits) is answered as on any request, with the error body and its status.

Open, a stream is held to the live connections' rules, as a WebSocket is (gateway/live/transport.py):
- a subscription counts against its user's subscriptions on this process (GATEWAY_LIVE_PER_USER, together
  with the WebSocket's); one more is answered with a `next` carrying an error of code `rate_limited`, then
  `complete`. A request carries one operation, so GATEWAY_LIVE_PER_CONNECTION holds by construction;
- a comment (`: ping`) goes out when nothing else did for GATEWAY_LIVE_PING_SECONDS, so that proxies and
  clients see a live connection;
- a token that expires, or whose user is removed or rotated, ends the stream within
  GATEWAY_TOKEN_CHECK_SECONDS: a last `next` with an error of code `invalid_token`, and no `complete`;
- a slow consumer ends it: one whose subscription fell more than GATEWAY_LIVE_BUFFER events behind (the
  `next` with the error of code `slow_consumer` is its last), or that took nothing for
  GATEWAY_LIVE_IDLE_SECONDS while an event waited to be written.
A stream that ends without `complete` was cut off: the client resumes with `since` from its last cursor.

Strawberry has an SSE transport of its own; the view leaves it off (it lists no `graphql-sse` protocol),
since it knows none of these rules.
"""

from __future__ import annotations

import asyncio
import contextlib
import enum
from collections.abc import AsyncGenerator, Awaitable, Callable

from graphql import GraphQLError
from starlette.types import Message, Receive, Scope, Send
from strawberry.types import ExecutionResult

from gateway import open_ended
from gateway.graphql_http import GRAPHQL_RESPONSE, JSON, quality
from gateway.live.transport import LiveTransport
from rest_compat.responses import encode_json
from schema.live.errors import LiveErrorCode
from schema.permissions import Principal

MEDIA_TYPE = "text/event-stream"
HEADERS = [
    (b"content-type", b"text/event-stream; charset=utf-8"),
    # Nothing to keep, and nothing for a proxy to compress or hold back: events must arrive when sent.
    (b"cache-control", b"no-store, no-transform"),
    (b"x-accel-buffering", b"no"),
]
PING = b": ping\n\n"
# A `data` line, empty: a browser's EventSource dispatches no event without one.
COMPLETE = b"event: complete\ndata:\n\n"

Results = AsyncGenerator[ExecutionResult, None]


def requested(accept: str) -> bool:
    """Whether the Accept header ranks text/event-stream above every JSON type it lists."""
    if "event-stream" not in accept.lower():
        return False  # every other request: nothing more to parse
    stream_rank, json_rank = -1.0, 0.0
    for part in accept.split(","):
        media, _, parameters = part.partition(";")
        media = media.strip().lower()
        if media == MEDIA_TYPE:
            stream_rank = quality(parameters)
        elif media in (JSON, GRAPHQL_RESPONSE):
            json_rank = max(json_rank, quality(parameters))
    return stream_rank > 0 and stream_rank > json_rank


async def one(result: ExecutionResult) -> Results:
    """A query's or mutation's result, as the one `next` of its stream."""
    yield result


async def counted(live: LiveTransport, user: Principal | None, subscribe: Callable[[], Awaitable[Results]]) -> Results:
    """A subscription's results, counted against its user's subscriptions on this process while it runs;
    one over the limit is refused with a single result."""
    if user is None:  # the bearer middleware lets no request without a token this far
        refusal = GraphQLError("a bearer token is required", extensions={"code": "invalid_token"})
        yield ExecutionResult(data=None, errors=[refusal])
        return
    if not live.take(user.name):
        yield ExecutionResult(data=None, errors=[live.over_limit(user.name)])
        return
    try:
        results = await subscribe()
        async with contextlib.aclosing(results):
            async for result in results:
                yield result
    finally:
        live.give_back(user.name)


class Ending(enum.Enum):
    COMPLETE = "complete"  # the operation ended
    LEFT = "left"  # the client closed the connection
    SLOW = "slow"  # a slow consumer
    TOKEN = "token"  # the token is no longer good  # noqa: S105 (a metrics label, no secret)


class EventStream:
    """The ASGI response: one operation's results as events, under the live connections' rules."""

    def __init__(
        self,
        results: Results,
        encode: Callable[[ExecutionResult], Awaitable[bytes]],
        live: LiveTransport,
        token_ended: Callable[[], Awaitable[str]] | None = None,
    ) -> None:
        """`encode`: a result's JSON; `token_ended` returns once the request's token is no longer good, why."""
        self.results = results
        self.encode = encode
        self.live = live
        self.token_ended = token_ended
        self._lock = asyncio.Lock()  # one write at a time: events and pings
        self._written = 0.0  # the loop's time of the last write
        self._token_reason = ""
        self._stuck = False  # a write timed out: nothing more can be sent

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        open_ended.mark(scope)
        metrics = self.live.metrics
        if metrics is not None:
            metrics.live_connections.inc()
        try:
            await send({"type": "http.response.start", "status": 200, "headers": HEADERS})
            self._written = asyncio.get_running_loop().time()
            ending = await self._stream(receive, send)
            if ending is Ending.TOKEN and not self._stuck:
                error = {"message": self._token_reason, "extensions": {"code": "invalid_token"}}
                await self._write(send, _next(encode_json({"errors": [error]})))
            if metrics is not None and ending in (Ending.SLOW, Ending.TOKEN):
                metrics.live_dropped.labels(ending.value).inc()
            if ending is not Ending.LEFT and not self._stuck:
                await self._write(send, b"", more_body=False)
        finally:
            if metrics is not None:
                metrics.live_connections.dec()

    async def _stream(self, receive: Receive, send: Send) -> Ending:
        """Runs until the first of: the operation ends, the client leaves, a write waits too long, the token
        ends; then stops the others (the operation's results are closed, a subscription ends)."""
        jobs = [self._pump(send), self._keep_alive(send), _client_left(receive)]
        if self.token_ended is not None:
            jobs.append(self._watch_token())
        tasks = [asyncio.create_task(job) for job in jobs]
        try:
            done, _ = await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
        return min((task.result() for task in done), key=_PRECEDENCE.index)

    async def _pump(self, send: Send) -> Ending:
        async with contextlib.aclosing(self.results):
            async for result in self.results:
                if not await self._write(send, _next(await self.encode(result))):
                    return Ending.SLOW
                if self.live.metrics is not None:
                    self.live.metrics.live_events_sent.inc()
                if _slow_consumer(result):
                    return Ending.SLOW
        return Ending.COMPLETE if await self._write(send, COMPLETE) else Ending.SLOW

    async def _keep_alive(self, send: Send) -> Ending:
        loop = asyncio.get_running_loop()
        every = self.live.settings.ping_seconds
        while True:
            await asyncio.sleep(self._written + every - loop.time())
            if loop.time() - self._written >= every and not await self._write(send, PING):
                return Ending.SLOW

    async def _watch_token(self) -> Ending:
        assert self.token_ended is not None
        self._token_reason = await self.token_ended()
        return Ending.TOKEN

    async def _write(self, send: Send, body: bytes, *, more_body: bool = True) -> bool:
        """False when the client took nothing for GATEWAY_LIVE_IDLE_SECONDS."""
        async with self._lock:
            try:
                async with asyncio.timeout(self.live.settings.idle_seconds):
                    await send({"type": "http.response.body", "body": body, "more_body": more_body})
            except TimeoutError:
                self._stuck = True
                return False
            self._written = asyncio.get_running_loop().time()
            return True


# When several endings come at once, the one that says most.
_PRECEDENCE = (Ending.LEFT, Ending.TOKEN, Ending.SLOW, Ending.COMPLETE)


def _next(data: bytes) -> bytes:
    # The gateway's JSON is one line (compact, every control character escaped): one `data` line.
    return b"event: next\ndata: " + data + b"\n\n"


def _slow_consumer(result: ExecutionResult) -> bool:
    code = LiveErrorCode.SLOW_CONSUMER.value
    return any((error.extensions or {}).get("code") == code for error in result.errors or ())


async def _client_left(receive: Receive) -> Ending:
    message: Message = {}
    while message.get("type") != "http.disconnect":
        message = await receive()
    return Ending.LEFT
