"""The dispatcher against a real HTTP receiver on 127.0.0.1, with the clock injected: retries on the
schedule, one webhook-id per event, refused connections and redirects tried again, bounded concurrency,
wake-ups on commit, claims left at shutdown."""

from __future__ import annotations

import asyncio
import datetime as dt
import socket
import time
from collections.abc import AsyncIterator

import pytest
from sqlalchemy import update

from datasources.database import Database
from datasources.models import WebhookDelivery, WebhookEndpoint
from gateway.dispatch import Dispatcher, WebhookSettings
from tests.datasources.webhooks.helpers import enable, endpoint, one, record, stored
from tests.webhook_receiver import NEVER, receiving


class Clock:
    def __init__(self) -> None:
        self.now = dt.datetime.now(dt.UTC) + dt.timedelta(seconds=1)  # what was just recorded is due

    def __call__(self) -> dt.datetime:
        return self.now


@pytest.fixture
async def running(db: Database) -> AsyncIterator[list[asyncio.Task[None]]]:
    """Dispatchers' run() tasks started by a test, cancelled at its end."""
    tasks: list[asyncio.Task[None]] = []
    yield tasks
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)


async def test_a_500_then_200_sends_the_event_twice_with_one_webhook_id(db: Database) -> None:
    await enable(db)
    with receiving(lambda index: 500 if index == 0 else 200) as receiver:
        _, secret = await endpoint(db, receiver.url)
        await record(db, AuftNr="500007", KundNr="100003")
        clock = Clock()
        dispatcher = Dispatcher(db, WebhookSettings(allow_private=True, timeout=5), clock=clock)
        assert await dispatcher.run_once() == 1
        (delivery,) = await stored(db)
        assert (delivery.status, delivery.attempts, delivery.last_status) == ("pending", 1, 500)
        assert delivery.last_answer == '{"received": 0}'
        assert 4 <= (delivery.next_attempt_at - clock.now).total_seconds() <= 6
        assert await dispatcher.run_once() == 0  # not due yet
        clock.now = delivery.next_attempt_at
        assert await dispatcher.run_once() == 1
        first, second = receiver.wait_for(2)
    delivery = await one(db, delivery.id)
    assert (delivery.status, delivery.attempts, delivery.last_status) == ("delivered", 2, 200)
    assert first.headers["webhook-id"] == second.headers["webhook-id"]
    assert first.headers["webhook-id"].startswith("msg_")
    assert first.body == second.body
    for received in (first, second):
        payload = received.verified(secret)
        assert payload["type"] == "REST_Auft"
        assert payload["data"]["AuftNr"] == "500007" and payload["data"]["KundNr"] == "100003"
        assert received.headers["content-type"] == "application/json" and received.path == "/hook"


async def test_a_receiver_that_never_answers_gets_every_retry_on_the_schedule(db: Database) -> None:
    settings = WebhookSettings(allow_private=True, timeout=0.2, claim_time=1)
    await enable(db)
    with receiving(lambda _index: NEVER) as receiver:
        _, secret = await endpoint(db, receiver.url)
        await record(db)
        clock = Clock()
        dispatcher = Dispatcher(db, settings, clock=clock)
        attempts_at = []
        for attempt in range(1, settings.retry.max_attempts + 1):
            attempts_at.append(clock.now)
            assert await dispatcher.run_once() == 1
            delivery: WebhookDelivery = (await stored(db))[0]
            assert delivery.attempts == attempt
            assert delivery.last_error == "no answer within 0.2 s" and delivery.last_status is None
            if attempt < settings.retry.max_attempts:
                assert delivery.status == "pending"
                wait = (delivery.next_attempt_at - clock.now).total_seconds()
                assert 0.8 * settings.retry.delay(attempt) <= wait <= 1.2 * settings.retry.delay(attempt)
                clock.now = delivery.next_attempt_at
        received = receiver.wait_for(settings.retry.max_attempts)
    assert delivery.status == "failed"
    assert len(received) == settings.retry.max_attempts
    assert {r.headers["webhook-id"] for r in received} == {received[0].headers["webhook-id"]}
    assert all(r.verified(secret)["type"] == "REST_Auft" for r in received)
    span = (attempts_at[-1] - attempts_at[0]).total_seconds()
    assert 0.8 * settings.retry.span() <= span <= 1.2 * settings.retry.span()
    assert await Dispatcher(db, settings, clock=lambda: clock.now + dt.timedelta(days=9)).run_once() == 0


