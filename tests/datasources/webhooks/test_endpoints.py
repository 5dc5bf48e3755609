"""Webhook endpoints: checked URLs and event names, a Standard Webhooks secret each, removal with their
deliveries."""

from __future__ import annotations

import base64

import pytest
from sqlalchemy import func, select

from datasources.database import Database
from datasources.errors import InvalidInput, NotFound
from datasources.models import WebhookDelivery
from datasources.webhooks import endpoints
from tests.datasources.webhooks.helpers import enable, endpoint, record, stored


async def test_an_endpoint_gets_a_secret_of_its_own_in_the_standard_format(db: Database) -> None:
    first, secret = await endpoint(db, "https://shop.example/hooks/erp", "rest_auft", "REST_AUFT", "REST_Kunde")
    second, other = await endpoint(db)
    assert first.url == "https://shop.example/hooks/erp"
    assert first.events == ("REST_Auft", "REST_Kunde")  # canonical spelling, no repeats
    assert second.events == ()  # every event
    assert secret.startswith("whsec_") and secret != other
    assert len(base64.b64decode(secret.removeprefix("whsec_"))) == 32
    async with db.reader() as session:
        listed = await endpoints.list_endpoints(session)
    assert [record.id for record in listed] == [first.id, second.id]


@pytest.mark.parametrize(
    "url",
    [
        "ftp://shop.example/hook",
        "/hook",
        "http:///hook",
        "https://shop.example/ hook",
        "http://shop.example:99999/",
        "http://shop.example:0/",
        "https://shop.example/" + "a" * 2048,
        "",
    ],
)
async def test_only_absolute_http_urls_are_endpoints(db: Database, url: str) -> None:
    with pytest.raises(InvalidInput) as refused:
        await endpoint(db, url)
    assert refused.value.field == "url"


async def test_unknown_event_names_are_refused(db: Database) -> None:
    with pytest.raises(InvalidInput) as refused:
        await endpoint(db, "https://shop.example/hook", "REST_Auft", "REST_Lager")
    assert refused.value.field == "events"
    assert "REST_Lager" in refused.value.message
    assert await stored(db) == []


async def test_removing_an_endpoint_removes_its_deliveries(db: Database) -> None:
    await enable(db)
    kept, _ = await endpoint(db)
    removed, _ = await endpoint(db, "http://127.0.0.1:9/other")
    await record(db)
    await db.write(lambda session: endpoints.remove_endpoint(session, removed.id))
    assert [delivery.endpoint_id for delivery in await stored(db)] == [kept.id]
    with pytest.raises(NotFound):
        await db.write(lambda session: endpoints.remove_endpoint(session, removed.id))
    async with db.reader() as session:
        assert await session.scalar(select(func.count()).select_from(WebhookDelivery)) == 1
