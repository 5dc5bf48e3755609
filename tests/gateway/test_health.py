"""GET /healthz answers while the process runs; GET /readyz only while the database answers in time and is
migrated to this code's head, else 503 with the reason. Neither needs a token, nor counts against one."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from pathlib import Path

import httpx
import pytest
from asgi_lifespan import LifespanManager
from sqlalchemy import text
from sqlalchemy.engine import make_url

from datasources import migrate
from datasources.database import create_database
from gateway.app import create_app
from gateway.health.readiness import Readiness
from gateway.settings import RateLimits, Settings
from tests import databases, unclosed_connections
from tests.faults.proxy import FaultyProxy
from tests.http import body

HEAD = migrate.head_revisions()[0]

OpenApp = Callable[..., Awaitable[httpx.AsyncClient]]


@pytest.fixture
async def app_on(settings: Settings) -> AsyncIterator[OpenApp]:
    """Opens the app on another database: a client whose app's lifespan runs until the test ends."""
    async with contextlib.AsyncExitStack() as stack:

        async def open_on(url: str, **changes: object) -> httpx.AsyncClient:
            app = create_app(dataclasses.replace(settings, database_url=url, **changes))  # type: ignore[arg-type]
            manager = await stack.enter_async_context(LifespanManager(app))
            transport = httpx.ASGITransport(app=manager.app)
            return await stack.enter_async_context(
                httpx.AsyncClient(transport=transport, base_url="http://gateway.test")
            )

        yield open_on


async def sqlite_at(directory: Path, revision: str | None) -> str:
    """A database file migrated to `revision` (None: never migrated)."""
    url = f"sqlite+aiosqlite:///{directory / 'partial.db'}"
    db = create_database(url)
    try:
        if revision is not None:
            await migrate.upgrade(db.engine, revision)
        else:
            async with db.engine.connect():
                pass  # the file exists, without any table
    finally:
        await db.dispose()
    return url


async def test_healthz_answers_without_a_token(client: httpx.AsyncClient) -> None:
    response = await client.get("/healthz")
    assert response.status_code == 200
    assert body(response) == {"status": "ok"}
    assert (await client.head("/healthz")).status_code == 200


async def test_readyz_on_a_migrated_database(client: httpx.AsyncClient) -> None:
    response = await client.get("/readyz")
    assert response.status_code == 200
    assert body(response) == {"status": "ready"}


async def test_probes_are_neither_authenticated_nor_rate_limited(
    app_on: OpenApp, settings: Settings, auth: dict[str, str]
) -> None:
    client = await app_on(settings.database_url, rate_limits=RateLimits(requests_per_user="1/minute"))
    # A probe that sends a token anyway is not checked, and does not count against the token.
    answers = [await client.get(path, headers=auth) for path in ("/readyz", "/healthz", "/readyz")]
    assert [response.status_code for response in answers] == [200, 200, 200]
    assert (await client.get("/readyz", headers={"Authorization": "Bearer not-a-token"})).status_code == 200
    assert (await client.get("/www/artikel?limit=1", headers=auth)).status_code == 200
    assert (await client.get("/www/artikel?limit=1", headers=auth)).status_code == 429


@pytest.mark.parametrize(
    ("revision", "description", "info"),
    [
        ("0005", f"migrations behind: at 0005, head {HEAD}", {"revision": "0005", "head": HEAD}),
        (None, f"database not migrated: head {HEAD}", {"revision": None, "head": HEAD}),
    ],
)
async def test_readyz_refuses_a_database_not_at_head(
    app_on: OpenApp, tmp_path: Path, revision: str | None, description: str, info: dict[str, object]
) -> None:
    client = await app_on(await sqlite_at(tmp_path, revision))
    response = await client.get("/readyz")
    assert response.status_code == 503
    assert response.headers["retry-after"] == "5"
    assert body(response) == {
        "success": False,
        "error": "unavailable",
        "error_description": description,
        "info": {"retry_after": 5, **info},
    }
    assert (await client.get("/healthz")).status_code == 200  # alive all the same


