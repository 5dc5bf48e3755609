"""A subscriber's position in the outbox: opaque and URL-safe outside, an outbox event's id inside. The
feed hands events out in id order with no gaps left open behind them (feed.py), so everything after a
cursor is exactly what its holder has not seen yet."""

from __future__ import annotations

import base64
import binascii

_PREFIX = "outbox:"


class InvalidCursor(ValueError):
    pass


def encode_cursor(event_id: int) -> str:
    return base64.urlsafe_b64encode(f"{_PREFIX}{event_id}".encode()).decode().rstrip("=")


def decode_cursor(cursor: str) -> int:
    """The event id a cursor names; InvalidCursor for anything this module did not make."""
    try:
        text = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)).decode("ascii")
    except (binascii.Error, UnicodeDecodeError, ValueError):
        raise InvalidCursor(cursor) from None
    number = text.removeprefix(_PREFIX)
    if number == text or not number.isdigit() or len(number) > 18 or encode_cursor(int(number)) != cursor:
        raise InvalidCursor(cursor)  # only the one spelling this module makes
    return int(number)
