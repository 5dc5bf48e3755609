"""Real `gateway dispatch` processes against real receivers on 127.0.0.1: a dispatcher killed with kill -9
while it sends loses nothing, an event committed in one process reaches the receiver through another's
dispatcher within a second (PostgreSQL's NOTIFY), and two processes deliver every event to every endpoint
exactly once."""

from __future__ import annotations

import asyncio
import os
import signal
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy.ext.asyncio import AsyncSession

from datasources import events
from datasources.database import create_database
from tests import databases
from tests.gateway.dispatch.processes import POSTGRES, dispatching, listeners, statuses, subscribe, until_equal
from tests.server import GatewayServer, ServerDatabase
from tests.webhook_receiver import NEVER, receiving


@pytest.fixture
def site(tmp_path: Path) -> Iterator[GatewayServer]:
    """A migrated database with RESTEVENTS on, and the commands an operator runs in its directory."""
    database = ServerDatabase.create(tmp_path)
    # The receivers listen on 127.0.0.1: allowed, as on an intranet.
    site = GatewayServer(tmp_path, database, extra_env={"GATEWAY_WEBHOOK_ALLOW_PRIVATE": "1"})
    try:
        site.run_cli("db", "upgrade")
        site.run_cli("attributes", "set", "RESTEVENTS", "*")
        yield site
    finally:
        database.drop()


def record_orders(url: str, numbers: range, per_transaction: int = 10) -> None:
    """Orders' events recorded as the REST writes record them, `per_transaction` to a commit."""

    async def write() -> None:
        db = create_database(url)
        try:
            for start in range(numbers.start, numbers.stop, per_transaction):
                batch = range(start, min(start + per_transaction, numbers.stop))

                async def orders(session: AsyncSession, batch: range = batch) -> None:
                    for number in batch:
                        await events.record(session, events.ORDER_EVENT, "shop", AuftNr=str(number), KundNr="1")

                await db.write(orders)
        finally:
            await db.dispose()

    asyncio.run(write())


def test_a_dispatcher_killed_mid_delivery_loses_nothing(site: GatewayServer) -> None:
    held = 3  # the first attempts hang until the dispatcher sending them is killed
    settings = {"timeout": "2", "claim_time": "2.5", "poll_interval": "0.2", "concurrency": str(held)}
    with receiving(lambda index: NEVER if index < held else 200) as receiver:
        secret = subscribe(site, receiver)
        record_orders(site.database.url, range(500001, 500011))
        with dispatching(site, "first", **settings) as first:
            receiver.wait_for(held, timeout=60)
            os.killpg(first.pid, signal.SIGKILL)
            first.wait(timeout=10)
        assert statuses(site.database.url) == {"pending": 10}
        with dispatching(site, "restarted", **settings):
            received = receiver.wait_for(held + 10, timeout=60)
            deadline = time.monotonic() + 10
            while statuses(site.database.url) != {"delivered": 10}:
                assert time.monotonic() < deadline, statuses(site.database.url)
                time.sleep(0.1)
    delivered = [message.verified(secret)["data"]["AuftNr"] for message in received[held:]]
    assert sorted(delivered) == [str(number) for number in range(500001, 500011)]
    # The killed dispatcher's attempts came again with their webhook-id: receivers can drop repeats.
    ids = {message.headers["webhook-id"] for message in received}
    assert len(ids) == 10 and {message.headers["webhook-id"] for message in received[:held]} <= ids


@pytest.mark.skipif(
    not POSTGRES, reason="LISTEN/NOTIFY is PostgreSQL's; on SQLite another process's commit waits for a poll"
)
async def test_an_event_committed_in_one_process_arrives_through_another_within_a_second(site: GatewayServer) -> None:
    url = site.database.url
    # The dispatcher polls every 30 s: what arrives within the second was woken by the NOTIFY that this
    # process's commit sent to it.
    with receiving() as receiver:
        secret = subscribe(site, receiver)
        with dispatching(site, "b", poll_interval="30"):
            await asyncio.to_thread(until_equal, lambda: listeners(url), 1)
            db = create_database(url)
            try:
                for index, number in enumerate(range(500001, 500004)):
                    # Idle: the attempt before is recorded, and the claim that its end woke is over.
                    done = {"delivered": index} if index else {}
                    await asyncio.to_thread(until_equal, lambda: statuses(url), done)
                    await asyncio.sleep(0.3)
                    before = time.monotonic()  # the commit comes later still

                    async def order(session: AsyncSession, number: int = number) -> None:
                        await events.record(session, events.ORDER_EVENT, "shop", AuftNr=str(number), KundNr="1")

                    await db.write(order)
                    arrived = (await asyncio.to_thread(receiver.wait_for, index + 1, 5.0))[index]
                    assert arrived.at - before < 1.0
                    assert arrived.verified(secret)["data"]["AuftNr"] == str(number)
            finally:
                await db.dispose()


def test_two_processes_deliver_200_events_to_two_endpoints_exactly_once(site: GatewayServer) -> None:
    # PostgreSQL: polling every 30 s, so what arrives within seconds was woken by LISTEN/NOTIFY across
    # processes. SQLite has no notifications between processes: there the dispatchers poll.
    poll = "30" if POSTGRES else "0.1"
    with receiving() as one, receiving() as other:
        secrets = {one.url: subscribe(site, one), other.url: subscribe(site, other)}
        with dispatching(site, "a", poll_interval=poll), dispatching(site, "b", poll_interval=poll):
            time.sleep(1.5)  # both started (a missed notification is made up for when listening starts)
            started = time.monotonic()
            record_orders(site.database.url, range(600001, 600201))
            arrived = {receiver.url: receiver.wait_for(200, timeout=60) for receiver in (one, other)}
            took = time.monotonic() - started
            time.sleep(1.0)  # anything sent twice would arrive now
            assert (len(one.received), len(other.received)) == (200, 200)
            deadline = time.monotonic() + 10
            while statuses(site.database.url) != {"delivered": 400}:
                assert time.monotonic() < deadline, statuses(site.database.url)
                time.sleep(0.1)
    for url, received in arrived.items():
        numbers = sorted(message.verified(secrets[url])["data"]["AuftNr"] for message in received)
        assert numbers == [str(number) for number in range(600001, 600201)]
        assert len({message.headers["webhook-id"] for message in received}) == 200
    assert took < 20, took
    assert databases.run_sql(site.database.url, "SELECT max(attempts) FROM webhook_delivery") == 1
