"""The engine's settings: SQLite in WAL mode, foreign keys on, writers that queue instead of failing (in
the process, in the order they came)."""

from __future__ import annotations

import asyncio
import sqlite3
from decimal import Decimal
from typing import Any

import pytest
from sqlalchemy import event, func, select, text

from datasources.availability import is_outage
from datasources.database import Database, Timeouts, create_database
from datasources.models import Currency, Warehouse
from tests import databases, unclosed_connections

sqlite_only = pytest.mark.skipif(databases.backend() != "sqlite", reason="SQLite connection settings")


@sqlite_only
async def test_sqlite_runs_in_wal_mode_with_foreign_keys_and_a_busy_timeout(db: Database) -> None:
    async with db.reader() as session:
        assert (await session.execute(text("PRAGMA journal_mode"))).scalar() == "wal"
        assert (await session.execute(text("PRAGMA foreign_keys"))).scalar() == 1
        assert (await session.execute(text("PRAGMA busy_timeout"))).scalar() == 10_000


@sqlite_only
async def test_writers_begin_immediate_and_readers_deferred(db: Database) -> None:
    begins: list[str] = []

    def record(conn: object, cursor: object, statement: str, *args: object) -> None:
        if statement.startswith("BEGIN"):
            begins.append(statement)

    event.listen(db.engine.sync_engine, "before_cursor_execute", record)
    async with db.reader() as session:
        await session.execute(select(1))
    async with db.writer() as session, session.begin():
        await session.execute(select(1))
    assert begins == ["BEGIN", "BEGIN IMMEDIATE"]


async def test_concurrent_writers_all_succeed(db: Database) -> None:
    async def write(index: int) -> None:
        async with db.writer() as session, session.begin():
            session.add(Warehouse(name=f"Lager {index}", location_number=index))
            await session.flush()
            await asyncio.sleep(0)  # give the others a chance to collide

    await asyncio.gather(*(write(i) for i in range(20)))
    async with db.reader() as session:
        assert await session.scalar(select(func.count()).select_from(Warehouse)) == 20


async def test_foreign_keys_are_enforced(db: Database) -> None:
    from sqlalchemy.exc import IntegrityError

    from datasources.models import Customer

    with pytest.raises(IntegrityError):
        async with db.writer() as session, session.begin():
            session.add(Customer(number="1", currency="XXX"))
    async with db.writer() as session, session.begin():
        session.add(Currency(code="CHF", name="Franken", is_leading=True, rounding_step=Decimal("0.05")))
        session.add(Customer(number="1", currency="CHF"))


async def test_a_write_whose_caller_is_cancelled_runs_to_its_end(db: Database) -> None:
    # A request cancelled (its timeout) while writing: the transaction still commits or rolls back, so no
    # connection is left inside BEGIN IMMEDIATE holding SQLite's write lock.
    started, finished = asyncio.Event(), asyncio.Event()

    async def slow_write(session: Any) -> None:
        session.add(Warehouse(name="Spätlager", location_number=77))
        await session.flush()
        started.set()
        await asyncio.sleep(0.2)
        asyncio.get_running_loop().call_soon(finished.set)  # once this transaction is over

    caller = asyncio.ensure_future(db.write(slow_write))
    await started.wait()
    caller.cancel()
    with pytest.raises(asyncio.CancelledError):
        await caller

    async def next_write(session: Any) -> None:
        session.add(Warehouse(name="Nächstes", location_number=78))

    # On SQLite this waits for the cancelled one's lock; on PostgreSQL they run side by side.
    await asyncio.wait_for(db.write(next_write), timeout=5)
    await asyncio.wait_for(finished.wait(), timeout=5)
    for _ in range(50):  # the commit follows the work's end
        async with db.reader() as session:
            names = set(await session.scalars(select(Warehouse.name)))
        if len(names) == 2:
            break
        await asyncio.sleep(0.05)
    assert names == {"Spätlager", "Nächstes"}


async def test_disposing_waits_for_a_write_whose_caller_was_cancelled(database_url: str) -> None:
    # The app's shutdown cancels its dispatcher (or a request) in the middle of a write and disposes the
    # engine: the write, which goes on to its end, must hand its connection back to a pool that is closed
    # after it, not to one already disposed, where nothing closes it (aiosqlite warned when it was collected).
    db = create_database(database_url)
    started = asyncio.Event()

    async def slow_write(session: Any) -> None:
        session.add(Warehouse(name="Späte", location_number=79))
        await session.flush()
        started.set()
        await asyncio.sleep(0.3)

    with unclosed_connections.none_left_unclosed():
        caller = asyncio.ensure_future(db.write(slow_write))
        await started.wait()
        caller.cancel()
        with pytest.raises(asyncio.CancelledError):
            await caller
        await db.dispose()
        del db, caller

        again = create_database(database_url)
        try:
            async with again.reader() as session:  # committed by the time dispose returned
                assert await session.scalar(select(Warehouse.location_number).where(Warehouse.name == "Späte")) == 79
        finally:
            await again.dispose()


@sqlite_only
async def test_sqlite_writers_of_a_process_take_turns_in_the_order_they_came(db: Database) -> None:
    steps: list[tuple[str, int]] = []

    async def write(index: int) -> None:
        async def work(session: Any) -> None:
            steps.append(("begin", index))
            session.add(Warehouse(name=f"Lager {index}", location_number=index))
            await session.flush()
            await asyncio.sleep(0.01)  # the others wait in the queue, not on SQLite's busy timeout
            steps.append(("end", index))

        await db.write(work)

    await asyncio.gather(*(write(index) for index in range(10)))
    assert steps == [(step, index) for index in range(10) for step in ("begin", "end")]


@sqlite_only
async def test_a_sqlite_writer_without_a_turn_within_the_timeout_is_an_outage(database_url: str) -> None:
    db = create_database(database_url, timeouts=Timeouts(statement=0.2))
    holding, release = asyncio.Event(), asyncio.Event()

    async def hold(session: Any) -> None:
        holding.set()
        await release.wait()

    try:
        holder = asyncio.ensure_future(db.write(hold))
        await holding.wait()
        with pytest.raises(sqlite3.OperationalError) as refused:
            await db.write(lambda session: session.execute(select(1)))
        assert is_outage(refused.value)  # answered 503, as when SQLite's busy timeout runs out
        release.set()
        await holder
    finally:
        await db.dispose()


@sqlite_only
async def test_a_sqlite_writer_cancelled_in_the_queue_never_writes(db: Database) -> None:
    holding, release = asyncio.Event(), asyncio.Event()

    async def hold(session: Any) -> None:
        holding.set()
        await release.wait()

    async def add(session: Any) -> None:
        session.add(Warehouse(name="Nie", location_number=1))

    holder = asyncio.ensure_future(db.write(hold))
    await holding.wait()
    queued = asyncio.ensure_future(db.write(add))
    await asyncio.sleep(0.05)
    queued.cancel()
    with pytest.raises(asyncio.CancelledError):
        await queued
    release.set()
    await holder
    await asyncio.wait_for(db.write(lambda session: session.execute(select(1))), timeout=5)  # the queue is free
    async with db.reader() as session:
        assert await session.scalar(select(func.count()).select_from(Warehouse)) == 0
