"""The record file's formats: the JSON Schema `gateway export --schema` prints (and every exported record
satisfies), JSON arrays, images as files beside the record file, and CSV rows of the flat fields (`;` or `,`,
UTF-8 or Windows-1252, decimal commas) that change what they name and keep everything else."""

from __future__ import annotations

import asyncio
import json
from decimal import Decimal
from pathlib import Path
from typing import Any

import orjson
import pytest
from jsonschema import Draft202012Validator
from sqlalchemy import select

from datasources.database import create_database
from datasources.models import Article, ArticleDesignation, Price, PriceList
from tests.datasources.exchange.catalogues import fill, run_cli


@pytest.fixture
async def demo_url(database_url: str) -> str:
    await fill(database_url, 30, 11)
    return database_url


async def _export(monkeypatch: pytest.MonkeyPatch, url: str, path: Path, *args: str) -> list[dict[str, Any]]:
    assert await asyncio.to_thread(run_cli, monkeypatch, url, "export", "-o", str(path), *args) == 0
    return _records(path)


def _records(path: Path) -> list[dict[str, Any]]:
    return [orjson.loads(line) for line in path.read_bytes().splitlines()]


async def test_exported_records_satisfy_the_printed_schema(
    demo_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    assert await asyncio.to_thread(run_cli, monkeypatch, demo_url, "export", "--schema") == 0
    schema = json.loads(capsys.readouterr().out)
    Draft202012Validator.check_schema(schema)
    validator = Draft202012Validator(schema)

    records = await _export(monkeypatch, demo_url, tmp_path / "all.jsonl")

    assert len(records) == 30
    for record in records:
        assert not list(validator.iter_errors(record)), record["ArtNr"]
    assert any(media["Bild"] for record in records for media in record["Media"])
    assert list(validator.iter_errors({"ArtNr": "X", "AnLager": "X"}))  # and it refuses what the import refuses


async def test_a_quiet_export_to_stdout_filtered(
    demo_url: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ("export", "--filter", "ArtNr=A-00001*", "--filter", "WebShop=true")
    assert await asyncio.to_thread(run_cli, monkeypatch, demo_url, *args) == 0

    out, err = capsys.readouterr()
    numbers = [orjson.loads(line)["ArtNr"] for line in out.splitlines()]
    assert numbers and all(number.startswith("A-00001") for number in numbers)
    assert err == ""  # no progress bar where stderr is no terminal


async def test_json_with_images_as_files_imports_into_a_copy(
    demo_url: str, target: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    await fill(target, 0, 11)
    path = tmp_path / "out" / "all.json"
    path.parent.mkdir()
    args = ("--format", "json", "--media-dir", str(tmp_path / "out" / "bilder"))
    assert await asyncio.to_thread(run_cli, monkeypatch, demo_url, "export", "-o", str(path), *args) == 0
    records = orjson.loads(path.read_bytes())
    files = [media["Bild"]["Pfad"] for record in records for media in record["Media"] if media["Bild"]]
    assert files and all(name.startswith("bilder/") for name in files)

    assert await asyncio.to_thread(run_cli, monkeypatch, target, "import", str(path)) == 0

    source = await _export(monkeypatch, demo_url, tmp_path / "source.jsonl")
    assert await _export(monkeypatch, target, tmp_path / "copy.jsonl") == source


async def _designation_and_prices(url: str, number: str) -> tuple[dict[str, str], list[tuple[object, ...]]]:
    db = create_database(url)
    try:
        async with db.engine.connect() as conn:
            article = select(Article.id).where(Article.number == number).scalar_subquery()
            texts = select(ArticleDesignation.language, ArticleDesignation.text).where(
                ArticleDesignation.article_id == article
            )
            prices = (
                select(PriceList.list_type, Price.currency, Price.packaging_unit, Price.min_quantity, Price.amount)
                .join(PriceList)
                .where(Price.article_id == article)
                .order_by(PriceList.list_type, Price.currency, Price.packaging_unit, Price.min_quantity)
            )
            return dict((await conn.execute(texts)).all()), [tuple(row) for row in await conn.execute(prices)]
    finally:
        await db.dispose()


@pytest.mark.parametrize(("delimiter", "encoding"), [(";", "cp1252"), (",", "utf-8")])
async def test_csv_rows_change_the_flat_fields_they_name(
    demo_url: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    delimiter: str,
    encoding: str,
) -> None:
    records = {r["ArtNr"]: r for r in await _export(monkeypatch, demo_url, tmp_path / "all.jsonl")}
    number = next(n for n, r in records.items() if len(r["ArtBez"]) > 1 and "STD" in r["Preis"])
    texts_before, prices_before = await _designation_and_prices(demo_url, number)
    price = "12,35" if delimiter == ";" else "12.35"
    lines = [
        delimiter.join(["ArtNr", "ArtBez", "ArtGewicht", "Preis.STD.CHF"]),
        delimiter.join([number, "Kühlschrank für Gäste", "2,5" if delimiter == ";" else "2.5", f'"{price}"']),
        delimiter.join(["NEU-1", "Büroklammern", "", "3"]),
    ]
    path = tmp_path / "flat.csv"
    path.write_bytes(("\r\n".join(lines) + "\r\n").encode(encoding))
    capsys.readouterr()

    assert await asyncio.to_thread(run_cli, monkeypatch, demo_url, "import", str(path)) == 0

    assert "1 new, 1 changed" in capsys.readouterr().out
    texts, prices = await _designation_and_prices(demo_url, number)
    assert texts == {**texts_before, "ger": "Kühlschrank für Gäste"}  # the other languages kept
    changed = [row for row in prices if row[:4] == ("STD", "CHF", None, 1)]
    assert [row[4] for row in changed] == [Decimal("12.35")]
    assert [row for row in prices if row not in changed] == [
        row for row in prices_before if row[:4] != ("STD", "CHF", None, 1)
    ]  # the other tiers, units, lists and currencies kept
    again = {r["ArtNr"]: r for r in await _export(monkeypatch, demo_url, tmp_path / "again.jsonl")}
    assert again[number]["ArtGewicht"] == 2.5
    assert again["NEU-1"]["WebShop"] is True
    assert again["NEU-1"]["ArtBez"] == {"ger": "Büroklammern"}


async def test_csv_export_reads_back_unchanged(
    demo_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "flat.csv"
    assert await asyncio.to_thread(run_cli, monkeypatch, demo_url, "export", "--format", "csv", "-o", str(path)) == 0
    capsys.readouterr()

    assert await asyncio.to_thread(run_cli, monkeypatch, demo_url, "import", str(path)) == 0

    assert capsys.readouterr().out.strip() == "imported: 0 new, 0 changed, 30 unchanged, 0 removed, 0 rejected"


async def test_a_bad_csv_row_is_named_by_its_line(
    demo_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "flat.csv"
    path.write_text("ArtNr;ArtGewicht;Preis.STD.CHF\nB-1;1;2\nB-2;viel;2\nB-3;1\n", encoding="utf-8")

    assert await asyncio.to_thread(run_cli, monkeypatch, demo_url, "import", str(path)) == 1

    err = capsys.readouterr().err.splitlines()
    assert err[:2] == [
        "line 3: ArtGewicht: expected a number or null",
        "line 4: (record): expected a row of the header's columns",
    ]


async def test_partial_csv_rejects_keep_the_header_and_the_encoding(
    demo_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "flat.csv"
    path.write_bytes("ArtNr;ArtBez;ArtGewicht\nB-1;Gr\u00fcn;1\nB-2;Gr\u00fcn;viel\n".encode("cp1252"))

    assert await asyncio.to_thread(run_cli, monkeypatch, demo_url, "import", "--partial", str(path)) == 0

    assert "1 new, 0 changed, 0 unchanged, 0 removed, 1 rejected" in capsys.readouterr().out
    rejected = tmp_path / "flat.csv.rejected"
    assert rejected.read_bytes() == "ArtNr;ArtBez;ArtGewicht\nB-2;Gr\u00fcn;viel\n".encode("cp1252")
