"""Claiming due deliveries: a dispatcher takes some for a while, sends them, and records how it went
(outcomes.py). What it claims, no other dispatcher takes until the claim runs out.

On PostgreSQL the due rows are locked with FOR UPDATE SKIP LOCKED, so dispatchers in several processes
claim at once without waiting for each other and never claim the same row; on SQLite the claiming
transaction holds the database's single write lock, which serialises them. A dispatcher killed while it
sends leaves its claims to run out (claimed_until); then the deliveries are due again for any dispatcher.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from sqlalchemy import ColumnElement, and_, or_, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from datasources.models import DeliveryStatus, OutboxEvent, WebhookDelivery, WebhookEndpoint
from datasources.webhooks.messages import message_body


@dataclass(frozen=True, slots=True)
class Claim:
    """A delivery claimed for one attempt, with all that sending it needs."""

    delivery_id: int
    attempts: int  # finished before this one
    message_id: str  # webhook-id
    event: str
    body: bytes
    url: str
    secret: str
    claimant: str  # claimed_by: the outcome is recorded only while the claim is still this one


def _due(now: dt.datetime) -> ColumnElement[bool]:
    return and_(
        WebhookDelivery.status == DeliveryStatus.PENDING,
        WebhookDelivery.next_attempt_at <= now,
        or_(WebhookDelivery.claimed_until.is_(None), WebhookDelivery.claimed_until <= now),
    )


async def any_due(session: AsyncSession, now: dt.datetime) -> bool:
    """A read, so that an idle dispatcher's poll takes no write lock (SQLite) and locks no row."""
    found = await session.scalar(select(WebhookDelivery.id).where(_due(now)).limit(1))
    return found is not None


async def claim(
    session: AsyncSession, *, now: dt.datetime, until: dt.datetime, claimant: str, limit: int
) -> list[Claim]:
    """Up to `limit` due deliveries, the longest due first, claimed for `claimant` until `until`. The
    claimant should be new for every claim (a dispatcher's name and a counter): an outcome found under
    another one, after an operator's retry or an expired claim, is not recorded."""
    rows = (
        await session.execute(
            select(
                WebhookDelivery.id,
                WebhookDelivery.attempts,
                OutboxEvent.id.label("event_id"),
                OutboxEvent.message_id,
                OutboxEvent.event,
                OutboxEvent.payload,
                OutboxEvent.created_at,
                WebhookEndpoint.url,
                WebhookEndpoint.secret,
            )
            .join(OutboxEvent, OutboxEvent.id == WebhookDelivery.event_id)
            .join(WebhookEndpoint, WebhookEndpoint.id == WebhookDelivery.endpoint_id)
            .where(_due(now))
            .order_by(WebhookDelivery.next_attempt_at, WebhookDelivery.id)
            .limit(limit)
            # OF: only the delivery rows. Locking the joined endpoint too would make a second dispatcher
            # skip every delivery to an endpoint the first one holds a row of.
            .with_for_update(skip_locked=True, of=WebhookDelivery)
        )
    ).all()
    if not rows:
        return []
    await session.execute(
        update(WebhookDelivery)
        .where(WebhookDelivery.id.in_([row.id for row in rows]))
        .values(claimed_until=until, claimed_by=claimant)
    )
    return [
        Claim(
            delivery_id=row.id,
            attempts=row.attempts,
            message_id=row.message_id or f"msg_event_{row.event_id}",
            event=row.event,
            body=message_body(row.event, row.created_at, row.payload),
            url=row.url,
            secret=row.secret,
            claimant=claimant,
        )
        for row in rows
    ]
