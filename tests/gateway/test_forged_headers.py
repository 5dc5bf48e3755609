"""Headers any client can send do not address anything: a forged Host makes no redirect to another site, and
X-Forwarded-For/-Proto are believed only from GATEWAY_TRUSTED_PROXIES (a real `gateway serve`, called from
127.0.0.1, which uvicorn trusts by default)."""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from starlette.routing import Mount, Route

from gateway.app import create_app
from gateway.settings import Settings
from tests.server import GatewayServer, running_server

ADMIN, SECRET = "operator", "a-long-secret"
LIMITS = {
    "GATEWAY_RATE_TOKEN_FAILURES_PER_ADDRESS": "3/minute",
    "GATEWAY_RATE_TOKEN_FAILURES_PER_USER": "100/minute",  # each attempt names a user of its own anyway
}


def _start(directory: Path, env: dict[str, str]) -> Iterator[tuple[GatewayServer, str]]:
    with running_server(
        directory, users=[(ADMIN, SECRET, ["admin"])], extra_env={**LIMITS, **env}, demo_articles=3
    ) as server:
        yield server, server.token(ADMIN, SECRET)  # before any test spends the address's failures


@pytest.fixture(scope="module")
def direct(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[GatewayServer, str]]:
    """Trusting no proxy: the default."""
    yield from _start(tmp_path_factory.mktemp("direct"), {})


@pytest.fixture(scope="module")
def proxied(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[GatewayServer, str]]:
    yield from _start(tmp_path_factory.mktemp("proxied"), {"GATEWAY_TRUSTED_PROXIES": "127.0.0.1"})


def _failed_logins(server: GatewayServer, forwarded_for: list[str]) -> list[int]:
    statuses = []
    for number, address in enumerate(forwarded_for):
        response = httpx.post(
            f"{server.base_url}/www/token",
            auth=(f"guess-{number}-{time.monotonic_ns()}", "wrong-secret"),
            headers={"X-Forwarded-For": address},
            timeout=30,
        )
        statuses.append(response.status_code)
    return statuses


def _links(server: GatewayServer, token: str) -> list[str]:
    response = httpx.get(
        f"{server.base_url}/www/artikel?limit=1",
        headers={"Authorization": f"Bearer {token}", "X-Forwarded-Proto": "https", "X-Forwarded-For": "203.0.113.7"},
        timeout=30,
    )
    assert response.status_code == 200, response.text
    hrefs = re.findall(r'"href": ?"([^"]+)"', response.text)
    assert hrefs, response.text
    return hrefs


def test_a_forwarded_address_from_an_untrusted_peer_is_not_believed(direct: tuple[GatewayServer, str]) -> None:
    server, _ = direct
    # A new address for every guess: still one client, the socket's peer.
    assert _failed_logins(server, [f"203.0.113.{n}" for n in range(1, 5)]) == [401, 401, 401, 429]


def test_a_forwarded_scheme_from_an_untrusted_peer_does_not_change_links(direct: tuple[GatewayServer, str]) -> None:
    server, token = direct
    assert all(href.startswith(f"{server.base_url}/www/") for href in _links(server, token))


def test_a_trusted_proxy_forwards_the_clients_address(proxied: tuple[GatewayServer, str]) -> None:
    server, _ = proxied
    # Each client counted on its own, each by its own address...
    assert _failed_logins(server, ["198.51.100.1", "198.51.100.2", "198.51.100.3", "198.51.100.4"]) == [401] * 4
    assert _failed_logins(server, ["198.51.100.9"] * 4) == [401, 401, 401, 429]
    # ... the last address the proxy appended, not one the client wrote before it.
    assert _failed_logins(server, ["1.2.3.4, 198.51.100.9"]) == [429]


def test_a_trusted_proxy_forwards_the_clients_scheme(proxied: tuple[GatewayServer, str]) -> None:
    server, token = proxied
    https = server.base_url.replace("http://", "https://")
    assert all(href.startswith(f"{https}/www/") for href in _links(server, token))


def _near_misses() -> list[str]:
    """Each route's path with a slash too many, and each mounted folder's without its slash: what Starlette
    answered with a redirect."""
    app = create_app(Settings(database_url="sqlite+aiosqlite:///:memory:", secret_key="unused-" * 8))
    paths = []
    for route in app.routes:
        if isinstance(route, Route) and route.path != "/":
            paths.append(re.sub(r"\{[^}]+\}", "X-1", route.path) + "/")
        elif isinstance(route, Mount):
            paths.append(route.path)
    return paths


@pytest.mark.parametrize("path", _near_misses())
def test_a_forged_host_makes_no_redirect(direct: tuple[GatewayServer, str], path: str) -> None:
    server, token = direct
    response = httpx.get(
        server.base_url + path,
        headers={"Host": "evil.example", "Authorization": f"Bearer {token}"},  # a token: past the auth check
        timeout=30,
    )
    assert not response.is_redirect, (response.status_code, response.headers)
    assert "evil.example" not in str(response.headers.raw)
    assert response.status_code == 404, response.text
