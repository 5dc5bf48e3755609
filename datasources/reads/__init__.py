"""Reading with statements compiled once and run by the driver (query.py), in batches per turn of the event
loop (batch.py): the reads every request of the shop makes, of the catalogue, customers, addresses and
documents (a session's read costs ten times as much: SQLAlchemy's execution, and on SQLite 3-4 trips to
aiosqlite's thread a statement).

`Reads.rows(query, **params)` starts the query at once and returns what to await: queries started in the
same turn go to the database together. Three kinds read: `SqliteReads` and `PostgresReads` for requests
(`Database.reads`, one per process), and `SessionReads` inside a transaction.
"""

from __future__ import annotations

from collections.abc import Awaitable
from typing import Any, Protocol

from datasources.reads.postgresql import PostgresReads
from datasources.reads.query import Query, Row, values_in
from datasources.reads.records import record_columns
from datasources.reads.session import EngineReads, SessionReads
from datasources.reads.sqlite import SqliteReads


class Reads(Protocol):
    def rows(self, query: Query, /, **params: Any) -> Awaitable[list[Row]]: ...


class ProcessReads(Reads, Protocol):
    """The reads of requests, one per process: closed with the database."""

    async def close(self) -> None: ...


__all__ = [
    "EngineReads",
    "PostgresReads",
    "ProcessReads",
    "Query",
    "Reads",
    "Row",
    "SessionReads",
    "SqliteReads",
    "record_columns",
    "values_in",
]
