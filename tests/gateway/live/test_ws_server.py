"""Subscriptions over WebSocket against a real `gateway serve --workers 2` (conftest.py), with a client
speaking graphql-transport-ws by hand (client.py): orders and customers placed through /www on any worker
reach every subscriber on either worker, `since` replays what came after a cursor, and tokens, scopes and
limits are held as on every request."""

from __future__ import annotations

import contextlib
import threading
import time
from typing import Any

import pytest
from websockets.exceptions import ConnectionClosed

from tests.gateway.live import shop
from tests.gateway.live.client import CUSTOMER_EVENTS, ORDER_EVENTS, Live, connected, open_live
from tests.gateway.live.shop import CATALOGUE, GONE, METRICS, SECRET, SHOP
from tests.server import GatewayServer


def test_orders_placed_on_any_worker_reach_every_subscriber(server: GatewayServer) -> None:
    token = server.token(SHOP, SECRET)
    with contextlib.ExitStack() as stack:
        # Four connections: the kernel spreads them over both workers.
        clients = [stack.enter_context(connected(server.base_url, token)) for _ in range(4)]
        operations = [client.subscribe(ORDER_EVENTS) for client in clients]
        customer_ops = [client.subscribe(CUSTOMER_EVENTS) for client in clients]
        time.sleep(0.5)  # the subscriptions are running
        customer = shop.customer(server, token)
        # Fewer than GATEWAY_LIVE_BUFFER (5): the other worker's poll may find them all at once, and a batch
        # larger than the buffer is a slow consumer's (CI saw 6 orders placed within one poll).
        orders = [shop.order(server, token, customer) for _ in range(4)]
        for client, operation, customer_op in zip(clients, operations, customer_ops, strict=True):
            order_events, customer_events = _both(client, operation, customer_op, (4, 1))
            assert [event["orderNumber"] for event in order_events] == orders
            assert {event["type"] for event in order_events} == {"REST_Auft"}
            assert {event["customerNumber"] for event in order_events} == {customer}
            assert [event["customerNumber"] for event in customer_events] == [customer]
            assert customer_events[0]["type"] == "REST_Kunde"
            assert order_events[0]["occurredAt"].endswith("Z")


def _both(client: Live, orders: str, customers: str, counts: tuple[int, int]) -> tuple[list[Any], list[Any]]:
    """The data of the next events of two operations, until each has its count."""
    order_count, customer_count = counts
    taken: dict[str, list[Any]] = {orders: [], customers: []}
    deadline = time.monotonic() + 20
    while len(taken[orders]) < order_count or len(taken[customers]) < customer_count:
        message = client.receive(max(0.0, deadline - time.monotonic()))
        assert message["type"] == "next" and "errors" not in message["payload"], message
        taken[message["id"]].append(next(iter(message["payload"]["data"].values())))
    return taken[orders], taken[customers]


def test_since_replays_what_came_after_a_cursor_then_goes_on_live(server: GatewayServer) -> None:
    token = server.token(SHOP, SECRET)
    customer = shop.customer(server, token)
    with connected(server.base_url, token) as client:
        operation = client.subscribe(ORDER_EVENTS)
        time.sleep(0.5)
        first = shop.order(server, token, customer)
        [seen] = client.events(operation, 1)
        assert seen["orderNumber"] == first
    # Disconnected: two orders are missed, and fetched again from the last cursor.
    missed = [shop.order(server, token, customer) for _ in range(2)]
    with connected(server.base_url, token) as client:
        operation = client.subscribe(ORDER_EVENTS, since=seen["cursor"])
        replayed = client.events(operation, 2)
        assert [event["orderNumber"] for event in replayed] == missed
        later = shop.order(server, token, customer)
        [live] = client.events(operation, 1)
        assert live["orderNumber"] == later
        assert len({seen["cursor"], *(event["cursor"] for event in replayed), live["cursor"]}) == 4


def test_a_connection_without_a_good_token_is_closed(server: GatewayServer) -> None:
    with open_live(server.base_url) as live:
        live.send({"type": "connection_init", "payload": {}})
        assert live.closed_with()[0] == 4401
    with open_live(server.base_url) as live:
        live.send({"type": "connection_init", "payload": {"Authorization": "Bearer not-a-token"}})
        assert live.closed_with() == (4403, "Forbidden: The token is invalid or expired.")
    # A metrics token reads /metrics and nothing else.
    with open_live(server.base_url) as live:
        live.send({"type": "connection_init", "payload": {"Authorization": f"Bearer {server.token(METRICS, SECRET)}"}})
        assert live.closed_with()[0] == 4403
    # Subscribing before connection_init: the protocol's 4401.
    with open_live(server.base_url) as live:
        live.subscribe(ORDER_EVENTS)
        assert live.closed_with()[0] == 4401


