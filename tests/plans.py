"""A statement of the data layer as the database plans it: compiled with its values for EXPLAIN, on the backend
under test."""

# The statements are the data layer's own, compiled with their values for EXPLAIN.

from __future__ import annotations

import json
from typing import Any

from sqlalchemy import Select, text
from sqlalchemy.ext.asyncio import AsyncConnection

from datasources.database import Database
from datasources.reads import Query


def sql(db: Database, statement: Select[Any]) -> str:
    return str(statement.compile(dialect=db.engine.dialect, compile_kwargs={"literal_binds": True}))


async def plan(db: Database, conn: AsyncConnection, statement: Select[Any]) -> str:
    """The plan's lines: PostgreSQL's EXPLAIN, SQLite's EXPLAIN QUERY PLAN."""
    postgresql = db.engine.dialect.name == "postgresql"
    explain = "EXPLAIN " if postgresql else "EXPLAIN QUERY PLAN "
    return "\n".join(str(row[-1]) for row in await conn.execute(text(explain + sql(db, statement))))


async def query_plan(db: Database, conn: AsyncConnection, query: Query, params: dict[str, Any]) -> str:
    """The plan of a `Query` as the reads run it: its compiled text with its parameters bound, lists (values_in)
    as the dialect takes them, which literal values cannot render."""
    compiled = query.compiled(db.engine.dialect)
    explain = "EXPLAIN " if db.engine.dialect.name == "postgresql" else "EXPLAIN QUERY PLAN "
    rows = await conn.exec_driver_sql(explain + compiled.sql, compiled.arguments(params))
    return "\n".join(str(row[-1]) for row in rows)


async def work(db: Database, statement: str, arguments: tuple[Any, ...] = ()) -> int:
    """What running `statement` (as the driver takes it) costs. SQLite: virtual-machine steps (counted every
    10); PostgreSQL: rows the plan's scans read."""
    async with db.engine.connect() as conn:
        if db.engine.dialect.name == "sqlite":
            steps = 0

            def count() -> int:
                nonlocal steps
                steps += 10
                return 0

            sqlite = (await conn.get_raw_connection()).driver_connection  # aiosqlite's
            assert sqlite is not None
            await sqlite.set_progress_handler(count, 10)
            try:
                await conn.exec_driver_sql(statement, arguments)
            finally:
                await sqlite.set_progress_handler(None, 10)
            return steps
        explained = (await conn.exec_driver_sql(f"EXPLAIN (ANALYZE, FORMAT JSON) {statement}", arguments)).scalar()
        return _rows_scanned(json.loads(explained) if isinstance(explained, str) else explained)


def _rows_scanned(node: Any) -> int:
    if isinstance(node, list):
        return sum(_rows_scanned(item) for item in node)
    if not isinstance(node, dict):
        return 0
    own = node["Actual Rows"] * node["Actual Loops"] if "Scan" in node.get("Node Type", "") else 0
    return own + _rows_scanned(node.get("Plan", [])) + _rows_scanned(node.get("Plans", []))
