"""Waking what follows the catalogue's change positions (the REST_Artikel events, `catalogueChanges`
subscriptions) when they may have moved, instead of at its next poll.

Positions move by triggers, whoever writes, so no write of the gateway's can say it moved them. On PostgreSQL
the trigger of migration 0012 sends a NOTIFY on CHANNEL with every statement that moves one, the ERP's
included, which every process LISTENs to (datasources/webhooks/listener.py). On SQLite a commit of this
process wakes this process's followers (an order's reservations move its articles' positions): a commit that
moved nothing costs them one short read. Other processes' and the ERP's writes are found by polling there.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from sqlalchemy import event
from sqlalchemy.orm import Session

CHANNEL = "gateway_catalogue"  # migration 0012's trigger notifies it

log = logging.getLogger("gateway.changes")
_listeners: set[Callable[[], None]] = set()
_registered = False


def listen_to_commits(callback: Callable[[], None]) -> Callable[[], None]:
    """Calls `callback` after every commit of a session in this process; returns the function that stops it.
    It runs in the committing thread and must only hand the news on."""
    global _registered
    if not _registered:
        event.listen(Session, "after_commit", _after_commit)
        _registered = True
    _listeners.add(callback)
    return lambda: _listeners.discard(callback)


def _after_commit(_session: Session) -> None:
    for callback in list(_listeners):
        try:
            callback()
        except Exception:
            # The commit is done: a follower that cannot be woken finds the change at its next poll.
            log.exception("could not wake a follower of the catalogue's changes")
