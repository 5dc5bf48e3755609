"""The live feed (datasources/live): a process's poller hands committed outbox events to its subscribers,
replays from a cursor, waits at open gaps and drops a subscriber that falls behind."""

from __future__ import annotations

import asyncio
import contextlib
import datetime as dt
import logging
import time
from collections.abc import AsyncGenerator, AsyncIterator
from typing import Any

import pytest
from sqlalchemy.ext.asyncio import AsyncSession

from datasources import events
from datasources.database import Database
from datasources.live import Hub, InvalidCursor, LiveEvent, SlowConsumer, decode_cursor, encode_cursor, feed, wakeup
from datasources.live.feed import settled_prefix
from datasources.webhooks.listener import NotificationListener
from tests import databases

NOW = dt.datetime(2026, 11, 29, 12, 0, tzinfo=dt.UTC)


async def _record(db: Database, event: str, **fields: str) -> int:
    async def work(session: AsyncSession) -> int:
        return await events.add(session, event, "shop-client", **fields)

    return await db.write(work)


@contextlib.asynccontextmanager
async def _hub(
    db: Database, *, buffer: int = 100, poll_seconds: float = 30.0, patience: float = 0.3
) -> AsyncIterator[Hub]:
    hub = Hub(db, poll_seconds=poll_seconds, gap_seconds=10.0, buffer=buffer, patience=patience)
    stop = wakeup.listen(hub.wake)
    task = asyncio.create_task(hub.run())
    try:
        yield hub
    finally:
        stop()
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task


async def _take(stream: AsyncGenerator[LiveEvent, None], count: int) -> list[LiveEvent]:
    async with asyncio.timeout(10):
        return [await anext(stream) for _ in range(count)]


async def test_a_commit_reaches_the_subscribers_of_its_type_at_once(db: Database) -> None:
    # A poll interval far beyond the test's timeout: only the commit's wake-up can deliver in time.
    async with _hub(db) as hub:
        orders = hub.subscribe((events.ORDER_EVENT,))
        customers = hub.subscribe((events.CUSTOMER_EVENT,))
        pending = asyncio.ensure_future(_take(orders, 1))
        pending_customer = asyncio.ensure_future(_take(customers, 1))
        await asyncio.sleep(0.2)  # both joined
        await _record(db, events.CUSTOMER_EVENT, DebiNr="10001")
        order_id = await _record(db, events.ORDER_EVENT, AuftNr="500001", KundNr="10001")
        [order] = await pending
        [customer] = await pending_customer
        assert (order.id, order.event, order.fields["AuftNr"]) == (order_id, "REST_Auft", "500001")
        assert customer.fields["DebiNr"] == "10001"
        await orders.aclose()
        await customers.aclose()
        assert hub.subscribers == 0


async def test_since_replays_what_came_after_the_cursor_then_goes_on_live(db: Database) -> None:
    first = await _record(db, events.ORDER_EVENT, AuftNr="1")
    await _record(db, events.CUSTOMER_EVENT, DebiNr="2")
    third = await _record(db, events.ORDER_EVENT, AuftNr="3")
    async with _hub(db) as hub:
        stream = hub.subscribe((events.ORDER_EVENT,), first)
        [replayed] = await _take(stream, 1)
        assert replayed.id == third
        fourth = await _record(db, events.ORDER_EVENT, AuftNr="4")
        [live] = await _take(stream, 1)
        assert live.id == fourth
        # From the beginning, no event twice, none missed.
        everything = hub.subscribe((events.ORDER_EVENT,), 0)
        assert [event.fields["AuftNr"] for event in await _take(everything, 3)] == ["1", "3", "4"]
        await stream.aclose()
        await everything.aclose()


