"""A real `gateway serve` on PostgreSQL whose database refuses connections: `ALTER DATABASE ...
ALLOW_CONNECTIONS false` and its backends terminated (SQLSTATE 55000 for every new connection, 57P01 for
the ones in use). Every request is answered 503 `unavailable` with Retry-After, never 500; /readyz says
not ready; the log has one line for the episode, no traceback per request; and service resumes without
a restart once the database takes connections again."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from pathlib import Path

import asyncpg
import httpx
import pytest
from sqlalchemy.engine import make_url

from tests import databases
from tests.logs import logged
from tests.server import GatewayServer, ServerDatabase

pytestmark = pytest.mark.skipif(not databases.SERVER_URL, reason="needs PostgreSQL (GATEWAY_TEST_DATABASE_URL)")

USER, SECRET = "shop", "a-long-secret"
TIMEOUTS = {"GATEWAY_DB_CONNECT_TIMEOUT": "2", "GATEWAY_DB_STATEMENT_TIMEOUT": "3", "GATEWAY_DB_POOL_TIMEOUT": "2"}
ARTICLE = "/www/artikel/A-000001?fields=ArtNr"
QUERY = "{ articles(limit: 2) { items { number } } }"


class Refusing:
    def __init__(self, server: GatewayServer, name: str) -> None:
        self.server, self.name = server, name
        self.headers: dict[str, str] = {}

    def sign_in(self) -> Refusing:
        self.headers = {"Authorization": f"Bearer {self.server.token(USER, SECRET)}"}
        return self

    def get(self, path: str) -> httpx.Response:
        return httpx.get(self.server.base_url + path, headers=self.headers, timeout=30)

    def graphql(self) -> httpx.Response:
        return httpx.post(self.server.base_url + "/graphql", json={"query": QUERY}, headers=self.headers, timeout=30)

    def order(self, external: str) -> httpx.Response:
        body = {
            "GrundDaten": {"KundNr": "100001", "AuftBestellNr": external},
            "Positionen": [{"ArtNr": "A-000001", "Menge": 1}],
        }
        return httpx.post(self.server.base_url + "/www/auftrag", json=body, headers=self.headers, timeout=30)

    def token(self) -> httpx.Response:
        return httpx.post(self.server.base_url + "/www/token", auth=(USER, SECRET), timeout=30)

    def allow_connections(self, allowed: bool) -> None:
        _admin(f'ALTER DATABASE "{self.name}" WITH ALLOW_CONNECTIONS {str(allowed).lower()}')

    def terminate_backends(self) -> None:
        databases.run_sql(
            databases.SERVER_URL,
            f"SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE datname = '{self.name}'",  # noqa: S608
        )

    def log(self) -> str:
        path = self.server.directory / "logs" / "gateway.log"
        return path.read_text() if path.exists() else ""


@pytest.fixture
def refusing(tmp_path: Path) -> Iterator[Refusing]:
    database = ServerDatabase.create(tmp_path)
    server = GatewayServer(tmp_path, database, extra_env=TIMEOUTS)
    name = make_url(database.url).database
    assert name is not None
    refused = Refusing(server, name)
    try:
        server.add_user(USER, SECRET, "shop")
        server.start()
        yield refused.sign_in()
    finally:
        refused.allow_connections(True)  # DROP DATABASE ... WITH (FORCE) needs none
        server.stop()
        database.drop()


def _admin(statement: str) -> None:
    async def run() -> None:
        connection = await asyncpg.connect(
            make_url(databases.SERVER_URL).set(drivername="postgresql").render_as_string(False)
        )
        try:
            await connection.execute(statement)
        finally:
            await connection.close()

    asyncio.run(run())


def assert_unavailable(response: httpx.Response) -> None:
    assert response.status_code == 503, response.text
    assert response.headers["retry-after"] == "5"
    assert response.json()["error"] == "unavailable"


def test_a_database_that_refuses_connections_is_503_logged_once_and_resumes(refusing: Refusing) -> None:
    assert refusing.get(ARTICLE).status_code == 200
    assert refusing.order("BEFORE").status_code == 201

    refusing.allow_connections(False)
    refusing.terminate_backends()
    answers = []
    for index in range(8):
        answers += [refusing.get(ARTICLE), refusing.order(f"REFUSED-{index}"), refusing.get("/www/kunden/100001")]
        answers += [refusing.token()]
    for response in answers:
        assert_unavailable(response)
    graphql = refusing.graphql()
    assert graphql.status_code == 503, graphql.text
    assert graphql.json()["errors"][0]["extensions"]["code"] == "unavailable"
    ready = httpx.get(refusing.server.base_url + "/readyz", timeout=30)
    assert_unavailable(ready)
    assert httpx.get(refusing.server.base_url + "/healthz", timeout=30).status_code == 200  # alive: no restart

    refusing.allow_connections(True)
    deadline = time.monotonic() + 30
    while (response := refusing.get(ARTICLE)).status_code != 200 and time.monotonic() < deadline:
        assert_unavailable(response)
        time.sleep(0.5)
    assert response.status_code == 200
    assert refusing.order("AFTER").status_code == 201
    assert refusing.graphql().status_code == 200
    # Ready again once requests have been answered for a few quiet seconds (the episode's end).
    deadline = time.monotonic() + 30
    while (ready := httpx.get(refusing.server.base_url + "/readyz", timeout=30)).status_code != 200:
        assert_unavailable(ready)
        assert time.monotonic() < deadline, ready.text
        assert refusing.get(ARTICLE).status_code == 200
        time.sleep(0.5)

    log = logged(refusing.server.directory / "logs" / "gateway.log", "answers again after", timeout=30)
    assert log.count(" unavailable: ") == 1, log
    assert "not currently accepting connections" in log or "terminating connection" in log, log
    assert "Traceback" not in log and "unhandled error" not in log, log
