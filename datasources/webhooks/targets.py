"""Where a webhook may be sent: not to this host, its network or the cloud's metadata service unless the
operator allows it (GATEWAY_WEBHOOK_ALLOW_PRIVATE=1). An admin's URL must not make the gateway a probe of
what only it can reach (PostgreSQL's and Redis's ports, 169.254.169.254).

The URL's host is checked when an endpoint is added, in every spelling an address has (`localhost`,
`127.1`, `2130706433`, `0x7f000001`, `[::1]`); the dispatcher checks the addresses a name resolves to at
every delivery and connects to the one it checked (gateway/dispatch/addresses.py)."""

from __future__ import annotations

import socket
from ipaddress import IPv4Address, IPv6Address, ip_address
from urllib.parse import urlsplit

from datasources.errors import InvalidInput

Address = IPv4Address | IPv6Address

ALLOW_SETTING = "GATEWAY_WEBHOOK_ALLOW_PRIVATE=1"
# The ipaddress module's flags, in the order an address is named by (127.0.0.1 is private too, but
# loopback says more).
_RULES = (
    ("a loopback address", "is_loopback"),
    ("an unspecified address", "is_unspecified"),
    ("a link-local address", "is_link_local"),
    ("a multicast address", "is_multicast"),
    ("a private address", "is_private"),
    ("a reserved address", "is_reserved"),
)
RULE_NAMES = "loopback, private, link-local, multicast, unspecified or reserved"
_IPV4_SPELLING = frozenset("0123456789abcdefx.")


def refusal(address: Address) -> str | None:
    """What the address is, when webhooks may not reach it ("a loopback address", ...); None for a globally
    reachable one."""
    if isinstance(address, IPv6Address) and address.ipv4_mapped is not None:
        address = address.ipv4_mapped  # ::ffff:127.0.0.1 is 127.0.0.1
    for kind, flag in _RULES:
        if getattr(address, flag):
            return kind
    if not address.is_global:
        return "an address that is not globally reachable"  # e.g. the carriers' shared 100.64.0.0/10
    return None


def literal_address(host: str) -> Address | None:
    """The address a host names without asking DNS: an IP address in any spelling the system resolver
    reads as one (`127.1`, `2130706433`, `0x7f000001`, `0177.0.0.1`), or None for a name."""
    try:
        return ip_address(host.partition("%")[0])  # an IPv6 zone (fe80::1%eth0) names no other address
    except ValueError:
        pass
    if not host or not set(host) <= _IPV4_SPELLING:
        return None
    try:
        return IPv4Address(socket.inet_aton(host))
    except OSError:
        return None


def checked_target(url: str) -> None:
    """InvalidInput naming the rule when the URL's host is an address webhooks may not reach, or a name
    that is always one (`localhost`). Other names are checked at every delivery, once resolved."""
    host = (urlsplit(url).hostname or "").rstrip(".")
    literal = literal_address(host)
    kind = refusal(literal) if literal is not None else None
    if host == "localhost" or host.endswith(".localhost"):
        kind = "a loopback address"  # RFC 6761: whatever DNS says
    if kind is not None:
        shown = host if literal is None or str(literal) == host else f"{host} ({literal})"
        raise InvalidInput(
            f"the URL's host {shown} is {kind}: webhooks are not sent to {RULE_NAMES} addresses unless {ALLOW_SETTING}",
            field="url",
        )


def shown_url(url: str) -> str:
    """The URL as it may be shown or logged: a password in it is replaced by ***."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    user, _, host = parts.netloc.rpartition("@")
    return parts._replace(netloc=f"{user.partition(':')[0]}:***@{host}").geturl()
