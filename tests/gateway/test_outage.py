"""In-process: a database that does not answer in time is 503 `unavailable` with Retry-After, logged
once per episode; a request the gateway cannot finish in time is cancelled and answered 503."""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import sqlite3
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest
from asgi_lifespan import LifespanManager
from sqlalchemy.engine import make_url

from datasources import availability
from datasources.database import Timeouts
from datasources.sales import numbers, orders
from gateway.app import create_app
from gateway.settings import Settings
from schema.execution import Executor
from tests import databases
from tests.factories import Factory
from tests.http import body
from tests.rest_compat.test_orders import order
from tests.sales_data import build_shop

sqlite_only = pytest.mark.skipif(databases.backend() != "sqlite", reason="holds SQLite's write lock")

ORDER = {"GrundDaten": {"KundNr": "100001"}, "Positionen": [{"ArtNr": "A-100", "Menge": 1}]}


@pytest.fixture
async def impatient(settings: Settings) -> AsyncIterator[httpx.AsyncClient]:
    quick = dataclasses.replace(settings, database_timeouts=Timeouts(connect=1, statement=0.5, pool=1))
    async with LifespanManager(create_app(quick)) as manager:
        transport = httpx.ASGITransport(app=manager.app)
        async with httpx.AsyncClient(transport=transport, base_url="http://gateway.test") as http:
            yield http


@sqlite_only
async def test_a_write_lock_held_past_the_timeout_is_503_logged_once(
    impatient: httpx.AsyncClient,
    database_url: str,
    factory: Factory,
    auth: dict[str, str],
    caplog: pytest.LogCaptureFixture,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # While the lock is held, reads still answer (the app's webhook dispatcher polls): a quiet period longer
    # than the test keeps them from ending the episode between the three writes, as the default does in
    # production. With the lock gone, none: the next answer ends it.
    monkeypatch.setattr(availability, "QUIET_SECONDS", 60.0)
    await factory.reference_data()
    path = make_url(database_url).database
    assert path is not None
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")  # another program writing for a long time
    try:
        with caplog.at_level(logging.WARNING, logger="gateway.database"):
            answers = [await impatient.post("/www/auftrag", json=ORDER, headers=auth) for _ in range(3)]
    finally:
        holder.execute("ROLLBACK")
        holder.close()

    for response in answers:
        assert response.status_code == 503
        assert response.headers["retry-after"] == "5"
        assert body(response) == {
            "success": False,
            "error": "unavailable",
            "error_description": "The database is unavailable or did not answer in time; try again shortly.",
            "info": {"retry_after": 5},
        }
    outage_lines = [r.getMessage() for r in caplog.records if r.name == "gateway.database"]
    assert len(outage_lines) == 1
    assert "unavailable: OperationalError: database is locked" in outage_lines[0]
    assert not [r for r in caplog.records if r.exc_info]  # no traceback per request

    # The lock is gone: the next write works and the episode's end is logged.
    monkeypatch.setattr(availability, "QUIET_SECONDS", 0.0)
    with caplog.at_level(logging.WARNING, logger="gateway.database"):
        response = await impatient.get("/www/artikel?limit=1&fields=ArtNr", headers=auth)
    assert response.status_code == 200
    assert any(
        "answers again after" in r.getMessage() and "3 requests were refused" in r.getMessage() for r in caplog.records
    )


async def test_a_request_that_takes_too_long_is_cancelled_and_503(
    settings: Settings, auth: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    cancelled = asyncio.Event()

    async def never(*args: object, **kwargs: object) -> None:
        try:
            await asyncio.sleep(3600)
        except asyncio.CancelledError:
            cancelled.set()
            raise

    app = create_app(dataclasses.replace(settings, request_timeout=0.3))
    async with LifespanManager(app) as manager:
        transport = httpx.ASGITransport(app=manager.app)
        async with httpx.AsyncClient(transport=transport, base_url="http://gateway.test") as http:
            monkeypatch.setattr(Executor, "execute", never)
            response = await http.get("/www/artikel", headers=auth)

    assert response.status_code == 503
    assert response.headers["retry-after"] == "5"
    assert body(response)["error_description"] == "the request took longer than 0.3 s"
    assert cancelled.is_set()


async def test_a_write_that_outlasts_the_request_timeout_is_answered_with_its_outcome(
    settings: Settings,
    factory: Factory,
    auth: dict[str, str],
    monkeypatch: pytest.MonkeyPatch,
    client: httpx.AsyncClient,
) -> None:
    # The order's transaction is under way when the request's time is up: it commits, and the client must
    # hear so (a 503 would make the shop place it again), however long the write takes.
    await build_shop(factory)
    numbered = numbers.number_document

    async def slowly(*args: Any, **kwargs: Any) -> str:
        await asyncio.sleep(1.5)
        return await numbered(*args, **kwargs)

    monkeypatch.setattr(orders, "number_document", slowly)
    app = create_app(dataclasses.replace(settings, request_timeout=1.0))
    async with LifespanManager(app) as manager:
        transport = httpx.ASGITransport(app=manager.app)
        async with httpx.AsyncClient(transport=transport, base_url="http://gateway.test") as http:
            placed = await http.post("/www/auftrag", json=order({"ArtNr": "A-700", "Menge": 1}), headers=auth)
            assert placed.status_code == 201, placed.text
            number = body(placed)["data"]["AuftNr"]
    # Read back through an app with the usual timeout: 1 s may be too short for a read on a busy CI machine.
    assert (await client.get(f"/www/auftrag/{number}", headers=auth)).status_code == 200
