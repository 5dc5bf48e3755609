"""The REST writes' events reach a real receiver on 127.0.0.1 through the dispatcher the app's lifespan
runs, signed so that the standardwebhooks library verifies them, with the fields and types the manual
(docs/how-to/webhooks.md) documents; a dead receiver does not hold them up."""

from __future__ import annotations

import asyncio
import dataclasses
import time
from typing import Any

import httpx
import orjson
import pytest
from sqlalchemy import text

from datasources.database import Database
from gateway.dispatch import WebhookSettings
from gateway.settings import Settings
from tests.catalogue_data import Catalogue
from tests.datasources.webhooks.helpers import enable, endpoint, stored, until_all
from tests.factories import Factory
from tests.gateway.dispatch import readme
from tests.sales_data import CONTACT_FRE, build_shop, call, new_customer
from tests.webhook_receiver import NEVER, receiving

ORDER = {"Positionen": [{"ArtNr": "A-100", "Menge": 10}]}


@pytest.fixture
def settings(settings: Settings) -> Settings:
    # Polling once a minute: what arrives within seconds was woken by its commit.
    return dataclasses.replace(
        settings, webhooks=WebhookSettings(allow_private=True, poll_interval=60, concurrency=2, timeout=30)
    )


@pytest.fixture
async def shop(factory: Factory) -> Catalogue:
    return await build_shop(factory)


async def test_orders_and_customers_arrive_signed(
    client: httpx.AsyncClient, shop: Catalogue, auth: dict[str, str], db: Database
) -> None:
    await enable(db)
    with receiving() as receiver:
        # Not REST_Artikel: the shop's catalogue, just made, would be one.
        _, secret = await endpoint(db, receiver.url, "REST_Kunde", "REST_Auft")
        customer = await new_customer(client, auth, CONTACT_FRE)
        order = {"GrundDaten": {"KundNr": customer}, **ORDER}
        placed = await call(client, "POST", "/www/auftrag", auth, order, status=201)
        offer = await call(client, "POST", "/www/offerte", auth, {"GrundDaten": {}, **ORDER}, status=201)
        converted = await call(
            client,
            "PUT",
            "/www/auftrag",
            auth,
            {"GrundDaten": {"OffertNr": offer["data"]["OffertNr"], "KundNr": customer}},
            status=201,
        )
        received = await asyncio.to_thread(receiver.wait_for, 3, 5.0)
    messages = [message.verified(secret) for message in received]
    for message in messages:
        assert set(message) == {"type", "timestamp", "data"}
        assert message["timestamp"] == message["data"]["time"] and message["timestamp"].endswith("Z")
        assert message["type"] == message["data"]["event"]
        del message["timestamp"], message["data"]["time"]
    assert sorted(messages, key=str) == sorted(
        [
            {"type": "REST_Kunde", "data": {"event": "REST_Kunde", "DebiNr": customer, "user": "shop-client"}},
            *(
                {
                    "type": "REST_Auft",
                    "data": {"event": "REST_Auft", "AuftNr": number, "KundNr": customer, "user": "shop-client"},
                }
                for number in (placed["data"]["AuftNr"], converted["data"]["AuftNr"])
            ),
        ],
        key=str,
    )
    assert len({message.headers["webhook-id"] for message in received}) == 3
    assert len(await until_all(db, "delivered")) == 3


async def test_the_readme_documents_the_payloads_as_they_arrive(
    client: httpx.AsyncClient, shop: Catalogue, auth: dict[str, str], db: Database
) -> None:
    await enable(db)
    with receiving() as receiver:
        _, secret = await endpoint(db, receiver.url)
        customer = await new_customer(client, auth, CONTACT_FRE)
        await call(client, "POST", "/www/auftrag", auth, {"GrundDaten": {"KundNr": customer}, **ORDER}, status=201)
        async with db.writer() as session, session.begin():  # a commit here wakes the REST_Artikel round
            await session.execute(text("UPDATE article SET colour = 'rot' WHERE number = 'A-100'"))
        sent: dict[str, Any] = {}
        while len(sent) < 3:  # REST_Artikel a second after the change (the shop's making may come first)
            received = await asyncio.to_thread(receiver.wait_for, len(receiver.received) + 1, 5.0)
            sent |= {message["type"]: message for message in (r.verified(secret) for r in received)}
    assert set(sent) == {"REST_Kunde", "REST_Auft", "REST_Artikel"}
    assert "A-100" in sent["REST_Artikel"]["data"]["Geaendert"]
    for event, message in sent.items():
        assert readme.shape(message) == readme.documented(event), event  # every field, with its JSON type
    examples = [orjson.loads(block) for block in readme.code_blocks("json")]
    assert sorted(example["type"] for example in examples) == sorted(sent)
    for example in examples:
        assert readme.shape(example) == readme.shape(sent[example["type"]])


async def test_only_enabled_events_arrive(
    client: httpx.AsyncClient, shop: Catalogue, auth: dict[str, str], db: Database
) -> None:
    await enable(db, "REST_Kunde")
    with receiving() as receiver:
        _, secret = await endpoint(db, receiver.url)
        customer = await new_customer(client, auth, CONTACT_FRE)
        await call(client, "POST", "/www/auftrag", auth, {"GrundDaten": {"KundNr": customer}, **ORDER}, status=201)
        await new_customer(client, auth, CONTACT_FRE)
        received = await asyncio.to_thread(receiver.wait_for, 2, 5.0)
        await asyncio.sleep(0.3)
        assert len(receiver.received) == 2
    assert {message.verified(secret)["type"] for message in received} == {"REST_Kunde"}
    assert len(await stored(db)) == 2


async def test_a_dead_receiver_does_not_slow_the_www_routes(
    client: httpx.AsyncClient, shop: Catalogue, auth: dict[str, str], db: Database
) -> None:
    await enable(db)
    with receiving(lambda _index: NEVER) as dead:
        await endpoint(db, dead.url, "REST_Kunde")
        answered = []
        for _ in range(6):
            started = time.monotonic()
            await new_customer(client, auth, CONTACT_FRE)
            response = await client.get("/www/artikel?limit=2", headers=auth)
            assert response.status_code == 200
            answered.append(time.monotonic() - started)
        await asyncio.to_thread(dead.wait_for, 2, 5.0)
        await asyncio.sleep(0.3)
        assert dead.most_in_flight == 2 == len(dead.received)  # the concurrency, not one per event
    assert max(answered) < 2.0
    assert [d.status for d in await stored(db)] == ["pending"] * 6
