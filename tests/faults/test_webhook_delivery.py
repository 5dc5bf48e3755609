"""Real `gateway dispatch` processes against real receivers on 127.0.0.1: a dispatcher killed with kill -9
while it sends loses nothing, and two processes deliver every event to every endpoint exactly once."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import subprocess
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy.ext.asyncio import AsyncSession

from datasources import events
from datasources.database import create_database
from tests import databases
from tests.server import GatewayServer, ServerDatabase, gateway_command
from tests.webhook_receiver import NEVER, Receiver, receiving

POSTGRES = databases.backend() == "postgresql"


@pytest.fixture
def site(tmp_path: Path) -> Iterator[GatewayServer]:
    """A migrated database with RESTEVENTS on, and the commands an operator runs in its directory."""
    database = ServerDatabase.create(tmp_path)
    site = GatewayServer(tmp_path, database)
    try:
        site.run_cli("attributes", "set", "RESTEVENTS", "*")
        yield site
    finally:
        database.drop()


def subscribe(site: GatewayServer, receiver: Receiver) -> str:
    """Adds the receiver as an endpoint with `gateway webhooks add`; its secret."""
    out = site.run_cli("webhooks", "add", receiver.url).stdout
    return dict(line.split(": ", 1) for line in out.splitlines())["secret"]


@contextlib.contextmanager
def dispatching(site: GatewayServer, name: str, **env: str) -> Iterator[subprocess.Popen[bytes]]:
    with (site.directory / f"{name}.out").open("wb") as out:
        process = subprocess.Popen(
            gateway_command("dispatch"),
            cwd=site.directory,
            env={**site.env, **{f"GATEWAY_WEBHOOK_{key.upper()}": value for key, value in env.items()}},
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    try:
        yield process
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGTERM)
            process.wait(timeout=20)


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


def statuses(url: str) -> dict[str, int]:
    """How many deliveries have each status."""
    aggregate = "string_agg(status, ',')" if POSTGRES else "group_concat(status)"
    joined = databases.run_sql(url, f"SELECT {aggregate} FROM webhook_delivery") or ""  # noqa: S608
    return dict(Counter(joined.split(","))) if joined else {}


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
