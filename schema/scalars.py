"""Scalars shared by every domain (registered with the schema in schema/schema.py)."""

from __future__ import annotations

import datetime as dt
from typing import NewType

import strawberry
from strawberry.types.scalar import ScalarDefinition

UtcDateTime = NewType("UtcDateTime", dt.datetime)


def _serialize_utc(value: dt.datetime) -> str:
    return value.astimezone(dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _parse_utc(value: str) -> dt.datetime:
    parsed = dt.datetime.fromisoformat(value)
    if parsed.tzinfo is None:
        raise ValueError("a time needs a zone, e.g. 2026-11-21T10:00:00Z")
    return parsed.astimezone(dt.UTC)


SCALARS: dict[object, ScalarDefinition] = {
    UtcDateTime: strawberry.scalar(
        name="UtcDateTime",
        description="A moment in UTC, ISO 8601 with Z (2026-11-21T10:00:00Z): the ERP's ...UTC fields.",
        serialize=_serialize_utc,
        parse_value=_parse_utc,
    ),
}
