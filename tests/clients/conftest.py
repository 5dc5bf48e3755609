"""One real `gateway serve` per test module, with an API user of scope shop, for the client tests."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import pytest

from tests.server import GatewayServer, running_server

USER = "webshop"
SECRET = "webshop-secret-0815"


@dataclass(frozen=True)
class Shop:
    """The running server and the credentials of its shop user."""

    server: GatewayServer
    user: str = USER
    secret: str = SECRET

    @property
    def base_url(self) -> str:
        return self.server.base_url

    @property
    def port(self) -> int:
        return self.server.port

    def token(self) -> str:
        return self.server.token(self.user, self.secret)


@pytest.fixture(scope="module")
def shop(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Shop]:
    with running_server(tmp_path_factory.mktemp("gateway"), users=[(USER, SECRET, ["shop"])]) as server:
        yield Shop(server)
