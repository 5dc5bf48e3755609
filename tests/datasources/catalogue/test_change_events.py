"""REST_Artikel events from the change positions: what the ERP writes with plain SQL on its own connection
becomes events naming the changed and removed ArtNr with the feed's cursor after them, one per interval at
most, split past PER_EVENT articles, recorded once whatever the number of writers, and none while nobody
receives them."""

from __future__ import annotations

import asyncio
import datetime as dt
from typing import Any

import orjson
import pytest
from sqlalchemy import select, text

from datasources.catalogue import change_events, changes
from datasources.catalogue.change_events import Round
from datasources.catalogue.changes import Cursor
from datasources.database import Database, create_database
from datasources.models import OutboxEvent, WebhookDelivery
from tests.datasources.webhooks.helpers import enable, endpoint
from tests.factories import Factory

T0 = dt.datetime.now(dt.UTC)
RETENTION = changes.DEFAULT_RETENTION


def postgresql(db: Database) -> bool:
    return db.engine.dialect.name == "postgresql"


async def erp(db: Database, *statements: str) -> None:
    """Plain SQL in one transaction on a connection of its own, as the ERP writes."""
    async with db.engine.begin() as connection:
        for statement in statements:
            await connection.execute(text(statement))


async def record(db: Database, now: dt.datetime, interval: float = 1.0) -> Round:
    return await db.write(
        lambda session: change_events.record(
            session, now=now, interval=interval, postgresql=postgresql(db), retention=RETENTION
        )
    )


async def recorded(db: Database) -> list[dict[str, Any]]:
    """The REST_Artikel events' payloads, in order."""
    async with db.reader() as session:
        rows = await session.scalars(
            select(OutboxEvent.payload).where(OutboxEvent.event == "REST_Artikel").order_by(OutboxEvent.id)
        )
        return [orjson.loads(payload) for payload in rows]


async def deliveries(db: Database) -> int:
    async with db.reader() as session:
        return len(list(await session.scalars(select(WebhookDelivery.id))))


@pytest.fixture
async def articles(db: Database, factory: Factory) -> None:
    await factory.reference_data()
    for number in ("A-1", "A-2", "A-3", "A-4", "A-5"):
        await factory.article(number)
    await factory.article("H-1", exposed=False)


async def subscribed(db: Database, *names: str) -> None:
    await enable(db)
    await endpoint(db, "http://127.0.0.1:9/hook", *names)


async def test_the_erps_writes_become_an_event_with_their_numbers_and_cursor(db: Database, articles: None) -> None:
    await subscribed(db, "REST_Artikel")
    assert await record(db, T0) == Round()  # the cursor starts here: what came before is no event
    await erp(db, "UPDATE article SET colour = 'rot' WHERE number IN ('A-1', 'A-3', 'H-1')")
    await erp(db, "DELETE FROM article WHERE number = 'A-2'")
    assert await record(db, T0 + dt.timedelta(seconds=2)) == Round(recorded=1)
    [event] = await recorded(db)
    assert (event["event"], sorted(event["Geaendert"]), event["Entfernt"]) == ("REST_Artikel", ["A-1", "A-3"], ["A-2"])
    assert event["MehrVorhanden"] is False and event["time"].endswith("Z")
    assert await deliveries(db) == 1
    # The event's cursor is the feed's, after these changes: reading on from it finds nothing more.
    after = await changes.read_changes(
        db.reads, Cursor.decode(event["Cursor"]), 10, postgresql=postgresql(db), retention=RETENTION
    )
    assert after.changed == []
    assert await record(db, T0 + dt.timedelta(seconds=4)) == Round()  # nothing new: nothing recorded


