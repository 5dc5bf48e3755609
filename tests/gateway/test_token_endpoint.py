"""POST /www/token: HTTP Basic credentials of an API user in, a signed bearer token out."""

from __future__ import annotations

import base64
import time
from collections.abc import Mapping

import httpx
import pytest
from sqlalchemy import select

from datasources import users
from datasources.database import Database
from datasources.models import ApiUser
from gateway.auth.tokens import TokenClaims, TokenIssuer
from gateway.settings import Settings
from tests.factories import Factory

SECRET = "a-long-shop-secret"
INVALID_CLIENT = {
    "success": False,
    "error": "invalid_client",
    "error_description": "The client credentials are invalid.",
    "info": {},
}
BASIC_CHALLENGE = 'Basic realm="gateway", charset="UTF-8"'


async def add_user(db: Database, name: str, secret: str, *scopes: str) -> None:
    async with db.writer() as session, session.begin():
        await users.add_user(session, name, secret, scopes)


def basic(name: str, secret: str) -> dict[str, str]:
    credentials = base64.b64encode(f"{name}:{secret}".encode()).decode("ascii")
    return {"Authorization": f"Basic {credentials}"}


async def get_token(client: httpx.AsyncClient, name: str, secret: str) -> str:
    response = await client.post("/www/token", headers=basic(name, secret))
    assert response.status_code == 200, response.text
    token = response.json()["access_token"]
    assert isinstance(token, str)
    return token


def assert_invalid_client(response: httpx.Response) -> None:
    assert response.status_code == 401
    assert response.json() == INVALID_CLIENT
    assert response.headers["WWW-Authenticate"] == BASIC_CHALLENGE
    assert response.headers["Content-Type"] == "application/json; charset=iso-8859-1"


async def test_correct_credentials_give_a_bearer_token(
    client: httpx.AsyncClient, db: Database, factory: Factory, settings: Settings
) -> None:
    await add_user(db, "shop", SECRET, "shop")

    response = await client.post("/www/token", headers=basic("shop", SECRET))

    assert response.status_code == 200
    assert response.headers["Content-Type"] == "application/json; charset=iso-8859-1"
    assert response.headers["Cache-Control"] == "no-store"
    body = response.json()
    assert set(body) == {"access_token", "token_type", "expires_in"}
    assert body["token_type"] == "Bearer"
    assert type(body["expires_in"]) is int
    assert body["expires_in"] == settings.token_lifetime
    claims = TokenIssuer(settings.secret_key, settings.token_lifetime).verify(body["access_token"])
    async with db.reader() as session:
        version = await users.token_version(session, "shop")
    assert claims == TokenClaims("shop", ("shop",), version, claims.issued_at, claims.expires_at)
    assert claims.issued_at is not None and abs(claims.issued_at - time.time()) < 60
    assert abs(claims.expires_at - claims.issued_at - settings.token_lifetime) < 1
    assert version is not None and version.number == 0

    await factory.reference_data()
    articles = await client.get("/www/artikel", headers={"Authorization": f"Bearer {body['access_token']}"})
    assert articles.status_code == 200, articles.text


async def test_unknown_user_and_wrong_secret_are_indistinguishable(client: httpx.AsyncClient, db: Database) -> None:
    await add_user(db, "shop", SECRET, "shop")

    unknown = await client.post("/www/token", headers=basic("nobody", SECRET))
    wrong = await client.post("/www/token", headers=basic("shop", SECRET + "x"))

    assert_invalid_client(unknown)
    assert_invalid_client(wrong)
    assert unknown.content == wrong.content
    assert unknown.headers["WWW-Authenticate"] == wrong.headers["WWW-Authenticate"]
    assert unknown.headers["Content-Type"] == wrong.headers["Content-Type"]


@pytest.mark.parametrize(
    "headers",
    [
        pytest.param({}, id="missing header"),
        pytest.param({"Authorization": ""}, id="empty header"),
        pytest.param(
            {"Authorization": "Bearer " + base64.b64encode(f"shop:{SECRET}".encode()).decode()},
            id="not basic",
        ),
        pytest.param(
            {"Authorization": "Digest " + base64.b64encode(f"shop:{SECRET}".encode()).decode()},
            id="digest",
        ),
        pytest.param({"Authorization": "Basic not*base64!"}, id="malformed base64"),
        pytest.param({"Authorization": "Basic c2hvcA="}, id="bad padding"),
        pytest.param(
            {"Authorization": "Basic " + base64.b64encode(b"shop" + SECRET.encode()).decode()},
            id="no colon",
        ),
        pytest.param(
            {"Authorization": "Basic " + base64.b64encode(f":{SECRET}".encode()).decode()},
            id="empty name",
        ),
        pytest.param(
            {"Authorization": "Basic " + base64.b64encode(b"shop:\xff\xfe").decode()},
            id="not utf-8",
        ),
        pytest.param({"Authorization": "Basic"}, id="no credentials"),
        # Raw bytes beyond ASCII in the header (read as ISO-8859-1): base64 of nothing.
        pytest.param({b"Authorization": b"Basic \xfc\xfc"}, id="non-ascii header"),
    ],
)
async def test_malformed_credentials_are_invalid_client(
    client: httpx.AsyncClient, headers: Mapping[str, str] | Mapping[bytes, bytes]
) -> None:
    assert_invalid_client(await client.post("/www/token", headers=headers))


async def test_the_secret_is_stored_hashed(db: Database) -> None:
    await add_user(db, "shop", SECRET, "shop")

    async with db.reader() as session:
        stored = (await session.execute(select(ApiUser.secret_hash, ApiUser.scopes))).one()

    assert stored.secret_hash != SECRET
    assert SECRET not in stored.secret_hash
    assert stored.secret_hash.startswith("$argon2")
    assert stored.scopes == "shop"


async def test_catalogue_token_reads_the_catalogue_but_cannot_delete_logs(
    client: httpx.AsyncClient, db: Database, factory: Factory
) -> None:
    await add_user(db, "reader", SECRET, "catalogue")
    await factory.reference_data()
    headers = {"Authorization": f"Bearer {await get_token(client, 'reader', SECRET)}"}

    articles = await client.get("/www/artikel", headers=headers)
    delete = await client.delete("/www/log", headers=headers)

    assert articles.status_code == 200, articles.text
    assert delete.status_code == 403
    assert delete.json() == {
        "success": False,
        "error": "insufficient_scope",
        "error_description": "the admin scope is required",
        "info": {},
    }


async def test_a_non_ascii_secret_works(client: httpx.AsyncClient, db: Database, settings: Settings) -> None:
    # A colon belongs to the secret: only the first one separates it from the name.
    secret = "Grüezi:Zürich-€-密码"
    await add_user(db, "umlaut", secret, "shop")

    token = await get_token(client, "umlaut", secret)
    # The same characters with the umlauts folded away are another secret.
    folded = await client.post("/www/token", headers=basic("umlaut", "Gruezi:Zurich-€-密码"))

    assert TokenIssuer(settings.secret_key, settings.token_lifetime).verify(token).subject == "umlaut"
    assert_invalid_client(folded)


async def test_a_name_with_a_nul_character_is_invalid_client(client: httpx.AsyncClient) -> None:
    assert_invalid_client(await client.post("/www/token", headers=basic("sh\x00op", SECRET)))
