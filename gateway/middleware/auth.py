"""Bearer authentication for /www, /graphql and /metrics; POST /www/token, the GraphiQL page, the files of
the browser pages (gateway/ui) and the probes /healthz and /readyz are open, /metrics too when
GATEWAY_METRICS_PUBLIC says so."""

from __future__ import annotations

import hashlib

from starlette.datastructures import Headers
from starlette.types import ASGIApp, Receive, Scope, Send

from gateway.auth.tokens import InvalidToken, TokenIssuer
from gateway.auth.versions import TokenVersions
from gateway.errors import send_error
from gateway.metrics import METRICS_PATH
from rest_compat.errors import ApiError
from schema.permissions import Principal

CHALLENGE = 'Bearer realm="gateway"'
# The browser pages' files and Swagger UI's page hold no data (gateway/ui); what they fetch needs a token.
OPEN_PREFIXES = ("/graphql/static/", "/www/docs/")
# Paths anyone may read: the token endpoint itself, the API's description, and the probes (gateway/health):
# an orchestrator or a load balancer holds no token.
OPEN_PATHS = frozenset({"/www/token", "/www/openapi.json", "/healthz", "/readyz"})


class BearerAuthMiddleware:
    def __init__(self, app: ASGIApp, *, metrics_public: bool = False) -> None:
        self.app = app
        self.metrics_public = metrics_public

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or not _protected(scope, metrics_public=self.metrics_public):
            await self.app(scope, receive, send)
            return
        try:
            scope["user"] = await self._principal(scope)
        except ApiError as error:
            await send_error(error, scope, send)
            return
        await self.app(scope, receive, send)

    async def _principal(self, scope: Scope) -> Principal:
        scheme, _, token = Headers(scope=scope).get("authorization", "").partition(" ")
        if scheme.lower() != "bearer" or not token.strip():
            raise ApiError("invalid_token", "A bearer token is required.", headers={"WWW-Authenticate": CHALLENGE})
        issuer: TokenIssuer = scope["state"]["token_issuer"]
        try:
            claims = issuer.verify(token.strip())
        except InvalidToken:
            raise _invalid_token() from None
        # A removed user's tokens, or those issued before its rotation: refused like any invalid token.
        # An unavailable database raises here, and is answered 503 like every request that needs it.
        versions: TokenVersions = scope["state"]["token_versions"]
        if not await versions.accepts(claims.subject, claims.version):
            raise _invalid_token()
        # The token's identity for the per-token rate limit (gateway/ratelimit/middleware.py): a digest,
        # so that no token is kept in a counter's key or a log line.
        scope["token_id"] = hashlib.sha256(token.strip().encode()).hexdigest()
        return Principal.from_names(claims.subject, claims.scopes)


def _invalid_token() -> ApiError:
    return ApiError(
        "invalid_token",
        "The token is invalid or expired.",
        headers={"WWW-Authenticate": f'{CHALLENGE}, error="invalid_token"'},
    )


def _protected(scope: Scope, *, metrics_public: bool) -> bool:
    # Judge the path as the router sees it: behind a proxy prefix (root_path) it is stripped there.
    path: str = scope["path"].removeprefix(scope.get("root_path", ""))
    if path == METRICS_PATH:
        return not metrics_public  # the scope it needs is checked by the page (gateway/metrics/routes.py)
    if path in OPEN_PATHS or (path == "/www/zugferd" and scope["method"] == "OPTIONS"):
        return False
    if path == "/www/docs" or path.startswith(OPEN_PREFIXES):
        return False
    if path.startswith("/graphql"):
        # The GraphiQL page itself holds no data; its queries carry the token (headers editor).
        return not _wants_graphiql_page(scope)
    return path.startswith("/www")


def _wants_graphiql_page(scope: Scope) -> bool:
    if scope["method"] not in ("GET", "HEAD") or scope.get("query_string"):
        return False
    return "text/html" in Headers(scope=scope).get("accept", "")
