"""When ArticleEvents records, on an injected clock: the cursor starts at once, changes wait out the interval
from when they were first seen and from the last events, and an idle look waits for the poll."""

from __future__ import annotations

import datetime as dt

from sqlalchemy import func, select, text

from datasources.database import Database
from datasources.models import OutboxEvent
from gateway.dispatch.article_events import ArticleEvents
from tests.datasources.webhooks.helpers import enable, endpoint
from tests.factories import Factory

POLL, INTERVAL = 30.0, 1.0


class Clock:
    def __init__(self) -> None:
        self.now = dt.datetime.now(dt.UTC)

    def __call__(self) -> dt.datetime:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += dt.timedelta(seconds=seconds)


async def events(db: Database) -> int:
    async with db.reader() as session:
        return int(await session.scalar(select(func.count()).select_from(OutboxEvent)) or 0)


async def erp(db: Database, statement: str) -> None:
    async with db.engine.begin() as connection:
        await connection.execute(text(statement))


async def test_changes_wait_out_the_interval_from_when_they_were_seen(db: Database, factory: Factory) -> None:
    await factory.reference_data()
    for number in ("A-1", "A-2"):
        await factory.article(number)
    await enable(db)
    await endpoint(db, "http://127.0.0.1:9/hook", "REST_Artikel")
    clock = Clock()
    articles = ArticleEvents(db, interval=INTERVAL, poll=POLL, retention=3600.0, clock=clock)

    assert await articles.look() == POLL  # the cursor started, at once: what came before is no event
    assert await articles.look() == POLL  # nothing changed since
    await erp(db, "UPDATE article SET colour = 'rot' WHERE number = 'A-1'")
    assert await articles.look() == INTERVAL  # seen: the interval from now
    clock.advance(0.6)
    await erp(db, "UPDATE article SET colour = 'rot' WHERE number = 'A-2'")
    assert round(await articles.look(), 3) == 0.4  # from when the first was seen, not the second
    assert await events(db) == 0
    clock.advance(0.4)
    assert await articles.look() == POLL  # recorded, both in one event
    assert await events(db) == 1

    clock.advance(0.2)
    await erp(db, "UPDATE article SET colour = 'blau' WHERE number = 'A-1'")
    # Seen now, and the last events 0.2 s ago: the interval from now is the later of the two.
    assert await articles.look() == INTERVAL
    clock.advance(INTERVAL)
    assert await articles.look() == POLL
    assert await events(db) == 2
