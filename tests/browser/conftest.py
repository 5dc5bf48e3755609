"""One `gateway serve` for the browser tests of this folder, as `pip install .` gives it (no CORS), with
an API user and a token."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import pytest

from tests.server import GatewayServer, running_server

USER, SECRET = "browser", "a-browser-secret"


@dataclass(frozen=True)
class Served:
    server: GatewayServer
    token: str

    @property
    def base_url(self) -> str:
        return self.server.base_url


@pytest.fixture(scope="package")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    with running_server(tmp_path_factory.mktemp("browser"), users=[(USER, SECRET, ["catalogue"])]) as server:
        yield Served(server, server.token(USER, SECRET))
