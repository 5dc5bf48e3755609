"""The gateway's rate limits, built once per process from the settings (the lifespan holds them)."""

from __future__ import annotations

from limits.aio.strategies import SlidingWindowCounterRateLimiter

from gateway.ratelimit.attempts import TokenAttempts
from gateway.ratelimit.health import StorageHealth
from gateway.ratelimit.limit import Limit
from gateway.ratelimit.storage import open_counters
from gateway.settings import RateLimits


class RateLimiter:
    def __init__(self, settings: RateLimits) -> None:
        self.counters = open_counters(settings.redis_url, settings.redis_key_prefix)
        # The sliding window counter: a fixed window lets twice the limit through around its edge, and a
        # moving window stores an entry per request (1200 per token and minute); this keeps two counters.
        strategy = SlidingWindowCounterRateLimiter(self.counters.storage)
        health = StorageHealth(self.counters.where)
        self.token_attempts = TokenAttempts(
            Limit(
                "token-failures-per-address",
                settings.token_failures_per_address,
                strategy,
                health,
                "Too many failed token requests from this address.",
            ),
            Limit(
                "token-failures-per-user",
                settings.token_failures_per_user,
                strategy,
                health,
                "Too many failed token requests for this user.",
            ),
        )
        self.per_user = Limit(
            "requests-per-user", settings.requests_per_user, strategy, health, "Too many requests by this user."
        )
        self.tokens_per_user = Limit(
            "tokens-per-user", settings.tokens_per_user, strategy, health, "Too many tokens issued to this user."
        )

    async def aclose(self) -> None:
        await self.counters.aclose()
