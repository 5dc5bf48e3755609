"""Claims, outcomes and the retry schedule, with time given rather than slept."""

from __future__ import annotations

import asyncio
import datetime as dt
import random

import orjson
import pytest
from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncSession

from datasources.database import Database
from datasources.errors import NotFound
from datasources.models import DeliveryStatus
from datasources.webhooks import claims, deliveries, outcomes
from datasources.webhooks.claims import Claim
from datasources.webhooks.outcomes import Outcome
from datasources.webhooks.schedule import RetrySchedule
from tests import databases
from tests.datasources.webhooks.helpers import T0, due_from, enable, endpoint, one, record, stored

SCHEDULE = RetrySchedule()
SECOND = dt.timedelta(seconds=1)


async def claim(db: Database, now: dt.datetime, claimant: str = "a:1", limit: int = 10) -> list[Claim]:
    async def take(session: AsyncSession) -> list[Claim]:
        return await claims.claim(session, now=now, until=now + 60 * SECOND, claimant=claimant, limit=limit)

    return await db.write(take)


async def finish(db: Database, taken: Claim, outcome: Outcome, now: dt.datetime) -> DeliveryStatus | None:
    rng = random.Random(1)
    return await db.write(
        lambda session: outcomes.record_outcome(session, taken, outcome, now=now, schedule=SCHEDULE, rng=rng)
    )


@pytest.fixture
async def pending(db: Database) -> str:
    """One REST_Auft event for one endpoint; its secret."""
    await enable(db)
    _, secret = await endpoint(db)
    await record(db)
    await due_from(db, T0)
    return secret


async def test_a_claim_carries_the_signed_message_and_holds_the_delivery(db: Database, pending: str) -> None:
    (taken,) = await claim(db, T0)
    assert (taken.url, taken.secret, taken.attempts) == ("http://127.0.0.1:9/hook", pending, 0)
    body = orjson.loads(taken.body)
    assert body["type"] == "REST_Auft" and body["data"]["AuftNr"] == "500001"
    assert await claim(db, T0 + 59 * SECOND, "b:1") == []  # held
    async with db.reader() as session:
        assert not await claims.any_due(session, T0 + 59 * SECOND)
        assert await claims.any_due(session, T0 + 60 * SECOND)
    (again,) = await claim(db, T0 + 60 * SECOND, "b:1")  # the claim ran out: due for anyone
    assert again.message_id == taken.message_id and again.body == taken.body
    # The first claimant's late outcome is not recorded over the second one's claim.
    assert await finish(db, taken, Outcome(status_code=200), T0 + 61 * SECOND) is None
    assert await finish(db, again, Outcome(status_code=204), T0 + 62 * SECOND) is DeliveryStatus.DELIVERED
    delivery = (await stored(db))[0]
    assert (delivery.status, delivery.attempts, delivery.last_status) == ("delivered", 1, 204)
    assert delivery.delivered_at == T0 + 62 * SECOND and delivery.claimed_by is None


async def test_nothing_is_due_before_its_time(db: Database, pending: str) -> None:
    assert await claim(db, T0 - SECOND) == []
    assert len(await claim(db, T0)) == 1


async def test_failures_follow_the_schedule_then_the_delivery_fails(db: Database, pending: str) -> None:
    now = T0
    waits = []
    for attempt in range(1, SCHEDULE.max_attempts + 1):
        (taken,) = await claim(db, now)
        assert taken.attempts == attempt - 1
        outcome = Outcome(status_code=503, answer="busy\x00") if attempt % 2 else Outcome(error="refused")
        status = await finish(db, taken, outcome, now)
        delivery = await one(db, taken.delivery_id)
        if attempt == SCHEDULE.max_attempts:
            assert status is DeliveryStatus.FAILED and delivery.status == "failed"
            break
        assert status is DeliveryStatus.PENDING
        wait = (delivery.next_attempt_at - now).total_seconds()
        assert SCHEDULE.delay(attempt) * 0.8 <= wait <= SCHEDULE.delay(attempt) * 1.2
        waits.append(wait)
        assert await claim(db, delivery.next_attempt_at - SECOND) == []  # not before its time
        now = delivery.next_attempt_at
    assert delivery.attempts == SCHEDULE.max_attempts
    assert (delivery.last_status, delivery.last_answer, delivery.last_error) == (None, None, "refused")
    # About a day from the first attempt to the last, growing waits, each within its jitter.
    assert 0.8 * SCHEDULE.span() <= sum(waits) <= 1.2 * SCHEDULE.span()
    assert 20 * 3600 < SCHEDULE.span() < 26 * 3600
    assert await claim(db, now + dt.timedelta(days=30)) == []  # failed stays failed


