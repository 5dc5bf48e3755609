"""The outbox read as a live feed (GraphQL subscriptions): positions, the reads behind them, and the one
per-process poller that hands each newly committed event to every subscriber of the process."""

from datasources.live.cursors import InvalidCursor, decode_cursor, encode_cursor
from datasources.live.feed import LiveEvent
from datasources.live.hub import Hub, SlowConsumer, Subscriber

__all__ = ["Hub", "InvalidCursor", "LiveEvent", "SlowConsumer", "Subscriber", "decode_cursor", "encode_cursor"]
