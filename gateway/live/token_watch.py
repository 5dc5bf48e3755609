"""How a live connection's token stops being good while it is open: it expires, or its user is removed or
rotated (seen within GATEWAY_TOKEN_CHECK_SECONDS). Both transports (WebSocket and event streams) end
their connection on it, each in its own words."""

from __future__ import annotations

import asyncio
import logging
import time

from gateway.auth.bearer import still_accepted
from gateway.auth.tokens import TokenClaims
from gateway.auth.versions import TokenVersions

log = logging.getLogger("gateway.live")

EXPIRED = "the token expired"
REVOKED = "the token is no longer valid"


async def token_ended(claims: TokenClaims, versions: TokenVersions, check_seconds: float) -> str:
    """Returns, once the token is no longer good, why (EXPIRED or REVOKED); waits until then."""
    while True:
        left = claims.expires_at - time.time()
        if left <= 0:
            return EXPIRED
        await asyncio.sleep(min(left, check_seconds))
        try:
            accepted = await still_accepted(claims, versions)
        except Exception as error:  # the database is away and nothing is known: ask again next time
            log.warning("live connection: the token's version could not be read: %s", error)
            accepted = True
        if not accepted:
            return REVOKED
