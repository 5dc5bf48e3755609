"""Reads inside a transaction: a `Query` run through the transaction's own session, as any statement of it.

A write reads what it prices and checks (articles, units, prices) in its own transaction, so that what it
decides on is what it commits with. These statements go through SQLAlchemy like the rest of the write.
"""

from __future__ import annotations

import asyncio
from typing import Any

from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine, AsyncSession

from datasources.reads.query import Query, Row


class SessionReads:
    def __init__(self, session: AsyncSession | AsyncConnection) -> None:
        self.session = session
        self._turn = asyncio.Lock()  # a session runs one statement at a time; reads asked for together wait

    async def rows(self, query: Query, /, **params: Any) -> list[Row]:
        dialect = self.session.get_bind().dialect if isinstance(self.session, AsyncSession) else self.session.dialect
        async with self._turn:
            result = await self.session.execute(query.statement, query.parameters(dialect, params))
            return list(result.all())

    async def close(self) -> None:
        return None  # the transaction is its owner's to end


class EngineReads:
    """Through SQLAlchemy on a connection of the engine per query: for a SQLite database that a connection
    of another thread cannot open (one in memory, or named by a URI)."""

    def __init__(self, engine: AsyncEngine) -> None:
        self.engine = engine

    async def rows(self, query: Query, /, **params: Any) -> list[Row]:
        async with self.engine.connect() as connection:
            return await SessionReads(connection).rows(query, **params)

    async def close(self) -> None:
        return None
