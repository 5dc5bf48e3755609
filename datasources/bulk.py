"""Bulk inserts of many alike rows: multi-row INSERTs of up to 1,024 rows, on both databases.

A statement per row costs what a statement costs whatever its size:
- PostgreSQL runs the change positions' triggers once per statement (migration 0011), and asyncpg's
  executemany is one statement per row.
- SQLite opens a statement savepoint for each statement of a write transaction: each page the statement
  changes is copied to the statement journal first (the sort keys' triggers touch dozens), and FTS5 writes
  what it holds of the search index out as a segment of its own (migration 0009), which its merges then read
  again. A load of a row a statement took longer with each article the index had (quadratic time): the
  articles 20,000 to 30,000 took 3x the CPU of the first 10,000, and 8 GB went through the statement journal
  per 10,000 articles; with 1,024 rows a statement they take what the first did, and 0.2-0.5 GB.

The rows go in full statements of PAGE rows and the rest in pieces of the sizes of its binary digits (1,000 =
512 + 256 + 128 + 64 + 32 + 8): each database keeps the statements it prepared (pysqlite's cache holds 128,
some 1 MB each at a thousand rows of a dozen columns), and a piece of every size would fill it (the import's
RSS grew by 50 MB); so a table has at most 11 shapes of statement. SQLAlchemy renders each as one statement
("insertmanyvalues", made for an executemany with RETURNING)."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from sqlalchemy import Table, insert
from sqlalchemy.ext.asyncio import AsyncConnection

PAGE = 1024  # a power of two: the rest of a page is a sum of smaller ones


async def insert_rows(conn: AsyncConnection, table: Table | Any, rows: Sequence[Mapping[str, Any]]) -> None:
    """`rows`, each with the same keys, inserted into `table` (a Table or a mapped class)."""
    statement = insert(table)
    key = next(iter(statement.table.primary_key.columns))  # type: ignore[attr-defined]
    statement = statement.returning(key)  # what is returned is not read: RETURNING makes the batches
    start = 0
    for size in pieces(len(rows)):
        part = list(rows[start : start + size])
        await conn.execute(statement, part, execution_options={"insertmanyvalues_page_size": PAGE})
        start += size


def pieces(count: int) -> Iterator[int]:
    """The sizes of the statements `count` rows go in: full pages, then the binary digits of the rest."""
    yield from (PAGE for _ in range(count // PAGE))
    size = PAGE // 2
    while size:
        if count & size:
            yield size
        size //= 2
