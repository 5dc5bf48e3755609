"""CORS for web-shop frontends served from another origin (GATEWAY_CORS_ORIGINS): Starlette's
CORSMiddleware, outside the request context, size, timeout, token and rate-limit middleware. So a
preflight `OPTIONS` is answered before any token is asked for, and every answer, including the refusals
of the middleware inside it (401, 413, 429, 503, 500), carries the headers a browser needs to let the
page read it. Without origins there is no middleware at all: no answer gets a CORS header."""

from __future__ import annotations

from collections.abc import Sequence

from starlette.middleware import Middleware
from starlette.middleware.cors import CORSMiddleware

ALLOW_METHODS = ("GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS")
# The request headers the gateway reads beyond the CORS-safelisted ones (Accept, Content-Language, ...).
# Content-Type is listed because application/json is not safelisted.
ALLOW_HEADERS = ("Authorization", "Content-Type", "Idempotency-Key", "X-Request-Id")
# The response headers it sets that a page may need, beyond the safelisted ones (Content-Type,
# Cache-Control, ...): the request id to quote, how long to wait, why a token was refused, which methods
# a path has, a media file's name.
EXPOSE_HEADERS = ("X-Request-Id", "Retry-After", "WWW-Authenticate", "Allow", "Content-Disposition")
# Seconds a browser may reuse a preflight's answer (Chromium keeps one at most 2 hours, Firefox 24).
MAX_AGE = 3600


def cors_middleware(origins: Sequence[str]) -> list[Middleware]:
    if not origins:
        return []
    return [
        Middleware(
            CORSMiddleware,
            allow_origins=list(origins),
            allow_methods=ALLOW_METHODS,
            allow_headers=ALLOW_HEADERS,
            expose_headers=EXPOSE_HEADERS,
            # Tokens travel in Authorization, never in cookies: no page needs the browser's credentials.
            allow_credentials=False,
            max_age=MAX_AGE,
        )
    ]
