"""Waking what waits for rows a transaction added, right after its commit instead of at the waiter's next poll:
this process's waiters at once (an SQLAlchemy session event), and on PostgreSQL every process that LISTENs on
the channel (a NOTIFY sent in the transaction, which the database delivers at its commit and drops with a
rollback). The webhook dispatchers (datasources/webhooks/wakeup.py) and the live feeds
(datasources/live/wakeup.py) each have one."""

from __future__ import annotations

import logging
from collections.abc import Callable

from sqlalchemy import event, func, select
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import Session

from datasources import transaction
from datasources.transaction import Statement


class CommitWakeup:
    def __init__(self, channel: str, info_key: str, log: logging.Logger, waiter: str) -> None:
        self.channel = channel
        self._added = info_key  # a session.info key: this transaction added rows the waiters want
        self._log = log
        self._waiter = waiter  # who could not be woken, for the log line
        self._notify = Statement(select(func.pg_notify(channel, "")))  # compiled once (datasources/transaction.py)
        # Process-wide, as the session event is: the session that commits an order knows nothing of the waiters
        # that run beside it.
        self.listeners: set[Callable[[], None]] = set()
        self._registered = False

    async def announce(self, session: AsyncSession) -> None:
        """Marks the session's transaction as one that added rows (once per transaction)."""
        if session.info.get(self._added):
            return
        session.info[self._added] = True
        if session.get_bind().dialect.name == "postgresql":
            await transaction.run(session, self._notify)

    def listen(self, callback: Callable[[], None]) -> Callable[[], None]:
        """Calls `callback` after every commit in this process that added rows; returns the function that stops
        it. The callback runs in the committing thread and must only hand the news on."""
        if not self._registered:
            event.listen(Session, "after_commit", self._after_commit)
            event.listen(Session, "after_rollback", self._after_rollback)
            self._registered = True
        self.listeners.add(callback)
        return lambda: self.listeners.discard(callback)

    def _after_commit(self, session: Session) -> None:
        if not session.info.pop(self._added, False):
            return
        for callback in list(self.listeners):
            try:
                callback()
            except Exception:
                # The commit is done: a waiter that cannot be woken finds the rows at its next poll, and the
                # request that committed must not fail for it.
                self._log.exception("could not wake %s", self._waiter)

    def _after_rollback(self, session: Session) -> None:
        session.info.pop(self._added, None)
