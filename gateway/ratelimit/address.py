"""The client address the token-failure limits count by: the socket's peer, or behind a proxy of
GATEWAY_TRUSTED_PROXIES the client it names (uvicorn's proxy-headers handling, configured in
gateway/server/run.py, has put it in `scope["client"]`)."""

from __future__ import annotations

from ipaddress import IPv6Address, IPv6Network, ip_address

from starlette.types import Scope

# One IPv6 subscriber usually holds a whole /64: counting single addresses there would let one client
# change address for every attempt.
IPV6_PREFIX = 64


def client_address(scope: Scope) -> str:
    """The peer of the connection (`scope["client"]`). X-Forwarded-For is not read here: any client can send
    it, and uvicorn puts the address it names in the peer's place only for a peer among the trusted proxies."""
    client = scope.get("client")
    if not client:
        return "unknown"  # a Unix socket: every client behind it shares one counter
    try:
        address = ip_address(client[0])
    except ValueError:
        return str(client[0])
    if isinstance(address, IPv6Address):
        if address.ipv4_mapped is not None:
            return str(address.ipv4_mapped)
        return str(IPv6Network((address, IPV6_PREFIX), strict=False))
    return str(address)
