"""The client address the token-failure limits count by: the socket's peer, never a header."""

from __future__ import annotations

from ipaddress import IPv6Address, IPv6Network, ip_address

from starlette.types import Scope

# One IPv6 subscriber usually holds a whole /64: counting single addresses there would let one client
# change address for every attempt.
IPV6_PREFIX = 64


def client_address(scope: Scope) -> str:
    """The peer of the connection (`scope["client"]`). X-Forwarded-For is not read: any client can send
    it, and uvicorn rewrites the peer from it only when its proxy-headers handling is configured."""
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
