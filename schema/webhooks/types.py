"""Webhook endpoints and deliveries as administrators see them (never with an endpoint's secret)."""

from __future__ import annotations

import datetime as dt
from enum import Enum

import strawberry

from datasources.webhooks.deliveries import DeliveryRecord
from datasources.webhooks.endpoints import EndpointRecord


@strawberry.enum(
    description="Where a delivery stands: PENDING (due at nextAttemptAt, or being sent), DELIVERED (answered "
    "2xx), FAILED (out of attempts; sent again only when retried)."
)
class WebhookDeliveryStatus(Enum):
    PENDING = "pending"
    DELIVERED = "delivered"
    FAILED = "failed"


@strawberry.type(description="A URL that receives ERP events as signed POSTs (Standard Webhooks).")
class WebhookEndpoint:
    id: int
    url: str
    events: list[str] = strawberry.field(description="The events it receives; empty: every event.")
    created_at: dt.datetime

    @classmethod
    def of(cls, record: EndpointRecord) -> WebhookEndpoint:
        return cls(id=record.id, url=record.url, events=list(record.events), created_at=record.created_at)


@strawberry.type(description="One event for one endpoint, and how its attempts went.")
class WebhookDelivery:
    id: int
    event_id: int = strawberry.field(description="The event's row in the outbox.")
    message_id: str | None = strawberry.field(description="Its webhook-id header, the same on every attempt.")
    event: str = strawberry.field(description="REST_Auft, REST_Kunde or REST_Artikel.")
    endpoint_id: int
    url: str = strawberry.field(description="The endpoint's URL.")
    status: WebhookDeliveryStatus
    attempts: int = strawberry.field(description="Attempts made (since the last retry by an operator).")
    next_attempt_at: dt.datetime = strawberry.field(description="When a pending delivery is due.")
    claimed_until: dt.datetime | None = strawberry.field(description="Being sent by a dispatcher until then.")
    last_attempt_at: dt.datetime | None
    last_status: int | None = strawberry.field(description="HTTP status of the last answer.")
    last_answer: str | None = strawberry.field(description="The start of the last answer's body.")
    last_error: str | None = strawberry.field(description="Why the last attempt got no answer.")
    created_at: dt.datetime
    delivered_at: dt.datetime | None

    @classmethod
    def of(cls, record: DeliveryRecord) -> WebhookDelivery:
        fields = {name: getattr(record, name) for name in DeliveryRecord.__slots__}
        return cls(**{**fields, "status": WebhookDeliveryStatus(record.status)})
