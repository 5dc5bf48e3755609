"""The outbox's backlog as monitoring sees it: deliveries still to make, how long the oldest has waited,
and those given up on."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession

from datasources.models import DeliveryStatus, WebhookDelivery


@dataclass(frozen=True, slots=True)
class Backlog:
    pending: int  # not delivered yet, whether due now or waiting for a retry
    oldest_pending_at: dt.datetime | None  # when the longest waiting one was made
    failed: int  # out of attempts: delivered only if an operator retries them

    def oldest_pending_age(self, now: dt.datetime) -> float:
        """Seconds the oldest pending delivery has waited; 0 when none waits."""
        if self.oldest_pending_at is None:
            return 0.0
        return max(0.0, (now - self.oldest_pending_at).total_seconds())


async def backlog(session: AsyncSession) -> Backlog:
    # One statement over the status index; delivered rows, the bulk of the table, are not read.
    rows = await session.execute(
        select(WebhookDelivery.status, func.count(), func.min(WebhookDelivery.created_at))
        .where(WebhookDelivery.status.in_((DeliveryStatus.PENDING, DeliveryStatus.FAILED)))
        .group_by(WebhookDelivery.status)
    )
    by_status = {status: (count, oldest) for status, count, oldest in rows}
    pending, oldest = by_status.get(DeliveryStatus.PENDING, (0, None))
    failed, _ = by_status.get(DeliveryStatus.FAILED, (0, None))
    return Backlog(pending=pending, oldest_pending_at=oldest, failed=failed)
