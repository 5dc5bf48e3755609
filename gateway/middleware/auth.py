"""Bearer authentication for /www, /graphql and /metrics; POST /www/token, the GraphiQL page, the files of
the browser pages (gateway/ui) and the probes /healthz and /readyz are open, /metrics too when
GATEWAY_METRICS_PUBLIC says so."""

from __future__ import annotations

from starlette.datastructures import Headers
from starlette.types import ASGIApp, Receive, Scope, Send

from gateway.auth.bearer import principal, verify_bearer
from gateway.auth.tokens import TokenClaims
from gateway.errors import send_error
from gateway.metrics import METRICS_PATH
from rest_compat.errors import ApiError
from schema.permissions import Principal
from schema.permissions import Scope as ApiScope

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
            # The claims too: an answer that outlasts its request (an event stream) watches the token's end.
            scope["auth"], scope["user"] = await self._authenticate(scope)
        except ApiError as error:
            await send_error(error, scope, send)
            return
        await self.app(scope, receive, send)

    async def _authenticate(self, scope: Scope) -> tuple[TokenClaims, Principal]:
        state = scope["state"]
        authorization = Headers(scope=scope).get("authorization", "")
        claims = await verify_bearer(authorization, state["token_issuer"], state["token_versions"])
        user = principal(claims)
        # Every route but /metrics needs at least the catalogue scope: a metrics token (Prometheus's) reads
        # /metrics and nothing else, not even GraphQL's introspection.
        if not user.has(ApiScope.CATALOGUE) and _route_path(scope) != METRICS_PATH:
            raise ApiError("insufficient_scope", "the catalogue, shop or admin scope is required")
        return claims, user


def _route_path(scope: Scope) -> str:
    # The path as the router sees it: behind a proxy prefix (root_path) it is stripped there.
    path: str = scope["path"].removeprefix(scope.get("root_path", ""))
    return path


def _protected(scope: Scope, *, metrics_public: bool) -> bool:
    path = _route_path(scope)
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
