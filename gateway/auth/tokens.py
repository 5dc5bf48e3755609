"""Signed bearer tokens (JWT, HS256 only): stateless, so any number of gateway processes verify them."""

from __future__ import annotations

import time
import uuid
from dataclasses import dataclass

from joserfc import jwt
from joserfc.errors import JoseError
from joserfc.jwk import OctKey

ALGORITHMS = ["HS256"]  # the allow-list: `none` and anything else is refused
ISSUER = "erp-shop-gateway"


class InvalidToken(Exception):
    pass


@dataclass(frozen=True)
class TokenIssuer:
    secret_key: str
    lifetime: int

    @property
    def _key(self) -> OctKey:
        return OctKey.import_key(self.secret_key.encode())

    def issue(self, subject: str, scopes: tuple[str, ...]) -> str:
        now = int(time.time())
        claims = {
            "iss": ISSUER,
            "sub": subject,
            "scope": " ".join(scopes),
            "iat": now,
            "exp": now + self.lifetime,
            "jti": uuid.uuid4().hex,
        }
        return jwt.encode({"alg": ALGORITHMS[0], "typ": "JWT"}, claims, self._key, algorithms=ALGORITHMS)

    def verify(self, token: str) -> tuple[str, tuple[str, ...]]:
        """The subject and scopes of a valid token; InvalidToken for anything else."""
        try:
            decoded = jwt.decode(token, self._key, algorithms=ALGORITHMS)
            jwt.JWTClaimsRegistry(
                iss={"essential": True, "value": ISSUER},
                sub={"essential": True},
                exp={"essential": True},
            ).validate(decoded.claims)
        except (JoseError, ValueError) as error:
            raise InvalidToken(str(error)) from None
        scope = decoded.claims.get("scope", "")
        return str(decoded.claims["sub"]), tuple(scope.split()) if isinstance(scope, str) else ()
