"""The server bench/flood/main.py floods, as the tests start one (tests/server.py), the outage it is put
through (tests/faults/proxy.py on PostgreSQL, a held write lock on SQLite), and what its database stored.
Imports the tests package: flood.py puts the repository root on the path first."""

from __future__ import annotations

import asyncio
import contextlib
import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from sqlalchemy import text
from sqlalchemy.engine import make_url
from sqlalchemy.ext.asyncio import create_async_engine

from bench.flood.report import Stored
from tests import databases
from tests.faults.proxy import FaultyProxy
from tests.server import GatewayServer, ServerDatabase

USER, SECRET = "flood", "a-long-flood-secret"
SERVER_ENV = {
    "GATEWAY_DB_CONNECT_TIMEOUT": "2",
    "GATEWAY_RATE_REQUESTS_PER_TOKEN": "1000000/minute",  # the flood uses one token on purpose
    "GATEWAY_DB_STATEMENT_TIMEOUT": "3",  # on SQLite the wait for the write lock
    "GATEWAY_DB_POOL_TIMEOUT": "2",
    "GATEWAY_REQUEST_TIMEOUT": "10",
}
STORED_ORDERS = text(
    "SELECT d.external_number, d.number,"
    " (SELECT count(*) FROM document_position p WHERE p.document_id = d.id)"
    " FROM sales_document d WHERE d.kind = 'order' AND d.external_number LIKE :prefix"
)


class Outage(Protocol):
    label: str

    async def begin(self, patience: float) -> None: ...  # OSError or sqlite3.Error when it cannot
    def middle(self) -> None: ...
    def end(self) -> None: ...


class ProxyOutage:
    label = "PostgreSQL refused (closed port) for its first half, then frozen (FaultyProxy)"

    def __init__(self, proxy: FaultyProxy) -> None:
        self.proxy = proxy

    async def begin(self, patience: float) -> None:
        self.proxy.refuse()

    def middle(self) -> None:
        self.proxy.heal()
        self.proxy.freeze()

    def end(self) -> None:
        self.proxy.heal()


class SqliteWriteLock:
    label = "SQLite's write lock held by the bench (BEGIN EXCLUSIVE)"

    def __init__(self, path: Path) -> None:
        self.path = path
        self.connection: sqlite3.Connection | None = None

    async def begin(self, patience: float) -> None:
        self.connection = await asyncio.to_thread(self._lock, patience)  # waits for a write in progress

    def _lock(self, patience: float) -> sqlite3.Connection:
        connection = sqlite3.connect(self.path, timeout=patience, isolation_level=None, check_same_thread=False)
        try:
            connection.execute("BEGIN EXCLUSIVE")
        except sqlite3.Error:
            connection.close()
            raise
        return connection

    def middle(self) -> None:
        pass

    def end(self) -> None:
        if self.connection is not None:
            self.connection.rollback()
            self.connection.close()
            self.connection = None


@dataclass
class Target:
    server: GatewayServer
    database: ServerDatabase  # its URL reaches the database directly, never through the proxy
    outage: Outage


@contextlib.contextmanager
def started_server(directory: Path, database_url: str | None, workers: int) -> Iterator[Target]:
    """A started server with the flood's API user, stopped and its database dropped at the end."""
    if database_url:
        databases.SERVER_URL = database_url  # ServerDatabase creates and drops its database there
    database = ServerDatabase.create(directory)
    env, proxy = dict(SERVER_ENV), None
    outage: Outage
    if database_url:
        url = make_url(database.url)
        proxy = FaultyProxy((url.host or "127.0.0.1", url.port or 5432))
        env["GATEWAY_DATABASE_URL"] = url.set(host="127.0.0.1", port=proxy.port).render_as_string(hide_password=False)
        outage = ProxyOutage(proxy)
    else:
        outage = SqliteWriteLock(Path(make_url(database.url).database or ""))
    server = GatewayServer(directory, database, ("--workers", str(workers)), env)
    try:
        server.add_user(USER, SECRET, "shop")
        server.start()
        yield Target(server, database, outage)
    finally:
        server.stop()
        if proxy is not None:
            proxy.close()
        database.drop()


async def stored_orders(url: str, prefix: str) -> dict[str, list[Stored]]:
    engine = create_async_engine(url)
    try:
        async with engine.connect() as conn:
            rows = (await conn.execute(STORED_ORDERS, {"prefix": f"{prefix}%"})).all()
    finally:
        await engine.dispose()
    stored: dict[str, list[Stored]] = {}
    for reference, number, positions in rows:
        stored.setdefault(reference, []).append(Stored(number, positions))
    return stored
