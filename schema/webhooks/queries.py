"""Webhook queries (admin scope): the endpoints and their deliveries."""

from __future__ import annotations

import strawberry

from datasources.errors import InvalidInput
from datasources.models import DeliveryStatus
from datasources.webhooks import deliveries, endpoints
from schema.context import Context
from schema.permissions import IsAdmin
from schema.webhooks.types import WebhookDelivery, WebhookDeliveryStatus, WebhookEndpoint

MAX_DELIVERIES = 1000


@strawberry.type
class WebhookQuery:
    @strawberry.field(description="Every webhook endpoint, oldest first.", permission_classes=[IsAdmin])
    async def webhook_endpoints(self, info: strawberry.Info[Context]) -> list[WebhookEndpoint]:
        async with info.context.db.reader() as session:
            return [WebhookEndpoint.of(record) for record in await endpoints.list_endpoints(session)]

    @strawberry.field(
        description=f"Deliveries, newest first; `limit` from 1 to {MAX_DELIVERIES}.", permission_classes=[IsAdmin]
    )
    async def webhook_deliveries(
        self, info: strawberry.Info[Context], status: WebhookDeliveryStatus | None = None, limit: int = 100
    ) -> list[WebhookDelivery]:
        if not 1 <= limit <= MAX_DELIVERIES:
            raise InvalidInput(f"limit must be from 1 to {MAX_DELIVERIES}", field="limit")
        wanted = None if status is None else DeliveryStatus(status.value)
        async with info.context.db.reader() as session:
            records = await deliveries.list_deliveries(session, status=wanted, limit=limit)
        return [WebhookDelivery.of(record) for record in records]
