"""Webhook mutations (admin scope): endpoints added and removed, deliveries sent again."""

from __future__ import annotations

import datetime as dt

import strawberry
from sqlalchemy.ext.asyncio import AsyncSession

from datasources.errors import DomainError
from datasources.webhooks import deliveries, endpoints
from datasources.webhooks.endpoints import EndpointRecord
from schema.context import Context
from schema.permissions import IsAdmin
from schema.webhooks.errors import WebhookError
from schema.webhooks.types import WebhookEndpoint


@strawberry.type(description="The endpoint added with its signing secret, or why not.")
class WebhookEndpointCreatePayload:
    endpoint: WebhookEndpoint | None
    secret: str | None = strawberry.field(
        description="whsec_...: the key receivers verify signatures with. Shown only here, once."
    )
    errors: list[WebhookError]


@strawberry.type(description="Whether the endpoint was removed, or why not.")
class WebhookEndpointDeletePayload:
    deleted: bool
    errors: list[WebhookError]


@strawberry.type(description="How many deliveries are due again, or why none.")
class WebhookDeliveriesRetryPayload:
    count: int
    errors: list[WebhookError]


@strawberry.type
class WebhookMutation:
    @strawberry.mutation(
        description="Adds an endpoint for the given events (none: every event). It receives the events "
        "recorded from now on, not earlier ones. A URL whose host is a loopback, private, link-local, "
        "multicast, unspecified or reserved address is refused unless GATEWAY_WEBHOOK_ALLOW_PRIVATE=1.",
        permission_classes=[IsAdmin],
    )
    async def webhook_endpoint_create(
        self, info: strawberry.Info[Context], url: str, events: list[str] | None = None
    ) -> WebhookEndpointCreatePayload:
        allow_private = info.context.webhook_allow_private

        async def add(session: AsyncSession) -> tuple[EndpointRecord, str]:
            return await endpoints.add_endpoint(session, url, events or (), allow_private=allow_private)

        try:
            record, secret = await info.context.db.write(add)
        except DomainError as error:
            return WebhookEndpointCreatePayload(endpoint=None, secret=None, errors=[WebhookError.of(error)])
        return WebhookEndpointCreatePayload(endpoint=WebhookEndpoint.of(record), secret=secret, errors=[])

    @strawberry.mutation(
        description="Removes an endpoint with its deliveries; those still pending are not sent.",
        permission_classes=[IsAdmin],
    )
    async def webhook_endpoint_delete(self, info: strawberry.Info[Context], id: int) -> WebhookEndpointDeletePayload:
        try:
            await info.context.db.write(lambda session: endpoints.remove_endpoint(session, id))
        except DomainError as error:
            return WebhookEndpointDeletePayload(deleted=False, errors=[WebhookError.of(error)])
        return WebhookEndpointDeletePayload(deleted=True, errors=[])

    @strawberry.mutation(
        description="Sends the given deliveries again, whatever their status, each with a fresh schedule of "
        "attempts; with `failed`, every failed delivery.",
        permission_classes=[IsAdmin],
    )
    async def webhook_deliveries_retry(
        self, info: strawberry.Info[Context], ids: list[int] | None = None, failed: bool = False
    ) -> WebhookDeliveriesRetryPayload:
        if failed == (ids is not None):
            error = DomainError("give either ids or failed: true", field="ids")
            return WebhookDeliveriesRetryPayload(count=0, errors=[WebhookError.of(error)])
        now = dt.datetime.now(dt.UTC)
        try:
            count = await info.context.db.write(lambda session: deliveries.retry(session, ids, now=now))
        except DomainError as error:
            return WebhookDeliveriesRetryPayload(count=0, errors=[WebhookError.of(error)])
        return WebhookDeliveriesRetryPayload(count=count, errors=[])
