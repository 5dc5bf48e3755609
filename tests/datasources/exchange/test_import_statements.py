"""The import writes a chunk of records in a few statements per table, however many rows the chunk has: a
statement per row paid SQLite's statement journal and an FTS5 flush each (a load in quadratic time), and
PostgreSQL's statement triggers each (datasources/bulk.py)."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import orjson
import pytest
from sqlalchemy import event, text
from sqlalchemy.engine.interfaces import ExecuteStyle

from datasources.database import create_database
from datasources.exchange import Options, import_entries
from datasources.exchange.sources import entries
from tests.datasources.exchange.catalogues import fill, run_cli, write_records

ARTICLES = 240


async def _import_counting(url: str, file: Path) -> tuple[int, list[str]]:
    db = create_database(url)
    statements: list[str] = []

    def count(_conn: Any, _cursor: Any, statement: str, parameters: Any, context: Any, many: bool) -> None:
        # An executemany is a statement per set of parameters to the database (SQLite's and asyncpg's); a
        # batch of SQLAlchemy's "insertmanyvalues" is one statement.
        per_set = many and context.execute_style is not ExecuteStyle.INSERTMANYVALUES
        statements.extend([statement] * (len(parameters) if per_set else 1))

    event.listen(db.engine.sync_engine, "before_cursor_execute", count)
    try:
        report = await import_entries(db.engine, entries(file, "jsonl"), Options(base=file.parent))
    finally:
        event.remove(db.engine.sync_engine, "before_cursor_execute", count)
        await db.dispose()
    return report.new, statements


async def test_a_chunk_is_written_in_a_few_statements_per_table(
    database_url: str, target: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    await fill(database_url, ARTICLES, 5)
    await fill(target, 0, 5)
    exported = tmp_path / "catalogue.jsonl"
    assert await asyncio.to_thread(run_cli, monkeypatch, database_url, "export", "-o", str(exported)) == 0

    new, statements = await _import_counting(target, exported)

    assert new == ARTICLES
    inserts = [s for s in statements if s.lstrip().upper().startswith("INSERT")]
    # Some 2,000 rows in 9 tables (articles, designations, attributes, units, prices, stock, reservations,
    # declarations, media): at most 8 statements a table (the binary digits of a count below 256).
    assert len(inserts) <= 9 * 8
    assert len(statements) < ARTICLES / 2


async def test_a_changed_article_keeps_its_search_row(
    database_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Its UPDATE does not set the number it was found by: that fired the search index's trigger, which
    rewrote the article's FTS5 row and flushed the index, an article at a time."""
    if not database_url.startswith("sqlite"):
        pytest.skip("the search index's table and triggers are SQLite's")
    await fill(database_url, 3, 5)
    exported = tmp_path / "catalogue.jsonl"
    assert await asyncio.to_thread(run_cli, monkeypatch, database_url, "export", "-o", str(exported)) == 0
    records = [orjson.loads(line) for line in exported.read_bytes().splitlines()]
    records[0]["ArtGewicht"] = 123.45
    changed = write_records(tmp_path / "changed.jsonl", *records)
    key = text(
        "SELECT k.id FROM article_search_key k JOIN article a ON a.id = k.article_id "
        "WHERE a.number = :n AND k.language = ''"
    )
    number = records[0]["ArtNr"]
    before = await _scalar(database_url, key, number)

    assert await asyncio.to_thread(run_cli, monkeypatch, database_url, "import", str(changed)) == 0

    assert await _scalar(database_url, key, number) == before


async def _scalar(url: str, stmt: Any, number: str) -> Any:
    db = create_database(url)
    try:
        async with db.engine.connect() as conn:
            return await conn.scalar(stmt, {"n": number})
    finally:
        await db.dispose()
