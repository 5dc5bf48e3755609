"""Whether the database answers, as requests find out, and the one place that tells an outage from a bug.

An unreachable or timed-out database is an outage, not an unexpected error: requests are answered 503
(the callers map `is_outage` to it), and the log gets one line when an outage starts and one when the
database answers again, with how long it lasted and how many requests were refused, instead of a
traceback per request.
"""

from __future__ import annotations

import asyncio
import logging
import sqlite3
import time

from sqlalchemy import exc

log = logging.getLogger("gateway.database")

# Seconds a refused client is asked to wait (Retry-After): about one connect timeout.
RETRY_AFTER = 5

# An outage ends at the first answer after this long without a failure.
QUIET_SECONDS = 5.0

# SQLSTATE classes and codes of a server that is going away or cancelled a statement on a timeout.
_OUTAGE_SQLSTATES = ("08", "57P01", "57P02", "57P03", "57014", "53300")
_DRIVERS = ("sqlalchemy.", "asyncpg.", "aiosqlite.")


def is_outage(error: BaseException) -> bool:
    """The database could not be reached or did not answer in time (versus a bug or a bad statement)."""
    seen: set[int] = set()
    current: BaseException | None = error
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        if _is_outage_itself(current):
            return True
        orig = getattr(current, "orig", None)  # a DBAPIError's driver error
        if isinstance(orig, BaseException) and id(orig) not in seen and _is_outage_itself(orig):
            return True
        current = current.__cause__ or current.__context__
    return False


def _is_outage_itself(error: BaseException) -> bool:
    if isinstance(error, exc.TimeoutError):
        return True  # no connection came free in the pool in time
    if isinstance(error, OSError | TimeoutError | asyncio.TimeoutError) and _raised_by_a_driver(error):
        return True  # a refused or reset connection, a connect or statement timeout (not a file error)
    if isinstance(error, exc.DBAPIError) and error.connection_invalidated:
        return True
    if isinstance(error, sqlite3.OperationalError):
        return "locked" in str(error) or "busy" in str(error)  # the busy timeout ran out
    sqlstate = getattr(error, "sqlstate", None) or getattr(error, "pgcode", None)
    if isinstance(sqlstate, str) and sqlstate.startswith(_OUTAGE_SQLSTATES):
        return True
    # asyncpg's connection errors carry no SQLSTATE when the connection is simply gone.
    return type(error).__name__ in ("ConnectionDoesNotExistError", "InterfaceError") and "closed" in str(error)


def _raised_by_a_driver(error: BaseException) -> bool:
    traceback = error.__traceback__
    while traceback is not None:
        if traceback.tb_frame.f_globals.get("__name__", "").startswith(_DRIVERS):
            return True
        traceback = traceback.tb_next
    return False


class Availability:
    """Outage episodes of one database: failed() on each refused request, answered() when it works.

    An episode ends at the first answer after QUIET_SECONDS without a failure: on SQLite reads go on
    while a held write lock refuses every write, and each read must not end (and the next write start)
    an episode of its own."""

    def __init__(self, name: str, quiet: float | None = None) -> None:
        self.name = name
        self.quiet = quiet  # None: QUIET_SECONDS
        self._down_since: float | None = None
        self._last_failure = 0.0
        self._refused = 0

    @property
    def down(self) -> bool:
        return self._down_since is not None

    def failed(self, error: BaseException) -> None:
        self._refused += 1
        self._last_failure = time.monotonic()
        if self._down_since is None:
            self._down_since = time.monotonic()
            log.warning("database %s unavailable: %s", self.name, _reason(error))

    def answered(self) -> None:
        quiet = QUIET_SECONDS if self.quiet is None else self.quiet
        if self._down_since is None or time.monotonic() - self._last_failure < quiet:
            return
        lasted, refused = time.monotonic() - self._down_since, self._refused
        self._down_since, self._refused = None, 0
        log.warning("database %s answers again after %.1f s; %d requests were refused", self.name, lasted, refused)


def _reason(error: BaseException) -> str:
    text = str(getattr(error, "orig", None) or error).strip().splitlines()
    return f"{type(error).__name__}: {text[0] if text else ''}".rstrip(": ")
