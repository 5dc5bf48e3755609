"""REST_Artikel events through real gateway processes to real receivers on 127.0.0.1: the ERP writes its
tables with plain SQL on a connection of its own (no gateway involved), and the receiver gets a signed
event (verified by the `standardwebhooks` library) naming exactly the articles changed and removed, with a
cursor the change feed goes on from; many writes within a second make one event; two processes record
each change once."""

# The ERP's SQL, made of the test's own values.
# ruff: noqa: S608

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import httpx
from sqlalchemy import text
from sqlalchemy.ext.asyncio import create_async_engine

from tests import databases
from tests.gateway.dispatch.processes import POSTGRES, dispatching, statuses, subscribe, until_equal
from tests.server import GatewayServer, ServerDatabase
from tests.webhook_receiver import Received, Receiver, receiving

USER, SECRET = "shop", "a-long-shop-secret"
EXPOSED = "EXISTS (SELECT 1 FROM article_attribute x WHERE x.article_id = a.id AND x.key = 'RESTWEBSHOP')"


@contextlib.contextmanager
def site(directory: Path, articles: int, *serve_args: str, **env: str) -> Iterator[GatewayServer]:
    """A database with a demo catalogue, RESTEVENTS on (every event) and the shop's API user, and the
    commands an operator runs in its directory; `start()` serves it. Dropped at the end."""
    database = ServerDatabase.create(directory)
    server = GatewayServer(
        directory, database, [*serve_args, "--no-demo"], {"GATEWAY_WEBHOOK_ALLOW_PRIVATE": "1", **env}
    )
    try:
        server.run_cli("demo", "--articles", str(articles), "--customers", "0")
        server.run_cli("attributes", "set", "RESTEVENTS", "*")
        server.add_user(USER, SECRET, "shop")
        yield server
    finally:
        server.stop()
        database.drop()


def exposed(url: str) -> list[str]:
    aggregate = "string_agg(a.number, ',' ORDER BY a.number)" if POSTGRES else "group_concat(a.number, ',')"
    numbers: str = databases.run_sql(url, f"SELECT {aggregate} FROM article a WHERE {EXPOSED}")
    return sorted(numbers.split(","))


def erp(url: str, transactions: Sequence[Sequence[str]]) -> None:
    """Each list of statements one transaction, committed one after another, as the ERP writes: plain SQL on a
    connection of its own, without the gateway."""

    async def write() -> None:
        engine = create_async_engine(url)
        try:
            for statements in transactions:
                async with engine.begin() as connection:
                    for statement in statements:
                        await connection.execute(text(statement))
        finally:
            await engine.dispose()

    asyncio.run(write())


def started(url: str) -> None:
    """Waits until a process has started the events' cursor: what the ERP writes from then on is an event."""
    until_equal(lambda: databases.run_sql(url, "SELECT count(*) FROM article_event_state WHERE cursor IS NOT NULL"), 1)


def articles_of(received: Sequence[Received], secret: str) -> list[dict[str, Any]]:
    """The events' data, once their signatures are verified; every webhook-id once."""
    assert len({message.headers["webhook-id"] for message in received}) == len(received)
    messages = [message.verified(secret) for message in received]
    assert {message["type"] for message in messages} == {"REST_Artikel"}
    return [message["data"] for message in messages]


def feed_after(server: GatewayServer, cursor: str) -> dict[str, Any]:
    token = server.token(USER, SECRET)
    response = httpx.get(
        f"{server.base_url}/www/artikelaenderungen",
        params={"seit": cursor, "fields": "ArtNr"},
        headers={"Authorization": f"Bearer {token}"},
        timeout=30,
    )
    assert response.status_code == 200, response.text
    data: dict[str, Any] = response.json()["data"]
    return data


