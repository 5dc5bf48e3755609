"""An event's deliveries, one per subscribed endpoint, made in the transaction that records the event.

Fanning out at recording time makes exactly one delivery per event and endpoint, whatever the number of
dispatchers, and a delivery exists exactly when its event was committed. An endpoint added later does not
receive the events recorded before it.
"""

from __future__ import annotations

import datetime as dt

from sqlalchemy import bindparam, insert, select
from sqlalchemy.ext.asyncio import AsyncSession

from datasources import transaction
from datasources.models import DeliveryStatus, WebhookDelivery, WebhookEndpoint
from datasources.transaction import Statement
from datasources.webhooks import wakeup

# Compiled once (datasources/transaction.py).
_ENDPOINTS = Statement(select(WebhookEndpoint.id, WebhookEndpoint.events))
_INSERT = Statement(
    insert(WebhookDelivery)
    .values(
        event_id=bindparam("p_event_id"),
        endpoint_id=bindparam("p_endpoint_id"),
        status=DeliveryStatus.PENDING.value,
        attempts=0,
        next_attempt_at=bindparam("p_due", type_=WebhookDelivery.next_attempt_at.type),
        created_at=bindparam("p_created_at", type_=WebhookDelivery.created_at.type),
    )
    .inline()
)


def subscribes(events: str, event: str) -> bool:
    """Whether an endpoint's stored event list (comma-separated; empty for all) takes `event`."""
    return not events or event.lower() in {name.lower() for name in events.split(",")}


async def fan_out(session: AsyncSession, event_id: int, event: str, now: dt.datetime) -> int:
    """Adds a pending delivery of the outbox event `event_id` (an `event`) for every endpoint that subscribes
    to it; how many."""
    endpoints = await transaction.rows(session, _ENDPOINTS)
    targets = [endpoint_id for endpoint_id, events in endpoints if subscribes(events, event)]
    if not targets:
        return 0
    rows = [
        {"p_event_id": event_id, "p_endpoint_id": endpoint_id, "p_due": now, "p_created_at": now}
        for endpoint_id in targets
    ]
    await transaction.run_many(session, _INSERT, rows)
    await wakeup.announce(session)
    return len(targets)
