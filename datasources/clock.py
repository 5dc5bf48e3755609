"""The time the gateway stamps what it writes with: aware UTC (datasources/models/base.py stores it naive)."""

from __future__ import annotations

import datetime as dt


def utcnow() -> dt.datetime:
    return dt.datetime.now(dt.UTC)
