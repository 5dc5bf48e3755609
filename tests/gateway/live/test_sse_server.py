"""Subscriptions as event streams (GraphQL over SSE, distinct connections) against a real
`gateway serve --workers 2` (conftest.py), read by hand over httpx (sse_client.py): orders placed through
/www on any worker reach every stream on either worker, `since` replays, and tokens, scopes, limits and the
slow-consumer bound are held as on the WebSocket (test_ws_server.py)."""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import subprocess
import threading
import time
from pathlib import Path

from tests.gateway.live import shop
from tests.gateway.live.client import CUSTOMER_EVENTS, ORDER_EVENTS, connected
from tests.gateway.live.shop import CATALOGUE, GONE_SSE, LIMITED, METRICS, SECRET, SHOP
from tests.gateway.live.sse_client import COMMENT, Event, Stream, parse, subscribed
from tests.required_tools import require
from tests.server import GatewayServer

RUNNING = 1.0  # seconds for a stream's subscription to join its worker's feed after the answer started
PER_USER = 10  # GATEWAY_LIVE_PER_USER (conftest.py)
HOW_TO = Path(__file__).resolve().parents[3] / "docs" / "how-to" / "live-subscriptions.md"
SHOWN_URL = "http://127.0.0.1:8000"  # the how-to's


def test_orders_placed_on_any_worker_reach_every_stream(server: GatewayServer) -> None:
    token = server.token(SHOP, SECRET)
    with contextlib.ExitStack() as stack:
        # Six streams, each a connection of its own, as are the orders: the kernel spreads them over both
        # workers. Half by POST, half by GET (EventSource's way).
        streams = [
            stack.enter_context(subscribed(server.base_url, token, ORDER_EVENTS, method=method))
            for method in ("POST", "GET") * 3
        ]
        customers = stack.enter_context(subscribed(server.base_url, token, CUSTOMER_EVENTS))
        for stream in (*streams, customers):
            assert stream.response.status_code == 200
            assert stream.response.headers["content-type"] == "text/event-stream; charset=utf-8"
        time.sleep(RUNNING)
        customer = shop.customer(server, token)
        # Fewer than GATEWAY_LIVE_BUFFER (5): the other worker's poll may find them all at once, and a batch
        # larger than the buffer is a slow consumer's.
        orders = [shop.order(server, token, customer) for _ in range(4)]
        for stream in streams:
            events = stream.data(4)
            assert [event["orderNumber"] for event in events] == orders
            assert {event["type"] for event in events} == {"REST_Auft"}
            assert {event["customerNumber"] for event in events} == {customer}
        [created] = customers.data(1)
        assert (created["type"], created["customerNumber"]) == ("REST_Kunde", customer)


def test_since_replays_what_came_after_a_cursor_then_goes_on_live(server: GatewayServer) -> None:
    token = server.token(SHOP, SECRET)
    customer = shop.customer(server, token)
    with subscribed(server.base_url, token, ORDER_EVENTS) as stream:
        time.sleep(RUNNING)
        first = shop.order(server, token, customer)
        [seen] = stream.data(1)
        assert seen["orderNumber"] == first
    missed = [shop.order(server, token, customer) for _ in range(2)]
    with subscribed(server.base_url, token, ORDER_EVENTS, since=seen["cursor"]) as stream:
        replayed = stream.data(2)
        assert [event["orderNumber"] for event in replayed] == missed
        later = shop.order(server, token, customer)
        [live] = stream.data(1)
        assert live["orderNumber"] == later


def test_the_server_pings_an_idle_stream(server: GatewayServer) -> None:
    with subscribed(server.base_url, server.token(SHOP, SECRET), ORDER_EVENTS) as stream:
        started = time.monotonic()
        assert [stream.first(), stream.first()] == [Event(COMMENT, "ping")] * 2
        assert 1.5 < time.monotonic() - started < 5  # GATEWAY_LIVE_PING_SECONDS is 1


