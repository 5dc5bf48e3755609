"""A statement of the data layer as the database plans it: compiled with its values for EXPLAIN, on the backend
under test."""

# The statements are the data layer's own, compiled with their values for EXPLAIN.

from __future__ import annotations

from typing import Any

from sqlalchemy import Select, text
from sqlalchemy.ext.asyncio import AsyncConnection

from datasources.database import Database


def sql(db: Database, statement: Select[Any]) -> str:
    return str(statement.compile(dialect=db.engine.dialect, compile_kwargs={"literal_binds": True}))


async def plan(db: Database, conn: AsyncConnection, statement: Select[Any]) -> str:
    """The plan's lines: PostgreSQL's EXPLAIN, SQLite's EXPLAIN QUERY PLAN."""
    postgresql = db.engine.dialect.name == "postgresql"
    explain = "EXPLAIN " if postgresql else "EXPLAIN QUERY PLAN "
    return "\n".join(str(row[-1]) for row in await conn.execute(text(explain + sql(db, statement))))
