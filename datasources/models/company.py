"""Company-wide settings (PHKey attributes of the REST interface), number sequences and the event outbox."""

from __future__ import annotations

import datetime as dt

from sqlalchemy import String, Text
from sqlalchemy.orm import Mapped, mapped_column

from datasources.clock import utcnow
from datasources.models.base import Base


class CompanyAttribute(Base):
    """PHKey/Contents of the company, e.g. RESTEVENTS = "REST_Kunde,REST_Auft"."""

    __tablename__ = "company_attribute"
    key: Mapped[str] = mapped_column(String(12), primary_key=True)
    contents: Mapped[str] = mapped_column(String(200), default="")


class NumberSequence(Base):
    """The last number handed out per kind (customer, order, offer); rows are locked while one is taken."""

    __tablename__ = "number_sequence"
    name: Mapped[str] = mapped_column(String(20), primary_key=True)
    last_value: Mapped[int] = mapped_column()


class OutboxEvent(Base):
    """An ERP event recorded in the transaction of its change, for at-least-once delivery."""

    __tablename__ = "outbox_event"
    id: Mapped[int] = mapped_column(primary_key=True)
    event: Mapped[str] = mapped_column(String(32))
    payload: Mapped[str] = mapped_column(Text)  # JSON
    # The webhook-id of its deliveries (Standard Webhooks): the same on every retry and for every endpoint,
    # so receivers can drop repeats. NULL for events recorded before webhooks (0005); they have no deliveries.
    message_id: Mapped[str | None] = mapped_column(String(40))
    created_at: Mapped[dt.datetime] = mapped_column(default=utcnow)
    delivered_at: Mapped[dt.datetime | None] = mapped_column()
