"""Rate limits (the `limits` library): failed token requests per client address and per user name, and
requests per bearer token; counters in memory, or in Redis shared by every gateway process."""

from gateway.ratelimit.address import client_address
from gateway.ratelimit.limiter import RateLimiter
from gateway.ratelimit.middleware import TokenRateLimitMiddleware

__all__ = ["RateLimiter", "TokenRateLimitMiddleware", "client_address"]
