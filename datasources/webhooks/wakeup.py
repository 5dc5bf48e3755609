"""Telling dispatchers that deliveries were added, so that they send them at once instead of at their next
poll: this process's dispatchers right after the commit, and on PostgreSQL every process that LISTENs on
CHANNEL (datasources/commit_wakeup.py)."""

from __future__ import annotations

import logging

from datasources.commit_wakeup import CommitWakeup

CHANNEL = "gateway_webhooks"
_WAKEUP = CommitWakeup(
    CHANNEL, "webhook_deliveries_added", logging.getLogger("gateway.webhooks"), "a webhook dispatcher"
)

announce = _WAKEUP.announce
listen = _WAKEUP.listen
_listeners = _WAKEUP.listeners
