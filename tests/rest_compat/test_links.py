"""Links are built from GATEWAY_PUBLIC_URL, else from the address the request came to; never from the
Host header (a cache in front of the gateway would keep a client's host in every href)."""

from __future__ import annotations

import dataclasses
from collections.abc import AsyncIterator

import httpx
import pytest
from asgi_lifespan import LifespanManager

from gateway.app import create_app
from gateway.settings import Settings
from tests.http import body

pytestmark = pytest.mark.usefixtures("catalogue")


def hrefs(response: httpx.Response) -> list[str]:
    data = body(response)
    return [link["href"] for link in data["links"]] + [
        link["href"] for article in data["data"] for link in article.get("links", [])
    ]


async def test_the_host_header_is_ignored(client: httpx.AsyncClient, auth: dict[str, str]) -> None:
    response = await client.get("/www/artikel?limit=1", headers=auth | {"Host": "evil.example"})

    assert response.status_code == 200
    assert all(href.startswith("http://gateway.test/www/") for href in hrefs(response)), hrefs(response)


@pytest.fixture
async def public_client(settings: Settings) -> AsyncIterator[httpx.AsyncClient]:
    app = create_app(dataclasses.replace(settings, public_url="https://shop.example/erp"))
    async with LifespanManager(app) as manager:
        transport = httpx.ASGITransport(app=manager.app)
        async with httpx.AsyncClient(transport=transport, base_url="http://10.0.0.5:8000") as http:
            yield http


async def test_the_public_url_is_the_base_of_every_link(public_client: httpx.AsyncClient, auth: dict[str, str]) -> None:
    response = await public_client.get("/www/artikel?limit=1", headers=auth | {"Host": "evil.example"})

    links = hrefs(response)
    assert links and all(href.startswith("https://shop.example/erp/www/") for href in links), links


async def test_without_it_the_served_address_and_port_are(settings: Settings, auth: dict[str, str]) -> None:
    async with LifespanManager(create_app(settings)) as manager:
        transport = httpx.ASGITransport(app=manager.app)
        async with httpx.AsyncClient(transport=transport, base_url="http://10.0.0.5:8000") as http:
            response = await http.get("/www/artikel?limit=1", headers=auth | {"Host": "evil.example"})

    assert all(href.startswith("http://10.0.0.5:8000/www/") for href in hrefs(response))