async def test_other_processes_events_are_found_by_polling(db: Database) -> None:
    async with _hub(db, poll_seconds=0.2) as hub:
        stream = hub.subscribe((events.ORDER_EVENT,))
        pending = asyncio.ensure_future(_take(stream, 1))
        await asyncio.sleep(0.1)
        stop = wakeup.listen(lambda: None)  # the commit below wakes nobody: as if another process made it
        wakeup._listeners.discard(hub.wake)
        try:
            event_id = await _record(db, events.ORDER_EVENT, AuftNr="7")
        finally:
            stop()
        [event] = await pending
        assert event.id == event_id
        await stream.aclose()


async def test_a_new_subscriber_starts_after_what_was_committed_before_it_joined(db: Database) -> None:
    # While the feed follows a first subscriber, it reads another process's commits at its next poll (30 s
    # here). A second subscriber that joins meanwhile starts at what is committed now, not at the last poll:
    # the events before it are not its own ("from now on"), however many came since that poll.
    async with _hub(db) as hub:
        first = hub.subscribe((events.ORDER_EVENT,))
        pending_first = asyncio.ensure_future(_take(first, 2))
        await asyncio.sleep(0.1)
        wakeup._listeners.discard(hub.wake)  # the commits below wake nobody: as if another process made them
        earlier = await _record(db, events.ORDER_EVENT, AuftNr="earlier")
        second = hub.subscribe((events.ORDER_EVENT,))
        pending_second = asyncio.ensure_future(_take(second, 1))
        await asyncio.sleep(0.1)
        later = await _record(db, events.ORDER_EVENT, AuftNr="later")
        hub.wake()
        assert [event.id for event in await pending_first] == [earlier, later]
        assert [event.id for event in await pending_second] == [later]
        await first.aclose()
        await second.aclose()


async def test_a_subscriber_whose_buffer_overflows_is_dropped(db: Database) -> None:
    async with _hub(db, buffer=2) as hub:
        stream = hub.subscribe((events.ORDER_EVENT,))
        first = asyncio.ensure_future(_take(stream, 1))
        await asyncio.sleep(0.1)
        await _record(db, events.ORDER_EVENT, AuftNr="1")
        await first
        for number in range(3):  # nobody takes them
            await _record(db, events.ORDER_EVENT, AuftNr=str(number))
        await asyncio.sleep(0.6)  # the feed's patience (0.3 s) for the third is over
        with pytest.raises(SlowConsumer):
            await _take(stream, 1)


async def _record_burst(db: Database, count: int) -> list[int]:
    """Events committed together, as an import's are: one poll finds them all."""

    async def work(session: AsyncSession) -> list[int]:
        return [await events.add(session, events.ORDER_EVENT, "shop-client", AuftNr=str(n)) for n in range(count)]

    return await db.write(work)


async def _keep_taking(stream: AsyncGenerator[LiveEvent, None], count: int) -> list[int]:
    taken = []
    async with asyncio.timeout(10):
        for _ in range(count):
            taken.append((await anext(stream)).id)
            await asyncio.sleep(0.001)  # a client that sends each event on before it takes the next
    return taken


async def test_a_burst_larger_than_the_buffer_reaches_a_subscriber_that_keeps_taking(db: Database) -> None:
    # 40 events found by one poll, a buffer of 5: the feed waits for room instead of dropping the subscriber.
    async with _hub(db, buffer=5, patience=5.0) as hub:
        stream = hub.subscribe((events.ORDER_EVENT,))
        pending = asyncio.ensure_future(_keep_taking(stream, 40))
        await asyncio.sleep(0.1)
        burst = await _record_burst(db, 40)
        assert await pending == burst
        await stream.aclose()


async def test_a_subscriber_that_takes_nothing_holds_the_others_up_for_its_patience_only(db: Database) -> None:
    async with _hub(db, buffer=5, patience=0.3) as hub:
        stuck = hub.subscribe((events.ORDER_EVENT,))
        taking = hub.subscribe((events.ORDER_EVENT,))
        first = asyncio.ensure_future(_take(stuck, 1))  # joined, then takes nothing more
        pending = asyncio.ensure_future(_keep_taking(taking, 21))
        await asyncio.sleep(0.1)
        started = time.monotonic()
        burst = await _record_burst(db, 21)
        await first
        assert await pending == burst
        assert time.monotonic() - started < 3
        with pytest.raises(SlowConsumer):
            await _take(stuck, 1)
        await taking.aclose()


