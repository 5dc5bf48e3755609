"""The app's shutdown with work still under way: a request's write or token check that goes on after its client
has gone ends before the database is disposed, so that every connection is closed (a connection handed back
to a disposed pool is never closed: aiosqlite warned when the collector took it, in some later test)."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

import httpx
import pytest
from asgi_lifespan import LifespanManager
from sqlalchemy import select

from datasources import users
from datasources.database import create_database
from datasources.models import SalesDocument
from datasources.sales import numbers, orders
from gateway.app import create_app
from gateway.settings import Settings
from tests import unclosed_connections
from tests.factories import Factory
from tests.rest_compat.test_orders import order
from tests.sales_data import build_shop


def slowed(function: Callable[..., Awaitable[Any]], started: asyncio.Event) -> Callable[..., Awaitable[Any]]:
    """`function`, which says when it has begun (with a connection in use), then takes 0.3 s."""

    async def slowly(*args: Any, **kwargs: Any) -> Any:
        result = await function(*args, **kwargs)
        started.set()
        await asyncio.sleep(0.3)
        return result

    return slowly


async def shut_down_while(
    settings: Settings, request: Callable[[httpx.AsyncClient], Awaitable[Any]], started: asyncio.Event
) -> None:
    """Sends `request`, gives up on it once `started` (a client gone), and shuts the app down at once."""
    async with LifespanManager(create_app(settings)) as manager:
        transport = httpx.ASGITransport(app=manager.app)
        async with httpx.AsyncClient(transport=transport, base_url="http://gateway.test") as http:
            sent = asyncio.ensure_future(request(http))
            await started.wait()
            sent.cancel()
            with pytest.raises(asyncio.CancelledError):
                await sent


async def test_an_order_whose_client_has_gone_is_stored_before_the_database_is_disposed(
    settings: Settings, factory: Factory, auth: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    await build_shop(factory)
    started = asyncio.Event()
    monkeypatch.setattr(orders, "number_document", slowed(numbers.number_document, started))
    payload = order({"ArtNr": "A-700", "Menge": 1}, AuftBestellNr="SHUTDOWN-1")

    with unclosed_connections.none_left_unclosed():
        await shut_down_while(settings, lambda http: http.post("/www/auftrag", json=payload, headers=auth), started)

        db = create_database(settings.database_url)  # the order went on to its end (the shop finds it)
        try:
            async with db.reader() as session:
                stored = select(SalesDocument.number).where(SalesDocument.external_number == "SHUTDOWN-1")
                assert len((await session.scalars(stored)).all()) == 1
        finally:
            await db.dispose()


async def test_a_token_check_whose_client_has_gone_ends_before_the_database_is_disposed(
    settings: Settings, auth: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    started = asyncio.Event()
    monkeypatch.setattr(users, "token_version", slowed(users.token_version, started))

    with unclosed_connections.none_left_unclosed():
        await shut_down_while(settings, lambda http: http.get("/www/artikel?limit=1", headers=auth), started)
        await asyncio.sleep(0.5)  # a read that went on after the shutdown has ended by now
