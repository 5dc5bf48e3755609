"""Webhook endpoints (the subscribers of ERP events) and the delivery of each event to each of them."""

from __future__ import annotations

import datetime as dt
from enum import StrEnum

from sqlalchemy import ForeignKey, Index, String, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from datasources.clock import utcnow
from datasources.models.base import Base


class DeliveryStatus(StrEnum):
    PENDING = "pending"  # due at next_attempt_at (or being sent, while claimed)
    DELIVERED = "delivered"  # answered 2xx
    FAILED = "failed"  # out of attempts; sent again only when an operator retries it


class WebhookEndpoint(Base):
    """A URL that receives events as signed POSTs (Standard Webhooks)."""

    __tablename__ = "webhook_endpoint"
    id: Mapped[int] = mapped_column(primary_key=True)
    url: Mapped[str] = mapped_column(String(2048))
    # The event names it receives, comma-separated in their canonical spelling; empty: every event.
    events: Mapped[str] = mapped_column(String(200), default="")
    # whsec_ + base64 of the HMAC key. Kept in clear: the dispatcher signs with it on every attempt.
    secret: Mapped[str] = mapped_column(String(100))
    created_at: Mapped[dt.datetime] = mapped_column(default=utcnow)


class WebhookDelivery(Base):
    """One event for one endpoint: made in the transaction that recorded the event, sent until answered 2xx
    or out of attempts. A dispatcher claims it (claimed_by, until claimed_until) while it sends; a claim
    that runs out (a dispatcher killed) makes it due again for any other."""

    __tablename__ = "webhook_delivery"
    id: Mapped[int] = mapped_column(primary_key=True)
    event_id: Mapped[int] = mapped_column(ForeignKey("outbox_event.id", ondelete="CASCADE"))
    endpoint_id: Mapped[int] = mapped_column(ForeignKey("webhook_endpoint.id", ondelete="CASCADE"), index=True)
    status: Mapped[str] = mapped_column(String(9))  # a DeliveryStatus
    attempts: Mapped[int] = mapped_column(default=0)  # finished attempts (answered, refused or timed out)
    next_attempt_at: Mapped[dt.datetime] = mapped_column()
    claimed_until: Mapped[dt.datetime | None] = mapped_column()
    claimed_by: Mapped[str | None] = mapped_column(String(64))  # host:pid:nonce of the dispatcher
    last_attempt_at: Mapped[dt.datetime | None] = mapped_column()
    last_status: Mapped[int | None] = mapped_column()  # HTTP status of the last answer
    last_answer: Mapped[str | None] = mapped_column(String(1000))  # the start of the last answer's body
    last_error: Mapped[str | None] = mapped_column(String(500))  # why the last attempt got no answer
    created_at: Mapped[dt.datetime] = mapped_column(default=utcnow)
    delivered_at: Mapped[dt.datetime | None] = mapped_column()
    __table_args__ = (
        UniqueConstraint("event_id", "endpoint_id"),
        # The dispatchers' question: which pending deliveries are due?
        Index("ix_webhook_delivery_due", "status", "next_attempt_at"),
    )
