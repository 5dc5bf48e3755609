"""`gateway import` of files with bad records: every bad record is named by its line, field and what was
expected; nothing is written (all or nothing) unless --partial, which writes the rejected lines beside the file;
--dry-run counts what would change and writes nothing."""

from __future__ import annotations

import asyncio
from pathlib import Path

import orjson
import pytest
from sqlalchemy import func, select

from datasources.database import create_database
from datasources.models import Article, ArticleAttribute, ArticleDesignation, Price
from tests.datasources.exchange.catalogues import fill, run_cli, write_records


async def _scalar(url: str, stmt: object) -> object:
    db = create_database(url)
    try:
        async with db.engine.connect() as conn:
            return await conn.scalar(stmt)  # type: ignore[call-overload]
    finally:
        await db.dispose()


GOOD = {"ArtNr": "N-1", "ArtBez": {"ger": "Neu", "fre": "Nouveau"}, "Preis": {"STD": {"CHF": [{"PreisList": 9.9}]}}}
BAD_LINES = [
    (b'{"ArtNr": "N-2", ', "line 2: (record): expected a JSON object"),
    ({"ArtBez": {"ger": "ohne Nummer"}}, "line 3: ArtNr: expected a value (the field is required)"),
    ({"ArtNr": "N-4", "ArtGewicht": "schwer"}, "line 4: ArtGewicht: expected a number or null"),
    ({"ArtNr": "N-5", "AnLager": "X"}, "line 5: AnLager: expected 'J' or 'N'"),
    ({"ArtNr": "N-6", "Preis": {"XXL": {"CHF": [{"PreisList": 1}]}}}, "line 6: Preis.XXL: expected a price list type"),
    ({"ArtNr": "N-7", "Preis": {"STD": {"CHF": [{"AbAnzahl": 1}]}}}, "line 7: Preis.STD.CHF[0].PreisList: expected a"),
    ({"ArtNr": "N-8", "Bestand": {"Mond": [{"LagerBestand": 1}]}}, "line 8: Bestand.Mond: expected a warehouse"),
    ({"ArtNr": "N-9", "Farbe": "rot", "Groesse": 3}, "line 9: Groesse: expected no such field"),
    ({"ArtNr": "N-1"}, "line 10: ArtNr: expected an ArtNr not named before (it is on line 1)"),
    ({"ArtNr": "N-11", "WebShop": False, "attributes": {"RESTWEBSHOP": "1"}}, "line 11: attributes.RESTWEBSHOP"),
    ({"ArtNr": "N-12", "GeaendertAmUTC": "gestern"}, "line 12: GeaendertAmUTC: expected a UTC time in ISO 8601"),
    ({"ArtNr": "N-13", "Media": [{"AMDDateiName": "x.png", "Bild": {"Pfad": "fehlt.png"}}]}, "line 13: Media[0].Bild"),
]  # fmt: skip


@pytest.fixture
async def demo_url(database_url: str) -> str:
    await fill(database_url, 20, 3)
    return database_url


async def test_every_bad_record_is_named_and_nothing_is_written(
    demo_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write_records(tmp_path / "bad.jsonl", GOOD, *(record for record, _ in BAD_LINES))
    articles = await _scalar(demo_url, select(func.count()).select_from(Article))

    assert await asyncio.to_thread(run_cli, monkeypatch, demo_url, "import", str(path)) == 1

    errors = capsys.readouterr().err.splitlines()
    for (_, expected), line in zip(BAD_LINES, errors, strict=False):
        assert line.startswith(expected), (expected, line)
    assert len(errors) == len(BAD_LINES) + 1  # and the summary
    assert "nothing imported: 12 rejected records" in errors[-1]
    assert await _scalar(demo_url, select(func.count()).select_from(Article)) == articles
    assert not (tmp_path / "bad.jsonl.rejected").exists()


async def test_partial_imports_the_good_records_and_writes_the_bad_lines_beside_the_file(
    demo_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write_records(tmp_path / "bad.jsonl", GOOD, *(record for record, _ in BAD_LINES[:4]))

    assert await asyncio.to_thread(run_cli, monkeypatch, demo_url, "import", "--partial", str(path)) == 0

    assert "imported: 1 new, 0 changed, 0 unchanged, 0 removed, 4 rejected" in capsys.readouterr().out
    rejected = (tmp_path / "bad.jsonl.rejected").read_bytes().splitlines()
    assert rejected == path.read_bytes().splitlines()[1:]
    texts = select(ArticleDesignation.text).join(Article).where(Article.number == "N-1").order_by("language")
    assert await _scalar(demo_url, texts) == "Nouveau"
    exposed = select(ArticleAttribute.contents).join(Article).where(Article.number == "N-1")
    assert await _scalar(demo_url, exposed.where(ArticleAttribute.key == "RESTWEBSHOP")) == "1"


async def test_dry_run_counts_and_writes_nothing(
    demo_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    exported = tmp_path / "all.jsonl"
    assert await asyncio.to_thread(run_cli, monkeypatch, demo_url, "export", "-o", str(exported)) == 0
    records = [orjson.loads(line) for line in exported.read_bytes().splitlines()]
    records[0]["ArtBez"]["ger"] = "Anders"
    path = write_records(tmp_path / "some.jsonl", GOOD, *records[:10])
    prices = await _scalar(demo_url, select(func.count()).select_from(Price))
    capsys.readouterr()

    assert await asyncio.to_thread(run_cli, monkeypatch, demo_url, "import", "--dry-run", "--replace", str(path)) == 0

    exposed_unnamed = sum(record["WebShop"] for record in records[10:])
    expected = f"1 new, 1 changed, 9 unchanged, {exposed_unnamed} removed, 0 rejected"
    assert capsys.readouterr().out.strip() == f"dry run, nothing written: {expected}"
    assert await _scalar(demo_url, select(func.count()).select_from(Price)) == prices
    assert await _scalar(demo_url, select(func.count()).where(Article.number == "N-1")) == 0


async def test_replace_unexposes_the_articles_the_file_does_not_name(
    demo_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write_records(tmp_path / "one.jsonl", GOOD)

    assert await asyncio.to_thread(run_cli, monkeypatch, demo_url, "import", "--replace", str(path)) == 0

    exposed = select(Article.number).join(ArticleAttribute).where(ArticleAttribute.key == "RESTWEBSHOP")
    assert await _scalar(demo_url, select(func.count()).select_from(exposed.subquery())) == 1
    assert await _scalar(demo_url, exposed) == "N-1"
    assert await _scalar(demo_url, select(func.count()).select_from(Article)) == 21  # removed from the shop only
