"""The per-user limit: every authenticated /www, /graphql and /metrics request counts against its user,
whichever of the user's tokens it carries (a user that gets more tokens gets no more requests).

Placed after BearerAuthMiddleware, which puts the verified token's user into the scope. Requests without
one (POST /www/token, the GraphiQL page, a refused token) pass untouched."""

from __future__ import annotations

from starlette.types import ASGIApp, Receive, Scope, Send

from gateway.errors import send_error
from gateway.ratelimit.limiter import RateLimiter
from schema.permissions import Principal


class UserRateLimitMiddleware:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        user: Principal | None = scope.get("user") if scope["type"] == "http" else None
        if user is not None:
            limiter: RateLimiter = scope["state"]["rate_limiter"]
            refusal = await limiter.per_user.take(user.name)
            if refusal is not None:
                await send_error(refusal, scope, send)
                return
        await self.app(scope, receive, send)
