"""CORS (GATEWAY_CORS_ORIGINS, gateway/middleware/cors.py): preflights answered without a token, the
listed origins allowed, every other origin left without CORS headers, and refusals readable too."""

from __future__ import annotations

import dataclasses
from collections.abc import AsyncIterator, Callable

import httpx
import pytest
from asgi_lifespan import LifespanManager

from gateway.app import create_app
from gateway.settings import RateLimits, Settings

SHOP = "https://shop.example"
OTHER = "https://evil.example"
GRAPHQL = {"query": "{ __typename }"}


def preflight(origin: str, method: str = "POST", headers: str = "authorization, content-type") -> dict[str, str]:
    return {"Origin": origin, "Access-Control-Request-Method": method, "Access-Control-Request-Headers": headers}


async def client_for(settings: Settings) -> AsyncIterator[httpx.AsyncClient]:
    async with LifespanManager(create_app(settings)) as manager:
        transport = httpx.ASGITransport(app=manager.app)
        async with httpx.AsyncClient(transport=transport, base_url="http://gateway.test") as http:
            yield http


@pytest.fixture
async def cors(settings: Settings) -> AsyncIterator[httpx.AsyncClient]:
    async for http in client_for(dataclasses.replace(settings, cors_origins=(SHOP, "http://localhost:3000"))):
        yield http


@pytest.mark.parametrize(("method", "path"), [("POST", "/graphql"), ("GET", "/www/artikel"), ("PUT", "/www/auftrag")])
async def test_a_preflight_is_answered_without_a_token(cors: httpx.AsyncClient, method: str, path: str) -> None:
    response = await cors.options(path, headers=preflight(SHOP, method, "authorization, content-type"))

    assert response.status_code == 200, response.text
    assert response.headers["access-control-allow-origin"] == SHOP
    assert response.headers["access-control-allow-methods"] == "GET, POST, PUT, PATCH, DELETE, OPTIONS"
    allowed = {name.strip().lower() for name in response.headers["access-control-allow-headers"].split(",")}
    assert {"authorization", "content-type", "idempotency-key", "x-request-id"} <= allowed
    assert response.headers["access-control-max-age"] == "3600"
    assert "access-control-allow-credentials" not in response.headers


async def test_an_order_may_carry_its_idempotency_key(cors: httpx.AsyncClient) -> None:
    response = await cors.options("/www/auftrag", headers=preflight(SHOP, "POST", "idempotency-key, content-type"))

    assert response.status_code == 200


async def test_an_allowed_origin_reads_the_answer_and_its_headers(
    cors: httpx.AsyncClient, auth: dict[str, str]
) -> None:
    response = await cors.post("/graphql", json=GRAPHQL, headers={**auth, "Origin": "http://localhost:3000"})

    assert response.status_code == 200
    assert response.json() == {"data": {"__typename": "Query"}}
    assert response.headers["access-control-allow-origin"] == "http://localhost:3000"
    assert "Origin" in response.headers["vary"]
    exposed = {name.strip() for name in response.headers["access-control-expose-headers"].split(",")}
    assert exposed == {"X-Request-Id", "Retry-After", "WWW-Authenticate", "Allow", "Content-Disposition"}
    assert "access-control-allow-credentials" not in response.headers


async def test_a_refused_token_is_readable_too(cors: httpx.AsyncClient) -> None:
    response = await cors.get("/www/artikel", headers={"Origin": SHOP})

    assert response.status_code == 401
    assert response.json()["error"] == "invalid_token"
    assert response.headers["access-control-allow-origin"] == SHOP
    assert "WWW-Authenticate" in response.headers["access-control-expose-headers"]


async def test_a_body_refused_before_routing_is_readable_too(cors: httpx.AsyncClient, auth: dict[str, str]) -> None:
    body = b'{"query": "' + b" " * (5 * 1024 * 1024) + b'"}'
    headers = {**auth, "Origin": SHOP, "Content-Type": "application/json"}

    response = await cors.post("/graphql", content=body, headers=headers)

    assert response.status_code == 413
    assert response.headers["access-control-allow-origin"] == SHOP


async def test_a_rate_limited_answer_is_readable_with_its_retry_after(
    settings: Settings, token_for: Callable[..., dict[str, str]]
) -> None:
    limited = dataclasses.replace(settings, cors_origins=(SHOP,), rate_limits=RateLimits(requests_per_user="1/minute"))
    headers = {**token_for("shop"), "Origin": SHOP}
    async for http in client_for(limited):
        first = await http.post("/graphql", json=GRAPHQL, headers=headers)
        second = await http.post("/graphql", json=GRAPHQL, headers=headers)

    assert (first.status_code, second.status_code) == (200, 429)
    assert second.headers["access-control-allow-origin"] == SHOP
    assert "Retry-After" in second.headers["access-control-expose-headers"]
    assert int(second.headers["retry-after"]) > 0


async def test_another_origin_gets_no_permission(cors: httpx.AsyncClient, auth: dict[str, str]) -> None:
    answer = await cors.post("/graphql", json=GRAPHQL, headers={**auth, "Origin": OTHER})
    refused = await cors.options("/graphql", headers=preflight(OTHER))

    assert answer.status_code == 200  # the browser, not the server, withholds it from the page
    assert "access-control-allow-origin" not in answer.headers
    assert refused.status_code == 400
    assert "access-control-allow-origin" not in refused.headers


@pytest.mark.parametrize(
    ("origin", "method", "headers"),
    [
        pytest.param("https://shop.example.evil.example", "POST", "content-type", id="a longer host"),
        pytest.param("http://shop.example", "POST", "content-type", id="another scheme"),
        pytest.param(SHOP, "QUERY", "content-type", id="a method the API does not have"),
        pytest.param(SHOP, "POST", "x-api-key", id="a header the API does not read"),
    ],
)
async def test_a_preflight_outside_the_list_is_refused(
    cors: httpx.AsyncClient, origin: str, method: str, headers: str
) -> None:
    response = await cors.options("/graphql", headers=preflight(origin, method, headers))

    assert response.status_code == 400


async def test_without_origins_no_answer_has_cors_headers(client: httpx.AsyncClient, auth: dict[str, str]) -> None:
    answer = await client.post("/graphql", json=GRAPHQL, headers={**auth, "Origin": SHOP})
    asked = await client.options("/graphql", headers=preflight(SHOP))

    for response in (answer, asked):
        assert not [name for name in response.headers if name.lower().startswith("access-control-")]
    assert asked.status_code == 401  # a preflight is an OPTIONS like any other: it needs a token
