"""ERP events (REST_Kunde, REST_Auft) written to the outbox in the transaction of their change.

The company attribute RESTEVENTS enables them: its contents is a comma-separated list of event names
(e.g. "REST_Kunde,REST_Auft"); "*" enables every event. Without it, no event is recorded. A recorded event
gets a delivery for every webhook endpoint that subscribes to it (datasources/webhooks/fanout.py).
"""

from __future__ import annotations

import datetime as dt
import uuid
from dataclasses import dataclass

import orjson
from sqlalchemy import select, update
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm.attributes import set_committed_value

from datasources.models import CompanyAttribute, OutboxEvent
from datasources.webhooks import fanout

EVENTS_ATTRIBUTE = "RESTEVENTS"
CUSTOMER_EVENT = "REST_Kunde"
ORDER_EVENT = "REST_Auft"
EVENTS = (ORDER_EVENT, CUSTOMER_EVENT)  # every event the gateway records


# Built once: every order asks.
_SWITCH = select(CompanyAttribute.contents).where(CompanyAttribute.key == EVENTS_ATTRIBUTE)


async def enabled(session: AsyncSession, event: str) -> bool:
    contents = await session.scalar(_SWITCH)
    names = {name.strip().lower() for name in (contents or "").split(",")}
    return "*" in names or event.lower() in names


async def record(session: AsyncSession, event: str, user: str, **fields: str) -> bool:
    """Adds the event to the outbox when the company enables it; True when it was recorded."""
    if not await enabled(session, event):
        return False
    await add(session, event, user, **fields)
    return True


async def add(session: AsyncSession, event: str, user: str, **fields: str) -> None:
    """Adds the event to the outbox, for a caller that asked `enabled` already."""
    now = dt.datetime.now(dt.UTC)
    await _write(session, OutboxEvent(event=event, payload=_payload(event, fields, user, now)), now)


async def reserve(session: AsyncSession, event: str, user: str) -> Reserved:
    """Adds the event to the outbox with its deliveries, its fields to be filled in later in the same
    transaction (`Reserved.fill`): an order writes its event before it takes its number, so that the number's
    lock is held for one more statement only, not for the outbox's and the deliveries' INSERTs."""
    now = dt.datetime.now(dt.UTC)
    outbox = OutboxEvent(event=event, payload="{}")
    await _write(session, outbox, now)
    return Reserved(outbox, event, user, now)


@dataclass(frozen=True, slots=True)
class Reserved:
    outbox: OutboxEvent
    event: str
    user: str
    time: dt.datetime

    async def fill(self, session: AsyncSession, **fields: str) -> None:
        await session.flush()  # the outbox row and its deliveries, if they still wait for a flush
        payload = _payload(self.event, fields, self.user, self.time)
        await session.execute(update(OutboxEvent).where(OutboxEvent.id == self.outbox.id).values(payload=payload))
        set_committed_value(self.outbox, "payload", payload)


async def _write(session: AsyncSession, outbox: OutboxEvent, now: dt.datetime) -> None:
    outbox.message_id, outbox.created_at = new_message_id(), now
    session.add(outbox)
    await fanout.fan_out(session, outbox, now)


def _payload(event: str, fields: dict[str, str], user: str, now: dt.datetime) -> str:
    time = now.strftime("%Y-%m-%dT%H:%M:%SZ")
    return orjson.dumps({"event": event, **fields, "user": user, "time": time}).decode()


def new_message_id() -> str:
    # Random rather than the row's id: ids start again in a new database, and a receiver that remembers
    # the ids it has seen would drop that database's events as repeats.
    return f"msg_{uuid.uuid4().hex}"