async def test_failed_polls_are_logged_when_they_start_and_when_the_feed_reads_again(
    db: Database, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    # A database down for a while: one warning when the polls start failing and one when one works again,
    # not one per poll.
    read_after = feed.read_after
    failing = 0
    over = asyncio.Event()

    async def flaky(session: AsyncSession, after: int, **options: Any) -> list[LiveEvent]:
        nonlocal failing
        if failing:
            failing -= 1
            raise ConnectionRefusedError("the database is down")
        if caplog.records:  # the outage was logged and is over: this poll reads again
            over.set()
        return await read_after(session, after, **options)

    monkeypatch.setattr(feed, "read_after", flaky)
    async with _hub(db, poll_seconds=0.02) as hub:
        stream = hub.subscribe((events.ORDER_EVENT,))
        pending = asyncio.ensure_future(_take(stream, 1))
        await asyncio.sleep(0.1)  # joined, and polling
        with caplog.at_level(logging.WARNING, logger="gateway.live"):
            failing = 5
            async with asyncio.timeout(5):
                await over.wait()  # the first poll after the outage
            event_id = await _record(db, events.ORDER_EVENT, AuftNr="after the outage")
            [event] = await pending
        assert event.id == event_id  # nothing lost
        assert [record.getMessage() for record in caplog.records] == [
            "live feed: reading the outbox failed: ConnectionRefusedError: the database is down"
            " (tried again at every poll)",
            "live feed: reading the outbox works again after 5 failed polls",
        ]
        await stream.aclose()


def _event(event_id: int, age: float) -> LiveEvent:
    return LiveEvent(event_id, "REST_Auft", {}, NOW - dt.timedelta(seconds=age))


def test_the_feed_waits_at_a_gap_until_it_fills_or_is_old() -> None:
    gap = dt.timedelta(seconds=10)
    # 3 may still be committed: 4 waits with it.
    assert [e.id for e in settled_prefix([_event(2, 1), _event(4, 1)], 1, NOW, gap)] == [2]
    # 4 was recorded 11 s ago: whatever took 3 has ended.
    assert [e.id for e in settled_prefix([_event(2, 1), _event(4, 11)], 1, NOW, gap)] == [2, 4]
    assert settled_prefix([_event(3, 1)], 1, NOW, gap) == []


def test_cursors_round_trip_and_strangers_are_refused() -> None:
    assert decode_cursor(encode_cursor(12345)) == 12345
    assert encode_cursor(1).isascii() and "=" not in encode_cursor(1)
    for stranger in ("", "12", "b3V0Ym94Oi0x", "!!!", encode_cursor(1) + "$"):
        with pytest.raises(InvalidCursor):
            decode_cursor(stranger)


@pytest.mark.skipif(databases.backend() != "postgresql", reason="LISTEN/NOTIFY is PostgreSQL's")
async def test_on_postgresql_a_notify_wakes_the_feeds_of_other_processes(db: Database, database_url: str) -> None:
    # Polling far beyond the test's timeout, and no wake-up from this process's commit: only the NOTIFY
    # the transaction sends (to every listening process) can deliver in time.
    async with _hub(db) as hub:
        listener = NotificationListener(
            database_url, hub.wake, connect_timeout=5, retry=1, channel=wakeup.CHANNEL, name="live notifications"
        )
        listening = asyncio.create_task(listener.run())
        wakeup._listeners.discard(hub.wake)
        try:
            stream = hub.subscribe((events.ORDER_EVENT,))
            pending = asyncio.ensure_future(_take(stream, 1))
            await asyncio.sleep(0.5)  # subscribed, and listening
            event_id = await _record(db, events.ORDER_EVENT, AuftNr="8")
            [event] = await pending
            assert event.id == event_id
            await stream.aclose()
        finally:
            listening.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await listening
