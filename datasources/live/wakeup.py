"""Waking live feeds right after a commit that recorded outbox events, instead of at their next poll: this
process's at once, and on PostgreSQL every process's that LISTENs on CHANNEL (datasources/commit_wakeup.py).
Without it, or when a notification is lost, polling finds them."""

from __future__ import annotations

import logging

from datasources.commit_wakeup import CommitWakeup

CHANNEL = "gateway_outbox"
_WAKEUP = CommitWakeup(CHANNEL, "outbox_events_added", logging.getLogger("gateway.live"), "the live feed")

announce = _WAKEUP.announce
listen = _WAKEUP.listen
_listeners = _WAKEUP.listeners
