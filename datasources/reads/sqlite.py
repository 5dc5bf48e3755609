"""Reads on SQLite: connections of the process's own, kept open for its life, read-only (`PRAGMA
query_only`), each statement its own transaction as the short read sessions' were (in WAL mode a read never
waits for the writer, nor the writer for it).

A small read, rows found by an index for a page at most (Query.small), runs on the event loop's thread at
once: a few rows take microseconds, less than handing them to a thread and back, and a page's rows take a
few milliseconds, where a reading thread and the event loop would hand the GIL to each other for every row
(several times the read's own CPU). Every other read of a batch (batch.py) goes to one of a few reading
threads in one hand-off, so that a long one (a whole catalogue, a search) does not hold up the event loop,
and several can run at once. A small read that finds the database busy (a rare checkpoint) waits for it in
a thread.
"""

from __future__ import annotations

import asyncio
import sqlite3
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from functools import partial
from typing import Any

from sqlalchemy.engine import Dialect

from datasources import folding, guards
from datasources.availability import Availability, sqlite_code
from datasources.reads.batch import Batches, Pending
from datasources.reads.query import Query, Row

THREADS = 4  # long reads at once; one (a whole catalogue) does not hold up the others
# How long a read on the event loop's thread waits for a busy database before it goes to a thread.
INLINE_BUSY_TIMEOUT = 0.05

# What a statement comes back with: its rows or its error, and how long it took.
_Outcome = tuple[list[Row] | None, BaseException | None, float]


class SqliteReads:
    def __init__(self, path: str, dialect: Dialect, availability: Availability, busy_timeout: float) -> None:
        self.path = path
        self.dialect = dialect
        self.busy_timeout = busy_timeout
        self.availability = availability
        self._batches = Batches(self._run, availability)
        self._executor = ThreadPoolExecutor(THREADS, thread_name_prefix="sqlite-reads")
        self._local = threading.local()
        self._opened: list[sqlite3.Connection] = []
        self._lock = threading.Lock()

    def rows(self, query: Query, /, **params: Any) -> asyncio.Future[list[Row]]:
        guards.check(params)
        compiled = query.compiled(self.dialect)
        return self._batches.add(compiled, compiled.arguments(params), query.small(params))

    def _run(self, batch: list[Pending]) -> None:
        elsewhere = [pending for pending in batch if not pending.small]
        for pending in batch:
            if pending.small and not self._settle_one(pending, self._execute_one(self._inline(), pending)):
                elsewhere.append(pending)  # busy: it waits in a thread
        if elsewhere:
            statements = [(pending.compiled.sql, pending.arguments) for pending in elsewhere]
            job = asyncio.get_running_loop().run_in_executor(self._executor, self._execute, statements)
            job.add_done_callback(partial(self._settle, elsewhere))

    def _settle(self, batch: list[Pending], job: asyncio.Future[list[_Outcome]]) -> None:
        failure = RuntimeError("the read was not run") if job.cancelled() else job.exception()
        if failure is not None:  # the executor was shut down: the process ends
            for pending in batch:
                pending.failed(failure)
            return
        for pending, outcome in zip(batch, job.result(), strict=True):
            self._settle_one(pending, outcome, busy_is_final=True)

    def _settle_one(self, pending: Pending, outcome: _Outcome, *, busy_is_final: bool = False) -> bool:
        """Hands the outcome to its query; False for a busy database that the read may still wait for."""
        raw, error, seconds = outcome
        if error is None:
            assert raw is not None
            pending.answered(raw, seconds)
            self.availability.answered()
        elif busy_is_final or not _busy(error):
            pending.failed(error, seconds)
        else:
            return False
        return True

    def _execute(self, statements: list[tuple[str, tuple[Any, ...]]]) -> list[_Outcome]:
        """In a reading thread: every statement of the batch, each on its own."""
        try:
            connection = self._connection()
        except sqlite3.Error as error:
            return [(None, error, 0.0)] * len(statements)
        return [_run_statement(connection, sql, arguments) for sql, arguments in statements]

    def _execute_one(self, connection: sqlite3.Connection | BaseException, pending: Pending) -> _Outcome:
        if isinstance(connection, BaseException):
            return None, connection, 0.0
        return _run_statement(connection, pending.compiled.sql, pending.arguments)

    def _inline(self) -> sqlite3.Connection | BaseException:
        """The event loop thread's connection, opened on first use."""
        try:
            connection: sqlite3.Connection = self._local.connection
        except AttributeError:
            try:
                connection = self._open(INLINE_BUSY_TIMEOUT)
            except sqlite3.Error as error:
                return error
        return connection

    def _connection(self) -> sqlite3.Connection:
        """A reading thread's connection, opened on first use."""
        try:
            connection: sqlite3.Connection = self._local.connection
        except AttributeError:
            connection = self._open(self.busy_timeout)
        return connection

    def _open(self, busy_timeout: float) -> sqlite3.Connection:
        # isolation_level=None: no transaction of sqlite3's own; each statement is its own.
        connection = sqlite3.connect(self.path, timeout=busy_timeout, isolation_level=None, check_same_thread=False)
        connection.execute("PRAGMA query_only = ON")
        connection.execute("PRAGMA mmap_size = 0")  # as the engine's connections (datasources/database.py)
        connection.create_function(folding.SQLITE_FUNCTION, 1, folding.fold_text, deterministic=True)
        self._local.connection = connection
        with self._lock:
            self._opened.append(connection)
        return connection

    async def close(self) -> None:
        await asyncio.to_thread(self._executor.shutdown, wait=True)
        with self._lock:
            opened, self._opened = self._opened, []
        for connection in opened:
            connection.close()


def _run_statement(connection: sqlite3.Connection, sql: str, arguments: tuple[Any, ...]) -> _Outcome:
    started = time.perf_counter()
    try:
        rows: list[Row] = connection.execute(sql, arguments).fetchall()
    except sqlite3.Error as error:
        return None, error, time.perf_counter() - started
    return rows, None, time.perf_counter() - started


def _busy(error: BaseException) -> bool:
    return sqlite_code(error) in (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED)
