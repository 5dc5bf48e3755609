"""Slow consumers from the outside: an event stream's client that stops reading while a burst of events comes.

Its socket fills, the gateway's writes to it wait, its subscription's buffer (GATEWAY_LIVE_BUFFER) fills, the
feed waits for it a little (datasources/live/hub.py, PATIENCE) and then drops it: once it reads again, it gets
the events that were on their way and then an error of code `slow_consumer`, and the metrics count it. A server
of its own: GATEWAY_LIVE_IDLE_SECONDS is longer than the stall here (the shared live server ends a client that
takes nothing after 8 s).

Not here: the WebSocket's 4413. Over a WebSocket, 8 MB of events went to a client that did not read without the
gateway's writes ever waiting (so its subscription never fell behind); such a client is ended by
GATEWAY_LIVE_IDLE_SECONDS (test_ws_server.py)."""

from __future__ import annotations

import re
import time
from collections.abc import Iterator

import pytest

from tests.gateway.live import shop
from tests.gateway.live.client import ORDER_EVENTS
from tests.gateway.live.conftest import live_server
from tests.gateway.live.shop import SECRET, SHOP
from tests.gateway.live.sse_client import subscribed
from tests.server import GatewayServer

# More than the sockets between the gateway and a client that does not read hold (the gateway's send buffer
# grows to 4 MB): some 8 MB of events.
BURST, WIDTH = 6000, 1300
STALL = 8.0  # seconds the client does not read: the writes wait, then the feed's patience (2 s) runs out


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[GatewayServer]:
    idle = {"GATEWAY_LIVE_IDLE_SECONDS": "60"}
    with live_server(tmp_path_factory.mktemp("slow"), workers=1, env=idle) as site:
        yield site


def test_an_event_stream_that_stops_reading_ends_as_a_slow_consumer(server: GatewayServer) -> None:
    before = _dropped_slow(server)
    with subscribed(server.base_url, server.token(SHOP, SECRET), ORDER_EVENTS) as stream:
        _joined(server)
        shop.record_together(server, 1)
        assert stream.data(1)[0]["orderNumber"] == "burst-0"
        shop.record_together(server, BURST, width=WIDTH)
        time.sleep(STALL)
        last = stream.rest()[-1]  # no complete: the client resumes from its last cursor
        assert last.data["errors"][0]["extensions"]["code"] == "slow_consumer"
    assert _dropped_slow(server) == before + 1


def _joined(server: GatewayServer) -> None:
    """Once the subscription is in its worker's feed: what is recorded from then on is its own."""
    deadline = time.monotonic() + 15
    while not re.search(r"^gateway_live_subscriptions 1\.0$", shop.metrics_text(server), re.M):
        assert time.monotonic() < deadline, "the subscription did not join"
        time.sleep(0.1)
    time.sleep(0.2)  # counted when its stream starts, a moment before it has joined the feed


def _dropped_slow(server: GatewayServer) -> float:
    metrics = shop.metrics_text(server)
    dropped = re.search(r'^gateway_live_connections_dropped_total\{reason="slow"\} (\S+)', metrics, re.M)
    return 0.0 if dropped is None else float(dropped.group(1))
