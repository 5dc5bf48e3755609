"""What the live tests do on the shared server (conftest.py): its users, orders and customers placed through
/www, bursts of events written straight to the outbox, short-lived tokens, its metrics."""

from __future__ import annotations

import asyncio
from typing import Any

import httpx
from sqlalchemy.ext.asyncio import AsyncSession

from datasources import events, users
from datasources.database import create_database
from datasources.users import TokenVersion
from gateway.auth.tokens import TokenIssuer
from tests.sales_data import CONTACT_FRE
from tests.server import SECRET_KEY, GatewayServer

SHOP, CATALOGUE, METRICS, ADMIN = "shop", "catalogue-only", "prometheus", "operator"
GONE, GONE_SSE = "removed-later", "removed-later-sse"  # each removed by a test of its own
LIMITED = "limited"  # opens subscriptions until its limit
SECRET = "a-long-secret-for-live-tests"
USERS = (
    (SHOP, "shop"),
    (CATALOGUE, "catalogue"),
    (METRICS, "metrics"),
    (GONE, "shop"),
    (GONE_SSE, "shop"),
    (LIMITED, "shop"),
    (ADMIN, "admin"),
)


def post(server: GatewayServer, token: str, path: str, body: dict[str, Any]) -> dict[str, Any]:
    # A connection of its own per request: the two workers each take some.
    with httpx.Client(base_url=server.base_url, headers={"Authorization": f"Bearer {token}"}, timeout=30) as http:
        response = http.post(path, json=body)
    assert response.status_code == 201, response.text
    data: dict[str, Any] = response.json()["data"]
    return data


def customer(server: GatewayServer, token: str) -> str:
    body = {"GrundDaten": {"WaehrAbk": "CHF", "FAKTZahlArt": "L"}, "Adressen": {"KontaktAdr": CONTACT_FRE}}
    number: str = post(server, token, "/www/kunden", body)["DebiNr"]
    return number


def order(server: GatewayServer, token: str, customer: str) -> str:
    body = {"GrundDaten": {"KundNr": customer}, "Positionen": [{"ArtNr": "A-000001", "Menge": 1}]}
    number: str = post(server, token, "/www/auftrag", body)["AuftNr"]
    return number


def short_token(server: GatewayServer, name: str, lifetime: int) -> str:
    """A token of `name` that expires in `lifetime` seconds, signed as the token endpoint signs them."""

    async def version() -> TokenVersion:
        db = create_database(server.database.url)
        try:
            async with db.reader() as session:
                found = await users.token_version(session, name)
        finally:
            await db.dispose()
        assert found is not None
        return found

    return TokenIssuer(SECRET_KEY, lifetime).issue(name, ("shop",), asyncio.run(version()))


def record_together(server: GatewayServer, count: int, *, width: int = 0) -> None:
    """`count` order events committed in one transaction: a feed reads them in one poll, as a burst. `width`:
    characters added to each order number, for events of some size."""

    async def record() -> None:
        db = create_database(server.database.url)

        async def work(session: AsyncSession) -> None:
            for number in range(count):
                await events.add(session, events.ORDER_EVENT, SHOP, AuftNr=f"burst-{number}" + "x" * width)

        try:
            await db.write(work)
        finally:
            await db.dispose()

    asyncio.run(record())


def metrics_text(server: GatewayServer) -> str:
    headers = {"Authorization": f"Bearer {server.token(ADMIN, SECRET)}"}
    response = httpx.get(f"{server.base_url}/metrics", headers=headers, timeout=30)
    assert response.status_code == 200, response.text
    return response.text
