"""Recording REST_Artikel events (datasources/catalogue/change_events.py) beside the dispatcher, in every
process that runs one: it looks for changes after the events' cursor and records them, debounced.

It looks every poll interval, and at once when woken: on PostgreSQL by the NOTIFY that every statement
moving a change position sends (migration 0012, the ERP's included), on SQLite by a commit of this process.
Once it sees changes, it waits out the interval (GATEWAY_CATALOGUE_EVENT_SECONDS) from then, and from the
last events any process recorded, so that changes made in quick succession come in one event; then it
records them, if no other process did meanwhile. Time comes from an injected clock.
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime as dt
import logging
from collections.abc import Callable

from sqlalchemy.ext.asyncio import AsyncSession

from datasources.availability import is_outage
from datasources.catalogue import change_events, wakeup
from datasources.catalogue.change_events import Round
from datasources.clock import utcnow
from datasources.database import Database

log = logging.getLogger("gateway.webhooks")


class ArticleEvents:
    def __init__(
        self,
        db: Database,
        *,
        interval: float,
        poll: float,
        retention: float,
        clock: Callable[[], dt.datetime] = utcnow,
    ) -> None:
        self._db = db
        self._interval = interval
        self._poll = poll
        self._retention = retention
        self._clock = clock
        self._postgresql = db.engine.dialect.name == "postgresql"
        self._seen: dt.datetime | None = None  # when this process first saw the changes not recorded yet
        self._failing = False  # since the last look that went through: one log line per episode
        self._wake = asyncio.Event()
        self._loop = asyncio.get_running_loop()

    def wake(self) -> None:
        """From any thread: look now."""
        self._loop.call_soon_threadsafe(self._wake.set)

    async def run(self) -> None:
        """Records until cancelled."""
        stop = _nothing if self._postgresql else wakeup.listen_to_commits(self.wake)
        try:
            while True:
                self._wake.clear()  # before looking: a wake-up while looking is not lost
                try:
                    delay = await self.look()
                    self._failing = False
                except Exception as error:  # the next look tries again; the changes wait in the positions
                    self._failed(error)
                    delay = self._poll
                if delay > 0 and self._seen is not None:
                    await asyncio.sleep(delay)  # waiting out the interval: a wake-up would change nothing
                elif delay > 0:
                    with contextlib.suppress(TimeoutError):
                        async with asyncio.timeout(delay):
                            await self._wake.wait()
        finally:
            stop()

    async def look(self) -> float:
        """Looks once, and records when it is time; the seconds until the next look (0: at once)."""
        now = self._clock()
        async with self._db.reader() as session:
            state = await change_events.read_state(session)
        found = await change_events.pending(
            self._db.reads, state, now=now, postgresql=self._postgresql, retention=self._retention
        )
        if not found:
            self._seen = None
            return self._poll
        # The first look starts the cursor at once; changes wait out the interval from when they were seen.
        self._seen = self._seen or (now - dt.timedelta(seconds=self._interval) if state.cursor is None else now)
        due = max(self._seen + dt.timedelta(seconds=self._interval), state.due(now, self._interval))
        if due > now:
            return _seconds(due - now)
        done = await self._record(now)
        if not done.taken:
            return self._interval  # another process records them; look again after it should have
        if done.due is not None:
            return _seconds(done.due - now)
        self._seen = None
        return 0.0 if done.more else self._poll

    def _failed(self, error: Exception) -> None:
        # An outage is the database's availability's to log (once per episode); anything else once here.
        if not self._failing and not is_outage(error):
            log.error("REST_Artikel events: unexpected error, trying again every poll", exc_info=error)
        self._failing = True

    async def _record(self, now: dt.datetime) -> Round:
        postgresql, interval, retention = self._postgresql, self._interval, self._retention

        async def record(session: AsyncSession) -> Round:
            return await change_events.record(
                session, now=now, interval=interval, postgresql=postgresql, retention=retention
            )

        # Run to its end even when the process stops meanwhile (its task is cancelled): the database is disposed
        # right after, and a transaction still under way would leave its connection behind.
        writing = asyncio.ensure_future(self._db.write(record))
        try:
            return await asyncio.shield(writing)
        except asyncio.CancelledError:
            await asyncio.wait([writing])
            raise


def _seconds(delta: dt.timedelta) -> float:
    return max(delta.total_seconds(), 0.0)


def _nothing() -> None:
    pass
