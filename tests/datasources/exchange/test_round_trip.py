"""`gateway export` of a demo catalogue (random seed) and `gateway import` of the file into a database without
articles: every REST answer of the catalogue is byte-identical, for every language, currency and customer; the
export of the copy is the file itself; importing the file again writes nothing."""

from __future__ import annotations

import asyncio
import random
from pathlib import Path

import httpx
import pytest
from asgi_lifespan import LifespanManager
from sqlalchemy import select

from datasources.database import create_database
from datasources.models import Article, Customer, Media, Price
from datasources.users import TokenVersion
from gateway.app import create_app
from gateway.auth.tokens import TokenIssuer
from gateway.settings import Settings
from tests.datasources.exchange.catalogues import CREATED, SECRET, fill, run_cli

ARTICLES = 120
LANGUAGES = ("ger", "fre", "ita", "eng", "spa")  # spa: none of the articles has it (the German fallback)
CURRENCIES = ("CHF", "EUR", "USD")


async def _paths(url: str) -> list[str]:
    db = create_database(url)
    try:
        async with db.engine.connect() as conn:
            numbers = list(await conn.scalars(select(Article.number).order_by(Article.number)))
            customers = list(await conn.scalars(select(Customer.number).order_by(Customer.number)))
            media = list(await conn.scalars(select(Media.id).order_by(Media.id)))
    finally:
        await db.dispose()
    views = [""]
    views += [f"adrsprache={language}" for language in LANGUAGES]
    views += [f"waehrabk={currency}" for currency in CURRENCIES]
    views += [f"debinr={customer}" for customer in customers]
    views += [f"debinr={customers[0]}&waehrabk=EUR", "adrsprache=fre&waehrabk=EUR"]
    paths = [f"/www/artikel?limit=0&{view}" for view in views]
    paths += [f"/www/artikel?limit=25&offset=10&sorts=-ArtBez&{view}" for view in views[:6]]
    sample = numbers[:: max(1, len(numbers) // 8)]
    paths += [f"/www/artikel/{number}?{view}" for number in sample for view in views]
    paths += [f"/www/artikel/{number}" for number in numbers]
    paths += [f"/www/artikelmedia/{number}" for number in numbers]
    paths += [f"/www/artikelmediadaten/{media_id}" for media_id in media]
    return paths


async def _answers(url: str, tmp_path: Path, paths: list[str]) -> list[tuple[int, bytes]]:
    settings = Settings(
        database_url=url, secret_key=SECRET, log_dir=tmp_path / "logs", work_dir=tmp_path / "work", token_lifetime=600
    )
    token = TokenIssuer(SECRET, 600).issue("shop", ("shop",), TokenVersion.of(CREATED, 0))
    headers = {"Authorization": f"Bearer {token}"}
    app = create_app(settings)
    async with LifespanManager(app) as manager:
        transport = httpx.ASGITransport(app=manager.app)
        async with httpx.AsyncClient(transport=transport, base_url="http://gateway.test") as http:
            answers = []
            for path in paths:
                response = await http.get(path, headers=headers)
                answers.append((response.status_code, response.content))
            return answers


async def _price_rows(url: str) -> list[tuple[object, ...]]:
    db = create_database(url)
    try:
        async with db.engine.connect() as conn:
            return [tuple(row) for row in await conn.execute(select(Price.id, Price.modified_at).order_by(Price.id))]
    finally:
        await db.dispose()


async def test_an_exported_catalogue_imported_into_an_empty_database_answers_the_same(
    database_url: str, target: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    seed = random.randrange(1_000_000)
    await fill(database_url, ARTICLES, seed)
    await fill(target, 0, seed)
    exported, again = tmp_path / "catalogue.jsonl", tmp_path / "again.jsonl"

    assert await asyncio.to_thread(run_cli, monkeypatch, database_url, "export", "-o", str(exported)) == 0
    assert await asyncio.to_thread(run_cli, monkeypatch, target, "import", str(exported)) == 0

    paths = await _paths(database_url)
    assert paths == await _paths(target)
    source_answers = await _answers(database_url, tmp_path / "source", paths)
    target_answers = await _answers(target, tmp_path / "target", paths)
    assert sum(status == 200 for status, _ in source_answers) > len(paths) // 2, f"seed {seed}"
    for path, source, copy in zip(paths, source_answers, target_answers, strict=True):
        assert copy == source, f"seed {seed}: {path}"
    assert await asyncio.to_thread(run_cli, monkeypatch, target, "export", "-o", str(again)) == 0
    assert again.read_bytes() == exported.read_bytes(), f"seed {seed}"


async def test_importing_an_unchanged_file_writes_nothing(
    database_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    await fill(database_url, 60, 7)
    exported = tmp_path / "catalogue.jsonl"
    assert await asyncio.to_thread(run_cli, monkeypatch, database_url, "export", "-o", str(exported)) == 0
    prices = await _price_rows(database_url)
    capsys.readouterr()

    assert await asyncio.to_thread(run_cli, monkeypatch, database_url, "import", str(exported)) == 0

    assert "0 new, 0 changed, 60 unchanged" in capsys.readouterr().out
    assert await _price_rows(database_url) == prices  # not deleted and inserted again: same ids
    again = tmp_path / "again.jsonl"
    assert await asyncio.to_thread(run_cli, monkeypatch, database_url, "export", "-o", str(again)) == 0
    assert again.read_bytes() == exported.read_bytes()  # GeaendertAmUTC did not move
