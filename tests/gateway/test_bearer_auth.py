"""Bearer authentication of /www and /graphql: only HS256 tokens signed with our key, unexpired."""

from __future__ import annotations

import base64
import json
import time
from collections.abc import Callable
from typing import Any

import httpx
import pytest
from asgi_lifespan import LifespanManager
from joserfc import jwt
from joserfc.jwk import OctKey

from datasources.users import TokenVersion
from gateway.app import create_app
from gateway.auth import tokens
from gateway.auth.tokens import ISSUER, TokenIssuer
from gateway.settings import Settings
from tests.factories import Factory

MISSING = {
    "success": False,
    "error": "invalid_token",
    "error_description": "A bearer token is required.",
    "info": {},
}
INVALID = {
    "success": False,
    "error": "invalid_token",
    "error_description": "The token is invalid or expired.",
    "info": {},
}
PROTECTED = [
    ("GET", "/www/artikel"),
    ("GET", "/www/artikel/X"),
    ("GET", "/www/artikelmedia/X"),
    ("GET", "/www/artikelmediadaten/1"),
    ("DELETE", "/www/log"),
    ("POST", "/graphql"),
]
ARTICLES_QUERY = {"query": "{ articles { totalCount } }"}


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def b64url_json(value: dict[str, Any]) -> str:
    return b64url(json.dumps(value, separators=(",", ":")).encode())


def unb64url_json(segment: str) -> dict[str, Any]:
    decoded = json.loads(base64.urlsafe_b64decode(segment + "=" * (-len(segment) % 4)))
    assert isinstance(decoded, dict)
    return decoded


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def claims(**overrides: Any) -> dict[str, Any]:
    now = int(time.time())
    return {"iss": ISSUER, "sub": "shop-client", "scope": "shop", "iat": now, "exp": now + 600, **overrides}


def sign(secret: str, values: dict[str, Any], alg: str = "HS256") -> str:
    return jwt.encode({"alg": alg, "typ": "JWT"}, values, OctKey.import_key(secret.encode()), algorithms=[alg])


async def graphql_articles(client: httpx.AsyncClient, headers: dict[str, str]) -> httpx.Response:
    return await client.post("/graphql", json=ARTICLES_QUERY, headers=headers)


def assert_invalid(response: httpx.Response) -> None:
    assert response.status_code == 401, response.text
    assert response.json() == INVALID
    assert response.headers["WWW-Authenticate"] == 'Bearer realm="gateway", error="invalid_token"'
    assert response.headers["Content-Type"] == "application/json; charset=iso-8859-1"


@pytest.mark.parametrize(("method", "path"), PROTECTED)
async def test_protected_routes_need_a_token(client: httpx.AsyncClient, method: str, path: str) -> None:
    response = await client.request(method, path, json={} if method == "POST" else None)

    assert response.status_code == 401
    assert response.json() == MISSING
    assert response.headers["WWW-Authenticate"].startswith("Bearer")
    assert response.headers["Content-Type"] == "application/json; charset=iso-8859-1"
    assert response.headers["X-Request-Id"]


@pytest.mark.parametrize(
    "authorization",
    ["Bearer", "Bearer ", "Basic c2hvcDphLWxvbmctc2VjcmV0", "Token abc", "bearer-abc"],
)
async def test_other_authorization_headers_are_a_missing_token(client: httpx.AsyncClient, authorization: str) -> None:
    response = await client.get("/www/artikel", headers={"Authorization": authorization})

    assert response.status_code == 401
    assert response.json() == MISSING
    assert response.headers["WWW-Authenticate"] == 'Bearer realm="gateway"'


async def test_a_valid_token_passes(
    client: httpx.AsyncClient, factory: Factory, settings: Settings, token_users: dict[str, TokenVersion]
) -> None:
    await factory.reference_data()
    version = token_users["shop-client"]

    response = await graphql_articles(
        client, bearer(sign(settings.secret_key, claims(ver=[version.created, version.number])))
    )

    assert response.status_code == 200, response.text
    assert response.json() == {"data": {"articles": {"totalCount": 0}}}


async def test_a_token_without_a_version_passes(
    client: httpx.AsyncClient, factory: Factory, settings: Settings, token_users: dict[str, TokenVersion]
) -> None:
    # As issued before tokens carried a version: valid while the user's version is still 0 (test_token_versions).
    await factory.reference_data()

    response = await graphql_articles(client, bearer(sign(settings.secret_key, claims())))

    assert response.status_code == 200, response.text
    assert response.json() == {"data": {"articles": {"totalCount": 0}}}