def test_a_request_without_a_good_token_is_refused_before_the_stream(server: GatewayServer) -> None:
    for token, status, code in (
        (None, 401, "invalid_token"),
        ("not-a-token", 401, "invalid_token"),
        (server.token(METRICS, SECRET), 403, "insufficient_scope"),  # a metrics token reads /metrics only
    ):
        with subscribed(server.base_url, token, ORDER_EVENTS) as stream:
            assert stream.response.status_code == status
            stream.response.read()
            assert stream.response.json()["error"] == code


def test_a_catalogue_token_cannot_subscribe_to_orders_or_customers(server: GatewayServer) -> None:
    token = server.token(CATALOGUE, SECRET)
    for query in (ORDER_EVENTS, CUSTOMER_EVENTS):
        with subscribed(server.base_url, token, query) as stream:
            [refused, complete] = stream.rest()
            assert refused.data["errors"][0]["extensions"]["code"] == "insufficient_scope"
            assert complete == Event("complete", None)


def test_a_bad_cursor_is_an_error_not_an_empty_stream(server: GatewayServer) -> None:
    with subscribed(server.base_url, server.token(SHOP, SECRET), ORDER_EVENTS, since="not-a-cursor") as stream:
        [refused, complete] = stream.rest()
        assert refused.data["errors"][0]["extensions"]["code"] == "invalid_request"
        assert complete.event == "complete"