async def test_a_probe_cut_off_anywhere_in_its_check_leaves_no_connection_open(database_url: str) -> None:
    # The probe's timeout may expire between connecting and closing: a suspect when a connection was found
    # unclosed (it was not the one). Cut off at points spread over a whole check, each on a new pool.
    async def check_within(seconds: float) -> float:
        db = create_database(database_url)
        try:
            started = time.perf_counter()
            await Readiness(seconds).refusal(db)
            assert db.engine.pool.checkedout() == 0  # type: ignore[attr-defined]
            return time.perf_counter() - started
        finally:
            await db.dispose()

    whole = await check_within(10)
    with unclosed_connections.none_left_unclosed():
        for step in range(25):
            await check_within(whole * step / 20)


async def test_readyz_refuses_a_database_a_newer_release_migrated(app_on: OpenApp, tmp_path: Path) -> None:
    url = await sqlite_at(tmp_path, "head")
    db = create_database(url)
    async with db.engine.begin() as conn:
        await conn.execute(text("UPDATE alembic_version SET version_num = '9999'"))
    await db.dispose()
    client = await app_on(url)
    response = await client.get("/readyz")
    assert response.status_code == 503
    assert body(response)["error_description"] == f"migrations unknown to this gateway: at 9999, head {HEAD}"


async def test_readyz_refuses_a_database_it_cannot_open(
    app_on: OpenApp, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    client = await app_on(f"sqlite+aiosqlite:///{tmp_path / 'no-such-directory' / 'gateway.db'}")
    with caplog.at_level(logging.WARNING, logger="gateway.database"):
        answers = [await client.get("/readyz") for _ in range(3)]
    for response in answers:
        assert response.status_code == 503
        assert body(response) == {
            "success": False,
            "error": "unavailable",
            "error_description": "database unavailable",
            "info": {"retry_after": 5},
        }
    # One line for the episode, with the driver's reason; none of it in the answer.
    assert [r.getMessage() for r in caplog.records if r.name == "gateway.database"] == [
        f"database sqlite+aiosqlite:///{tmp_path / 'no-such-directory' / 'gateway.db'} unavailable: "
        "OperationalError: unable to open database file"
    ]


postgresql_only = pytest.mark.skipif(not databases.SERVER_URL, reason="needs PostgreSQL (GATEWAY_TEST_DATABASE_URL)")


@pytest.fixture
def proxy(database_url: str) -> Iterator[FaultyProxy]:
    url = make_url(database_url)
    faulty = FaultyProxy((url.host or "127.0.0.1", url.port or 5432))
    yield faulty
    faulty.close()


@postgresql_only
async def test_readyz_follows_a_postgresql_that_stops_and_comes_back(
    app_on: OpenApp, database_url: str, proxy: FaultyProxy
) -> None:
    proxied = make_url(database_url).set(host="127.0.0.1", port=proxy.port).render_as_string(hide_password=False)
    client = await app_on(proxied, ready_timeout=1.0)
    assert (await client.get("/readyz")).status_code == 200

    proxy.refuse()  # the server stopped: nothing listens
    response = await client.get("/readyz")
    assert response.status_code == 503
    assert body(response)["error_description"] == "database unavailable"

    proxy.heal()
    proxy.freeze()  # a server that takes the bytes and never answers: the probe's own timeout answers
    started = time.monotonic()
    response = await client.get("/readyz")
    assert response.status_code == 503
    assert time.monotonic() - started < 3
    assert (await client.get("/healthz")).status_code == 200

    proxy.heal()  # ready again once the pool's frozen connections are replaced
    for _ in range(50):
        if (await client.get("/readyz")).status_code == 200:
            break
        await asyncio.sleep(0.2)
    else:
        pytest.fail("/readyz did not answer 200 within 10 s of the database's return")
