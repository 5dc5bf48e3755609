"""Bulk inserts of many alike rows, the cheapest way on each database.

PostgreSQL runs the change positions' triggers once per statement (migration 0011), and asyncpg's executemany
is one statement per row: there the rows go in multi-row INSERTs of a thousand rows, made by SQLAlchemy's
"insertmanyvalues" (one compiled statement, its VALUES repeated), which it uses for an executemany with
RETURNING. SQLite's triggers run per row whatever the statement, and its executemany is the cheapest there."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from sqlalchemy import Table, insert
from sqlalchemy.ext.asyncio import AsyncConnection


async def insert_rows(conn: AsyncConnection, table: Table | Any, rows: Sequence[Mapping[str, Any]]) -> None:
    """`rows`, each with the same keys, inserted into `table` (a Table or a mapped class)."""
    if not rows:
        return
    statement = insert(table)
    if conn.dialect.name == "postgresql":
        key = next(iter(statement.table.primary_key.columns))  # type: ignore[attr-defined]
        statement = statement.returning(key)  # what is returned is not read: RETURNING makes the batches
    await conn.execute(statement, list(rows))
