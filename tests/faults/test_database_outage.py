"""A real `gateway serve` on PostgreSQL whose database goes away: connections terminated by the server,
the port closed, the server frozen. Requests are answered 503 `unavailable` with Retry-After (never 500),
the log has one line per outage instead of a traceback per request, and service resumes by itself."""

from __future__ import annotations

import asyncio
import contextlib
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import asyncpg
import httpx
import pytest
from sqlalchemy.engine import make_url

from tests import databases
from tests.faults.proxy import FaultyProxy
from tests.logs import logged
from tests.server import GatewayServer, ServerDatabase

pytestmark = pytest.mark.skipif(not databases.SERVER_URL, reason="needs PostgreSQL (GATEWAY_TEST_DATABASE_URL)")

USER, SECRET = "shop", "a-long-secret"
TIMEOUTS = {
    "GATEWAY_DB_CONNECT_TIMEOUT": "1",
    "GATEWAY_DB_STATEMENT_TIMEOUT": "2",
    "GATEWAY_DB_POOL_TIMEOUT": "1",
    "GATEWAY_REQUEST_TIMEOUT": "8",
}


class Outage:
    def __init__(self, server: GatewayServer, proxy: FaultyProxy, database: ServerDatabase) -> None:
        self.server, self.proxy, self.database = server, proxy, database
        self.headers = {"Authorization": f"Bearer {server.token(USER, SECRET)}"}

    def get(self, path: str = "/www/artikel/A-000001?fields=ArtNr") -> httpx.Response:
        return httpx.get(self.server.base_url + path, headers=self.headers, timeout=30)

    def order(self, external: str) -> httpx.Response:
        body = {
            "GrundDaten": {"KundNr": "100001", "AuftBestellNr": external},
            "Positionen": [{"ArtNr": "A-000001", "Menge": 1}],
        }
        return httpx.post(self.server.base_url + "/www/auftrag", json=body, headers=self.headers, timeout=30)

    def log(self) -> str:
        path = self.server.directory / "logs" / "gateway.log"
        return path.read_text() if path.exists() else ""  # created with its first line


@pytest.fixture
def outage(tmp_path: Path) -> Iterator[Outage]:
    database = ServerDatabase.create(tmp_path)
    url = make_url(database.url)
    proxy = FaultyProxy((url.host or "127.0.0.1", url.port or 5432))
    proxied = url.set(host="127.0.0.1", port=proxy.port).render_as_string(hide_password=False)
    server = GatewayServer(tmp_path, database, extra_env={"GATEWAY_DATABASE_URL": proxied, **TIMEOUTS})
    try:
        server.add_user(USER, SECRET, "shop")
        server.start()
        yield Outage(server, proxy, database)
    finally:
        server.stop()
        proxy.close()
        database.drop()


def assert_unavailable(response: httpx.Response) -> None:
    assert response.status_code == 503, response.text
    assert response.headers["retry-after"] == "5"
    assert response.headers["content-type"] == "application/json; charset=iso-8859-1"
    data = response.json()
    assert data["success"] is False
    assert data["error"] == "unavailable"
    assert data["info"] == {"retry_after": 5}


def test_a_closed_port_is_503_and_service_resumes_by_itself(outage: Outage) -> None:
    assert outage.get().status_code == 200

    outage.proxy.refuse()
    started = time.monotonic()
    answers = [outage.get() for _ in range(5)] + [outage.order("OUT-1")]
    for response in answers:
        assert_unavailable(response)
    assert time.monotonic() - started < 20  # each within the connect timeout, not hanging

    outage.proxy.heal()
    assert outage.get().status_code == 200
    assert outage.order("OUT-2").status_code == 201

    # The episode's end is logged at the first answer after 5 quiet seconds.
    deadline = time.monotonic() + 15
    while "answers again after" not in outage.log() and time.monotonic() < deadline:
        assert outage.get().status_code == 200
        time.sleep(0.5)
    log = outage.log()
    assert log.count("unavailable:") == 1, log
    assert log.count("answers again after") == 1, log
    assert "Traceback" not in log


def test_a_frozen_server_is_503_within_the_timeouts(outage: Outage) -> None:
    assert outage.get().status_code == 200

    outage.proxy.freeze()
    started = time.monotonic()
    assert_unavailable(outage.get())
    assert time.monotonic() - started < 10  # statement (2 s), pool and connect timeouts, not 30-81 s

    outage.proxy.heal()
    deadline = time.monotonic() + 20
    while (response := outage.get()).status_code != 200 and time.monotonic() < deadline:
        assert_unavailable(response)
        time.sleep(0.5)
    assert response.status_code == 200
    assert "Traceback" not in outage.log()


def test_connections_terminated_by_the_server_are_replaced(outage: Outage) -> None:
    assert outage.get().status_code == 200
    admin = databases.SERVER_URL
    name = make_url(outage.database.url).database

    terminated = databases.run_sql(
        admin,
        f"SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE datname = '{name}'",  # noqa: S608
    )

    assert terminated >= 1
    # The pool finds its connections dead before use and opens new ones: no request notices.
    for index in range(5):
        assert outage.get().status_code == 200
        assert outage.order(f"TERM-{index}").status_code == 201
    assert "Traceback" not in outage.log()


def test_a_connection_terminated_under_a_running_request_is_503(outage: Outage) -> None:
    # The request's statement waits on a lock; its backend is terminated while it waits (a failover, an
    # operator's pg_terminate_backend): the request is answered 503, the next ones are served.
    assert outage.get().status_code == 200
    with _table_locked(outage.database.url, "article") as locker_pid:
        waiting = ThreadPoolExecutor(1).submit(outage.get)
        time.sleep(0.5)  # its statement is waiting on the lock (the statement timeout is 2 s)
        name = make_url(outage.database.url).database
        databases.run_sql(
            databases.SERVER_URL,
            "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "  # noqa: S608
            f"WHERE datname = '{name}' AND pid <> {locker_pid} AND wait_event_type = 'Lock'",
        )
        response = waiting.result(timeout=30)
    assert_unavailable(response)
    # Told apart from the statement timeout by the reason logged for the outage.
    logged(outage.server.directory / "logs" / "gateway.log", "terminating connection due to administrator command")
    assert outage.get().status_code == 200
    assert outage.order("AFTER-TERMINATION").status_code == 201
    assert "Traceback" not in outage.log()


@contextlib.contextmanager
def _table_locked(url: str, table: str) -> Iterator[int]:
    """Holds an exclusive lock on `table` in a transaction of its own; yields its backend's pid."""
    held, release = threading.Event(), threading.Event()
    pid: list[int] = []

    async def hold() -> None:
        connection = await asyncpg.connect(make_url(url).set(drivername="postgresql").render_as_string(False))
        try:
            async with connection.transaction():
                await connection.execute(f"LOCK TABLE {table} IN ACCESS EXCLUSIVE MODE")
                pid.append(connection.get_server_pid())
                held.set()
                await asyncio.to_thread(release.wait)
        finally:
            await connection.close()

    thread = threading.Thread(target=asyncio.run, args=(hold(),))
    thread.start()
    try:
        assert held.wait(10)
        yield pid[0]
    finally:
        release.set()
        thread.join(10)
