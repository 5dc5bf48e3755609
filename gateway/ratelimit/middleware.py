"""The per-token limit: every authenticated /www and /graphql request counts against its bearer token.

Placed after BearerAuthMiddleware, which names a verified token by a digest (`scope["token_id"]`): the
token itself is neither stored nor logged. Requests without one (POST /www/token, the GraphiQL page, a
refused token) pass untouched."""

from __future__ import annotations

from starlette.types import ASGIApp, Receive, Scope, Send

from gateway.errors import send_error
from gateway.ratelimit.limiter import RateLimiter


class TokenRateLimitMiddleware:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        token_id = scope.get("token_id") if scope["type"] == "http" else None
        if token_id is not None:
            limiter: RateLimiter = scope["state"]["rate_limiter"]
            refusal = await limiter.per_token.take(token_id)
            if refusal is not None:
                await send_error(refusal, scope, send)
                return
        await self.app(scope, receive, send)
