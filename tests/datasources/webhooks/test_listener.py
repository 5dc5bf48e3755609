"""LISTEN/NOTIFY on PostgreSQL: a commit in any process wakes the listening one, also after its connection
was lost."""

from __future__ import annotations

import asyncio

import pytest
from sqlalchemy import text

from datasources.database import Database
from datasources.webhooks import wakeup
from datasources.webhooks.listener import NotificationListener
from tests import databases

pytestmark = pytest.mark.skipif(databases.backend() != "postgresql", reason="LISTEN/NOTIFY is PostgreSQL's")


async def notify(db: Database) -> None:
    async with db.engine.begin() as conn:
        await conn.execute(text("SELECT pg_notify(:channel, '')"), {"channel": wakeup.CHANNEL})


async def woken_within(woken: asyncio.Event, seconds: float) -> bool:
    try:
        async with asyncio.timeout(seconds):
            await woken.wait()
    except TimeoutError:
        return False
    woken.clear()
    return True


async def test_a_notification_wakes_the_listener_and_survives_a_lost_connection(db: Database) -> None:
    woken = asyncio.Event()
    listener = NotificationListener(
        db.engine.url.render_as_string(hide_password=False), woken.set, connect_timeout=5, retry=0.1
    )
    task = asyncio.create_task(listener.run())
    try:
        assert await woken_within(woken, 5)  # once when listening starts: what it may have missed
        assert not await woken_within(woken, 0.3)
        await notify(db)
        assert await woken_within(woken, 1)
        async with db.engine.begin() as conn:
            terminated = await conn.scalar(
                text(
                    "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "
                    "WHERE datname = current_database() AND query LIKE 'LISTEN%'"
                )
            )
        assert terminated == 1
        assert await woken_within(woken, 5)  # connected again
        await notify(db)
        assert await woken_within(woken, 1)
    finally:
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)
