"""Checking a bearer token: the one rule behind every authenticated request (gateway/middleware/auth.py)
and every live connection (gateway/live)."""

from __future__ import annotations

from gateway.auth.tokens import InvalidToken, TokenClaims, TokenIssuer
from gateway.auth.versions import TokenVersions
from rest_compat.errors import ApiError
from schema.permissions import Principal

CHALLENGE = 'Bearer realm="gateway"'


async def verify_bearer(authorization: str, issuer: TokenIssuer, versions: TokenVersions) -> TokenClaims:
    """The claims of the `Authorization` value's token; ApiError `invalid_token` for none, a bad one, or one
    its user no longer accepts (removed, rotated). An unavailable database raises here, as for any request
    that needs it."""
    scheme, _, token = authorization.partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        raise ApiError("invalid_token", "A bearer token is required.", headers={"WWW-Authenticate": CHALLENGE})
    try:
        claims = issuer.verify(token.strip())
    except InvalidToken:
        raise invalid_token() from None
    if not await still_accepted(claims, versions):
        raise invalid_token()
    return claims


async def still_accepted(claims: TokenClaims, versions: TokenVersions) -> bool:
    """Whether the token's user still accepts it: a removed user's tokens, or those issued before its
    rotation, are refused like any invalid token."""
    return await versions.accepts(claims.subject, claims.version, issued_at=claims.issued_at)


def principal(claims: TokenClaims) -> Principal:
    return Principal.from_names(claims.subject, claims.scopes)


def invalid_token() -> ApiError:
    return ApiError(
        "invalid_token",
        "The token is invalid or expired.",
        headers={"WWW-Authenticate": f'{CHALLENGE}, error="invalid_token"'},
    )
