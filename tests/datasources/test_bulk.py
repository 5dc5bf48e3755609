"""Bulk inserts (datasources/bulk.py): on PostgreSQL a thousand rows a statement, so that the change positions'
statement triggers run per thousand rows, not per row; on SQLite one executemany."""

from __future__ import annotations

import datetime as dt
from typing import Any

from sqlalchemy import event, func, select

from datasources.bulk import insert_rows
from datasources.database import Database
from datasources.models import Article

STAMP = dt.datetime(2026, 11, 29, 12, 0, tzinfo=dt.UTC)


async def test_rows_are_inserted_a_thousand_a_statement_on_postgresql(db: Database) -> None:
    rows = [{"id": 10_000 + n, "number": f"B-{n:05}", "status": 0, "modified_at": STAMP} for n in range(2_500)]
    statements: list[str] = []

    def count(_conn: Any, _cursor: Any, statement: str, *_: Any) -> None:
        if statement.lstrip().upper().startswith("INSERT"):
            statements.append(statement)

    event.listen(db.engine.sync_engine, "before_cursor_execute", count)
    try:
        async with db.engine.begin() as conn:
            await insert_rows(conn, Article, rows)
            assert await conn.scalar(select(func.count()).select_from(Article).where(Article.id >= 10_000)) == 2_500
    finally:
        event.remove(db.engine.sync_engine, "before_cursor_execute", count)
    assert len(statements) == (3 if db.engine.dialect.name == "postgresql" else 1)