async def test_a_token_with_a_changed_signature_is_refused(
    client: httpx.AsyncClient, token_for: Callable[..., dict[str, str]]
) -> None:
    header, payload, signature = token_for("shop")["Authorization"].removeprefix("Bearer ").split(".")
    # The first character holds six full bits of the MAC (the last one partly padding bits).
    flipped = ("B" if signature[0] == "A" else "A") + signature[1:]

    assert_invalid(await graphql_articles(client, bearer(f"{header}.{payload}.{flipped}")))
    assert_invalid(await graphql_articles(client, bearer(f"{header}.{payload}.")))
    assert_invalid(await graphql_articles(client, bearer(f"{header}.{payload}")))


async def test_a_token_with_a_changed_payload_is_refused(
    client: httpx.AsyncClient, token_for: Callable[..., dict[str, str]]
) -> None:
    header, payload, signature = token_for("catalogue")["Authorization"].removeprefix("Bearer ").split(".")
    escalated = {**unb64url_json(payload), "scope": "admin"}

    response = await client.delete("/www/log", headers=bearer(f"{header}.{b64url_json(escalated)}.{signature}"))

    assert_invalid(response)


async def test_an_expired_token_is_refused(client: httpx.AsyncClient, settings: Settings) -> None:
    token = TokenIssuer(settings.secret_key, lifetime=-10).issue("shop-client", ("shop",), TokenVersion(0, 0))
    assert unb64url_json(token.split(".")[1])["exp"] < time.time()

    assert_invalid(await graphql_articles(client, bearer(token)))


async def test_a_token_with_alg_none_is_refused(client: httpx.AsyncClient) -> None:
    unsigned = f"{b64url_json({'alg': 'none', 'typ': 'JWT'})}.{b64url_json(claims())}."

    assert_invalid(await graphql_articles(client, bearer(unsigned)))


async def test_a_token_signed_with_another_key_is_refused(client: httpx.AsyncClient) -> None:
    token = sign("another-secret-key-that-is-long-enough-for-hs256-987654321", claims())

    assert_invalid(await graphql_articles(client, bearer(token)))


async def test_only_hs256_is_allowed(client: httpx.AsyncClient, settings: Settings) -> None:
    assert tokens.ALGORITHMS == ["HS256"]
    token = sign(settings.secret_key, claims(), alg="HS512")

    assert_invalid(await graphql_articles(client, bearer(token)))


@pytest.mark.parametrize(
    "values",
    [
        pytest.param(claims(iss="someone-else"), id="foreign issuer"),
        pytest.param({k: v for k, v in claims().items() if k != "iss"}, id="no issuer"),
        pytest.param({k: v for k, v in claims().items() if k != "exp"}, id="no expiry"),
        pytest.param({k: v for k, v in claims().items() if k != "sub"}, id="no subject"),
    ],
)
async def test_tokens_with_missing_or_foreign_claims_are_refused(
    client: httpx.AsyncClient, settings: Settings, values: dict[str, Any]
) -> None:
    assert_invalid(await graphql_articles(client, bearer(sign(settings.secret_key, values))))


@pytest.mark.parametrize("token", ["garbage", "a.b.c", "....", "ü.ü.ü"])
async def test_garbage_tokens_are_refused(client: httpx.AsyncClient, token: str) -> None:
    response = await client.get("/www/artikel", headers={b"Authorization": f"Bearer {token}".encode()})

    assert_invalid(response)


async def test_the_graphiql_page_is_open(client: httpx.AsyncClient) -> None:
    response = await client.get("/graphql", headers={"Accept": "text/html"})

    assert response.status_code == 200
    assert response.headers["Content-Type"].startswith("text/html")
    assert "graphiql" in response.text.lower()


async def test_a_graphql_get_query_is_not_the_open_page(client: httpx.AsyncClient) -> None:
    response = await client.get(
        "/graphql", params={"query": "{ articles { totalCount } }"}, headers={"Accept": "text/html"}
    )

    assert response.status_code == 401
    assert response.json() == MISSING


async def test_graphql_with_a_shop_token(client: httpx.AsyncClient, factory: Factory, auth: dict[str, str]) -> None:
    await factory.reference_data()

    response = await graphql_articles(client, auth)

    assert response.status_code == 200, response.text
    assert response.json() == {"data": {"articles": {"totalCount": 0}}}


async def test_routes_are_protected_under_a_root_path(settings: Settings) -> None:
    app = create_app(settings)
    async with LifespanManager(app) as manager:
        transport = httpx.ASGITransport(app=manager.app, root_path="/gw")
        async with httpx.AsyncClient(transport=transport, base_url="http://gateway.test") as http:
            www = await http.get("/gw/www/artikel")
            graphql = await http.post("/gw/graphql", json=ARTICLES_QUERY)

    assert www.status_code == 401, www.text
    assert www.json() == MISSING
    assert graphql.status_code == 401, graphql.text
