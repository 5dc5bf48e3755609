"""The catalogueChanges subscription against a real `gateway serve --workers 2`, with the hand-written
graphql-transport-ws client (client.py), while the ERP writes its tables with plain SQL on a connection of
its own: every subscriber on either worker gets the changed and removed ArtNr with the feed's cursor, many
writes within a second come as one event, `since` (any cursor of the feed, the REST one too) replays what
came after it and goes on live, and scopes and limits are those of every subscription. An event stream
(GraphQL over SSE) gets the same events."""

# The ERP's SQL, made of the test's own values.
# ruff: noqa: S608

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests import databases
from tests.gateway.dispatch.test_article_events import erp, exposed
from tests.gateway.live.client import ORDER_EVENTS, connected
from tests.gateway.live.sse_client import subscribed
from tests.server import GatewayServer, ServerDatabase

POSTGRES = databases.backend() == "postgresql"
CATALOGUE_CHANGES = (
    "subscription($since: String) { catalogueChanges(since: $since) "
    "{ type changed removed hasMore occurredAt cursor } }"
)
SHOP, CATALOGUE, SECRET = "shop", "catalogue-only", "a-long-secret-for-live-tests"
ENV = {
    # PostgreSQL: a poll twice a minute, so what arrives within seconds was woken by the NOTIFY of migration
    # 0012's trigger on the ERP's statements. SQLite has no notifications between processes: it polls.
    "GATEWAY_LIVE_POLL_SECONDS": "30" if POSTGRES else "0.3",
    "GATEWAY_LIVE_PER_CONNECTION": "3",
    "GATEWAY_WEBHOOK_DISPATCH": "0",
}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[GatewayServer]:
    directory: Path = tmp_path_factory.mktemp("live_catalogue")
    database = ServerDatabase.create(directory)
    site = GatewayServer(directory, database, ["--workers", "2", "--no-demo"], ENV)
    try:
        site.run_cli("demo", "--articles", "40", "--customers", "0")
        site.add_user(SHOP, SECRET, "shop")
        site.add_user(CATALOGUE, SECRET, "catalogue")
        yield site.start()
    finally:
        site.stop()
        database.drop()


@pytest.fixture(scope="module")
def numbers(server: GatewayServer) -> list[str]:
    return exposed(server.database.url)


def colour(server: GatewayServer, articles: list[str], value: str) -> None:
    """One ERP transaction per article, one after another."""
    erp(server.database.url, [[f"UPDATE article SET colour = '{value}' WHERE number = '{n}'"] for n in articles])


def _changes(client: Any, operation: str, articles: int, timeout: float = 15.0) -> list[dict[str, Any]]:
    """Events until they named `articles` ArtNr in all."""
    taken: list[dict[str, Any]] = []
    deadline = time.monotonic() + timeout
    while sum(len(event["changed"]) + len(event["removed"]) for event in taken) < articles:
        taken += client.events(operation, 1, timeout=max(0.1, deadline - time.monotonic()))
    return taken


def test_the_erps_writes_reach_every_subscriber_in_one_event(server: GatewayServer, numbers: list[str]) -> None:
    token = server.token(CATALOGUE, SECRET)
    with contextlib.ExitStack() as stack:
        # Four connections: the kernel spreads them over both workers.
        clients = [stack.enter_context(connected(server.base_url, token)) for _ in range(4)]
        operations = [client.subscribe(CATALOGUE_CHANGES) for client in clients]
        time.sleep(1.0)  # the subscriptions are running
        changed, hidden = numbers[:10], numbers[10]
        before = time.monotonic()
        colour(server, changed, "rot")  # ten commits, well within a second
        erp(server.database.url, [[f"DELETE FROM article_attribute WHERE key = 'RESTWEBSHOP' AND article_id = "
                                   f"(SELECT id FROM article WHERE number = '{hidden}')"]])  # fmt: skip
        for client, operation in zip(clients, operations, strict=True):
            [event] = _changes(client, operation, 11)
            assert time.monotonic() - before < 10
            assert (event["type"], sorted(event["changed"]), event["removed"]) == ("REST_Artikel", changed, [hidden])
            assert event["hasMore"] is False and event["occurredAt"].endswith("Z")
            # Nothing more came: the writes were one batch.
            with pytest.raises(TimeoutError):
                client.events(operation, 1, timeout=1.5)


