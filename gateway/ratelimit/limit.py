"""One configured rate limit of one kind of key ("5/second;100/hour": one window each), kept with the
sliding window counter of `limits` in storage that may fail, and then fails open."""

from __future__ import annotations

import math
import time
from collections.abc import Awaitable, Callable
from functools import partial
from typing import TypeVar

from limits import RateLimitItem, parse_many
from limits.aio.strategies import RateLimiter
from limits.errors import StorageError

from gateway.ratelimit.health import StorageHealth
from rest_compat.errors import ApiError

T = TypeVar("T")


class Limit:
    def __init__(self, name: str, text: str, strategy: RateLimiter, health: StorageHealth, refusal: str) -> None:
        self.name = name  # the first part of each key, e.g. "token-failures-per-user"
        self.items = parse_many(text)
        self.strategy = strategy
        self.health = health
        self.refusal = refusal  # the 429's error_description

    async def check(self, key: str, cost: int = 1) -> ApiError | None:
        """The 429 when `cost` more would not fit a window; counts nothing."""
        full = [
            item
            for item in self.items
            if not await self._ask(partial(self.strategy.test, item, self.name, key, cost=cost), True)
        ]
        return await self._refused(full, key) if full else None

    async def take(self, key: str) -> ApiError | None:
        """Counts one in every window, up to the first that is full: then the 429."""
        for item in self.items:
            if not await self._ask(partial(self.strategy.hit, item, self.name, key), True):
                return await self._refused([item], key)
        return None

    async def count(self, key: str) -> None:
        """Counts one in every window that has room (a full one stays full)."""
        for item in self.items:
            await self._ask(partial(self.strategy.hit, item, self.name, key), True)

    async def _refused(self, full: list[RateLimitItem], key: str) -> ApiError:
        retry_after, item = max([(await self._retry_after(item, key), item) for item in full], key=lambda p: p[0])
        return ApiError(
            "rate_limited",
            f"{self.refusal} Try again in {retry_after} s.",
            {"retry_after": retry_after, "limit": str(item)},
            {"Retry-After": str(retry_after)},
        )

    async def _retry_after(self, item: RateLimitItem, key: str) -> int:
        """Seconds until the window has room again, from the library's window statistics."""
        stats = await self._ask(partial(self.strategy.get_window_stats, item, self.name, key), None)
        if stats is None:
            return item.get_expiry()
        return max(1, math.ceil(stats.reset_time - time.time()))

    async def _ask(self, call: Callable[[], Awaitable[T]], unchecked: T) -> T:
        """The storage's answer; `unchecked` when it cannot give one, so that requests pass (fail open)."""
        if not self.health.usable():
            return unchecked
        try:
            answer = await call()
        except StorageError as error:
            self.health.failed(error)
            return unchecked
        self.health.answered()
        return answer
