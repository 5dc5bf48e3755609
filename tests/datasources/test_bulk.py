"""Bulk inserts (datasources/bulk.py): up to 1,024 rows a statement on both databases, so that PostgreSQL's
change positions' statement triggers, and SQLite's statement journal and FTS5 flush (a statement each), are
paid per statement of many rows, not per row; and in few shapes of statement, so that the statements the
databases keep prepared stay few whatever the numbers of rows."""

from __future__ import annotations

import datetime as dt
from typing import Any

from sqlalchemy import event, func, select

from datasources.bulk import PAGE, insert_rows, pieces
from datasources.database import Database
from datasources.models import Article

STAMP = dt.datetime(2026, 11, 29, 12, 0, tzinfo=dt.UTC)


def _rows(first: int, count: int) -> list[dict[str, Any]]:
    return [{"id": first + n, "number": f"B-{first + n:06}", "status": 0, "modified_at": STAMP} for n in range(count)]


async def test_rows_are_inserted_a_thousand_a_statement(db: Database) -> None:
    statements: list[str] = []

    def count(_conn: Any, _cursor: Any, statement: str, *_: Any) -> None:
        if statement.lstrip().upper().startswith("INSERT"):
            statements.append(statement)

    event.listen(db.engine.sync_engine, "before_cursor_execute", count)
    try:
        async with db.engine.begin() as conn:
            await insert_rows(conn, Article, _rows(10_000, 2_500))
            assert await conn.scalar(select(func.count()).select_from(Article).where(Article.id >= 10_000)) == 2_500
    finally:
        event.remove(db.engine.sync_engine, "before_cursor_execute", count)
    assert len(statements) == 6  # 1,024 + 1,024 + 256 + 128 + 64 + 4


async def test_any_numbers_of_rows_make_few_shapes_of_statement(db: Database) -> None:
    shapes: set[str] = set()

    def keep(_conn: Any, _cursor: Any, statement: str, *_: Any) -> None:
        if statement.lstrip().upper().startswith("INSERT"):
            shapes.add(statement)

    event.listen(db.engine.sync_engine, "before_cursor_execute", keep)
    try:
        async with db.engine.begin() as conn:
            first = 10_000
            for count in range(1, 300, 7):  # the tail of each chunk of an import is of another size
                await insert_rows(conn, Article, _rows(first, count))
                first += count
            stored = await conn.scalar(select(func.count()).select_from(Article).where(Article.id >= 10_000))
            assert stored == first - 10_000
    finally:
        event.remove(db.engine.sync_engine, "before_cursor_execute", keep)
    assert len(shapes) <= 9  # 256, 128, ..., 1: one shape each


def test_pieces_add_up_to_the_rows() -> None:
    for count in (0, 1, 2, 1_000, PAGE, PAGE + 1, 3 * PAGE - 1, 12_345):
        sizes = list(pieces(count))
        assert sum(sizes) == count
        assert all(size == PAGE or size & (size - 1) == 0 for size in sizes)
        assert len(sizes) <= count // PAGE + 10
