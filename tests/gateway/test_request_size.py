"""Requests over their limits are refused before anything parses them: bodies over GATEWAY_MAX_JSON_BYTES
(GATEWAY_MAX_BODY_BYTES for /www/zugferd) with 413, paths and query strings over theirs with 400."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import AsyncIterator

import httpx
import pytest
from asgi_lifespan import LifespanManager

from gateway.app import create_app
from gateway.settings import Settings
from tests.factories import Factory

LIMIT = 100
TOO_LARGE = {
    "success": False,
    "error": "payload_too_large",
    "error_description": f"the request body is larger than {LIMIT} bytes",
    "info": {"limit": LIMIT},
}


@pytest.fixture
async def small_client(settings: Settings) -> AsyncIterator[httpx.AsyncClient]:
    app = create_app(dataclasses.replace(settings, max_json_bytes=LIMIT, max_body_bytes=4 * LIMIT))
    async with LifespanManager(app) as manager:
        transport = httpx.ASGITransport(app=manager.app)
        async with httpx.AsyncClient(transport=transport, base_url="http://gateway.test") as http:
            yield http


def query_of_size(size: int) -> bytes:
    """A valid GraphQL request body of exactly `size` bytes (padded with GraphQL whitespace)."""
    body = json.dumps({"query": "{ articles { totalCount } }"}).encode()
    padded = body[:-2] + b" " * (size - len(body)) + body[-2:]
    assert len(padded) == size
    json.loads(padded)
    return padded


async def chunks(body: bytes, size: int = 16) -> AsyncIterator[bytes]:
    for start in range(0, len(body), size):
        yield body[start : start + size]


def assert_too_large(response: httpx.Response) -> None:
    assert response.status_code == 413, response.text
    assert response.json() == TOO_LARGE
    assert response.headers["Content-Type"] == "application/json; charset=iso-8859-1"
    assert response.headers["X-Request-Id"]


async def test_a_body_at_the_limit_is_accepted(
    small_client: httpx.AsyncClient, factory: Factory, auth: dict[str, str]
) -> None:
    await factory.reference_data()

    response = await small_client.post(
        "/graphql", content=query_of_size(LIMIT), headers=auth | {"Content-Type": "application/json"}
    )

    assert response.status_code == 200, response.text
    assert response.json() == {"data": {"articles": {"totalCount": 0}}}


async def test_a_declared_length_over_the_limit_is_refused_before_authentication(
    small_client: httpx.AsyncClient,
) -> None:
    response = await small_client.post(
        "/graphql", content=query_of_size(LIMIT + 1), headers={"Content-Type": "application/json"}
    )

    assert_too_large(response)
    assert "WWW-Authenticate" not in response.headers


async def test_a_declared_length_over_the_limit_is_refused_with_a_token(
    small_client: httpx.AsyncClient, auth: dict[str, str]
) -> None:
    response = await small_client.post(
        "/graphql",
        content=query_of_size(LIMIT + 1),
        headers=auth | {"Content-Type": "application/json"},
    )

    assert_too_large(response)


async def test_a_streamed_body_over_the_limit_is_refused(
    small_client: httpx.AsyncClient, factory: Factory, auth: dict[str, str]
) -> None:
    await factory.reference_data()
    request = small_client.build_request(
        "POST",
        "/graphql",
        content=chunks(query_of_size(LIMIT + 1)),
        headers=auth | {"Content-Type": "application/json"},
    )
    assert "Content-Length" not in request.headers
    assert request.headers["Transfer-Encoding"] == "chunked"

    assert_too_large(await small_client.send(request))


async def test_a_streamed_body_within_the_limit_is_accepted(
    small_client: httpx.AsyncClient, factory: Factory, auth: dict[str, str]
) -> None:
    await factory.reference_data()

    response = await small_client.post(
        "/graphql",
        content=chunks(query_of_size(LIMIT)),
        headers=auth | {"Content-Type": "application/json"},
    )

    assert response.status_code == 200, response.text
    assert response.json() == {"data": {"articles": {"totalCount": 0}}}


async def test_the_default_limit_accepts_ordinary_bodies(
    client: httpx.AsyncClient, factory: Factory, auth: dict[str, str]
) -> None:
    await factory.reference_data()

    response = await client.post(
        "/graphql", content=query_of_size(LIMIT + 1), headers=auth | {"Content-Type": "application/json"}
    )

    assert response.status_code == 200, response.text
