"""POST /www/token: HTTP Basic in, a bearer token out. The one /www route not served by GraphQL."""

from __future__ import annotations

import asyncio
import base64

from starlette.requests import Request
from starlette.responses import Response

from datasources import users
from gateway.auth.tokens import TokenIssuer
from gateway.ratelimit.address import client_address
from gateway.ratelimit.attempts import TokenAttempt
from gateway.ratelimit.limit import Limit
from gateway.ratelimit.limiter import RateLimiter
from rest_compat.errors import ApiError
from rest_compat.responses import JsonResponse

# One body for every failure, so a client cannot tell an unknown user from a wrong secret.
INVALID_CLIENT = ApiError(
    "invalid_client",
    "The client credentials are invalid.",
    headers={"WWW-Authenticate": 'Basic realm="gateway", charset="UTF-8"'},
)


def _basic_credentials(request: Request) -> tuple[str, str] | None:
    scheme, _, encoded = request.headers.get("authorization", "").partition(" ")
    if scheme.lower() != "basic":
        return None
    try:
        name, colon, secret = base64.b64decode(encoded.strip(), validate=True).decode("utf-8").partition(":")
    except ValueError:  # not base64 (binascii.Error), not ASCII in the header, not UTF-8 inside
        return None
    # Names are printable and short; anything else cannot be a user, and is not sent to the database.
    if not colon or not name or len(name) > users.MAX_NAME_LENGTH or not name.isprintable():
        return None
    return name, secret


async def issue_token(request: Request) -> Response:
    limiter: RateLimiter = request.state.rate_limiter
    # A client over a failure limit is answered 429 before any work, argon2 above all.
    async with limiter.token_attempts.attempt(client_address(request.scope)) as attempt:
        user = await _authenticate(request, attempt, limiter.tokens_per_user)
        if user is None:
            await attempt.failed()
            raise INVALID_CLIENT
    # Counted once issued: a token stays valid until it expires, so a user minting them must be bounded.
    refusal = await limiter.tokens_per_user.take(user.name)
    if refusal is not None:
        raise refusal
    issuer: TokenIssuer = request.state.token_issuer
    return JsonResponse(
        {
            "access_token": issuer.issue(user.name, user.scopes, user.token_version),
            "token_type": "Bearer",
            "expires_in": issuer.lifetime,
        }
    )


async def _authenticate(request: Request, attempt: TokenAttempt, issued: Limit) -> users.UserRecord | None:
    credentials = _basic_credentials(request)
    if credentials is None:
        return None
    name, secret = credentials
    await attempt.for_user(name)
    # A user with no room for another token is refused before argon2 too: a client looping on its
    # own right secret would cost a verification each time.
    refusal = await issued.check(name)
    if refusal is not None:
        raise refusal
    async with request.state.db.reader() as session:
        found = await users.find_user(session, name)
    stored_hash = found[1] if found else None
    # argon2 is slow on purpose: verify off the event loop so other requests keep flowing.
    if not await asyncio.to_thread(users.secret_matches, stored_hash, secret) or found is None:
        return None
    return found[0]