def test_since_replays_after_a_feed_cursor_then_goes_on_live(server: GatewayServer, numbers: list[str]) -> None:
    token = server.token(SHOP, SECRET)
    rest = httpx.get(
        f"{server.base_url}/www/artikelaenderungen", headers={"Authorization": f"Bearer {token}"}, timeout=30
    )
    cursor = rest.json()["data"]["Cursor"]  # the REST feed's: a shop that read the list subscribes from it
    missed = numbers[20:25]
    colour(server, missed, "blau")
    with connected(server.base_url, token) as client:
        operation = client.subscribe(CATALOGUE_CHANGES, since=cursor)
        [replayed] = _changes(client, operation, 5)
        assert sorted(replayed["changed"]) == missed
        colour(server, [numbers[25]], "gelb")
        [live] = _changes(client, operation, 1)
        assert live["changed"] == [numbers[25]]
        first_cursor = replayed["cursor"]
    # Reconnected from the first event's cursor: the second comes again, and nothing before it.
    with connected(server.base_url, token) as client:
        operation = client.subscribe(CATALOGUE_CHANGES, since=first_cursor)
        [again] = _changes(client, operation, 1)
        assert again["changed"] == [numbers[25]]


def test_an_event_stream_gets_the_same_events(server: GatewayServer, numbers: list[str]) -> None:
    token = server.token(CATALOGUE, SECRET)
    with subscribed(server.base_url, token, CATALOGUE_CHANGES) as stream:
        assert stream.response.status_code == 200
        time.sleep(1.0)  # the subscription is running
        colour(server, numbers[30:32], "orange")
        [event] = stream.data(1)
        assert (sorted(event["changed"]), event["removed"], event["type"]) == (numbers[30:32], [], "REST_Artikel")


def test_a_bad_or_expired_cursor_ends_the_subscription_with_its_code(server: GatewayServer) -> None:
    with connected(server.base_url, server.token(CATALOGUE, SECRET)) as client:
        for since, code in (("not-a-cursor", "invalid_request"), (_expired_cursor(), "gone")):
            operation = client.subscribe(CATALOGUE_CHANGES, since=since)
            message = client.receive()
            assert message["id"] == operation and message["type"] == "next", message
            assert message["payload"]["errors"][0]["extensions"]["code"] == code, message
            assert client.receive() == {"id": operation, "type": "complete"}


def _expired_cursor() -> str:
    # A cursor of the feed's own format whose window began long before the retention (30 days).
    from datasources.catalogue.changes import AFTER_ALL, Cursor

    return Cursor(1, AFTER_ALL, "", "", int(time.time()) - 40 * 24 * 3600).encode()


def test_scopes_and_limits_are_those_of_every_subscription(server: GatewayServer) -> None:
    with connected(server.base_url, server.token(CATALOGUE, SECRET)) as client:
        # A catalogue token follows the catalogue, but not the orders.
        operation = client.subscribe(ORDER_EVENTS)
        message = client.receive()
        errors = message["payload"] if message["type"] == "error" else message["payload"]["errors"]
        assert message["id"] == operation and errors[0]["extensions"]["code"] == "insufficient_scope"
        for _ in range(3):
            client.subscribe(CATALOGUE_CHANGES)
        refused = client.subscribe(CATALOGUE_CHANGES)  # GATEWAY_LIVE_PER_CONNECTION
        message = client.receive()
        assert (message["id"], message["type"]) == (refused, "error")
