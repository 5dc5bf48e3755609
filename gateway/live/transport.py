"""The graphql-transport-ws handler (Strawberry's), held to the gateway's rules:

- connection_init must carry a bearer token (its payload's `Authorization`, else the upgrade request's):
  none closes the connection with 4401, an invalid, expired or revoked one (or one without the catalogue
  scope) with 4403, as the protocol has it for a refused connection_init;
- a token that expires, or whose user is removed or rotated, closes its connection (4403) within
  GATEWAY_TOKEN_CHECK_SECONDS;
- subscriptions per connection and per user (on this process) are limited: one more is refused with an
  `error` message for it, the connection stays;
- the server pings every GATEWAY_LIVE_PING_SECONDS, and a connection that sent nothing (not even a pong)
  for GATEWAY_LIVE_IDLE_SECONDS is closed (4408);
- a subscription whose events wait beyond its buffer closes its connection (4413): the client resumes
  with `since` from its last cursor.
Codes not listed are Strawberry's, as the protocol gives them (4400, 4408 for no connection_init, 4409, 4429).
"""

from __future__ import annotations

import asyncio
import contextlib
import time
import uuid
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, cast

from graphql import GraphQLError
from starlette.websockets import WebSocket, WebSocketDisconnect
from strawberry.asgi import ASGIWebSocketAdapter
from strawberry.http.exceptions import WebSocketDisconnected
from strawberry.subscriptions.protocols.graphql_transport_ws.handlers import BaseGraphQLTransportWSHandler
from strawberry.subscriptions.protocols.graphql_transport_ws.types import (
    ConnectionInitMessage,
    Message,
    SubscribeMessage,
)

from gateway.auth.bearer import principal, verify_bearer
from gateway.auth.tokens import TokenClaims
from gateway.live.settings import LiveSettings
from gateway.live.token_watch import token_ended
from gateway.metrics import Metrics
from rest_compat.errors import ApiError
from schema.context import Context
from schema.live.errors import LiveErrorCode
from schema.permissions import Scope as ApiScope

if TYPE_CHECKING:
    from gateway.graphql_view import GraphQLView

UNAUTHORIZED = 4401  # no token
FORBIDDEN = 4403  # a token refused, at connection_init or later
IDLE = 4408  # nothing heard for GATEWAY_LIVE_IDLE_SECONDS
SLOW_CONSUMER = 4413  # a subscription's buffer overflowed


@dataclass
class LiveTransport:
    """What the view's live connections (WebSockets and event streams, gateway/live/sse.py) share in one
    process: settings, metrics, subscriptions per user."""

    settings: LiveSettings = field(default_factory=LiveSettings)
    token_check_seconds: float = 5.0
    metrics: Metrics | None = None
    _per_user: Counter[str] = field(default_factory=Counter)

    def take(self, user: str) -> bool:
        if self._per_user[user] >= self.settings.per_user:
            return False
        self._per_user[user] += 1
        self._subscriptions(1)
        return True

    def over_limit(self, user: str) -> GraphQLError:
        """The error that refuses one subscription too many."""
        return GraphQLError(
            f"{user} has {self.settings.per_user} subscriptions open on this process already",
            extensions={"code": "rate_limited"},
        )

    def give_back(self, user: str) -> None:
        self._per_user[user] -= 1
        if self._per_user[user] <= 0:
            del self._per_user[user]
        self._subscriptions(-1)

    def _subscriptions(self, change: int) -> None:
        if self.metrics is not None:
            self.metrics.live_subscriptions.inc(change)


class TextWebSocketAdapter(ASGIWebSocketAdapter):
    """The view's JSON is bytes (pure ASCII); graphql-transport-ws messages are text frames."""

    async def send_json(self, message: Mapping[str, object]) -> None:
        encoded = self.view.encode_json(message)
        text = encoded.decode("ascii") if isinstance(encoded, bytes) else encoded
        try:
            await self.ws.send_text(text)
        except WebSocketDisconnect as error:  # the client is gone: as the library's adapter says it
            raise WebSocketDisconnected from error


