"""The connections of deliveries: each goes to an address the rules allow (datasources/webhooks/targets.py),
and to the very address that was checked. The endpoint's name is resolved once per connection, off the
event loop, and every address it resolves to is checked; a name that answered with a public address to the
check and with 127.0.0.1 to a second lookup (DNS rebinding) finds no second lookup to answer.

httpx resolves and connects in httpcore's network backend; the backend here wraps httpcore's own. TLS still
verifies the certificate against the endpoint's name, and a kept-alive connection stays its name's."""

from __future__ import annotations

import asyncio
import functools
import socket
import ssl
from collections.abc import Iterable
from ipaddress import ip_address

import httpcore
import httpx

from datasources.webhooks.targets import ALLOW_SETTING, Address, refusal


class RefusedAddress(Exception):
    """The endpoint's name resolves to an address webhooks may not reach; nothing was sent."""


class UnresolvedName(Exception):
    """The endpoint's name does not resolve (now)."""


async def allowed_addresses(host: str, port: int) -> list[Address]:
    """The addresses `host` resolves to, when every one of them is allowed; RefusedAddress names the first
    that is not. Resolved in the event loop's resolver thread, so the loop goes on meanwhile."""
    try:
        found = await asyncio.get_running_loop().getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except socket.gaierror:
        raise UnresolvedName(f"{host} does not resolve") from None
    # An IPv6 zone (fe80::1%eth0) is dropped: such an address is link-local, and refused below anyway.
    addresses = list(dict.fromkeys(ip_address(str(info[4][0]).partition("%")[0]) for info in found))
    for address in addresses:
        kind = refusal(address)
        if kind is not None:
            what = f"is {kind}" if str(address) == host else f"resolves to {address}, {kind}"
            raise RefusedAddress(f"refused: {host} {what} ({ALLOW_SETTING} allows it)")
    return addresses


class CheckedBackend(httpcore.AsyncNetworkBackend):
    def __init__(self) -> None:
        self._backend = httpcore.AnyIOBackend()

    async def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,  # noqa: ASYNC109 (httpcore's interface)
        local_address: str | None = None,
        socket_options: Iterable[httpcore.SOCKET_OPTION] | None = None,
    ) -> httpcore.AsyncNetworkStream:
        failed: httpcore.ConnectError | None = None
        for address in await allowed_addresses(host, port):
            try:
                return await self._backend.connect_tcp(
                    str(address), port, timeout=timeout, local_address=local_address, socket_options=socket_options
                )
            except httpcore.ConnectError as error:  # the next address, as the resolver ordered them
                failed = error
        assert failed is not None  # getaddrinfo answers with at least one address or raises
        raise failed

    async def connect_unix_socket(
        self,
        path: str,
        timeout: float | None = None,  # noqa: ASYNC109 (httpcore's interface)
        socket_options: Iterable[httpcore.SOCKET_OPTION] | None = None,
    ) -> httpcore.AsyncNetworkStream:
        raise RefusedAddress("refused: a Unix socket")  # never asked for: endpoints are http(s) URLs

    async def sleep(self, seconds: float) -> None:
        await self._backend.sleep(seconds)


@functools.cache
def _ssl_context() -> ssl.SSLContext:
    # Loading the CA bundle takes 50 ms and more: once per process, for every delivery client it makes.
    return httpx.create_ssl_context()


class CheckedTransport(httpx.AsyncHTTPTransport):
    """httpx's transport with the checked backend. httpx takes no network backend, so the connection pool
    it made is replaced by one made the same way with ours (httpcore's public API). A client given a
    transport reads no proxy from the environment: deliveries go to the address checked."""

    def __init__(self, limits: httpx.Limits) -> None:
        super().__init__(limits=limits, verify=_ssl_context())
        self._pool = httpcore.AsyncConnectionPool(
            ssl_context=_ssl_context(),
            max_connections=limits.max_connections,
            max_keepalive_connections=limits.max_keepalive_connections,
            keepalive_expiry=limits.keepalive_expiry,
            network_backend=CheckedBackend(),
        )
