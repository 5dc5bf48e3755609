"""POST /www/token: HTTP Basic in, a bearer token out. The one /www route not served by GraphQL."""

from __future__ import annotations

import asyncio
import base64
import binascii

from starlette.requests import Request
from starlette.responses import Response

from datasources import users
from gateway.auth.tokens import TokenIssuer
from rest_compat.errors import ApiError
from rest_compat.responses import JsonResponse

# One body for every failure, so a client cannot tell an unknown user from a wrong secret.
INVALID_CLIENT = ApiError(
    "invalid_client",
    "The client credentials are invalid.",
    headers={"WWW-Authenticate": 'Basic realm="gateway", charset="UTF-8"'},
)


def _basic_credentials(request: Request) -> tuple[str, str]:
    scheme, _, encoded = request.headers.get("authorization", "").partition(" ")
    if scheme.lower() != "basic":
        raise INVALID_CLIENT
    try:
        name, colon, secret = base64.b64decode(encoded.strip(), validate=True).decode("utf-8").partition(":")
    except (binascii.Error, UnicodeDecodeError):
        raise INVALID_CLIENT from None
    # Names are printable and short; anything else cannot be a user, and is not sent to the database.
    if not colon or not name or len(name) > users.MAX_NAME_LENGTH or not name.isprintable():
        raise INVALID_CLIENT
    return name, secret


async def issue_token(request: Request) -> Response:
    name, secret = _basic_credentials(request)
    async with request.state.db.reader() as session:
        found = await users.find_user(session, name)
    stored_hash = found[1] if found else None
    # argon2 is slow on purpose: verify off the event loop so other requests keep flowing.
    if not await asyncio.to_thread(users.secret_matches, stored_hash, secret) or found is None:
        raise INVALID_CLIENT
    user = found[0]
    issuer: TokenIssuer = request.state.token_issuer
    return JsonResponse(
        {
            "access_token": issuer.issue(user.name, user.scopes),
            "token_type": "Bearer",
            "expires_in": issuer.lifetime,
        }
    )
