"""Whether a pooled PostgreSQL connection still works, checked at checkout for less than pool_pre_ping costs.

SQLAlchemy's pre-ping for asyncpg is BEGIN, an empty statement and ROLLBACK: three round trips on every
checkout, more than a small request's own statements. A restarted or terminated server closes its
connections, and asyncpg marks a connection closed as soon as the event loop sees its end, which costs
nothing to ask; only a connection that lay idle for a while (long enough for a server to have gone and
come back, or for a network to have dropped it silently) is pinged, with one round trip and no
transaction. A dead connection found either way makes the pool replace every connection older than it,
as pre-ping does. A server that dies in the moment between the check and the first statement is met by
that statement, as it would be after a pre-ping: the request is answered 503 and the pool is renewed.
"""

from __future__ import annotations

import time
from typing import Any

from sqlalchemy import event, exc
from sqlalchemy.ext.asyncio import AsyncEngine
from sqlalchemy.util import await_only

# A connection checked in less than this long ago is trusted without a round trip (if it is not closed).
# Under load the pool hands out the same few connections (LIFO) every few milliseconds, so none is pinged.
TRUSTED_SECONDS = 1.0
_CHECKED_IN = "gateway_checked_in"  # a connection record's info key: when it last went back to the pool


def install(engine: AsyncEngine) -> None:
    pool = engine.sync_engine.pool
    event.listen(pool, "checkin", _checked_in)
    event.listen(pool, "checkout", _check)


def _checked_in(_dbapi_connection: Any, record: Any) -> None:
    record.info[_CHECKED_IN] = time.monotonic()


def _check(dbapi_connection: Any, record: Any, _proxy: Any) -> None:
    driver = dbapi_connection.driver_connection
    if driver.is_closed():
        raise exc.InvalidatePoolError("the server closed the connection")
    checked_in = record.info.get(_CHECKED_IN)
    if checked_in is None or time.monotonic() - checked_in < TRUSTED_SECONDS:
        return  # just opened, or in use a moment ago
    try:
        _ping(driver)
    except Exception as error:
        raise exc.InvalidatePoolError(f"the connection does not answer: {type(error).__name__}") from error


def _ping(driver: Any) -> None:
    # One simple statement outside a transaction: one round trip. The connection's command_timeout bounds it,
    # so a frozen server costs one statement timeout. Not an empty statement (";"): asyncpg fails on the
    # server's answer to that (AttributeError), and every ping then replaced the pool's connections.
    await_only(driver.execute("SELECT 1"))
