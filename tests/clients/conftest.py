"""One real `gateway serve` per test module, with an API user of scope shop, for the client tests; and
under CI, a client skipped for want of Node or PHP fails instead (.ci/run installs both; Java's client may
be skipped: a fresh Debian machine with Python and Node has no Java, and CI does not install one)."""

from __future__ import annotations

from collections.abc import Generator, Iterator
from dataclasses import dataclass

import pytest

from tests.required_tools import under_ci
from tests.server import GatewayServer, running_server

REQUIRED_UNDER_CI = ("node", "php")


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    report = yield
    if report.skipped and under_ci() and call.excinfo is not None:
        reason = str(call.excinfo.value)
        if any(reason.startswith(f"{program} is not on PATH") for program in REQUIRED_UNDER_CI):
            report.outcome = "failed"
            report.longrepr = f"required under CI: {reason} (.ci/run installs it)"
    return report


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