class TransportWSHandler(BaseGraphQLTransportWSHandler[Context, None]):
    view: GraphQLView
    websocket: TextWebSocketAdapter

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._heard = time.monotonic()
        self._claims: TokenClaims | None = None
        self._watchers: list[asyncio.Task[None]] = []

    @property
    def _live(self) -> LiveTransport:
        return self.view.live

    @property
    def _socket(self) -> WebSocket:
        return self.websocket.ws

    async def handle(self) -> None:
        metrics = self._live.metrics
        if metrics is not None:
            metrics.live_connections.inc()
        self._watchers.append(asyncio.create_task(self._keep_alive()))
        try:
            await super().handle()
        finally:
            for task in self._watchers:
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await task
            if metrics is not None:
                metrics.live_connections.dec()

    async def handle_message(self, message: Message) -> None:
        self._heard = time.monotonic()
        await super().handle_message(message)

    async def handle_connection_init(self, message: ConnectionInitMessage) -> None:
        if self.connection_timed_out:
            return
        if self.connection_init_timeout_task:
            self.connection_init_timeout_task.cancel()
        payload = message.get("payload") or {}
        if not isinstance(payload, dict):
            await self.websocket.close(code=4400, reason="Invalid connection init payload")
            return
        if self.connection_init_received:
            await self.websocket.close(code=4429, reason="Too many initialisation requests")
            return
        self.connection_init_received = True
        refusal = await self._authenticate(payload)
        if refusal is not None:
            await self._drop(*refusal, reason_label="auth")
            return
        await self.send_message({"type": "connection_ack"})
        self.connection_acknowledged = True
        self._watchers.append(asyncio.create_task(self._watch_token()))

    async def _authenticate(self, payload: Mapping[str, object]) -> tuple[int, str] | None:
        """None when the connection's token is good (the context then has its user); else the close code
        and reason."""
        given = payload.get("Authorization", payload.get("authorization"))
        authorization = given if isinstance(given, str) else self._socket.headers.get("authorization", "")
        if not authorization:
            return UNAUTHORIZED, "Unauthorized: connection_init needs an Authorization bearer token"
        state = self._socket.state
        try:
            claims = await verify_bearer(authorization, state.token_issuer, state.token_versions)
        except ApiError as error:
            return FORBIDDEN, f"Forbidden: {error.description}"
        user = principal(claims)
        if not user.has(ApiScope.CATALOGUE):
            return FORBIDDEN, "Forbidden: the catalogue, shop or admin scope is required"
        self._claims = claims
        self.context.user = user
        return None

    async def _watch_token(self) -> None:
        """Ends the connection when its token expires, or its user is removed or rotated."""
        assert self._claims is not None
        reason = await token_ended(self._claims, self._socket.state.token_versions, self._live.token_check_seconds)
        await self._drop(FORBIDDEN, f"Forbidden: {reason}", reason_label="token")

    async def _keep_alive(self) -> None:
        settings = self._live.settings
        while True:
            await asyncio.sleep(min(settings.ping_seconds, settings.idle_seconds))
            if time.monotonic() - self._heard >= settings.idle_seconds:
                await self._drop(IDLE, "Idle timeout: nothing was heard from the client", reason_label="idle")
                return
            if self.connection_acknowledged:
                with contextlib.suppress(Exception):
                    await self.send_message({"type": "ping"})

    async def handle_subscribe(self, message: SubscribeMessage) -> None:
        user = self.context.user
        accepted = (
            self.connection_acknowledged
            and user is not None
            and message.get("id") not in self.operations
            and len(self.operations) < self._live.settings.per_connection
        )
        if not accepted or user is None:
            await super().handle_subscribe(message)  # its own refusals: 4401, 4409, the connection's limit
            return
        if not self._live.take(user.name):
            error = self._live.over_limit(user.name)
            await self.send_message({"id": message["id"], "type": "error", "payload": [error.formatted]})
            return
        try:
            await super().handle_subscribe(message)
        except BaseException:
            self._live.give_back(user.name)
            raise
        operation = self.operations.get(message["id"])
        if operation is None or operation.task is None:
            self._live.give_back(user.name)
            return
        operation.task.add_done_callback(lambda _task: self._live.give_back(user.name))

    async def send_message(self, message: Message) -> None:
        if message["type"] == "next":
            errors = cast(dict[str, Any], message).get("payload", {}).get("errors") or []
            if any(_code(error) == LiveErrorCode.SLOW_CONSUMER.value for error in errors):
                await self._drop(
                    SLOW_CONSUMER, "Slow consumer: events came faster than they were read", reason_label="slow"
                )
                return
            if self._live.metrics is not None:
                self._live.metrics.live_events_sent.inc()
        await super().send_message(message)

    async def _drop(self, code: int, reason: str, *, reason_label: str) -> None:
        if self._live.metrics is not None:
            self._live.metrics.live_dropped.labels(reason_label).inc()
        with contextlib.suppress(Exception):  # already closed by the client
            await self.websocket.close(code=code, reason=reason[:120])


def _code(error: object) -> object:
    extensions = error.get("extensions") if isinstance(error, dict) else None
    return extensions.get("code") if isinstance(extensions, dict) else None


def websocket_context(websocket: WebSocket) -> Context:
    """A connection's context, from the app's state (no request middleware runs for a WebSocket): its user
    is set at connection_init."""
    return Context.from_connection(websocket, user=None, request_id=f"ws-{uuid.uuid4().hex[:16]}", client_document=True)
