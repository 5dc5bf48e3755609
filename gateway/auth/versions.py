"""Whether a valid token's user still accepts it: the token's version against the user's current one,
read through a short per-process cache, so that a removed or rotated user's tokens are refused at most
`ttl` seconds later by every process, while a request whose entry is fresh costs no statement.

A token newer than the cached version (issued after a rotation this process has not seen yet, or for a
user added again after removal) makes the entry be read again at once, instead of being refused until it
expires. Only tokens signed with our key carry a version, so this costs one read per rotation, not one per
request of a stolen older token.
"""

from __future__ import annotations

import asyncio
import contextvars
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass

from datasources import users
from datasources.availability import is_outage
from datasources.database import Database
from datasources.users import TokenVersion

DEFAULT_SIZE = 10_000  # users remembered per process; the least recently used go first
# How far this process's clock may be ahead of the one that created a user: the token of a user created
# after this process found no such user (and knew none before) is read again, not refused until the entry
# expires.
CLOCK_SLACK = 60.0


@dataclass(frozen=True, slots=True)
class _Entry:
    version: TokenVersion | None  # None: no such user
    newest: TokenVersion | None  # the newest known of the name: the version, or a removed user's last one
    serial: int  # of the read, in the order reads started
    checked: float  # when the read started (monotonic): the entry is as old as that
    checked_wall: float  # the same moment by the wall clock, to compare with a user's creation

    def accepts(self, carried: TokenVersion | None, issued_at: int | None) -> bool:
        if self.version is None:
            return False
        if carried is None:
            # Tokens issued before tokens carried a version: valid until the user's first rotation, and for
            # the user they were issued to only, not one added again under its name since (its number is 0
            # again, but it was created after the token, whose `iat` is the second it was issued in).
            created_before = issued_at is not None and self.version.created < (issued_at + 1) * 1_000_000
            return self.version.number == 0 and created_before
        return carried == self.version

    def older_than(self, carried: TokenVersion | None) -> bool:
        if carried is None:
            return False
        if self.newest is not None:
            return carried > self.newest
        return carried.created / 1e6 > self.checked_wall - CLOCK_SLACK


class TokenVersions:
    """One process's cache of users' token versions. Concurrent requests for one user share one read."""

    def __init__(
        self,
        db: Database,
        ttl: float,
        *,
        size: int = DEFAULT_SIZE,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.db = db
        self.ttl = ttl
        self.size = size
        self._clock = clock
        self._entries: OrderedDict[str, _Entry] = OrderedDict()
        self._reads: dict[str, asyncio.Task[_Entry]] = {}
        self._serial = 0  # of the last read started

    async def accepts(self, name: str, carried: TokenVersion | None, *, issued_at: int | None = None) -> bool:
        """Whether `name`'s tokens of version `carried`, issued at `issued_at` (seconds since 1970), are still
        valid. Raises what reading the database raises when it is unavailable and no earlier answer for the
        user is known."""
        entry = await self._entry(name)
        if entry.accepts(carried, issued_at):
            return True
        if entry.older_than(carried):
            entry = await self._entry(name, not_before=self._serial + 1)
        return entry.accepts(carried, issued_at)

    async def _entry(self, name: str, *, not_before: int | None = None) -> _Entry:
        """A fresh entry, or one of a read started from the `not_before`th on. At most two reads: one under
        way may have started before."""
        known = self._entries.get(name)
        if known is not None and self._fresh(known, not_before):
            self._entries.move_to_end(name)
            return known
        for _ in range(2):
            read = self._reads.get(name) or self._start_read(name)
            # Shielded: a request that gives up (its timeout) does not cancel the read the others wait for.
            entry = await asyncio.shield(read)
            if not_before is None or entry.serial >= not_before:
                break
        return entry

    async def close(self) -> None:
        """Ends the reads still under way (their requests may have gone, shielded reads go on): before the
        database is disposed, so that their connections go back to a pool that is then closed."""
        reads = list(self._reads.values())
        for read in reads:
            read.cancel()
        await asyncio.gather(*reads, return_exceptions=True)

    def _fresh(self, entry: _Entry, not_before: int | None) -> bool:
        if not_before is not None:
            return entry.serial >= not_before
        return self._clock() - entry.checked < self.ttl

    def _start_read(self, name: str) -> asyncio.Task[_Entry]:
        # A context of its own: the read is shared by every request waiting for it, so it is counted in none
        # of their SQL statistics (Server-Timing), which then do not depend on which request came first.
        self._serial += 1
        read = asyncio.create_task(self._read(name, self._serial), context=contextvars.Context())
        self._reads[name] = read
        read.add_done_callback(lambda done: self._read_done(name, done))
        return read

    def _read_done(self, name: str, read: asyncio.Task[_Entry]) -> None:
        if self._reads.get(name) is read:
            del self._reads[name]
        if not read.cancelled():
            read.exception()  # taken, so asyncio does not report it as lost when nobody waits any more

    async def _read(self, name: str, serial: int) -> _Entry:
        checked, checked_wall = self._clock(), time.time()
        known = self._entries.get(name)
        try:
            async with self.db.reader() as session:
                version = await users.token_version(session, name)
        except Exception as error:
            if known is None or not is_outage(error):
                raise
            # The database is away: keep the last answer for another ttl (the commands that remove or rotate
            # a user need the database too) rather than fail requests that may need no data.
            version = known.version
        newest = version if version is not None or known is None else known.newest
        entry = _Entry(version, newest, serial, checked, checked_wall)
        self._entries[name] = entry
        self._entries.move_to_end(name)
        while len(self._entries) > self.size:
            self._entries.popitem(last=False)
        return entry