def test_the_token_may_come_with_the_upgrade_request(server: GatewayServer) -> None:
    token = server.token(SHOP, SECRET)
    with open_live(server.base_url, {"Authorization": f"Bearer {token}"}) as live:
        assert live.init(None) == {"type": "connection_ack"}


def test_a_catalogue_token_cannot_subscribe_to_orders_or_customers(server: GatewayServer) -> None:
    token = server.token(CATALOGUE, SECRET)
    with connected(server.base_url, token) as client:
        for query in (ORDER_EVENTS, CUSTOMER_EVENTS):
            operation = client.subscribe(query)
            message = client.receive()
            assert message["id"] == operation
            errors = message["payload"] if message["type"] == "error" else message["payload"]["errors"]
            assert errors[0]["extensions"]["code"] == "insufficient_scope", message


def test_a_bad_cursor_is_an_error_not_an_empty_stream(server: GatewayServer) -> None:
    with connected(server.base_url, server.token(SHOP, SECRET)) as client:
        operation = client.subscribe(ORDER_EVENTS, since="not-a-cursor")
        message = client.receive()
        assert message["id"] == operation and message["type"] == "next", message
        assert message["payload"]["errors"][0]["extensions"]["code"] == "invalid_request"


def test_subscriptions_per_connection_are_limited(server: GatewayServer) -> None:
    with connected(server.base_url, server.token(SHOP, SECRET)) as client:
        for _ in range(3):
            client.subscribe(ORDER_EVENTS)
        refused = client.subscribe(ORDER_EVENTS)
        message = client.receive()
        assert (message["id"], message["type"]) == (refused, "error")


def test_a_removed_users_connection_ends_within_the_token_check(server: GatewayServer) -> None:
    token = server.token(GONE, SECRET)
    with connected(server.base_url, token) as client:
        client.subscribe(ORDER_EVENTS)
        time.sleep(0.3)
        removed: list[float] = []

        def remove() -> None:
            server.run_cli("users", "remove", GONE)
            removed.append(time.monotonic())

        # In a thread: the client goes on answering pings (a busy machine's CLI may take longer than the idle
        # timeout).
        removing = threading.Thread(target=remove)
        removing.start()
        try:
            assert client.closed_with(timeout=60) == (4403, "Forbidden: the token is no longer valid")
        finally:
            removing.join()
        assert time.monotonic() - removed[0] < 1 + 5  # GATEWAY_TOKEN_CHECK_SECONDS, and a generous margin


def test_a_silent_connection_is_closed_after_the_idle_timeout(server: GatewayServer) -> None:
    with connected(server.base_url, server.token(SHOP, SECRET)) as live:
        started = time.monotonic()
        # Its pings go unanswered: recv() reads them without the pong client.py sends.
        with pytest.raises(ConnectionClosed) as closed:
            while True:
                live.connection.recv(timeout=20)
        assert closed.value.rcvd is not None and closed.value.rcvd.code == 4408
        assert 7 < time.monotonic() - started < 20


def test_a_token_that_expires_ends_its_connection(server: GatewayServer) -> None:
    with connected(server.base_url, shop.short_token(server, SHOP, 3)) as client:
        client.subscribe(ORDER_EVENTS)
        started = time.monotonic()
        assert client.closed_with() == (4403, "Forbidden: the token expired")
        assert time.monotonic() - started < 3 + 1 + 5


def test_a_burst_larger_than_the_buffer_reaches_a_subscriber_that_reads(server: GatewayServer) -> None:
    # 12 events found by one poll, GATEWAY_LIVE_BUFFER 5: the feed waits for room instead of dropping the
    # subscriber (the slow ones: test_slow_consumers.py).
    with connected(server.base_url, server.token(SHOP, SECRET)) as client:
        operation = client.subscribe(ORDER_EVENTS)
        time.sleep(0.5)
        shop.record_together(server, 12)
        burst = [event["orderNumber"] for event in client.events(operation, 12)]
        assert burst == [f"burst-{number}" for number in range(12)]
