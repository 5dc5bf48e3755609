"""The client address of the token-failure limits: the socket's peer, IPv6 by its /64."""

from __future__ import annotations

from typing import Any

import pytest

from gateway.ratelimit import client_address


def scope(client: tuple[str, int] | None, **headers: str) -> dict[str, Any]:
    return {
        "type": "http",
        "client": client,
        "headers": [(name.encode(), value.encode()) for name, value in headers.items()],
    }


@pytest.mark.parametrize(
    ("client", "expected"),
    [
        (("203.0.113.7", 5000), "203.0.113.7"),
        (("2001:db8:1:2:aaaa:bbbb:cccc:dddd", 5000), "2001:db8:1:2::/64"),
        (("::ffff:203.0.113.7", 5000), "203.0.113.7"),
        (("testclient", 50000), "testclient"),
        (None, "unknown"),
    ],
)
def test_the_peer_address(client: tuple[str, int] | None, expected: str) -> None:
    assert client_address(scope(client)) == expected


def test_forwarded_headers_are_not_believed() -> None:
    forged = scope(("198.51.100.1", 5000), **{"x-forwarded-for": "203.0.113.99", "x-real-ip": "203.0.113.98"})
    assert client_address(forged) == "198.51.100.1"
