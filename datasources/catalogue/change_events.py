"""REST_Artikel events: the catalogue's changes, read from the change positions (changes.py) and recorded in
the outbox as events that name the changed and removed ArtNr and the feed's cursor after them, for the
webhook endpoints that subscribe to them (the dispatcher delivers them as any other event).

The changes come from the positions the triggers keep, not from the gateway's writes: what the ERP writes
on its own connection makes events too. One row of `article_event_state` holds the cursor after the last
events. Whoever records the next ones locks it (PostgreSQL: FOR UPDATE SKIP LOCKED, so that a process that
finds it locked leaves the round to the one holding it; SQLite: the write lock), reads the changes after
it, records them and moves it, in one transaction: each change is in one event, whatever the number of
gateway processes.

Events are recorded at most once per interval (the row's `produced_at`, read under the lock by every
process): changes made meanwhile come together in the next. A batch of more than PER_EVENT articles becomes
several events, each with the cursor after its part. While no endpoint subscribes to REST_Artikel, or
RESTEVENTS does not enable it, the cursor is moved past the changes without events, so that switching them
on later does not send what changed before.
"""

from __future__ import annotations

import datetime as dt
import logging
from dataclasses import dataclass

from sqlalchemy import select, update
from sqlalchemy.ext.asyncio import AsyncSession

from datasources import events
from datasources.catalogue.changes import Changes, Cursor, Gone, current_cursor, read_changes
from datasources.models import ArticleEventState, WebhookEndpoint
from datasources.reads import Reads
from datasources.transaction import TransactionReads
from datasources.webhooks.fanout import subscribes

PER_EVENT = 1000  # ArtNr, changed and removed, in one event
EVENTS_PER_ROUND = 20  # events recorded in one transaction; what is left follows in the next at once
STATE_ID = 1

log = logging.getLogger("gateway.webhooks")


@dataclass(frozen=True, slots=True)
class State:
    cursor: Cursor | None  # None: not started (migration 0012 leaves it so)
    produced_at: dt.datetime | None

    def due(self, now: dt.datetime, interval: float) -> dt.datetime:
        """The earliest time the next events may be recorded."""
        if self.produced_at is None:
            return now
        return max(now, self.produced_at + dt.timedelta(seconds=interval))


@dataclass(frozen=True, slots=True)
class Round:
    """What one attempt to record came to."""

    recorded: int = 0  # events recorded
    more: bool = False  # changes are left: record again at once
    taken: bool = True  # False: another process holds the state, it records them
    due: dt.datetime | None = None  # too early (the interval since the last events): try again then


async def read_state(session: AsyncSession) -> State:
    row = (
        await session.execute(
            select(ArticleEventState.cursor, ArticleEventState.produced_at).where(ArticleEventState.id == STATE_ID)
        )
    ).one()
    return _state(row.cursor, row.produced_at)


def _state(cursor: str | None, produced_at: dt.datetime | None) -> State:
    return State(None if cursor is None else Cursor.decode(cursor), produced_at)


async def pending(reads: Reads, state: State, *, now: dt.datetime, postgresql: bool, retention: float) -> bool:
    """Whether a round has something to do: changes after the state's cursor, or a cursor to start, or one to
    renew before it grows too old. A read, so that an idle process takes no lock."""
    if state.cursor is None or state.cursor.started < now.timestamp() - retention / 2:
        return True
    try:
        found = await read_changes(reads, state.cursor, 1, postgresql=postgresql, retention=retention)
    except Gone:
        return True
    return bool(found.changed)


async def record(
    session: AsyncSession, *, now: dt.datetime, interval: float, postgresql: bool, retention: float
) -> Round:
    """One round, in the caller's write transaction: the state locked, the changes after its cursor recorded
    as events (at most EVENTS_PER_ROUND), the cursor moved after them."""
    locked = (
        await session.execute(
            select(ArticleEventState.cursor, ArticleEventState.produced_at)
            .where(ArticleEventState.id == STATE_ID)
            .with_for_update(skip_locked=True)
        )
    ).one_or_none()
    if locked is None:
        return Round(taken=False)
    state = _state(locked.cursor, locked.produced_at)
    if state.due(now, interval) > now:
        return Round(due=state.due(now, interval))
    reads = TransactionReads(session)
    cursor = state.cursor
    if cursor is not None and cursor.started < now.timestamp() - retention:
        log.warning("REST_Artikel: the events' cursor is older than the changes kept; going on from now")
        cursor = None
    if cursor is None or not await _delivered(session):
        # Nobody receives them (or nothing started yet): on from here, without reading what changed.
        await _move(session, await current_cursor(reads, postgresql), state.produced_at if cursor is None else now)
        return Round()
    recorded, more = 0, False
    while recorded < EVENTS_PER_ROUND:
        found = await read_changes(reads, cursor, PER_EVENT, postgresql=postgresql, retention=retention)
        cursor, more = found.cursor, found.more
        if not found.changed:
            break
        await events.add_payload(session, events.ARTICLE_EVENT, payload(found))
        recorded += 1
        if not more:
            break
    # A batch left half-way is due again at once: its rest is no new batch to wait for.
    await _move(session, cursor, None if more else now if recorded else state.produced_at)
    return Round(recorded=recorded, more=more)


def payload(found: Changes) -> dict[str, object]:
    """The event's fields beside `event` and `time` (docs/how-to/webhooks.md)."""
    return {
        "Geaendert": [change.number for change in found.changed if not change.removed],
        "Entfernt": [change.number for change in found.changed if change.removed],
        "Cursor": found.cursor.encode(),
        "MehrVorhanden": found.more,
    }


async def _delivered(session: AsyncSession) -> bool:
    """Whether RESTEVENTS enables REST_Artikel and an endpoint subscribes to it: else no event is recorded."""
    if not await events.enabled(session, events.ARTICLE_EVENT):
        return False
    lists = await session.scalars(select(WebhookEndpoint.events))
    return any(subscribes(names, events.ARTICLE_EVENT) for names in lists)


async def _move(session: AsyncSession, cursor: Cursor, produced_at: dt.datetime | None) -> None:
    await session.execute(
        update(ArticleEventState)
        .where(ArticleEventState.id == STATE_ID)
        .values(cursor=cursor.encode(), produced_at=produced_at)
    )
