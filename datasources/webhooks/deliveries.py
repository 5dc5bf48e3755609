"""Deliveries as an operator sees them (listed newest first) and sends again."""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from dataclasses import dataclass

from sqlalchemy import select, update
from sqlalchemy.ext.asyncio import AsyncSession

from datasources.errors import NotFound
from datasources.models import DeliveryStatus, OutboxEvent, WebhookDelivery, WebhookEndpoint
from datasources.webhooks.targets import shown_url


@dataclass(frozen=True, slots=True)
class DeliveryRecord:
    id: int
    event_id: int
    message_id: str | None
    event: str
    endpoint_id: int
    url: str
    status: str
    attempts: int
    next_attempt_at: dt.datetime
    claimed_until: dt.datetime | None
    last_attempt_at: dt.datetime | None
    last_status: int | None
    last_answer: str | None
    last_error: str | None
    created_at: dt.datetime
    delivered_at: dt.datetime | None


async def list_deliveries(
    session: AsyncSession, *, status: DeliveryStatus | None = None, limit: int = 100
) -> list[DeliveryRecord]:
    statement = (
        select(
            WebhookDelivery.id,
            WebhookDelivery.event_id,
            OutboxEvent.message_id,
            OutboxEvent.event,
            WebhookDelivery.endpoint_id,
            WebhookEndpoint.url,
            WebhookDelivery.status,
            WebhookDelivery.attempts,
            WebhookDelivery.next_attempt_at,
            WebhookDelivery.claimed_until,
            WebhookDelivery.last_attempt_at,
            WebhookDelivery.last_status,
            WebhookDelivery.last_answer,
            WebhookDelivery.last_error,
            WebhookDelivery.created_at,
            WebhookDelivery.delivered_at,
        )
        .join(OutboxEvent, OutboxEvent.id == WebhookDelivery.event_id)
        .join(WebhookEndpoint, WebhookEndpoint.id == WebhookDelivery.endpoint_id)
        .order_by(WebhookDelivery.id.desc())
        .limit(limit)
    )
    if status is not None:
        statement = statement.where(WebhookDelivery.status == status)
    rows = await session.execute(statement)
    # The endpoint's URL as it may be shown: never with a password it holds.
    return [DeliveryRecord(**{**row._mapping, "url": shown_url(row.url)}) for row in rows]


async def retry(session: AsyncSession, delivery_ids: Sequence[int] | None, *, now: dt.datetime) -> int:
    """Makes the given deliveries (None: every failed one) due now with a fresh schedule of attempts,
    whatever their status; returns how many. An attempt under way loses its claim: its outcome is not
    recorded, and the delivery is sent again."""
    statement = update(WebhookDelivery).values(
        status=DeliveryStatus.PENDING, attempts=0, next_attempt_at=now, claimed_until=None, claimed_by=None
    )
    if delivery_ids is None:
        statement = statement.where(WebhookDelivery.status == DeliveryStatus.FAILED)
    else:
        wanted = set(delivery_ids)
        found = set(await session.scalars(select(WebhookDelivery.id).where(WebhookDelivery.id.in_(wanted))))
        if missing := sorted(wanted - found):
            raise NotFound(
                f"there is no webhook delivery {', '.join(map(str, missing))}", field="id", info={"ids": missing}
            )
        statement = statement.where(WebhookDelivery.id.in_(wanted))
    result = await session.execute(statement)
    count: int = result.rowcount  # type: ignore[attr-defined]
    return count
