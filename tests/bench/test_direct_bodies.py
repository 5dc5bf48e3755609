"""The benchmarks' hand-written builds of the article body (bench/catalogue/direct_page.py for bench/catalogue/main.py,
bench/http_direct*.py for bench/http_catalogue/main.py) answer what the gateway answers, checked here on a small demo
catalogue on the backend under test: a field added to the REST article that they do not build fails here,
not only when a benchmark is run by hand."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import httpx
import orjson
import pytest
from asgi_lifespan import LifespanManager
from sqlalchemy import select
from sqlalchemy.engine import make_url

from bench.catalogue.direct_page import BASE_URL, PAGE_PATH, DirectPage
from bench.http_catalogue import direct as http_direct
from datasources.database import Database
from datasources.demo import fill_demo
from datasources.models import Article, PackagingUnit
from gateway.app import create_app
from gateway.settings import Settings


@pytest.fixture
async def demo(db: Database) -> Database:
    assert await fill_demo(db.engine, articles=60, customers=2, seed=3)
    return db


@pytest.fixture
async def gateway(demo: Database, settings: Settings, auth: dict[str, str]) -> AsyncIterator[httpx.AsyncClient]:
    async with LifespanManager(create_app(settings)) as manager:
        transport = httpx.ASGITransport(app=manager.app)
        async with httpx.AsyncClient(transport=transport, base_url=BASE_URL, headers=auth) as client:
            yield client


@pytest.fixture
async def direct(
    demo: Database, database_url: str, auth: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> AsyncIterator[httpx.AsyncClient]:
    url = make_url(database_url)
    if url.get_backend_name() == "sqlite":
        driver, database = "sqlite3", str(url.database)
    else:
        driver, database = "asyncpg", url.set(drivername="postgresql").render_as_string(hide_password=False)
    monkeypatch.setenv("BENCH_DIRECT_DRIVER", driver)
    monkeypatch.setenv("BENCH_DIRECT_DATABASE", database)
    monkeypatch.setenv("BENCH_DIRECT_PUBLIC_URL", BASE_URL)
    async with LifespanManager(http_direct.create_app()) as manager:
        transport = httpx.ASGITransport(app=manager.app)
        async with httpx.AsyncClient(transport=transport, base_url=BASE_URL, headers=auth) as client:
            yield client


def parsed(response: httpx.Response) -> Any:
    assert response.status_code == 200, response.text
    return orjson.loads(response.content.decode("iso-8859-1"))


@pytest.mark.parametrize("limit", [7, 1000])
async def test_the_direct_page_is_the_rest_page(demo: Database, gateway: httpx.AsyncClient, limit: int) -> None:
    rest = parsed(await gateway.get(PAGE_PATH, params={"limit": limit}))
    assert orjson.loads(await DirectPage(demo, limit).body()) == rest


async def test_the_direct_app_answers_the_gateways_bytes(
    demo: Database, gateway: httpx.AsyncClient, direct: httpx.AsyncClient
) -> None:
    async with demo.reader() as session:
        with_units = await session.scalar(
            select(Article.number).join(PackagingUnit, PackagingUnit.article_id == Article.id).limit(1)
        )
    paths = [f"{PAGE_PATH}?limit=7", f"{PAGE_PATH}?limit=5&offset=3", PAGE_PATH, f"{PAGE_PATH}/{with_units}"]
    for path in paths:
        ours, theirs = await gateway.get(path), await direct.get(path)
        assert (theirs.status_code, theirs.content) == (ours.status_code, ours.content), path
