"""PostgreSQL's pooled connections are checked at checkout for less than pool_pre_ping: a connection the
server closed is replaced, one used a moment ago is trusted, one idle for a while is pinged once."""

from __future__ import annotations

import asyncio

import pytest
from sqlalchemy import select, text
from sqlalchemy.ext.asyncio import create_async_engine

from datasources import liveness
from datasources.database import Database, create_database
from tests import databases

pytestmark = pytest.mark.skipif(databases.backend() != "postgresql", reason="PostgreSQL's connection pool")


async def backend_pid(db: Database) -> int:
    async with db.reader() as session:
        pid: int = await session.scalar(text("SELECT pg_backend_pid()"))
        return pid


async def test_a_connection_the_server_closed_is_replaced_at_checkout(database_url: str) -> None:
    db = create_database(database_url)
    admin = create_async_engine(database_url)
    try:
        pid = await backend_pid(db)
        async with admin.connect() as connection:
            await connection.execute(text("SELECT pg_terminate_backend(:pid, 5000)"), {"pid": pid})
        await asyncio.sleep(0.1)  # the pooled connection sees its end
        assert await backend_pid(db) != pid  # no error: a new connection
    finally:
        await admin.dispose()
        await db.dispose()


async def test_only_a_connection_idle_for_a_while_is_pinged(database_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    pings: list[object] = []
    ping = liveness._ping

    def counted(driver: object) -> None:
        pings.append(driver)
        ping(driver)

    monkeypatch.setattr(liveness, "_ping", counted)
    db = create_database(database_url)
    try:
        for _ in range(3):
            async with db.reader() as session:
                await session.execute(select(1))
        assert pings == []  # just opened, then in use a moment ago

        pid = await backend_pid(db)
        monkeypatch.setattr(liveness, "TRUSTED_SECONDS", 0.0)
        assert await backend_pid(db) == pid  # pinged, answered, and kept: not replaced by a new connection
        assert len(pings) == 1
    finally:
        await db.dispose()
