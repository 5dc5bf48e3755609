"""Fixtures: a clean database per test and the real app behind an httpx client."""

from __future__ import annotations

import datetime as dt
import gc
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path

import httpx
import pytest
from asgi_lifespan import LifespanManager

from datasources.database import Database, create_database
from datasources.models import ApiUser
from datasources.users import TokenVersion
from gateway.app import create_app
from gateway.auth.tokens import TokenIssuer
from gateway.settings import Settings
from schema.execution import FALLBACKS
from tests import databases, unclosed_connections
from tests.catalogue_data import Catalogue, build_catalogue
from tests.factories import Factory

SECRET_KEY = "test-secret-key-that-is-long-enough-for-hs256-0123456789"
TOKEN_USERS = ("shop-client", "other-shop", "operator", "webshop")


def pytest_collection_finish(session: pytest.Session) -> None:
    """What is imported by now (the app, the schema, the drivers) lives for the whole run: frozen out of the
    collector's sight, the collection at each file's end (connections_closed) scans only what the tests made:
    a few ms, not ~0.4 s a file."""
    gc.collect()
    gc.freeze()


@pytest.fixture(autouse=True)
def no_graphql_fallback(request: pytest.FixtureRequest) -> Iterator[None]:
    """No operation a test runs, the REST routes' documents above all, is answered by the compiled plans
    failing and graphql-core running every resolver again (a bug that only a log line and a metric show);
    a test that means to make one is marked `fallback`."""
    before = FALLBACKS.copy()
    yield
    if request.node.get_closest_marker("fallback") is None:
        again = FALLBACKS - before
        assert not again, f"graphql-core ran again after the compiled run of {dict(again)} (gateway.log says why)"


@pytest.fixture(scope="module", autouse=True)
def connections_closed(request: pytest.FixtureRequest) -> Iterator[None]:
    """Every database connection a test file opened is closed by its end. One left open surfaces only when the
    collector takes it (a driver's ResourceWarning, an error here), in whichever later test that happens: the
    collection at each file's end names the file that left it (tests/unclosed_connections.py)."""
    yield
    left = unclosed_connections.collected()
    assert not left, f"{request.path} left {len(left)} database connections unclosed: {left}"


@pytest.fixture(scope="session")
async def template_url(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[str]:
    url = await databases.create_template(tmp_path_factory.mktemp("template"))
    yield url
    await databases.drop_template(url)


@pytest.fixture
async def database_url(template_url: str, tmp_path: Path) -> str:
    return await databases.fresh_database(template_url, tmp_path)


@pytest.fixture
async def db(database_url: str) -> AsyncIterator[Database]:
    database = create_database(database_url)
    yield database
    await database.dispose()


@pytest.fixture
async def factory(db: Database) -> Factory:
    return Factory(db)


@pytest.fixture
def settings(database_url: str, tmp_path: Path) -> Settings:
    return Settings(
        database_url=database_url,
        secret_key=SECRET_KEY,
        log_dir=tmp_path / "logs",
        work_dir=tmp_path / "work",
        token_lifetime=3600,
    )


@pytest.fixture
async def client(settings: Settings) -> AsyncIterator[httpx.AsyncClient]:
    app = create_app(settings)
    async with LifespanManager(app) as manager:
        transport = httpx.ASGITransport(app=manager.app)
        async with httpx.AsyncClient(transport=transport, base_url="http://gateway.test") as http:
            yield http


@pytest.fixture
async def token_users(settings: Settings) -> dict[str, TokenVersion]:
    """The users token_for signs tokens for, in the test's database (the gateway refuses the tokens of a user
    that does not exist), with the token version each token must carry. Their secret matches nothing."""
    created_at = dt.datetime.now(dt.UTC)
    database = create_database(settings.database_url)
    try:
        async with database.writer() as session, session.begin():
            session.add_all(
                ApiUser(name=name, secret_hash="-", scopes="shop", created_at=created_at, token_version=0)
                for name in TOKEN_USERS
            )
    finally:
        await database.dispose()
    return dict.fromkeys(TOKEN_USERS, TokenVersion.of(created_at, 0))


@pytest.fixture
def token_for(settings: Settings, token_users: dict[str, TokenVersion]) -> Callable[..., dict[str, str]]:
    """Authorization headers for a user with the given scopes, signed like the token endpoint does."""

    def make(*scopes: str, name: str = "shop-client") -> dict[str, str]:
        assert name in token_users, f"token_for signs for the users of TOKEN_USERS only, not {name!r}"
        issuer = TokenIssuer(settings.secret_key, settings.token_lifetime)
        token = issuer.issue(name, scopes or ("shop",), token_users[name])
        return {"Authorization": f"Bearer {token}"}

    return make


@pytest.fixture
def auth(token_for: Callable[..., dict[str, str]]) -> dict[str, str]:
    return token_for("shop")


@pytest.fixture
async def catalogue(factory: Factory) -> Catalogue:
    return await build_catalogue(factory)
