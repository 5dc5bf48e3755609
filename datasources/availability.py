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

# SQLSTATEs of a database that cannot serve now, whatever the statement: the connection failed or was lost
# (class 08), the server is short of connections, disk or memory (53), shuts down, was restarted, is
# starting, or cancelled a statement on its timeout (57), refuses the login (28000, 28P01), the database is
# gone (3D000), or it is a read-only standby after a failover (25006).
_OUTAGE_SQLSTATES = ("08", "53", "57", "28000", "28P01", "3D000", "25006")
# Outages only while connecting: `ALTER DATABASE ... ALLOW_CONNECTIONS false` answers 55000. Raised by a
# statement, 55000 is the statement's own mistake (a sequence's currval before nextval).
_CONNECTING_SQLSTATES = ("55000",)
_CONNECTING_MODULES = ("asyncpg.connect_utils",)
# SQLite's primary result codes of a database that cannot serve now, not a statement's mistake: its busy
# timeout ran out (BUSY, LOCKED), the disk is full, the file read-only (chmod, a read-only mount), an I/O
# error, the file or its -wal/-shm cannot be opened, the WAL index lock protocol failed.
SQLITE_OUTAGES = frozenset(
    {
        sqlite3.SQLITE_BUSY,
        sqlite3.SQLITE_LOCKED,
        sqlite3.SQLITE_NOMEM,
        sqlite3.SQLITE_READONLY,
        sqlite3.SQLITE_IOERR,
        sqlite3.SQLITE_FULL,
        sqlite3.SQLITE_CANTOPEN,
        sqlite3.SQLITE_PROTOCOL,
    }
)
_DRIVERS = ("sqlalchemy.", "asyncpg.", "aiosqlite.")


class ConnectionLost(ConnectionError):
    """A connection its user found closed: asyncpg says so in an InterfaceError whose only sign is its words."""


def is_outage(error: BaseException) -> bool:
    """The database could not be reached or did not answer in time (versus a bug or a bad statement).

    Told by the exception's type, SQLSTATE or SQLite result code, never by its message's words."""
    seen: set[int] = set()
    current: BaseException | None = error
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        if _is_outage_itself(current):
            return True
        orig = getattr(current, "orig", None)  # a DBAPIError's driver error
        if isinstance(orig, BaseException) and id(orig) not in seen and is_outage(orig):
            return True
        current = current.__cause__ or current.__context__
    return False


def sqlite_code(error: BaseException) -> int | None:
    """SQLite's primary result code of an sqlite3 error (SQLITE_IOERR for SQLITE_IOERR_WRITE); None for others."""
    code = getattr(error, "sqlite_errorcode", None) if isinstance(error, sqlite3.Error) else None
    return code & 0xFF if isinstance(code, int) else None


def _is_outage_itself(error: BaseException) -> bool:
    if isinstance(error, exc.TimeoutError | exc.DisconnectionError | ConnectionLost):
        return True  # no connection came free in the pool in time; a dead one found at checkout
    if isinstance(error, OSError | TimeoutError | asyncio.TimeoutError) and _raised_in(error, _DRIVERS):
        return True  # a refused or reset connection, a connect or statement timeout (not a file error)
    if isinstance(error, exc.DBAPIError) and error.connection_invalidated:
        return True  # SQLAlchemy's dialect took it for a disconnect
    if sqlite_code(error) in SQLITE_OUTAGES:
        return True
    sqlstate = getattr(error, "sqlstate", None) or getattr(error, "pgcode", None)
    if not isinstance(sqlstate, str):
        return False
    return sqlstate.startswith(_OUTAGE_SQLSTATES) or (
        sqlstate in _CONNECTING_SQLSTATES and _raised_in(error, _CONNECTING_MODULES)
    )


def _raised_in(error: BaseException, modules: tuple[str, ...]) -> bool:
    traceback = error.__traceback__
    while traceback is not None:
        if traceback.tb_frame.f_globals.get("__name__", "").startswith(modules):
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


def one_line(error: BaseException) -> str:
    """The error's type and its message's first line: what a log line about it needs."""
    text = str(error).strip().splitlines()
    return f"{type(error).__name__}: {text[0] if text else ''}".rstrip(": ")
