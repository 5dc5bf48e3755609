"""Reading committed outbox events in id order, and how far that order can be trusted.

On PostgreSQL ids come from a sequence when a row is inserted, and transactions commit in any order: an
event whose id is missing below a committed one may still be on its way (its transaction is open) or
never come (rolled back). The feed stops before such a gap until it fills, or until the event after it was
recorded `gap_seconds` ago: by then the transaction that took the missing id has ended one way or the
other. So subscribers see events in id order, and a cursor (an id) is a true position. On SQLite writers
take turns and ids follow commits: there are no gaps to wait for.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass

import orjson
from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession

from datasources.models import OutboxEvent

PAGE = 500  # events read at once


@dataclass(frozen=True, slots=True)
class LiveEvent:
    id: int
    event: str  # REST_Auft, REST_Kunde
    fields: Mapping[str, object]  # the payload: AuftNr and KundNr, DebiNr, ...
    occurred_at: dt.datetime  # aware UTC


async def read_after(
    session: AsyncSession,
    after: int,
    *,
    up_to: int | None = None,
    events: Collection[str] | None = None,
    limit: int = PAGE,
) -> list[LiveEvent]:
    """Committed events with an id above `after` (and at most `up_to`; of the `events` named), in id order."""
    stmt = select(OutboxEvent.id, OutboxEvent.event, OutboxEvent.payload, OutboxEvent.created_at).where(
        OutboxEvent.id > after
    )
    if up_to is not None:
        stmt = stmt.where(OutboxEvent.id <= up_to)
    if events is not None:
        stmt = stmt.where(OutboxEvent.event.in_(sorted(events)))
    rows = await session.execute(stmt.order_by(OutboxEvent.id).limit(limit))
    return [LiveEvent(row[0], row[1], _fields(row[2]), row[3]) for row in rows]


async def settled_before(session: AsyncSession, moment: dt.datetime) -> int:
    """The highest id of the events recorded before `moment` (0 without any): where a feed may start, with
    every gap below it closed."""
    found = await session.scalar(select(func.max(OutboxEvent.id)).where(OutboxEvent.created_at < moment))
    return int(found or 0)


def settled_prefix(events: Sequence[LiveEvent], after: int, now: dt.datetime, gap: dt.timedelta) -> list[LiveEvent]:
    """The events that may be handed out now: up to the first gap still open."""
    taken: list[LiveEvent] = []
    expected = after + 1
    for event in events:
        if event.id != expected and now - event.occurred_at < gap:
            break
        taken.append(event)
        expected = event.id + 1
    return taken


def _fields(payload: str) -> Mapping[str, object]:
    try:
        loaded = orjson.loads(payload)
    except orjson.JSONDecodeError:
        return {}
    return loaded if isinstance(loaded, dict) else {}