def test_the_erps_own_writes_reach_a_receiver_as_one_signed_event(tmp_path: Path) -> None:
    # PostgreSQL: polling every 30 s, so an event within seconds was woken by the NOTIFY of migration 0012's
    # trigger on the ERP's own statements. SQLite has no notifications between processes: it polls.
    poll = "30" if POSTGRES else "0.2"
    with receiving() as receiver, site(tmp_path, 12, GATEWAY_WEBHOOK_POLL_INTERVAL=poll) as server:
        server.start()
        secret = subscribe_to_articles(server, receiver)
        url = server.database.url
        started(url)
        first, second, third, *_ = exposed(url)
        before = time.monotonic()
        erp(
            url,
            [
                [f"UPDATE article_designation SET text = 'Neu' WHERE article_id = "
                 f"(SELECT id FROM article WHERE number = '{first}')"],
                [f"UPDATE article SET colour = 'rot' WHERE number = '{second}'"],
                [f"DELETE FROM article_attribute WHERE key = 'RESTWEBSHOP' AND article_id = "
                 f"(SELECT id FROM article WHERE number = '{third}')"],
            ],
        )  # fmt: skip
        [message] = receiver.wait_for(1, timeout=15)
        assert message.at - before < 5  # the interval (1 s) after it saw them, not the poll
        time.sleep(1.5)  # a second event would come now
        assert len(receiver.received) == 1
        [event] = articles_of(receiver.received, secret)
        assert event["event"] == "REST_Artikel"
        assert (sorted(event["Geaendert"]), event["Entfernt"]) == (sorted([first, second]), [third])
        assert event["MehrVorhanden"] is False
        # Its cursor is the feed's: a shop that reads on from it finds what came after, and nothing before.
        after = feed_after(server, event["Cursor"])
        assert (after["Artikel"], after["Entfernt"]) == ([], [])
        erp(url, [[f"UPDATE article SET colour = 'blau' WHERE number = '{first}'"]])
        assert [item["ArtNr"] for item in feed_after(server, event["Cursor"])["Artikel"]] == [first]
        until_equal(lambda: statuses(url), {"delivered": 2}, timeout=15)


def subscribe_to_articles(server: GatewayServer, receiver: Receiver) -> str:
    """Adds the receiver as an endpoint of REST_Artikel only; its secret."""
    out = server.run_cli("webhooks", "add", receiver.url, "--event", "REST_Artikel").stdout
    return dict(line.split(": ", 1) for line in out.splitlines())["secret"]


def test_many_writes_within_a_second_make_one_event(tmp_path: Path) -> None:
    poll = "30" if POSTGRES else "0.2"
    with receiving() as receiver, site(tmp_path, 30, GATEWAY_WEBHOOK_POLL_INTERVAL=poll) as server:
        server.start()
        secret = subscribe_to_articles(server, receiver)
        url = server.database.url
        started(url)
        numbers = exposed(url)[:20]
        # Twenty commits, one article each, as fast as the ERP makes them (well within the second).
        began = time.monotonic()
        erp(url, [[f"UPDATE article SET colour = 'gelb' WHERE number = '{number}'"] for number in numbers])
        assert time.monotonic() - began < 0.8, "the writes took too long to test the interval"
        receiver.wait_for(1, timeout=15)
        time.sleep(2.5)  # anything recorded after the first event would arrive now
        [event] = articles_of(receiver.received, secret)
        assert sorted(event["Geaendert"]) == numbers


def test_two_processes_record_every_change_once(tmp_path: Path) -> None:
    # PostgreSQL: polling every 30 s, so what arrives within seconds was woken by NOTIFY across processes.
    poll = "30" if POSTGRES else "0.1"
    with receiving() as one, receiving() as other, site(tmp_path, 60) as server:
        secrets = {one.url: subscribe(server, one), other.url: subscribe(server, other)}
        url = server.database.url
        numbers = exposed(url)[:40]
        with dispatching(server, "a", poll_interval=poll), dispatching(server, "b", poll_interval=poll):
            started(url)
            time.sleep(1.5)  # both listen (a missed notification is made up for when listening starts)
            # Eight transactions of five articles, a quarter of a second apart: about three events.
            batches = [numbers[start : start + 5] for start in range(0, 40, 5)]
            for batch in batches:
                listed = ", ".join(f"'{number}'" for number in batch)
                erp(url, [[f"UPDATE article SET colour = 'lila' WHERE number IN ({listed})"]])
                time.sleep(0.25)
            until_equal(lambda: sum(len(e["Geaendert"]) for e in articles_of(one.received, secrets[one.url])), 40, 20)
            count: int = databases.run_sql(url, "SELECT count(*) FROM outbox_event")
            until_equal(lambda: statuses(url), {"delivered": 2 * count}, timeout=15)
            time.sleep(1.0)  # anything sent twice would arrive now
        for receiver in (one, other):
            events = articles_of(receiver.received, secrets[receiver.url])
            assert len(events) == count >= 2
            # Each article in one event only: the two processes never recorded a change twice.
            assert sorted(number for event in events for number in event["Geaendert"]) == sorted(numbers)
        assert {m.headers["webhook-id"] for m in one.received} == {m.headers["webhook-id"] for m in other.received}
        # At most one event a second: the times they were recorded, whichever process recorded them.
        spacing = "extract(epoch from created_at - lag(created_at) over (order by id))" if POSTGRES else (
            "(julianday(created_at) - julianday(lag(created_at) over (order by id))) * 86400")  # fmt: skip
        closest = databases.run_sql(url, f"SELECT min(gap) FROM (SELECT {spacing} AS gap FROM outbox_event) gaps")
        assert float(closest) >= 0.99
        assert databases.run_sql(url, "SELECT max(attempts) FROM webhook_delivery") == 1
