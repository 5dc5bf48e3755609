"""Engine and session factories for SQLite (embedded default) and PostgreSQL (scale-out)."""

from __future__ import annotations

import asyncio
import os
import sqlite3
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

from sqlalchemy import event
from sqlalchemy.engine import Connection, ExceptionContext, make_url
from sqlalchemy.exc import DBAPIError, DisconnectionError
from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession, async_sessionmaker, create_async_engine
from sqlalchemy.pool import ConnectionPoolEntry

from datasources import folding, guards, liveness, statistics, transaction
from datasources.availability import Availability, sqlite_code
from datasources.catalogue.aggregate_cache import AggregateCache
from datasources.reads import EngineReads, PostgresReads, ProcessReads, SqliteReads
from datasources.statistics import current_stats
from datasources.write_queue import WriteQueue, lock_file_for


@dataclass(frozen=True, slots=True)
class Timeouts:
    """How long a request waits on the database before it is answered 503 (seconds)."""

    connect: float = 5.0  # to open a connection (PostgreSQL)
    statement: float = 10.0  # for one statement's answer; on SQLite, for the lock (its busy timeout)
    pool: float = 5.0  # for a free connection of the pool


@dataclass(frozen=True)
class Database:
    engine: AsyncEngine
    # Short read sessions, one per loader or resolver call; they may run concurrently.
    reader: async_sessionmaker[AsyncSession]
    # One per mutation: one transaction, which on SQLite takes the write lock up front.
    writer: async_sessionmaker[AsyncSession]
    # The catalogue's reads of requests: compiled once, run by the driver in batches (datasources/reads).
    reads: ProcessReads
    availability: Availability = field(default_factory=lambda: Availability("?"))
    # SQLite: writers one at a time, in the order they came (see `write`); None on PostgreSQL.
    write_queue: WriteQueue | None = None
    # Facets and statistics, kept while no article changes (this process's; checked per request).
    aggregates: AggregateCache = field(default_factory=AggregateCache)
    # Writes under way, those whose callers were cancelled among them (see `write`).
    _writes: set[asyncio.Future[Any]] = field(default_factory=set, repr=False, compare=False)

    async def dispose(self) -> None:
        # A write whose caller was cancelled goes on to its end: the engine is disposed after it. Disposed
        # under it, the pool takes its connection back once closed, and nothing ever closes it (aiosqlite
        # warns when it is collected; the app's shutdown cancels its dispatcher in the middle of a write).
        if self._writes:
            await asyncio.wait(set(self._writes))
        await self.reads.close()
        await self.engine.dispose()

    async def write(self, work: Callable[[AsyncSession], Awaitable[T]]) -> T:
        """Runs `work` in one write transaction, committed when it returns, rolled back when it raises,
        and always run to that end, even when the request awaiting it is cancelled (its timeout, a client
        gone). Cancelled half-way, a driver thread could be left inside BEGIN IMMEDIATE, holding SQLite's
        write lock for every later writer. The canceller gets CancelledError while the transaction finishes
        by its own timeouts; an order it stored is found again by its Idempotency-Key or AuftBestellNr.

        On SQLite writers queue for their turn before they begin (datasources/write_queue.py); a writer
        cancelled while it waits in the queue has not begun and leaves without writing."""
        if self.write_queue is not None:
            await self.write_queue.enter()
        stats = current_stats.get()
        if stats is not None:  # from here on the request's answer is this transaction's outcome
            stats.writes_begun += 1

        async def transaction() -> T:
            async with self.writer() as session, session.begin():
                return await work(session)

        task = asyncio.ensure_future(transaction())
        self._writes.add(task)
        task.add_done_callback(self._writes.discard)
        if self.write_queue is not None:
            task.add_done_callback(self.write_queue.leave)  # when the transaction ends, not its caller
        try:
            return await asyncio.shield(task)
        except asyncio.CancelledError:
            task.add_done_callback(_settled)
            raise


T = TypeVar("T")


def _settled(task: asyncio.Future[Any]) -> None:
    # The outcome of a write nobody waits for any more: taken, so asyncio does not report it as lost.
    if not task.cancelled():
        task.exception()


class DatabaseUnavailable(Exception):
    """The database cannot be reached: not running, unknown, the login refused, or it timed out."""


def describe(url: str) -> str:
    """The URL as it may be shown or logged: never with its password."""
    return make_url(url).render_as_string(hide_password=True)


async def check_reachable(db: Database) -> None:
    """Connects once; DatabaseUnavailable with the driver's one-line reason when that fails."""
    try:
        async with db.engine.connect():
            pass
    except (DBAPIError, OSError) as error:
        lines = str(error.orig if isinstance(error, DBAPIError) else error).strip().splitlines()
        reason = lines[0] if lines else type(error).__name__
        url = db.engine.url.render_as_string(hide_password=True)
        raise DatabaseUnavailable(f"cannot reach the database {url}: {reason}") from None