async def test_an_answer_is_kept_bounded_and_without_nul(db: Database, pending: str) -> None:
    (taken,) = await claim(db, T0)
    await finish(db, taken, Outcome(status_code=500, answer="\x00" + "é" * 5000), T0)
    delivery = (await stored(db))[0]
    # The start only: enough to see why a receiver refused, too little to read what an endpoint serves.
    assert delivery.last_answer == "\ufffd" + "é" * 199


async def test_retry_makes_failed_deliveries_due_now_with_a_fresh_schedule(db: Database, pending: str) -> None:
    await record(db)
    await due_from(db, T0)
    first, second = await claim(db, T0)
    once = RetrySchedule(max_attempts=1)
    for taken in (first, second):

        async def give_up(session: AsyncSession, taken: Claim = taken) -> None:
            await outcomes.record_outcome(
                session, taken, Outcome(status_code=410), now=T0, schedule=once, rng=random.Random()
            )

        await db.write(give_up)
    assert {d.status for d in await stored(db)} == {"failed"}
    later = T0 + dt.timedelta(days=2)
    assert await db.write(lambda session: deliveries.retry(session, [first.delivery_id], now=later)) == 1
    assert await db.write(lambda session: deliveries.retry(session, None, now=later)) == 1  # the other failed one
    assert [(d.status, d.attempts, d.next_attempt_at) for d in await stored(db)] == [("pending", 0, later)] * 2
    with pytest.raises(NotFound) as missing:
        await db.write(lambda session: deliveries.retry(session, [first.delivery_id, 999, 998], now=later))
    assert missing.value.info == {"ids": [998, 999]}
    async with db.reader() as session:
        failed = await deliveries.list_deliveries(session, status=DeliveryStatus.FAILED)
        everything = await deliveries.list_deliveries(session, limit=1)
    newest = max(first.delivery_id, second.delivery_id)
    assert failed == [] and [d.id for d in everything] == [newest]


@pytest.mark.skipif(databases.backend() != "postgresql", reason="concurrent claimers need PostgreSQL's row locks")
async def test_concurrent_claimers_never_take_the_same_delivery(db: Database, pending: str) -> None:
    for _ in range(29):
        await record(db)
    await due_from(db, T0)
    taken = await asyncio.gather(*(claim(db, T0, f"c:{n}", limit=4) for n in range(10)))
    ids = [c.delivery_id for batch in taken for c in batch]
    assert len(ids) == len(set(ids)) == 30


@pytest.mark.skipif(databases.backend() != "postgresql", reason="SKIP LOCKED is PostgreSQL's; SQLite has one writer")
async def test_a_second_claimer_takes_other_deliveries_at_once_while_the_first_holds_its_own(
    db: Database, pending: str
) -> None:
    for _ in range(5):
        await record(db)
    await due_from(db, T0)
    until = T0 + 60 * SECOND
    async with db.writer() as first, first.begin():
        held = await claims.claim(first, now=T0, until=until, claimant="a:1", limit=3)
        # The first claim is not committed: its rows are locked and still look due to everyone else.
        async with db.writer() as second, second.begin():
            # A claimer that waited for the locked rows (plain FOR UPDATE) fails here instead of hanging
            # until the first commits; SKIP LOCKED never waits for a row.
            await second.execute(text("SET LOCAL lock_timeout = '1s'"))
            others = await claims.claim(second, now=T0, until=until, claimant="b:1", limit=6)
    ids = {c.delivery_id for c in held}, {c.delivery_id for c in others}
    assert len(ids[0]) == len(ids[1]) == 3 and not ids[0] & ids[1]
    assert ids[0] | ids[1] == {d.id for d in await stored(db)}


def test_the_schedule_grows_exponentially_to_its_cap_and_jitters_both_ways() -> None:
    assert [SCHEDULE.delay(n) for n in range(1, 12)] == [
        5, 15, 45, 135, 405, 1215, 3645, 10935, 21600, 21600, 21600,
    ]  # fmt: skip
    rng = random.Random(7)
    spreads = [(SCHEDULE.next_attempt(1, T0, rng) - T0).total_seconds() / 5 for _ in range(200)]  # type: ignore[operator]
    assert 0.8 <= min(spreads) < 0.85 and 1.15 < max(spreads) <= 1.2
    assert SCHEDULE.next_attempt(SCHEDULE.max_attempts, T0, rng) is None
