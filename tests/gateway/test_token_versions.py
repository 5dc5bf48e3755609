"""The tokens of a removed or rotated user are refused within GATEWAY_TOKEN_CHECK_SECONDS: the per-process
cache of token versions (gateway/auth/versions.py) on its own, then through the app."""

from __future__ import annotations

import asyncio
import dataclasses
import datetime as dt
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import httpx
import pytest
from asgi_lifespan import LifespanManager
from joserfc import jwt
from joserfc.jwk import OctKey
from sqlalchemy import exc, update
from sqlalchemy.ext.asyncio import AsyncSession

from datasources import users
from datasources.database import Database
from datasources.models import ApiUser
from datasources.users import TokenVersion
from gateway.app import create_app
from gateway.auth.tokens import ISSUER, TokenIssuer
from gateway.auth.versions import TokenVersions
from gateway.settings import Settings
from tests.factories import Factory
from tests.http import statement_count

SECRET = "a-long-secret"
ARTICLES = "/www/artikel?limit=1&fields=ArtNr"
TTL = 0.5  # seconds: GATEWAY_TOKEN_CHECK_SECONDS of the app tests


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def reads(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The names whose version was read from the database, in order."""
    names: list[str] = []
    read = users.token_version

    async def counted(session: AsyncSession, name: str) -> TokenVersion | None:
        names.append(name)
        return await read(session, name)

    monkeypatch.setattr(users, "token_version", counted)
    return names


async def add(db: Database, name: str) -> TokenVersion:
    record = await db.write(lambda session: users.add_user(session, name, SECRET, ("shop",)))
    return record.token_version


async def add_created(db: Database, name: str, created_at: dt.datetime) -> None:
    await add(db, name)
    backdated = update(ApiUser).where(ApiUser.name == name).values(created_at=created_at)
    await db.write(lambda session: session.execute(backdated))


async def rotate(db: Database, name: str) -> TokenVersion:
    record = await db.write(lambda session: users.rotate_user(session, name, "a-new-long-secret"))
    return record.token_version


async def remove(db: Database, name: str) -> None:
    await db.write(lambda session: users.remove_user(session, name))


# --- the cache ------------------------------------------------------------------------------------------


async def test_a_fresh_entry_is_not_read_again(db: Database, reads: list[str]) -> None:
    clock = Clock()
    versions = TokenVersions(db, ttl=5, clock=clock)
    version = await add(db, "shop")

    assert await versions.accepts("shop", version)
    clock.now += 4.9
    assert await versions.accepts("shop", version)
    assert reads == ["shop"]

    clock.now += 0.1
    assert await versions.accepts("shop", version)
    assert reads == ["shop", "shop"]


async def test_a_rotation_is_seen_when_the_entry_expires(db: Database, reads: list[str]) -> None:
    clock = Clock()
    versions = TokenVersions(db, ttl=5, clock=clock)
    old = await add(db, "shop")
    assert await versions.accepts("shop", old)

    new = await rotate(db, "shop")

    assert await versions.accepts("shop", old)  # within the ttl: the version read before
    clock.now += 5
    assert not await versions.accepts("shop", old)
    assert await versions.accepts("shop", new)
    assert reads == ["shop", "shop"]


async def test_a_token_newer_than_the_entry_reads_it_again_at_once(db: Database, reads: list[str]) -> None:
    # Another process issued it after a rotation this one has not seen: not refused until the entry expires.
    versions = TokenVersions(db, ttl=60, clock=Clock())
    old = await add(db, "shop")
    assert await versions.accepts("shop", old)

    new = await rotate(db, "shop")

    assert await versions.accepts("shop", new)
    assert not await versions.accepts("shop", old)  # now known to be older: refused without a read
    assert not await versions.accepts("shop", TokenVersion(old.created, 7))  # newer, but not the user's
    assert reads == ["shop", "shop", "shop"]
    assert not await versions.accepts("shop", TokenVersion(old.created - 1, 9))  # an older user's
    assert reads == ["shop", "shop", "shop"]


async def test_a_removed_user_is_refused_and_a_user_added_again_is_read_again(db: Database, reads: list[str]) -> None:
    clock = Clock()
    versions = TokenVersions(db, ttl=60, clock=clock)
    removed = await add(db, "shop")
    assert await versions.accepts("shop", removed)
    await remove(db, "shop")
    clock.now += 60
    assert not await versions.accepts("shop", removed)
    assert not await versions.accepts("shop", removed)  # known to be gone: no read per request
    assert reads == ["shop", "shop"]

    added = await add(db, "shop")

    assert await versions.accepts("shop", added)
    assert not await versions.accepts("shop", removed)
    assert reads == ["shop", "shop", "shop"]


async def test_a_user_added_after_this_process_found_none_is_read_again(db: Database, reads: list[str]) -> None:
    versions = TokenVersions(db, ttl=60, clock=Clock())
    assert not await versions.accepts("shop", TokenVersion(0, 0))
    assert not await versions.accepts("shop", TokenVersion(0, 0))  # of a user created long before: no read
    assert reads == ["shop"]

    added = await add(db, "shop")

    assert await versions.accepts("shop", added)
    assert reads == ["shop", "shop"]


async def test_a_token_without_a_version_is_valid_until_the_first_rotation(db: Database) -> None:
    clock = Clock()
    versions = TokenVersions(db, ttl=5, clock=clock)
    await add(db, "shop")
    issued = int(time.time())
    assert await versions.accepts("shop", None, issued_at=issued)

    await rotate(db, "shop")
    clock.now += 5

    assert not await versions.accepts("shop", None, issued_at=issued)
    assert not await versions.accepts("nobody", None, issued_at=issued)


async def test_a_token_without_a_version_is_refused_once_its_user_was_removed_even_if_added_again(
    db: Database,
) -> None:
    clock = Clock()
    versions = TokenVersions(db, ttl=5, clock=clock)
    await add_created(db, "shop", dt.datetime.now(dt.UTC) - dt.timedelta(hours=1))
    issued = int(time.time()) - 60  # a minute ago, by the gateway before tokens carried versions
    assert await versions.accepts("shop", None, issued_at=issued)
    assert not await versions.accepts("shop", None)  # no `iat`: whose it was cannot be told

    await remove(db, "shop")
    clock.now += 5
    assert not await versions.accepts("shop", None, issued_at=issued)
    await add(db, "shop")  # another user under the name, created now: after the token
    clock.now += 5

    assert not await versions.accepts("shop", None, issued_at=issued)


async def test_concurrent_requests_share_one_read(db: Database, reads: list[str]) -> None:
    versions = TokenVersions(db, ttl=5, clock=Clock())
    version = await add(db, "shop")

    answers = await asyncio.gather(*(versions.accepts("shop", version) for _ in range(50)))

    assert answers == [True] * 50
    assert reads == ["shop"]


async def test_a_request_that_gives_up_does_not_cancel_the_read_others_wait_for(
    db: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    version = await add(db, "shop")
    release = asyncio.Event()
    read = users.token_version

    async def slow(session: AsyncSession, name: str) -> TokenVersion | None:
        await release.wait()
        return await read(session, name)

    monkeypatch.setattr(users, "token_version", slow)
    versions = TokenVersions(db, ttl=5, clock=Clock())
    first = asyncio.create_task(versions.accepts("shop", version))
    second = asyncio.create_task(versions.accepts("shop", version))
    await asyncio.sleep(0)
    first.cancel()
    release.set()

    assert await second
    with pytest.raises(asyncio.CancelledError):
        await first


async def test_the_least_recently_used_users_are_forgotten(db: Database, reads: list[str]) -> None:
    versions = TokenVersions(db, ttl=5, size=2, clock=Clock())
    known = {name: await add(db, name) for name in ("a", "b", "c")}

    for name in ("a", "b", "a", "c", "a", "b"):
        assert await versions.accepts(name, known[name])

    assert reads == ["a", "b", "c", "b"]  # c pushed out b (a was used since), b then pushed out c


def outage(session: AsyncSession, name: str) -> Awaitable[TokenVersion | None]:
    raise exc.TimeoutError("QueuePool limit of size 10 overflow 10 reached, connection timed out")


async def test_while_the_database_is_away_the_last_answer_holds(db: Database, monkeypatch: pytest.MonkeyPatch) -> None:
    clock = Clock()
    versions = TokenVersions(db, ttl=5, clock=clock)
    version = await add(db, "shop")
    other = await add(db, "other")
    assert await versions.accepts("shop", version)
    assert await versions.accepts("other", other)
    await remove(db, "other")
    assert not await versions.accepts("other", TokenVersion(other.created, 1))
    monkeypatch.setattr(users, "token_version", outage)
    clock.now += 5

    assert await versions.accepts("shop", version)
    assert not await versions.accepts("shop", TokenVersion(0, 0))
    # A user never read before: the outage is raised, and answered 503 like every request that needs data.
    with pytest.raises(exc.TimeoutError):
        await versions.accepts("never-seen", version)


async def test_an_error_that_is_not_an_outage_is_raised(db: Database, monkeypatch: pytest.MonkeyPatch) -> None:
    clock = Clock()
    versions = TokenVersions(db, ttl=5, clock=clock)
    version = await add(db, "shop")
    assert await versions.accepts("shop", version)

    def broken(session: AsyncSession, name: str) -> Awaitable[TokenVersion | None]:
        raise RuntimeError("a bug")

    monkeypatch.setattr(users, "token_version", broken)
    clock.now += 5

    with pytest.raises(RuntimeError, match="a bug"):
        await versions.accepts("shop", version)


# --- through the app ------------------------------------------------------------------------------------


@pytest.fixture
async def client(settings: Settings) -> AsyncIterator[httpx.AsyncClient]:
    app = create_app(dataclasses.replace(settings, token_check_seconds=TTL))
    async with LifespanManager(app) as manager:
        transport = httpx.ASGITransport(app=manager.app)
        async with httpx.AsyncClient(transport=transport, base_url="http://gateway.test") as http:
            yield http


async def token(client: httpx.AsyncClient, name: str, secret: str = SECRET) -> dict[str, str]:
    response = await client.post("/www/token", auth=(name, secret))
    assert response.status_code == 200, response.text
    return {"Authorization": f"Bearer {response.json()['access_token']}"}


async def refused_after(client: httpx.AsyncClient, headers: dict[str, str]) -> float:
    """Seconds until a request with `headers` is refused 401 invalid_token; every answer before is 200."""
    started = time.monotonic()
    while time.monotonic() - started < TTL + 2:
        response = await client.get(ARTICLES, headers=headers)
        if response.status_code == 401:
            assert response.json()["error"] == "invalid_token"
            assert response.json()["error_description"] == "The token is invalid or expired."
            assert response.headers["WWW-Authenticate"] == 'Bearer realm="gateway", error="invalid_token"'
            return time.monotonic() - started
        assert response.status_code == 200, response.text
        await asyncio.sleep(0.05)
    raise AssertionError(f"still accepted {TTL + 2} s later")


async def test_a_rotated_users_old_token_is_refused_within_the_check_time(
    client: httpx.AsyncClient, db: Database, factory: Factory
) -> None:
    await factory.reference_data()
    await add(db, "shop")
    old = await token(client, "shop")
    assert (await client.get(ARTICLES, headers=old)).status_code == 200

    await rotate(db, "shop")

    # The new token works at once, although this process still holds the old version for a while.
    new = await token(client, "shop", "a-new-long-secret")
    assert (await client.get(ARTICLES, headers=new)).status_code == 200
    assert (await client.post("/www/token", auth=("shop", SECRET))).status_code == 401
    assert await refused_after(client, old) <= TTL + 0.5
    assert (await client.get(ARTICLES, headers=new)).status_code == 200


async def test_a_removed_users_token_is_refused_within_the_check_time(
    client: httpx.AsyncClient, db: Database, factory: Factory
) -> None:
    await factory.reference_data()
    await add(db, "shop")
    headers = await token(client, "shop")
    assert (await client.get(ARTICLES, headers=headers)).status_code == 200

    await remove(db, "shop")

    assert await refused_after(client, headers) <= TTL + 0.5
    graphql = await client.post("/graphql", json={"query": "{ articles { totalCount } }"}, headers=headers)
    assert graphql.status_code == 401


async def test_a_remembered_token_of_a_ready_query_is_refused_after_its_users_rotation(
    client: httpx.AsyncClient, db: Database, factory: Factory, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The fastest path there is: the token decoded once and remembered (gateway/auth/tokens.py), the document
    # validated once and run without Strawberry's extensions (schema/ready.py). The user's version still
    # decides, per request.
    await factory.reference_data()
    await add(db, "shop")
    headers = await token(client, "shop")
    decodes = [0]
    decode = TokenIssuer._decode

    def counted(self: TokenIssuer, text: str) -> Any:
        decodes[0] += 1
        return decode(self, text)

    monkeypatch.setattr(TokenIssuer, "_decode", counted)
    query = {"query": "{ __typename }"}
    for _ in range(3):
        assert (await client.post("/graphql", json=query, headers=headers)).status_code == 200
    assert decodes == [1]

    await rotate(db, "shop")

    started = time.monotonic()
    while (answer := await client.post("/graphql", json=query, headers=headers)).status_code == 200:
        assert time.monotonic() - started <= TTL + 0.5, "still accepted"
        await asyncio.sleep(0.05)
    assert answer.status_code == 401
    assert answer.json()["error"] == "invalid_token"
    assert decodes == [1]  # refused for its version, though still remembered as a valid signature


async def test_the_version_read_counts_in_no_requests_statements(
    client: httpx.AsyncClient, db: Database, factory: Factory
) -> None:
    # Shared by the requests that wait for it: Server-Timing does not depend on which one came first.
    await factory.reference_data()
    await add(db, "shop")
    headers = await token(client, "shop")

    counts = [statement_count(await client.get(ARTICLES, headers=headers)) for _ in range(2)]
    await asyncio.sleep(TTL)
    counts.append(statement_count(await client.get(ARTICLES, headers=headers)))

    assert counts[0] == counts[1] == counts[2]


async def test_an_unreadable_version_is_503_like_any_request_that_needs_the_database(
    client: httpx.AsyncClient, token_for: Callable[..., dict[str, str]], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(users, "token_version", outage)

    response = await client.get(ARTICLES, headers=token_for("shop"))

    assert response.status_code == 503
    assert response.headers["Retry-After"] == "5"
    body: dict[str, Any] = response.json()
    assert (body["error"], body["info"]) == ("unavailable", {"retry_after": 5})


async def test_a_token_of_a_user_that_never_existed_is_refused(client: httpx.AsyncClient, settings: Settings) -> None:
    forged = TokenIssuer(settings.secret_key, 60).issue("nobody", ("admin",), TokenVersion(0, 0))

    response = await client.get(ARTICLES, headers={"Authorization": f"Bearer {forged}"})

    assert response.status_code == 401
    assert response.json()["error"] == "invalid_token"


async def test_a_token_without_a_version_is_refused_once_its_user_is_removed_or_rotated(
    client: httpx.AsyncClient, db: Database, factory: Factory, settings: Settings
) -> None:
    await factory.reference_data()
    await add_created(db, "shop", dt.datetime.now(dt.UTC) - dt.timedelta(hours=1))
    await add_created(db, "other", dt.datetime.now(dt.UTC) - dt.timedelta(hours=1))
    # As the gateway signed them before tokens carried a version (no `ver`), a minute ago.
    old_format = {
        name: {"Authorization": f"Bearer {unversioned_token(settings, name, int(time.time()) - 60)}"}
        for name in ("shop", "other")
    }
    assert (await client.get(ARTICLES, headers=old_format["shop"])).status_code == 200

    await remove(db, "shop")
    await add(db, "shop")  # the same name again: another user, who never had that token
    await rotate(db, "other")

    assert await refused_after(client, old_format["shop"]) <= TTL + 0.5
    assert await refused_after(client, old_format["other"]) <= TTL + 0.5


def unversioned_token(settings: Settings, name: str, issued_at: int) -> str:
    claims = {"iss": ISSUER, "sub": name, "scope": "shop", "iat": issued_at, "exp": issued_at + 3600, "jti": "old"}
    key = OctKey.import_key(settings.secret_key.encode())
    return jwt.encode({"alg": "HS256", "typ": "JWT"}, claims, key, algorithms=["HS256"])
