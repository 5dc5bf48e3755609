"""Failed POST /www/token attempts, limited per client address and per user name: counted on failure only
(a success costs nothing) and checked before the secret's hash is verified, so a refused guess costs no
argon2. The address limit stops one client trying many names; the user limit, many clients trying one.

Checking and counting after the failure are two steps, so guesses verified at the same moment would all
pass the check. Each check therefore also counts this process's attempts still under way for the same key:
concurrent guesses get no more verifications than the limit has room for (with Redis, each process keeps
to the room it sees)."""

from __future__ import annotations

from collections import Counter
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from gateway.ratelimit.limit import Limit


class TokenAttempts:
    def __init__(self, per_address: Limit, per_user: Limit) -> None:
        self.per_address = per_address
        self.per_user = per_user
        self._under_way: Counter[tuple[str, str]] = Counter()

    @asynccontextmanager
    async def attempt(self, address: str) -> AsyncIterator[TokenAttempt]:
        """One request's attempt; raises the 429 when the address has no room for it."""
        attempt = TokenAttempt(self.per_user, self._under_way)
        try:
            await attempt.admit(self.per_address, address)
            yield attempt
        finally:
            attempt.end()


class TokenAttempt:
    def __init__(self, per_user: Limit, under_way: Counter[tuple[str, str]]) -> None:
        self._per_user = per_user
        self._under_way = under_way
        self._held: list[tuple[Limit, str]] = []

    async def for_user(self, name: str) -> None:
        """Raises the 429 when the user name has no room for the attempt."""
        await self.admit(self._per_user, name)

    async def admit(self, limit: Limit, key: str) -> None:
        self._under_way[limit.name, key] += 1
        self._held.append((limit, key))
        refusal = await limit.check(key, cost=self._under_way[limit.name, key])
        if refusal is not None:
            raise refusal

    async def failed(self) -> None:
        for limit, key in self._held:
            await limit.count(key)

    def end(self) -> None:
        for limit, key in self._held:
            self._under_way[limit.name, key] -= 1
            if self._under_way[limit.name, key] <= 0:
                del self._under_way[limit.name, key]  # the counter must not grow with every address seen
        self._held.clear()
