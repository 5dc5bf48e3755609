"""The catalogue's changes as a live feed (the `catalogueChanges` subscription): batches of changed and
removed ArtNr, each with the change feed's cursor after it (datasources/catalogue/changes.py).

Each subscription reads the changes after a cursor of its own, so `since` replays from any cursor of the
feed (REST's `Cursor` too), and it needs no buffer: it reads its next batch once it has handed out the one
before, at its client's pace, in batches of at most PER_EVENT ArtNr. Once it hears of a change it waits
`interval` seconds before reading, so that the changes made meanwhile come together (as REST_Artikel's do).
What a process shares is the watch: while someone subscribes, one short read per poll tells whether
anything changed after the watch's own cursor, and only then do the subscriptions read theirs. It looks at
once when woken: on PostgreSQL by the NOTIFY of every statement that moves a position (migration 0012's
trigger: the ERP's writes too), on SQLite by this process's commits; other processes' and the ERP's writes
on SQLite are found by the poll.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import logging
from collections.abc import AsyncGenerator, Callable
from dataclasses import dataclass

from datasources.catalogue import wakeup
from datasources.catalogue.change_events import PER_EVENT
from datasources.catalogue.changes import Cursor, current_cursor, read_changes
from datasources.clock import utcnow
from datasources.database import Database
from datasources.live.failures import FailedPolls

log = logging.getLogger("gateway.live")


@dataclass(frozen=True, slots=True)
class CatalogueBatch:
    changed: list[str]  # ArtNr of articles changed, as exposed now
    removed: list[str]  # ArtNr of articles deleted or no longer exposed
    cursor: Cursor  # after them
    more: bool  # another batch follows at once
    read_at: dt.datetime  # aware UTC


class CatalogueWatch:
    def __init__(
        self,
        db: Database,
        *,
        poll_seconds: float,
        interval: float,
        retention: float,
        clock: Callable[[], dt.datetime] = utcnow,
    ) -> None:
        self.db = db
        self.poll_seconds = poll_seconds
        self.interval = interval
        self.retention = retention
        self._clock = clock
        self._postgresql = db.engine.dialect.name == "postgresql"
        self._followers = 0
        self._cursor: Cursor | None = None  # the watch's: None while nobody follows
        self._changed = asyncio.Event()  # set (and replaced) when a look found changes
        self._wake = asyncio.Event()
        self._start = asyncio.Lock()
        self._loop = asyncio.get_running_loop()
        self._failures = FailedPolls(log, "catalogue changes: reading the change positions")

    @property
    def followers(self) -> int:
        return self._followers

    def wake(self) -> None:
        """From any thread: look now."""
        self._loop.call_soon_threadsafe(self._wake.set)

    async def follow(self, since: Cursor | None) -> AsyncGenerator[CatalogueBatch, None]:
        """The changes after `since` (None: from now on), batch by batch, then each as it comes."""
        self._followers += 1
        try:
            await self._started()  # before our cursor is taken: a change after it is one the watch sees
            cursor = since or await current_cursor(self.db.reads, self._postgresql)
            while True:
                changed = self._changed  # before reading: a look that finds more while we read wakes us
                found = await read_changes(
                    self.db.reads, cursor, PER_EVENT, postgresql=self._postgresql, retention=self.retention
                )
                cursor = found.cursor
                if found.changed:
                    yield CatalogueBatch(
                        [change.number for change in found.changed if not change.removed],
                        [change.number for change in found.changed if change.removed],
                        cursor,
                        found.more,
                        self._clock(),
                    )
                if found.more:
                    continue
                await changed.wait()
                # The changes made within the interval from the first come together, as REST_Artikel's do.
                await asyncio.sleep(self.interval)
        finally:
            self._followers -= 1

    async def _started(self) -> None:
        async with self._start:
            if self._cursor is None:
                self._cursor = await current_cursor(self.db.reads, self._postgresql)
                self._wake.set()  # the run loop polls again now that someone follows

    async def run(self) -> None:
        """Watches until cancelled."""
        stop = _nothing if self._postgresql else wakeup.listen_to_commits(self.wake)
        try:
            while True:
                await self._wait()
                try:
                    async with self._start:  # a first follower may be starting the watch meanwhile
                        if not self._followers:
                            self._cursor = None  # nobody to tell: start afresh with the next follower
                        elif self._cursor is not None:
                            await self._look(self._cursor)
                            self._failures.succeeded()
                except Exception as error:  # the next look tries again; the changes wait in the positions
                    self._failures.failed(error)
        finally:
            stop()

    async def _wait(self) -> None:
        try:
            async with asyncio.timeout(self.poll_seconds if self._followers else None):
                await self._wake.wait()
        except TimeoutError:
            pass
        self._wake.clear()

    async def _look(self, cursor: Cursor) -> None:
        # The watch's next cursor is taken before the read: a change committed in between is found again
        # next time, never missed.
        now = await current_cursor(self.db.reads, self._postgresql)
        found = await read_changes(self.db.reads, cursor, 1, postgresql=self._postgresql, retention=self.retention)
        if found.changed:
            changed, self._changed = self._changed, asyncio.Event()
            changed.set()
        self._cursor = now


def _nothing() -> None:
    pass