async def test_a_refused_connection_is_tried_again_with_the_reason(db: Database) -> None:
    await enable(db)
    with socket.socket() as closed:
        closed.bind(("127.0.0.1", 0))  # bound, never listening: every connection to it is refused at once
        await endpoint(db, f"http://127.0.0.1:{closed.getsockname()[1]}/hook")
        await record(db)
        clock = Clock()
        assert await Dispatcher(db, WebhookSettings(allow_private=True, timeout=30), clock=clock).run_once() == 1
    (delivery,) = await stored(db)
    assert (delivery.status, delivery.attempts, delivery.last_status) == ("pending", 1, None)
    # Said as a port that does not answer is said: an endpoint's URL tells no port scanner which is which.
    assert (delivery.last_error, delivery.last_answer) == ("could not connect", None)
    assert 4 <= (delivery.next_attempt_at - clock.now).total_seconds() <= 6  # the schedule's first wait


@pytest.mark.parametrize("status", [302, 307])
async def test_a_redirect_is_a_failed_attempt_and_is_not_followed(db: Database, status: int) -> None:
    await enable(db)
    # Followed, the redirect would reach /moved, answered 200, and count as delivered.
    with receiving(lambda index: status if index == 0 else 200) as receiver:
        await endpoint(db, receiver.url)
        await record(db)
        assert await Dispatcher(db, WebhookSettings(allow_private=True, timeout=5), clock=Clock()).run_once() == 1
        assert [received.path for received in receiver.received] == ["/hook"]  # the attempt is over: no other
    (delivery,) = await stored(db)
    assert (delivery.status, delivery.attempts, delivery.last_status) == ("pending", 1, status)


async def test_a_commit_wakes_the_dispatcher_at_once(db: Database, running: list[asyncio.Task[None]]) -> None:
    await enable(db)
    with receiving() as receiver:
        _, secret = await endpoint(db, receiver.url)
        # Polling once a minute: only the wake-up on commit can deliver within the second.
        dispatcher = Dispatcher(db, WebhookSettings(allow_private=True, poll_interval=60))
        running.append(asyncio.create_task(dispatcher.run()))
        await asyncio.sleep(0.2)  # started and idle
        for number in range(3):
            committed = time.monotonic()
            await record(db, AuftNr=str(500001 + number), KundNr="100001")
            arrived = (await asyncio.to_thread(receiver.wait_for, number + 1, 5.0))[number]
            assert arrived.at - committed < 1.0
            assert arrived.verified(secret)["data"]["AuftNr"] == str(500001 + number)


async def test_concurrency_is_bounded_and_claims_survive_a_shutdown(
    db: Database, running: list[asyncio.Task[None]]
) -> None:
    settings = WebhookSettings(allow_private=True, concurrency=3, timeout=30, claim_time=60, poll_interval=0.1)
    await enable(db)
    with receiving(lambda _index: NEVER) as dead:
        _, secret = await endpoint(db, dead.url)
        for number in range(8):
            await record(db, AuftNr=str(500001 + number), KundNr="100001")
        task = asyncio.create_task(Dispatcher(db, settings, grace=0.2).run())
        running.append(task)
        await asyncio.to_thread(dead.wait_for, 3, 5.0)
        await asyncio.sleep(0.5)
        assert dead.most_in_flight == 3 and len(dead.received) == 3
        started = time.monotonic()
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)
        assert time.monotonic() - started < 2  # the grace, not the 30 s timeout
    held = [d for d in await stored(db) if d.claimed_until is not None]
    assert len(held) == 3 and all(d.status == "pending" and d.attempts == 0 for d in held)
    # Once the abandoned claims run out, another dispatcher (or this one restarted) sends all eight.
    later = Clock()
    later.now += dt.timedelta(seconds=61)
    with receiving() as alive:
        async with db.writer() as session, session.begin():
            await session.execute(update(WebhookEndpoint).values(url=alive.url))  # the receiver is back
        restarted = Dispatcher(db, WebhookSettings(allow_private=True, concurrency=10), clock=later)
        assert await restarted.run_once() == 8
        received = alive.wait_for(8)
    assert sorted(r.verified(secret)["data"]["AuftNr"] for r in received) == [str(500001 + n) for n in range(8)]
    assert {d.status for d in await stored(db)} == {"delivered"}
