"""The body of a webhook message: Standard Webhooks' recommended envelope around the outbox payload.

    {"type": "REST_Auft", "timestamp": "2026-11-24T09:15:02Z", "data": {...the outbox payload...}}

It is built from the stored event alone, so every attempt sends the same bytes.
"""

from __future__ import annotations

import datetime as dt

import orjson


def message_body(event: str, created_at: dt.datetime, payload: str) -> bytes:
    timestamp = created_at.astimezone(dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    return orjson.dumps({"type": event, "timestamp": timestamp, "data": orjson.loads(payload)})
