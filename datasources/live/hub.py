"""One process's live feed: a poller that reads newly committed outbox events (woken at once by this
process's commits, and every `poll_seconds` for those of other processes and hosts) and hands each to the
process's subscribers. Each subscriber has a bounded buffer; one that falls further behind is dropped
(SlowConsumer) rather than left to grow memory. An event for a full buffer waits a little for room (PATIENCE),
so that a burst larger than the buffer reaches a subscriber that keeps taking. The poller reads only while
someone subscribes."""

from __future__ import annotations

import asyncio
import contextlib
import datetime as dt
import logging
from collections import deque
from collections.abc import AsyncGenerator, AsyncIterator, Callable, Collection
from typing import Any

from datasources.clock import utcnow
from datasources.database import Database
from datasources.live import feed
from datasources.live.failures import FailedPolls
from datasources.live.feed import LiveEvent

log = logging.getLogger("gateway.live")
# Seconds a subscriber whose buffer is full is waited for (the feed hands out nothing meanwhile) before it is
# dropped as slow: a client that reads as events come takes a buffer of them in well under a second.
PATIENCE = 2.0


class SlowConsumer(Exception):
    """A subscriber's buffer overflowed: it did not take its events as fast as they came."""


class Subscriber:
    def __init__(self, events: frozenset[str], buffer: int, after: int) -> None:
        self.events = events
        self.after = after  # the last id handed out, or skipped as already seen
        self._buffer = buffer
        self._queue: deque[LiveEvent] = deque()
        self._ready = asyncio.Event()
        self._taken = asyncio.Event()
        self.overflowed = False
        self.gone = False  # unsubscribed: nothing waits for it any more

    def leave(self) -> None:
        self.gone = True
        self._taken.set()

    def wants(self, event: LiveEvent) -> bool:
        return event.event in self.events and event.id > self.after and not self.overflowed

    def full(self) -> bool:
        return len(self._queue) >= self._buffer

    def offer(self, event: LiveEvent) -> None:
        if not self.wants(event):
            return
        if self.full():
            self.overflowed = True
            self._queue.clear()
        else:
            self._queue.append(event)
        self._ready.set()

    async def room(self) -> None:
        """Until the subscriber has taken half of its buffer."""
        while len(self._queue) > self._buffer // 2 and not self.overflowed and not self.gone:
            self._taken.clear()
            await self._taken.wait()

    async def next(self) -> LiveEvent:
        while not self._queue and not self.overflowed:
            self._ready.clear()
            await self._ready.wait()
        if self.overflowed:
            raise SlowConsumer(f"more than {self._buffer} events waited to be sent")
        event = self._queue.popleft()
        self.after = event.id
        self._taken.set()
        return event


class Hub:
    def __init__(
        self,
        db: Database,
        *,
        poll_seconds: float,
        gap_seconds: float,
        buffer: int,
        patience: float = PATIENCE,
        clock: Callable[[], dt.datetime] = utcnow,
    ) -> None:
        self.db = db
        self.poll_seconds = poll_seconds
        self.gap = dt.timedelta(seconds=gap_seconds)
        self.buffer = buffer
        self.patience = patience
        self._clock = clock
        self._subscribers: set[Subscriber] = set()
        self._high: int | None = None  # the last event handed out; None while nobody subscribes
        self._wake = asyncio.Event()
        self._start = asyncio.Lock()
        self._loop = asyncio.get_running_loop()
        self._failures = FailedPolls(log, "live feed: reading the outbox")

    @property
    def subscribers(self) -> int:
        return len(self._subscribers)

    def wake(self) -> None:
        """From any thread: read the outbox now."""
        self._loop.call_soon_threadsafe(self._wake.set)

    async def subscribe(self, events: Collection[str], since: int | None = None) -> AsyncGenerator[LiveEvent, None]:
        """The events named, recorded after the position `since` (None: from now on), as they come."""
        high = await self._started()
        subscriber = Subscriber(frozenset(events), self.buffer, max(high, since or 0))
        # No await between reading the position and joining: every event after it reaches the subscriber.
        self._subscribers.add(subscriber)
        self._wake.set()
        try:
            if since is not None and since < high:
                async for event in self._replay(since, high, subscriber.events):
                    yield event
            while True:
                yield await subscriber.next()
        finally:
            self._subscribers.discard(subscriber)
            subscriber.leave()

    async def _started(self) -> int:
        async with self._start:
            if self._high is None:
                async with self.db.reader() as session:
                    self._high = await feed.settled_before(session, self._clock() - self.gap)
            # Up to what is committed now, before the new subscriber's position: other processes' events
            # since the last poll came before it (the earlier subscribers get them here).
            await self._poll()
            return self._high

    async def _replay(self, since: int, up_to: int, events: frozenset[str]) -> AsyncIterator[LiveEvent]:
        after = since
        while True:
            async with self.db.reader() as session:
                page = await feed.read_after(session, after, up_to=up_to, events=events)
            for event in page:
                yield event
            if len(page) < feed.PAGE:
                return
            after = page[-1].id

    async def run(self) -> None:
        """Polls until cancelled."""
        while True:
            await self._wait()
            try:
                # Under the lock: a first subscriber may be starting the feed (_started) meanwhile.
                async with self._start:
                    if not self._subscribers:
                        self._high = None  # nobody to hand anything to: start afresh with the next subscriber
                    elif self._high is not None:
                        await self._poll()
                        self._failures.succeeded()
            except Exception as error:  # the next poll tries again; subscribers wait, nothing is lost
                self._failures.failed(error)

    async def _wait(self) -> None:
        timeout: Any = self.poll_seconds if self._subscribers else None
        try:
            async with asyncio.timeout(timeout):
                await self._wake.wait()
        except TimeoutError:
            pass
        self._wake.clear()

    async def _room_for(self, event: LiveEvent) -> None:
        """Waits for the subscribers whose buffers the event would overflow to take half of them, at most
        `patience` seconds: a burst larger than a buffer (an import's article events, found by one poll) goes
        to a subscriber that keeps taking; one that takes nothing meanwhile is dropped as slow."""
        full = [subscriber.room() for subscriber in self._subscribers if subscriber.wants(event) and subscriber.full()]
        if full:
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(self.patience):
                    await asyncio.gather(*full)

    async def _poll(self) -> None:
        assert self._high is not None
        while True:
            async with self.db.reader() as session:
                page = await feed.read_after(session, self._high)
            settled = feed.settled_prefix(page, self._high, self._clock(), self.gap)
            for event in settled:
                await self._room_for(event)
                for subscriber in list(self._subscribers):
                    subscriber.offer(event)
                self._high = event.id
            if len(settled) < feed.PAGE:
                return
