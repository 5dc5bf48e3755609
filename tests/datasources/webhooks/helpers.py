"""Shared steps of the webhook data tests: endpoints, events recorded as the REST writes record them, and
the deliveries as stored."""

from __future__ import annotations

import asyncio
import datetime as dt
from typing import Any

from sqlalchemy import select, update

from datasources import events
from datasources.database import Database
from datasources.models import CompanyAttribute, WebhookDelivery
from datasources.webhooks import endpoints
from datasources.webhooks.endpoints import EndpointRecord

T0 = dt.datetime(2026, 11, 24, 9, 0, tzinfo=dt.UTC)


async def enable(db: Database, contents: str = "*") -> None:
    async with db.writer() as session, session.begin():
        session.add(CompanyAttribute(key=events.EVENTS_ATTRIBUTE, contents=contents))


async def endpoint(db: Database, url: str = "http://127.0.0.1:9/hook", *names: str) -> tuple[EndpointRecord, str]:
    """An endpoint as an operator adds it where receivers on private addresses are allowed: the tests'
    receivers listen on 127.0.0.1."""
    return await db.write(lambda session: endpoints.add_endpoint(session, url, names, allow_private=True))


async def record(db: Database, event: str = events.ORDER_EVENT, **fields: str) -> bool:
    values = fields or ({"AuftNr": "500001", "KundNr": "100001"} if event == events.ORDER_EVENT else {"DebiNr": "1"})
    return await db.write(lambda session: events.record(session, event, "shop", **values))


async def due_from(db: Database, when: dt.datetime) -> None:
    """Makes every delivery due from `when`: recording stamps them with the real time, and a test that
    claims on its own clock must not depend on today's date."""
    async with db.writer() as session, session.begin():
        await session.execute(update(WebhookDelivery).values(next_attempt_at=when))


async def stored(db: Database) -> list[WebhookDelivery]:
    async with db.reader() as session:
        return list(await session.scalars(select(WebhookDelivery).order_by(WebhookDelivery.id)))


async def one(db: Database, delivery_id: int) -> Any:
    async with db.reader() as session:
        return await session.get(WebhookDelivery, delivery_id)


async def until_all(db: Database, status: str) -> list[WebhookDelivery]:
    """The deliveries once every one has `status` (a dispatcher records outcomes after the answer); an
    AssertionError after 5 s."""
    deadline = asyncio.get_running_loop().time() + 5.0
    while True:
        deliveries = await stored(db)
        if deliveries and all(delivery.status == status for delivery in deliveries):
            return deliveries
        assert asyncio.get_running_loop().time() < deadline, [delivery.status for delivery in deliveries]
        await asyncio.sleep(0.05)
