"""What an attempt came to: delivered on a 2xx answer; otherwise due again on the retry schedule, or
failed after the last attempt. Recorded only while the attempt's claim is still the dispatcher's own."""

from __future__ import annotations

import datetime as dt
import random
from dataclasses import dataclass

from sqlalchemy import update
from sqlalchemy.ext.asyncio import AsyncSession

from datasources.models import DeliveryStatus, WebhookDelivery
from datasources.webhooks.claims import Claim
from datasources.webhooks.schedule import RetrySchedule

# Characters of an answer's body kept (webhook_delivery.last_answer holds up to 1000): enough to see why a
# receiver refused, too little to read what an endpoint serves through the gateway.
MAX_ANSWER = 200
MAX_ERROR = 500


@dataclass(frozen=True, slots=True)
class Outcome:
    status_code: int | None = None  # None: no answer (network error, timeout)
    answer: str | None = None  # the start of the answer's body
    error: str | None = None  # why there was no answer

    @property
    def delivered(self) -> bool:
        return self.status_code is not None and 200 <= self.status_code < 300


async def record_outcome(
    session: AsyncSession,
    claim: Claim,
    outcome: Outcome,
    *,
    now: dt.datetime,
    schedule: RetrySchedule,
    rng: random.Random,
) -> DeliveryStatus | None:
    """The delivery's new status; None when the claim is no longer ours (an operator's retry, or it ran
    out and another dispatcher took the delivery), and the outcome is not recorded."""
    attempts = claim.attempts + 1
    values: dict[str, object] = {
        "attempts": attempts,
        "last_attempt_at": now,
        "last_status": outcome.status_code,
        "last_answer": _bounded(outcome.answer, MAX_ANSWER),
        "last_error": _bounded(outcome.error, MAX_ERROR),
        "claimed_until": None,
        "claimed_by": None,
    }
    retry_at = None if outcome.delivered else schedule.next_attempt(attempts, now, rng)
    if outcome.delivered:
        status = DeliveryStatus.DELIVERED
        values["delivered_at"] = now
    elif retry_at is None:
        status = DeliveryStatus.FAILED
    else:
        status = DeliveryStatus.PENDING
        values["next_attempt_at"] = retry_at
    result = await session.execute(
        update(WebhookDelivery)
        .where(
            WebhookDelivery.id == claim.delivery_id,
            WebhookDelivery.claimed_by == claim.claimant,
            WebhookDelivery.status == DeliveryStatus.PENDING,
        )
        .values(status=status, **values)
    )
    return status if result.rowcount else None  # type: ignore[attr-defined]


def _bounded(text: str | None, limit: int) -> str | None:
    # NUL cannot be stored in PostgreSQL text; a receiver's answer may hold any bytes.
    return None if text is None else text.replace("\x00", "\ufffd")[:limit]
