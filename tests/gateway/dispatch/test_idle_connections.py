"""An idle dispatcher keeps the database connections it opened: its fallback poll (due deliveries), the
REST_Artikel events' look for changes and, on PostgreSQL, the LISTEN connection open none after the first
rounds, however many poll intervals pass (issue 40: an idle server was said to reconnect every poll)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import asyncpg.connect_utils
import pytest
from sqlalchemy import event

from datasources import liveness
from datasources.database import Database
from datasources.reads.sqlite import SqliteReads
from gateway.dispatch import Dispatcher, WebhookSettings

POLL = 0.05  # seconds; the default is 2


def _counting(opened: list[str], what: str, function: Callable[..., Any]) -> Callable[..., Any]:
    def counted(*args: Any, **kwargs: Any) -> Any:
        opened.append(what)
        return function(*args, **kwargs)

    return counted


async def test_an_idle_dispatcher_opens_no_connection_after_its_first_rounds(
    db: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Every pooled connection is pinged at its checkout, as each one is on a real server between two polls
    # (TRUSTED_SECONDS < the 2 s poll): a ping that went wrong would replace the pool's connections.
    monkeypatch.setattr(liveness, "TRUSTED_SECONDS", 0.0)
    opened: list[str] = []
    if db.engine.dialect.name == "postgresql":  # every connection: the engine's, the reads' pools, LISTEN
        connect = _counting(opened, "asyncpg", asyncpg.connect_utils._connect)
        monkeypatch.setattr(asyncpg.connect_utils, "_connect", connect)
    else:
        event.listen(db.engine.sync_engine, "connect", lambda *_: opened.append("engine"))
        if isinstance(db.reads, SqliteReads):
            monkeypatch.setattr(db.reads, "_open", _counting(opened, "reads", db.reads._open))
    dispatcher = Dispatcher(db, WebhookSettings(poll_interval=POLL), article_interval=POLL)
    task = asyncio.create_task(dispatcher.run())
    try:
        await asyncio.sleep(10 * POLL)  # the first rounds open what the dispatcher keeps
        first = len(opened)
        assert first > 0  # the counting sees them
        await asyncio.sleep(40 * POLL)
        assert opened[first:] == []
    finally:
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)
