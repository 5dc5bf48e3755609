"""Telling dispatchers that deliveries were added, so that they send them at once instead of at their next
poll: this process's dispatchers right after the commit (an SQLAlchemy session event), and on PostgreSQL
every process that LISTENs on CHANNEL (a NOTIFY sent in the transaction, which the database delivers at
its commit and drops with a rollback)."""

from __future__ import annotations

import logging
from collections.abc import Callable

from sqlalchemy import event, func, select
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import Session

from datasources import transaction
from datasources.transaction import Statement

log = logging.getLogger("gateway.webhooks")

CHANNEL = "gateway_webhooks"
_ADDED = "webhook_deliveries_added"  # a session.info key: this transaction added deliveries

# The callbacks of this process's dispatchers. A process-wide registry, as the session event it serves is:
# the session that commits an order knows nothing of the dispatcher that runs beside it.
_listeners: set[Callable[[], None]] = set()

_NOTIFY = Statement(select(func.pg_notify(CHANNEL, "")))  # compiled once (datasources/transaction.py)


async def announce(session: AsyncSession) -> None:
    """Marks the session's transaction as one that added deliveries (once per transaction)."""
    if session.info.get(_ADDED):
        return
    session.info[_ADDED] = True
    if session.get_bind().dialect.name == "postgresql":
        await transaction.run(session, _NOTIFY)


def listen(callback: Callable[[], None]) -> Callable[[], None]:
    """Calls `callback` after every commit in this process that added deliveries; returns the function
    that stops it. The callback runs in the committing thread and must only hand the news on."""
    if not event.contains(Session, "after_commit", _after_commit):
        event.listen(Session, "after_commit", _after_commit)
        event.listen(Session, "after_rollback", _after_rollback)
    _listeners.add(callback)
    return lambda: _listeners.discard(callback)


def _after_commit(session: Session) -> None:
    if not session.info.pop(_ADDED, False):
        return
    for callback in list(_listeners):
        try:
            callback()
        except Exception:
            # The commit is done: a dispatcher that cannot be woken finds the deliveries at its next poll,
            # and the request that committed must not fail for it.
            log.exception("could not wake a webhook dispatcher")


def _after_rollback(session: Session) -> None:
    session.info.pop(_ADDED, None)
