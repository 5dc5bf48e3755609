"""A graphql-transport-ws client written by hand over the `websockets` library (its sync client): what a
frontend's library sends, message by message, so that the tests see every frame and close code."""

from __future__ import annotations

import contextlib
import itertools
import json
import time
from collections.abc import Iterator
from typing import Any

from websockets.exceptions import ConnectionClosed
from websockets.sync.client import ClientConnection, connect

PROTOCOL = "graphql-transport-ws"
ORDER_EVENTS = (
    "subscription($since: String) { orderEvents(since: $since) { type orderNumber customerNumber occurredAt cursor } }"
)
CUSTOMER_EVENTS = (
    "subscription($since: String) { customerEvents(since: $since) { type customerNumber occurredAt cursor } }"
)


class Live:
    def __init__(self, connection: ClientConnection) -> None:
        self.connection = connection
        self._ids = itertools.count(1)

    def send(self, message: dict[str, Any]) -> None:
        self.connection.send(json.dumps(message))

    def receive(self, timeout: float = 10.0) -> dict[str, Any]:
        """The next message that is not the server's ping (answered with a pong, as clients must)."""
        deadline = time.monotonic() + timeout
        while True:
            message: dict[str, Any] = json.loads(self.connection.recv(timeout=max(0.0, deadline - time.monotonic())))
            if message["type"] != "ping":
                return message
            self.send({"type": "pong"})

    def init(self, token: str | None) -> dict[str, Any]:
        self.send({"type": "connection_init", "payload": {"Authorization": f"Bearer {token}"} if token else {}})
        return self.receive()

    def subscribe(self, query: str, **variables: Any) -> str:
        operation = str(next(self._ids))
        self.send({"id": operation, "type": "subscribe", "payload": {"query": query, "variables": variables}})
        return operation

    def events(self, operation: str, count: int, timeout: float = 15.0) -> list[dict[str, Any]]:
        """The data of the next `count` `next` messages of the operation (others' are skipped)."""
        taken: list[dict[str, Any]] = []
        deadline = time.monotonic() + timeout
        while len(taken) < count:
            message = self.receive(max(0.0, deadline - time.monotonic()))
            assert message.get("id") in (operation, None) or message["type"] == "next", message
            if message.get("id") != operation:
                continue
            assert message["type"] == "next" and "errors" not in message["payload"], message
            taken.append(next(iter(message["payload"]["data"].values())))
        return taken

    def closed_with(self, timeout: float = 15.0) -> tuple[int, str]:
        """The close code and reason, once the server closes (messages before it are read and dropped)."""
        try:
            while True:
                self.receive(timeout)
        except ConnectionClosed as closed:
            assert closed.rcvd is not None, "closed without a close frame"
            return closed.rcvd.code, closed.rcvd.reason


@contextlib.contextmanager
def open_live(base_url: str, headers: dict[str, str] | None = None) -> Iterator[Live]:
    url = base_url.replace("http://", "ws://") + "/graphql"
    with connect(url, subprotocols=[PROTOCOL], additional_headers=headers, open_timeout=10) as connection:  # type: ignore[list-item]
        yield Live(connection)


@contextlib.contextmanager
def connected(base_url: str, token: str) -> Iterator[Live]:
    """A connection acknowledged with the token."""
    with open_live(base_url) as live:
        assert live.init(token) == {"type": "connection_ack"}
        yield live
