"""Where the counters live: in this process's memory, or in Redis, shared by every gateway process."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from limits.aio.storage import MemoryStorage, RedisStorage, Storage
from redis.asyncio import ConnectionPool

# A Redis on the network answers in well under a millisecond; one that does not answer must not hold
# requests (they pass unchecked instead, gateway/ratelimit/health.py).
SOCKET_TIMEOUT = 0.5

# limits chooses its storage class by the scheme; redis-py's own URL schemes are what operators write.
_LIMITS_SCHEMES = {"redis": "async+redis", "rediss": "async+rediss", "unix": "async+redis+unix"}


@dataclass(frozen=True)
class Counters:
    storage: Storage
    where: str  # for log lines, without a password
    pool: ConnectionPool | None = None

    async def aclose(self) -> None:
        if self.pool is not None:
            await self.pool.aclose()


def open_counters(redis_url: str | None, key_prefix: str) -> Counters:
    """Memory storage without a URL. Nothing connects here: Redis is first reached by the first check."""
    if redis_url is None:
        return Counters(MemoryStorage(), "memory")
    pool = ConnectionPool.from_url(redis_url, socket_connect_timeout=SOCKET_TIMEOUT, socket_timeout=SOCKET_TIMEOUT)
    scheme, _, rest = redis_url.partition("://")
    # `connection_pool` is a documented option of RedisStorage (typed narrower than it is): the pool is
    # ours, so the lifespan can close its connections.
    options: dict[str, Any] = {"connection_pool": pool}
    storage = RedisStorage(
        f"{_LIMITS_SCHEMES[scheme]}://{rest}",
        implementation="redispy",
        wrap_exceptions=True,  # every Redis failure arrives as limits.errors.StorageError
        key_prefix=key_prefix,
        **options,
    )
    return Counters(storage, f"Redis at {without_password(redis_url)}", pool)


def without_password(url: str) -> str:
    parts = urlsplit(url)
    if parts.password is None:
        return url
    host = parts.netloc.rpartition("@")[2]
    return parts._replace(netloc=f"{parts.username or ''}:***@{host}").geturl()
