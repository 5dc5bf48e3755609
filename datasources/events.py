"""ERP events (REST_Kunde, REST_Auft) written to the outbox in the transaction of their change.

The company attribute RESTEVENTS enables them: its contents is a comma-separated list of event names
(e.g. "REST_Kunde,REST_Auft"); "*" enables every event. Without it, no event is recorded.
"""

from __future__ import annotations

import datetime as dt

import orjson
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from datasources.models import CompanyAttribute, OutboxEvent

EVENTS_ATTRIBUTE = "RESTEVENTS"
CUSTOMER_EVENT = "REST_Kunde"
ORDER_EVENT = "REST_Auft"


async def enabled(session: AsyncSession, event: str) -> bool:
    contents = await session.scalar(select(CompanyAttribute.contents).where(CompanyAttribute.key == EVENTS_ATTRIBUTE))
    names = {name.strip().lower() for name in (contents or "").split(",")}
    return "*" in names or event.lower() in names


async def record(session: AsyncSession, event: str, user: str, **fields: str) -> bool:
    """Adds the event to the outbox when the company enables it; True when it was recorded."""
    if not await enabled(session, event):
        return False
    now = dt.datetime.now(dt.UTC)
    payload = {"event": event, **fields, "user": user, "time": now.strftime("%Y-%m-%dT%H:%M:%SZ")}
    session.add(OutboxEvent(event=event, payload=orjson.dumps(payload).decode(), created_at=now))
    return True