def create_database(url: str, *, echo: bool = False, timeouts: Timeouts = Timeouts()) -> Database:
    engine = create_async_engine(url, echo=echo, **_engine_options(url, timeouts))
    sqlite = engine.dialect.name == "sqlite"
    database = make_url(url).database
    if sqlite:
        file = database if lock_file_for(database) is not None else None
        _configure_sqlite(engine, busy_timeout_ms=round(timeouts.statement * 1000), file=file)
    else:
        liveness.install(engine)
    guards.install(engine.sync_engine)
    statistics.install(engine.sync_engine)
    availability = Availability(describe(url))
    # A statement that got its answer ends an outage episode.
    event.listen(engine.sync_engine, "after_cursor_execute", lambda *_: availability.answered())
    writer_engine = engine.execution_options(sqlite_begin_immediate=True)
    return Database(
        engine=engine,
        reader=async_sessionmaker(engine, expire_on_commit=False),
        writer=async_sessionmaker(writer_engine, expire_on_commit=False),
        availability=availability,
        write_queue=WriteQueue(timeouts.statement, lock_file_for(database)) if sqlite else None,
        reads=_reads(engine, database, availability, timeouts),
    )


def _reads(engine: AsyncEngine, database: str | None, availability: Availability, timeouts: Timeouts) -> ProcessReads:
    if engine.dialect.name != "sqlite":
        return PostgresReads(engine, availability, timeouts=timeouts)
    if database is None or lock_file_for(database) is None:  # in memory, or a URI: only the engine reaches it
        return EngineReads(engine)
    return SqliteReads(database, engine.dialect, availability, busy_timeout=timeouts.statement)


def _engine_options(url: str, timeouts: Timeouts) -> dict[str, Any]:
    if make_url(url).get_backend_name() == "sqlite":
        # The most recently returned connection first, as on PostgreSQL: here each connection has its own page
        # cache (SQLite's, up to 2 MB), which stays warm when the same few are used.
        return {"connect_args": {"timeout": timeouts.statement}, "pool_timeout": timeouts.pool, "pool_use_lifo": True}
    return {
        "pool_size": 10,
        "max_overflow": 10,
        # No pre-ping (three round trips per checkout): datasources/liveness.py checks for less. The most
        # recently returned connection is handed out first, so under load the same few stay in use.
        "pool_use_lifo": True,
        "pool_timeout": timeouts.pool,
        # asyncpg: `timeout` bounds connecting, `command_timeout` every statement (a frozen server too).
        "connect_args": {"timeout": timeouts.connect, "command_timeout": timeouts.statement},
    }


_OPENED_READ_ONLY = "gateway_opened_read_only"


def _writable(file: str) -> bool:
    # SQLite opens the file read-only when it cannot open it for writing. Asked with access(2), never by
    # opening it: closing a descriptor of the file would drop every POSIX lock the process's SQLite
    # connections hold on it.
    return os.access(file, os.W_OK) or not os.path.exists(file)  # a file not made yet is created writable


_SQLITE_REOPEN = frozenset({sqlite3.SQLITE_READONLY, sqlite3.SQLITE_IOERR, sqlite3.SQLITE_CANTOPEN})


def _configure_sqlite(engine: AsyncEngine, *, busy_timeout_ms: int, file: str | None) -> None:
    @event.listens_for(engine.sync_engine, "connect")
    def on_connect(dbapi_connection: Any, record: ConnectionPoolEntry) -> None:
        # SQLite opens the file read-only when it cannot open it for writing (chmod, a read-only mount), and
        # such a connection stays read-only: noted, so that it is replaced once the file is writable again.
        record.info[_OPENED_READ_ONLY] = file is not None and not _writable(file)
        # Let SQLAlchemy emit BEGIN itself (pysqlite's own transaction handling defers it badly).
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute(f"PRAGMA busy_timeout={busy_timeout_ms}")
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.execute("PRAGMA synchronous=NORMAL")
        # Reads through read() calls, not a memory map of the file: a mapped file that shrinks or cannot be
        # paged in (another program, a failing disk) kills the process with SIGBUS instead of an I/O error
        # that is answered 503. The default of most builds, said here so that no build's default decides.
        cursor.execute("PRAGMA mmap_size=0")
        cursor.close()
        dbapi_connection.create_function(folding.SQLITE_FUNCTION, 1, folding.fold_text, deterministic=True)

    @event.listens_for(engine.sync_engine, "checkout")
    def on_checkout(_dbapi_connection: Any, record: ConnectionPoolEntry, _proxy: Any) -> None:
        # Replaced before its first write meets the file writable again (the pool opens another one), so no
        # request is refused for the outage once it is over.
        if record.info.get(_OPENED_READ_ONLY) and file is not None and _writable(file):
            raise DisconnectionError("opened while the database file was read-only; it is writable again")

    @event.listens_for(engine.sync_engine, "handle_error")
    def on_error(context: ExceptionContext) -> None:
        # A connection that still meets a read-only file (made read-only after it was opened or checked out,
        # or could not be opened) is dropped like a lost one, so the pool opens a new one.
        if sqlite_code(context.original_exception) in _SQLITE_REOPEN:
            context.is_disconnect = True

    @event.listens_for(engine.sync_engine, "begin")
    def on_begin(conn: Connection) -> None:
        # A deferred transaction that later writes can fail with SQLITE_BUSY instead of waiting;
        # IMMEDIATE takes the write lock at BEGIN, so concurrent writers queue on the busy timeout.
        immediate = conn.get_execution_options().get("sqlite_begin_immediate", False)
        transaction.run_in_greenlet(conn, "BEGIN IMMEDIATE" if immediate else "BEGIN")
