"""Per-request SQL statement counts and time, collected by engine events into a context variable.

The middleware sets a fresh `QueryStats` per request; the greenlets SQLAlchemy runs sync code in see
the caller's context, so the events find the request's object without any plumbing.
"""

from __future__ import annotations

import time
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import event
from sqlalchemy.engine import Connection, Engine


@dataclass
class QueryStats:
    statements: int = 0
    seconds: float = 0.0
    graphql_seconds: float = 0.0
    graphql_paths: list[str] = field(default_factory=list)  # the executor path of each operation
    graphql_fallbacks: list[str] = field(default_factory=list)  # operations graphql-core ran again (a bug)
    writes_begun: int = 0  # write transactions begun (Database.write): each runs to its end, and is answered


current_stats: ContextVar[QueryStats | None] = ContextVar("current_stats", default=None)

_TRANSACTION_CONTROL = ("BEGIN", "COMMIT", "ROLLBACK", "SAVEPOINT", "RELEASE")


def install(engine: Engine) -> None:
    event.listen(engine, "before_cursor_execute", _before)
    event.listen(engine, "after_cursor_execute", _after)


def _before(conn: Connection, cursor: Any, statement: str, *args: Any) -> None:
    conn.info["query_started"] = time.perf_counter()


def _after(conn: Connection, cursor: Any, statement: str, *args: Any) -> None:
    stats = current_stats.get()
    started = conn.info.pop("query_started", None)
    if stats is None or started is None or statement.lstrip().upper().startswith(_TRANSACTION_CONTROL):
        return
    stats.statements += 1
    stats.seconds += time.perf_counter() - started
