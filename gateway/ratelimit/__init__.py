"""Rate limits (the `limits` library): failed token requests per client address and per user name, tokens
issued and requests per user; counters in memory, or in Redis shared by every gateway process."""

from gateway.ratelimit.address import client_address
from gateway.ratelimit.limiter import RateLimiter
from gateway.ratelimit.middleware import UserRateLimitMiddleware

__all__ = ["RateLimiter", "UserRateLimitMiddleware", "client_address"]
