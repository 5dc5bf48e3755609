"""One `gateway serve` for the browser tests of this folder, as `pip install .` gives it (no CORS), with
two API users and their tokens: one that reads the catalogue, one of a shop that may write."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import pytest

from tests.browser import driver
from tests.required_tools import require
from tests.server import GatewayServer, running_server

USER, SECRET = "browser", "a-browser-secret"
SHOP_USER, SHOP_SECRET = "browser-shop", "a-browser-shop-secret"


@dataclass(frozen=True)
class Served:
    server: GatewayServer
    token: str  # catalogue
    shop_token: str

    @property
    def base_url(self) -> str:
        return self.server.base_url


@pytest.fixture(scope="package")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    require(driver.missing())  # before the server starts: without Node and Chromium no test here can run
    users = [(USER, SECRET, ["catalogue"]), (SHOP_USER, SHOP_SECRET, ["shop"])]
    with running_server(tmp_path_factory.mktemp("browser"), users=users) as server:
        yield Served(server, server.token(USER, SECRET), server.token(SHOP_USER, SHOP_SECRET))