async def test_one_event_per_interval_at_most(db: Database, articles: None) -> None:
    await subscribed(db)  # every event
    await record(db, T0)
    await erp(db, "UPDATE article SET colour = 'rot' WHERE number = 'A-1'")
    assert await record(db, T0) == Round(recorded=1)
    await erp(db, "UPDATE article SET colour = 'rot' WHERE number = 'A-2'")
    await erp(db, "UPDATE article SET colour = 'rot' WHERE number = 'A-3'")
    soon = T0 + dt.timedelta(seconds=0.4)
    assert await record(db, soon, interval=1.0) == Round(due=T0 + dt.timedelta(seconds=1))
    assert await record(db, T0 + dt.timedelta(seconds=1), interval=1.0) == Round(recorded=1)
    assert [sorted(event["Geaendert"]) for event in await recorded(db)] == [["A-1"], ["A-2", "A-3"]]


async def test_a_large_batch_is_split_each_part_with_its_cursor(
    db: Database, articles: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(change_events, "PER_EVENT", 2)
    monkeypatch.setattr(change_events, "EVENTS_PER_ROUND", 2)
    await subscribed(db, "REST_Artikel")
    await record(db, T0)
    await erp(db, "UPDATE article SET colour = 'rot'")  # five exposed articles, one statement
    first = await record(db, T0 + dt.timedelta(seconds=2))
    assert first == Round(recorded=2, more=True)
    # The rest at once, without waiting for the interval: one batch.
    assert await record(db, T0 + dt.timedelta(seconds=2)) == Round(recorded=1)
    events = await recorded(db)
    assert [len(event["Geaendert"]) for event in events] == [2, 2, 1]
    assert [event["MehrVorhanden"] for event in events] == [True, True, False]
    assert sorted(number for event in events for number in event["Geaendert"]) == ["A-1", "A-2", "A-3", "A-4", "A-5"]
    # Each cursor is after its part: resuming from the first finds the other three.
    rest = await changes.read_changes(
        db.reads, Cursor.decode(events[0]["Cursor"]), 10, postgresql=postgresql(db), retention=RETENTION
    )
    assert sorted(change.number for change in rest.changed) == sorted(events[1]["Geaendert"] + events[2]["Geaendert"])


@pytest.mark.parametrize("switch", ["REST_Auft,REST_Kunde", None])
async def test_nothing_is_recorded_while_nobody_receives_it(db: Database, articles: None, switch: str | None) -> None:
    if switch is None:  # switched on, but the only endpoint takes orders only
        await enable(db, "REST_Artikel")
        await endpoint(db, "http://127.0.0.1:9/hook", "REST_Auft")
    else:  # an endpoint for every event, but RESTEVENTS leaves REST_Artikel out
        await enable(db, switch)
        await endpoint(db)
    await record(db, T0)
    await erp(db, "UPDATE article SET colour = 'rot' WHERE number = 'A-1'")
    assert await record(db, T0 + dt.timedelta(seconds=2)) == Round()
    assert await recorded(db) == []
    # Switched on later, the changes made before are not sent.
    await erp(db, "UPDATE company_attribute SET contents = '*' WHERE key = 'RESTEVENTS'")
    await endpoint(db, "http://127.0.0.1:9/articles", "REST_Artikel")
    await erp(db, "UPDATE article SET colour = 'blau' WHERE number = 'A-2'")
    assert await record(db, T0 + dt.timedelta(seconds=4)) == Round(recorded=1)
    assert [event["Geaendert"] for event in await recorded(db)] == [["A-2"]]


async def test_writers_in_several_processes_record_each_change_once(db: Database, articles: None) -> None:
    await subscribed(db, "REST_Artikel")
    await record(db, T0)
    await erp(db, "UPDATE article SET colour = 'rot'")
    # Four processes' rounds at once, each with its own engine: one records, the others find the state
    # locked (PostgreSQL) or the events just recorded (the interval, SQLite's writers taking turns).
    others = [create_database(str(db.engine.url.render_as_string(hide_password=False))) for _ in range(4)]
    try:
        rounds = await asyncio.gather(*(record(other, T0 + dt.timedelta(seconds=2)) for other in others))
    finally:
        for other in others:
            await other.dispose()
    assert sum(done.recorded for done in rounds) == 1
    assert all(done.recorded or not done.taken or done.due for done in rounds)
    [event] = await recorded(db)
    assert sorted(event["Geaendert"]) == ["A-1", "A-2", "A-3", "A-4", "A-5"]
