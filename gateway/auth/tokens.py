"""Signed bearer tokens (JWT, HS256 only): stateless, so any number of gateway processes verify them.
Each carries its user's token version (`ver`), which gateway/auth/versions.py compares with the user's
current one."""

from __future__ import annotations

import time
import uuid
from collections import OrderedDict
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from joserfc import jwt
from joserfc.errors import JoseError
from joserfc.jwk import OctKey

from datasources.users import TokenVersion

ALGORITHMS = ["HS256"]  # the allow-list: `none` and anything else is refused
ISSUER = "erp-shop-gateway"
VERSION_CLAIM = "ver"


class InvalidToken(Exception):
    pass


@dataclass(frozen=True, slots=True)
class TokenClaims:
    subject: str
    scopes: tuple[str, ...]
    # None for the tokens issued before tokens carried a version (gateway/auth/versions.py).
    version: TokenVersion | None = None
    issued_at: int | None = None  # `iat`, in seconds since 1970
    expires_at: float = float("inf")  # `exp`, in seconds since 1970


# Valid tokens remembered with their claims, so that a client's token is verified once, not on every
# request (decoding and checking a JWT cost about as much as the rest of a small request). Bounded; the least
# recently used is forgotten. A remembered token is still refused once it expires, and revocation is checked
# per request as before (gateway/auth/versions.py).
REMEMBERED_TOKENS = 10_000
_CLAIMS = jwt.JWTClaimsRegistry(
    iss={"essential": True, "value": ISSUER}, sub={"essential": True}, exp={"essential": True}
)


@dataclass(frozen=True)
class TokenIssuer:
    secret_key: str
    lifetime: int
    _verified: OrderedDict[str, tuple[TokenClaims, float]] = field(
        default_factory=OrderedDict, init=False, repr=False, compare=False
    )

    @cached_property
    def _key(self) -> OctKey:
        return OctKey.import_key(self.secret_key.encode())

    def issue(self, subject: str, scopes: tuple[str, ...], version: TokenVersion) -> str:
        now = int(time.time())
        claims = {
            "iss": ISSUER,
            "sub": subject,
            "scope": " ".join(scopes),
            "iat": now,
            "exp": now + self.lifetime,
            "jti": uuid.uuid4().hex,
            VERSION_CLAIM: [version.created, version.number],
        }
        return jwt.encode({"alg": ALGORITHMS[0], "typ": "JWT"}, claims, self._key, algorithms=ALGORITHMS)

    def verify(self, token: str) -> TokenClaims:
        """The subject, scopes and version of a valid token; InvalidToken for anything else."""
        remembered = self._verified.get(token)
        if remembered is not None and time.time() < remembered[1]:
            self._verified.move_to_end(token)
            return remembered[0]
        claims, expires = self._decode(token)
        self._verified[token] = (claims, expires)
        if len(self._verified) > REMEMBERED_TOKENS:
            self._verified.popitem(last=False)
        return claims

    def _decode(self, token: str) -> tuple[TokenClaims, float]:
        try:
            decoded = jwt.decode(token, self._key, algorithms=ALGORITHMS)
            _CLAIMS.validate(decoded.claims)
        except (JoseError, ValueError) as error:
            raise InvalidToken(str(error)) from None
        scope = decoded.claims.get("scope", "")
        claims = TokenClaims(
            subject=str(decoded.claims["sub"]),
            scopes=tuple(scope.split()) if isinstance(scope, str) else (),
            version=_version(decoded.claims.get(VERSION_CLAIM)),
            issued_at=_issued_at(decoded.claims.get("iat")),
            expires_at=float(decoded.claims["exp"]),
        )
        return claims, claims.expires_at


def _issued_at(claim: Any) -> int | None:
    return claim if type(claim) is int else None


def _version(claim: Any) -> TokenVersion | None:
    if claim is None:
        return None
    # Signed by us, so well formed unless the key leaked; still, never a 500 for a strange value.
    if not (isinstance(claim, list) and len(claim) == 2 and all(type(part) is int for part in claim)):
        raise InvalidToken(f"malformed {VERSION_CLAIM} claim")
    return TokenVersion(created=claim[0], number=claim[1])
