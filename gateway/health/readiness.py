"""Whether this process can serve requests: its database answers in time, and its migrations are at the
head of this code's (a database behind would fail requests that use the newer tables; one migrated by a
newer release may have changed what this code reads)."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

from sqlalchemy.exc import SQLAlchemyError

from datasources import migrate
from datasources.availability import RETRY_AFTER
from datasources.database import Database
from rest_compat.errors import ApiError


@dataclass(frozen=True, slots=True)
class Readiness:
    # Shorter than the database's own timeouts: a probe is given about a second or two, and a database
    # that takes longer is no more ready than one that is down.
    timeout: float

    async def refusal(self, db: Database) -> ApiError | None:
        """None when ready; else the 503 that says why not."""
        try:
            async with asyncio.timeout(self.timeout):
                found = await migrate.revisions(db.engine)
        except (SQLAlchemyError, OSError, TimeoutError) as error:
            # Logged once per outage episode with the driver's reason (datasources/availability.py); the
            # answer names no host, driver or file.
            db.availability.failed(error)
            return ApiError.unavailable("database unavailable", RETRY_AFTER)
        if db.availability.down:
            # The probe's read worked, but requests are being refused: on SQLite a full disk or a read-only
            # file refuses every write while reads go on. Ready again once requests are answered for a while.
            return ApiError.unavailable("database unavailable", RETRY_AFTER)
        return None if found.at_head else _not_at_head(found)


def _not_at_head(found: migrate.Revisions) -> ApiError:
    current, head = ", ".join(found.current) or None, ", ".join(found.head)
    if current is None:
        description = f"database not migrated: head {head}"
    elif found.known:
        description = f"migrations behind: at {current}, head {head}"
    else:
        description = f"migrations unknown to this gateway: at {current}, head {head}"
    return ApiError(
        "unavailable",
        description,
        {"retry_after": RETRY_AFTER, "revision": current, "head": head},
        {"Retry-After": str(RETRY_AFTER)},
    )
