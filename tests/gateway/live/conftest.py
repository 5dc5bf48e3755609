"""One `gateway serve --workers 2` for the live tests of this folder (WebSocket and event streams), with
order and customer events enabled and the users they act as."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.gateway.live.shop import SECRET, USERS
from tests.server import GatewayServer, ServerDatabase

ENV = {
    "GATEWAY_TOKEN_CHECK_SECONDS": "1",
    "GATEWAY_LIVE_POLL_SECONDS": "0.5",  # another worker's events, found by polling
    "GATEWAY_LIVE_PER_CONNECTION": "3",
    "GATEWAY_LIVE_PER_USER": "10",
    "GATEWAY_LIVE_PING_SECONDS": "1",
    "GATEWAY_LIVE_IDLE_SECONDS": "8",
    "GATEWAY_LIVE_BUFFER": "5",
    "GATEWAY_WEBHOOK_DISPATCH": "0",
}


@contextlib.contextmanager
def live_server(directory: Path, *, workers: int = 2, env: dict[str, str] | None = None) -> Iterator[GatewayServer]:
    """A started `gateway serve` with the demo's articles, order events enabled and the live tests' users."""
    database = ServerDatabase.create(directory)
    site = GatewayServer(directory, database, ["--workers", str(workers), "--no-demo"], {**ENV, **(env or {})})
    try:
        site.run_cli("demo", "--articles", "3", "--customers", "0")
        site.run_cli("attributes", "set", "RESTEVENTS", "*")
        for name, scope in USERS:
            site.add_user(name, SECRET, scope)
        yield site.start()
    finally:
        site.stop()
        database.drop()


@pytest.fixture(scope="package")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[GatewayServer]:
    with live_server(tmp_path_factory.mktemp("live")) as site:
        yield site
