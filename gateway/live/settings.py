"""Live subscription settings, read from the `GATEWAY_LIVE_*` environment variables by gateway/settings.py
(docs/how-to/live-subscriptions.md)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class LiveSettings:
    # How often each process reads the outbox for other processes' events while someone subscribes (its
    # own commits wake it at once).
    poll_seconds: float = 1.0
    # How long a missing outbox id holds back the events after it (datasources/live/feed.py): longer than
    # any transaction that records an event may take.
    gap_seconds: float = 10.0
    buffer: int = 1000  # events waiting to be sent to one subscription before it is dropped as too slow
    per_connection: int = 20  # subscriptions open at once on one connection
    per_user: int = 100  # ... and by one user on one process
    ping_seconds: float = 15.0  # how often the server pings a connection
    idle_seconds: float = 60.0  # a connection that sends nothing (not even a pong) this long is closed
    init_seconds: float = 10.0  # the time a new connection has to send connection_init
