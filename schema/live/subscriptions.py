"""orderEvents and customerEvents: what was recorded after `since` (replayed from the outbox), then every
new event as it is committed by any process; catalogueChanges: the catalogue's changes after `since` (read
from the change positions), then each batch as it comes. Scopes as for the matching queries: shop for orders
and customers, catalogue for the catalogue."""

from __future__ import annotations

from collections.abc import AsyncGenerator, AsyncIterator
from typing import Annotated

import strawberry

from datasources.catalogue.changes import Cursor, Gone
from datasources.errors import InvalidInput
from datasources.events import CUSTOMER_EVENT, ORDER_EVENT
from datasources.live import InvalidCursor, LiveEvent, SlowConsumer, decode_cursor
from datasources.live.catalogue import CatalogueBatch
from schema.context import Context
from schema.live.errors import LiveErrorCode, live_error
from schema.live.types import CatalogueChangeEvent, CustomerEvent, OrderEvent
from schema.permissions import CanReadCatalogue, IsShop

Since = Annotated[
    str | None, strawberry.argument(description="A cursor of an earlier event: what came after it is sent first.")
]


async def _events(info: strawberry.Info[Context], event: str, since: str | None) -> AsyncIterator[LiveEvent]:
    # Checked when the subscription starts, so that a bad cursor is an error and not an empty stream.
    hub = info.context.live
    if hub is None:
        raise live_error(LiveErrorCode.UNAVAILABLE, "subscriptions are not served here")
    try:
        position = None if since is None else decode_cursor(since)
    except InvalidCursor:
        raise live_error(LiveErrorCode.INVALID_REQUEST, "since is not a cursor of an event", field="since") from None
    stream = hub.subscribe((event,), position)
    try:
        async for recorded in stream:
            yield recorded
    except SlowConsumer as slow:
        raise live_error(LiveErrorCode.SLOW_CONSUMER, f"the subscription was dropped: {slow}") from None
    finally:
        await stream.aclose()


CatalogueSince = Annotated[
    str | None,
    strawberry.argument(
        description="A cursor of the catalogue's change feed (of an earlier event, of catalogueChanges or of GET "
        "/www/artikelaenderungen): the changes after it are sent first. One older than GATEWAY_CHANGES_RETENTION "
        "ends the subscription with the code gone: read the whole list again."
    ),
]


async def _catalogue(info: strawberry.Info[Context], since: str | None) -> AsyncIterator[CatalogueBatch]:
    watch = info.context.catalogue_watch
    if watch is None:
        raise live_error(LiveErrorCode.UNAVAILABLE, "subscriptions are not served here")
    try:
        cursor = None if since is None else Cursor.decode(since)
    except InvalidInput:
        raise live_error(
            LiveErrorCode.INVALID_REQUEST, "since is not a cursor of the change feed", field="since"
        ) from None
    stream = watch.follow(cursor)
    try:
        async for batch in stream:
            yield batch
    except Gone as gone:
        raise live_error(LiveErrorCode.GONE, str(gone), field="since") from None
    finally:
        await stream.aclose()


@strawberry.type
class LiveSubscription:
    @strawberry.subscription(
        description="Order events (REST_Auft) recorded after `since`, then live.", permission_classes=[IsShop]
    )
    async def order_events(
        self, info: strawberry.Info[Context], since: Since = None
    ) -> AsyncGenerator[OrderEvent, None]:
        async for event in _events(info, ORDER_EVENT, since):
            yield OrderEvent.of(event)

    @strawberry.subscription(
        description="Customer events (REST_Kunde) recorded after `since`, then live.", permission_classes=[IsShop]
    )
    async def customer_events(
        self, info: strawberry.Info[Context], since: Since = None
    ) -> AsyncGenerator[CustomerEvent, None]:
        async for event in _events(info, CUSTOMER_EVENT, since):
            yield CustomerEvent.of(event)

    @strawberry.subscription(
        description="The catalogue's changes after `since` (REST_Artikel), whoever wrote them (the ERP too), "
        "in batches of at most 1000 ArtNr, at most one per GATEWAY_CATALOGUE_EVENT_SECONDS; then live.",
        permission_classes=[CanReadCatalogue],
    )
    async def catalogue_changes(
        self, info: strawberry.Info[Context], since: CatalogueSince = None
    ) -> AsyncGenerator[CatalogueChangeEvent, None]:
        async for batch in _catalogue(info, since):
            yield CatalogueChangeEvent.of(batch)