def test_subscriptions_per_user_are_limited_with_the_websockets(server: GatewayServer) -> None:
    """Each worker lets a user run GATEWAY_LIVE_PER_USER subscriptions, event streams and WebSockets together;
    one more is refused with `rate_limited`, and a closed one gives its place back."""
    token = server.token(LIMITED, SECRET)
    with contextlib.ExitStack() as stack:
        # Half the limit on WebSockets: the worker that takes them counts them with its streams.
        for _ in range(PER_USER // 2):
            stack.enter_context(connected(server.base_url, token)).subscribe(ORDER_EVENTS)
        running: list[Stream] = []
        while True:  # until the worker serving a new stream has its user's limit
            stream = stack.enter_context(subscribed(server.base_url, token, ORDER_EVENTS))
            first = stream.first()  # a running stream's first is a ping
            assert first is not None
            if first.event != COMMENT:
                break
            running.append(stream)
            assert len(running) <= 2 * PER_USER, "no stream was ever refused"
        assert first.data["errors"][0]["extensions"]["code"] == "rate_limited", first
        assert stream.next() == Event("complete", None)
        assert len(running) >= PER_USER // 2  # a worker refuses only at its limit
    # All closed, the places are given back: a full limit's streams run, wherever they land.
    time.sleep(RUNNING)
    with contextlib.ExitStack() as stack:
        streams = [stack.enter_context(subscribed(server.base_url, token, ORDER_EVENTS)) for _ in range(PER_USER)]
        assert [stream.first() for stream in streams] == [Event(COMMENT, "ping")] * PER_USER


def test_a_removed_users_stream_ends_within_the_token_check(server: GatewayServer) -> None:
    token = server.token(GONE_SSE, SECRET)
    with subscribed(server.base_url, token, ORDER_EVENTS) as stream:
        time.sleep(RUNNING)
        removed: list[float] = []

        def remove() -> None:
            server.run_cli("users", "remove", GONE_SSE)
            removed.append(time.monotonic())

        removing = threading.Thread(target=remove)
        removing.start()
        try:
            events = stream.rest()
        finally:
            removing.join()
        assert events == [Event("next", {"errors": [_token_error("the token is no longer valid")]})]  # no complete
        assert time.monotonic() - removed[0] < 1 + 5  # GATEWAY_TOKEN_CHECK_SECONDS, and a generous margin


def test_a_token_that_expires_ends_its_stream(server: GatewayServer) -> None:
    with subscribed(server.base_url, shop.short_token(server, SHOP, 3), ORDER_EVENTS) as stream:
        started = time.monotonic()
        assert stream.rest() == [Event("next", {"errors": [_token_error("the token expired")]})]
        assert time.monotonic() - started < 3 + 1 + 5


def _token_error(message: str) -> dict[str, object]:
    return {"message": message, "extensions": {"code": "invalid_token"}}


def test_a_burst_larger_than_the_buffer_reaches_a_stream_that_reads(server: GatewayServer) -> None:
    # 12 events found by one poll, GATEWAY_LIVE_BUFFER 5 (the slow ones: test_slow_consumers.py).
    with subscribed(server.base_url, server.token(SHOP, SECRET), ORDER_EVENTS) as stream:
        time.sleep(RUNNING)
        shop.record_together(server, 12)
        burst = [event["orderNumber"] for event in stream.data(12)]
        assert burst == [f"burst-{number}" for number in range(12)]


def test_streams_are_counted_and_not_held_in_the_latency_histogram(server: GatewayServer) -> None:
    def figure(name: str) -> float:
        found = re.search(rf"^{name} (\S+)", shop.metrics_text(server), re.M)
        assert found is not None, name
        return float(found.group(1))

    def figures_become(expected: tuple[float, float], *streams: Stream) -> None:
        # A stream joins (and leaves) its worker's feed a moment after its answer starts (ends); on a loaded
        # machine that moment can exceed RUNNING, so the figures are read until they agree or time runs out.
        deadline = time.monotonic() + 15
        while (seen := (figure("gateway_live_connections"), figure("gateway_live_subscriptions"))) != expected:
            assert time.monotonic() < deadline, (seen, expected, [stream.first() for stream in streams])
            time.sleep(0.2)

    token = server.token(SHOP, SECRET)
    before = figure("gateway_live_connections"), figure("gateway_live_subscriptions")
    with (
        subscribed(server.base_url, token, ORDER_EVENTS) as one,
        subscribed(server.base_url, token, ORDER_EVENTS) as two,
    ):
        figures_become((before[0] + 2, before[1] + 2), one, two)
        time.sleep(2)
    figures_become(before)
    # Each stream lasted seconds; the latency it counts is that of its start.
    metrics = shop.metrics_text(server)
    slowest = re.search(
        r'^gateway_http_request_duration_seconds_bucket\{le="1.0",method="POST",route="/graphql"\} (\S+)\n'
        r'(?:.*\n)*?gateway_http_request_duration_seconds_count\{method="POST",route="/graphql"\} (\S+)',
        metrics,
        re.M,
    )
    assert slowest is not None
    assert slowest.group(1) == slowest.group(2)  # every POST /graphql answered (started) within a second


def test_the_how_to_s_curl_command_follows_the_orders(server: GatewayServer) -> None:
    """docs/how-to/live-subscriptions.md's curl command, run as shown (with the test server's URL)."""
    require(None if shutil.which("curl") else "curl is not on PATH")
    block = re.search(r'^```sh title="Follow the orders with curl"\n(.*?)^```$', HOW_TO.read_text(), re.M | re.S)
    assert block is not None and SHOWN_URL in block.group(1)
    command = block.group(1).replace(SHOWN_URL, server.base_url)
    token = server.token(SHOP, SECRET)
    env = {**os.environ, "TOKEN": token}
    with subprocess.Popen(["bash", "-c", command], stdout=subprocess.PIPE, text=True, env=env) as curl:
        deadline = threading.Timer(30, curl.kill)  # then its output ends, and so does the test
        deadline.start()
        try:
            time.sleep(RUNNING)
            placed = shop.order(server, token, shop.customer(server, token))
            assert curl.stdout is not None
            lines = (line.rstrip("\n") for line in curl.stdout)
            event = next(event for event in parse(lines) if event.event != COMMENT)
            assert event.event == "next"
            assert event.data["data"]["orderEvents"]["orderNumber"] == placed
        finally:
            deadline.cancel()
            curl.kill()
