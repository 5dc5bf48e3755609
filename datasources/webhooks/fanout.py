"""An event's deliveries, one per subscribed endpoint, made in the transaction that records the event.

Fanning out at recording time makes exactly one delivery per event and endpoint, whatever the number of
dispatchers, and a delivery exists exactly when its event was committed. An endpoint added later does not
receive the events recorded before it.
"""

from __future__ import annotations

import datetime as dt

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from datasources.models import DeliveryStatus, OutboxEvent, WebhookDelivery, WebhookEndpoint
from datasources.webhooks import wakeup


def subscribes(events: str, event: str) -> bool:
    """Whether an endpoint's stored event list (comma-separated; empty for all) takes `event`."""
    return not events or event.lower() in {name.lower() for name in events.split(",")}


async def fan_out(session: AsyncSession, event: OutboxEvent, now: dt.datetime) -> int:
    """Adds a pending delivery of `event` (added to the session) for every endpoint that subscribes to it."""
    endpoints = (await session.execute(select(WebhookEndpoint.id, WebhookEndpoint.events))).all()
    targets = [endpoint_id for endpoint_id, events in endpoints if subscribes(events, event.event)]
    if not targets:
        return 0
    await session.flush()  # the event's id
    session.add_all(
        WebhookDelivery(
            event_id=event.id,
            endpoint_id=endpoint_id,
            status=DeliveryStatus.PENDING,
            attempts=0,
            next_attempt_at=now,
            created_at=now,
        )
        for endpoint_id in targets
    )
    await wakeup.announce(session)
    return len(targets)
