"""SQLite's writers, one at a time, in the order they come, instead of contending on its busy timeout.

SQLite has one writer at a time anyway. Writers that find the write lock taken sleep in SQLite's busy
handler and retry in growing steps (up to 100 ms), so a late writer can overtake those that waited longest:
orders saw a p99 of seconds. Here a writer waits for its turn before it begins: behind the others of its
process on an asyncio lock (FIFO), then behind the other processes (`gateway serve --workers N`, the
command line) on an exclusive flock of a file beside the database, in which the kernel wakes a waiter the
moment the lock is given back. The busy timeout stays as it was for writers that do not queue (migrations,
other programs).
"""

from __future__ import annotations

import asyncio
import fcntl
import os
import sqlite3
from pathlib import Path
from typing import Any


class WriteQueue:
    def __init__(self, timeout: float, lock_file: Path | None = None) -> None:
        self.timeout = timeout  # as SQLite's busy timeout: how long a writer waits for its turn
        self.lock_file = lock_file  # None: this process only (an in-memory database)
        self._turn = asyncio.Lock()
        self._held: int | None = None  # the descriptor holding the file's lock during a transaction

    async def enter(self) -> None:
        try:
            async with asyncio.timeout(self.timeout):
                await self._turn.acquire()
                try:
                    if self.lock_file is not None:
                        self._held = await _lock(self.lock_file)
                except BaseException:
                    self._turn.release()
                    raise
        except TimeoutError:
            # What SQLite says when its busy timeout runs out, so that both are the same outage (503).
            busy = sqlite3.OperationalError("database is locked: no turn to write within the timeout")
            busy.sqlite_errorcode, busy.sqlite_errorname = sqlite3.SQLITE_BUSY, "SQLITE_BUSY"
            raise busy from None

    def leave(self, _transaction: asyncio.Future[Any] | None = None) -> None:
        """Called when the transaction has ended (committed or rolled back), not when its caller left."""
        if self._held is not None:
            _unlock(self._held)
            self._held = None
        self._turn.release()


def lock_file_for(database: str | None) -> Path | None:
    """`gateway.db` -> `gateway.db-writer.lock` beside it; None for an in-memory database."""
    if not database or database == ":memory:" or database.startswith("file:"):
        return None
    return Path(f"{database}-writer.lock")


async def _lock(path: Path) -> int:
    # A descriptor of its own per turn: flock belongs to the open file, and a wait abandoned at the timeout
    # goes on in its thread and must give back only what it gets, never a later writer's lock.
    descriptor = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
        return descriptor  # free: no thread needed
    except BlockingIOError:
        pass
    except BaseException:
        os.close(descriptor)
        raise
    waiting = asyncio.get_running_loop().run_in_executor(None, fcntl.flock, descriptor, fcntl.LOCK_EX)
    try:
        await asyncio.shield(waiting)
    except BaseException:
        waiting.add_done_callback(lambda _: _unlock(descriptor))  # given back as soon as it comes
        raise
    return descriptor


def _unlock(descriptor: int) -> None:
    try:
        fcntl.flock(descriptor, fcntl.LOCK_UN)
    finally:
        os.close(descriptor)
